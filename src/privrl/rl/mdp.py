"""Finite-horizon tabular MDPs as validated arrays, and exact planning as pure functions.

Notation follows Vietri et al. (2020), Sec. 2.1: M = (S, A, R, P, p0, H) with
time-dependent dynamics. Layers are indexed h = 0..H-1 here (h = 1..H in the papers).

Shapes
------
P   : float64[H, S, A, S]   P[h, s, a, s'] = Pr(s_{h+1} = s' | s_h = s, a_h = a)
R   : float64[H, S, A]      mean reward in [0, 1]
rho : float64[S]            initial-state distribution (p0 in Vietri et al.)
pi  : int64[H, S]           deterministic policy, pi[h, s] = action
Q   : float64[H, S, A];  V : float64[H + 1, S] with V[H] = 0
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from privrl import io
from privrl.rl.planning import backward_induction

ROW_TOL = 1e-9
REWARD_NOISE = ("bernoulli", "deterministic")


@dataclass(frozen=True, eq=False)
class TabularMDP:
    """A finite-horizon tabular MDP; validated on construction (ValueError names the place)."""

    P: np.ndarray
    R: np.ndarray
    rho: np.ndarray
    reward_noise: str = "bernoulli"
    name: str = "mdp"
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # private copies: freezing them must not touch the caller's arrays
        P = np.array(self.P, dtype=np.float64, order="C", copy=True)
        R = np.array(self.R, dtype=np.float64, order="C", copy=True)
        rho = np.array(self.rho, dtype=np.float64, order="C", copy=True)
        validate(P, R, rho, self.reward_noise)
        for arr in (P, R, rho):
            arr.setflags(write=False)
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "rho", rho)

    @property
    def H(self) -> int:
        return self.P.shape[0]

    @property
    def S(self) -> int:
        return self.P.shape[1]

    @property
    def A(self) -> int:
        return self.P.shape[2]

    @property
    def is_stationary(self) -> bool:
        return bool(np.all(self.P == self.P[:1]) and np.all(self.R == self.R[:1]))

    def __repr__(self) -> str:
        return f"TabularMDP(name={self.name!r}, H={self.H}, S={self.S}, A={self.A}, params={self.params})"


def validate(P: np.ndarray, R: np.ndarray, rho: np.ndarray, reward_noise: str = "bernoulli") -> None:
    """Raise ValueError naming the first offending entry of a malformed MDP."""
    if P.ndim != 4 or P.shape[1] != P.shape[3]:
        raise ValueError(f"P must have shape [H, S, A, S]; got {P.shape}")
    H, S, A, _ = P.shape
    if min(H, S, A) < 1:
        raise ValueError(f"P must have H, S, A >= 1; got shape {P.shape}")
    if R.shape != (H, S, A):
        raise ValueError(f"R must have shape [H, S, A] = {(H, S, A)}; got {R.shape}")
    if rho.shape != (S,):
        raise ValueError(f"rho must have shape [S] = {(S,)}; got {rho.shape}")
    if reward_noise not in REWARD_NOISE:
        raise ValueError(f"reward_noise must be one of {REWARD_NOISE}; got {reward_noise!r}")
    bad = np.argwhere(~np.isfinite(P))
    if bad.size:
        h, s, a, s2 = bad[0]
        raise ValueError(f"P[h={h}, s={s}, a={a}, s'={s2}] is not finite ({P[h, s, a, s2]})")
    bad = np.argwhere(P < 0)
    if bad.size:
        h, s, a, s2 = bad[0]
        raise ValueError(f"P[h={h}, s={s}, a={a}, s'={s2}] = {P[h, s, a, s2]} is negative")
    row_err = np.abs(P.sum(axis=3) - 1.0)
    bad = np.argwhere(row_err > ROW_TOL)
    if bad.size:
        h, s, a = bad[0]
        raise ValueError(
            f"transition row P[h={h}, s={s}, a={a}, :] sums to {P[h, s, a].sum():.12g}, not 1 "
            f"(tolerance {ROW_TOL:g})"
        )
    bad = np.argwhere(~np.isfinite(R) | (R < 0) | (R > 1))
    if bad.size:
        h, s, a = bad[0]
        raise ValueError(f"mean reward R[h={h}, s={s}, a={a}] = {R[h, s, a]} is not in [0, 1]")
    if not np.all(np.isfinite(rho)) or np.any(rho < 0):
        s = int(np.argwhere(~np.isfinite(rho) | (rho < 0))[0, 0])
        raise ValueError(f"initial distribution rho[s={s}] = {rho[s]} is not a probability")
    if abs(rho.sum() - 1.0) > ROW_TOL:
        raise ValueError(f"initial distribution rho sums to {rho.sum():.12g}, not 1")


def optimal_values(mdp: TabularMDP) -> tuple[np.ndarray, np.ndarray]:
    """Backward induction: returns (Q*[H, S, A], V*[H + 1, S])."""
    Q = np.zeros((mdp.H, mdp.S, mdp.A))

    def layer(h: int, V_next: np.ndarray) -> np.ndarray:
        Q[h] = mdp.R[h] + mdp.P[h] @ V_next
        return Q[h].max(axis=1)

    return Q, backward_induction(mdp.H, mdp.S, layer)


def worst_policy(mdp: TabularMDP) -> np.ndarray:
    """A deterministic policy pi[H, S] minimising the expected return (backward induction with min)."""
    pi = np.zeros((mdp.H, mdp.S), np.int64)

    def layer(h: int, V_next: np.ndarray) -> np.ndarray:
        Q = mdp.R[h] + mdp.P[h] @ V_next
        pi[h] = Q.argmin(axis=1)
        return Q.min(axis=1)

    backward_induction(mdp.H, mdp.S, layer)
    return pi


def optimal_policy(mdp: TabularMDP) -> np.ndarray:
    """A greedy optimal policy pi*[H, S] (ties broken towards the lowest action)."""
    Q, _ = optimal_values(mdp)
    return Q.argmax(axis=2).astype(np.int64)


def policy_values(mdp: TabularMDP, pi: np.ndarray) -> np.ndarray:
    """V^pi[H + 1, S] of a deterministic policy pi[H, S] (Vietri et al. Sec. 2.1)."""
    pi = np.asarray(pi, dtype=np.int64)
    if pi.shape != (mdp.H, mdp.S):
        raise ValueError(f"policy must have shape [H, S] = {(mdp.H, mdp.S)}; got {pi.shape}")
    if pi.min() < 0 or pi.max() >= mdp.A:
        raise ValueError(f"policy actions must lie in 0..{mdp.A - 1}")
    idx = np.arange(mdp.S)
    return backward_induction(mdp.H, mdp.S, lambda h, V_next: mdp.R[h, idx, pi[h]] + mdp.P[h, idx, pi[h]] @ V_next)


def expected_return(mdp: TabularMDP, pi: np.ndarray) -> float:
    """rho^pi = p0^T V^pi_1 (Vietri et al. Sec. 2.1)."""
    return float(mdp.rho @ policy_values(mdp, pi)[0])


def optimal_return(mdp: TabularMDP) -> float:
    """rho^* = p0^T V^*_1."""
    return float(mdp.rho @ optimal_values(mdp)[1][0])


def stationary(P_sas: np.ndarray, R_sa: np.ndarray, rho: np.ndarray, H: int, **kw: Any) -> TabularMDP:
    """Build a stationary MDP from P[S, A, S] and R[S, A] by repeating them over H layers."""
    P = np.broadcast_to(P_sas, (H, *P_sas.shape)).copy()
    R = np.broadcast_to(R_sa, (H, *R_sa.shape)).copy()
    return TabularMDP(P, R, rho, **kw)


def save(mdp: TabularMDP, path: str | Path) -> None:
    """Save arrays and metadata (name, params, reward noise) to one .npz file, atomically."""
    meta = {"name": mdp.name, "params": mdp.params, "reward_noise": mdp.reward_noise}
    with io.atomic_path(path, suffix=".npz") as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, P=mdp.P, R=mdp.R, rho=mdp.rho, meta=np.array(json.dumps(meta, default=io._json_default)))


def load(path: str | Path) -> TabularMDP:
    """Load an MDP written by :func:`save` (validated again on construction)."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        return TabularMDP(z["P"], z["R"], z["rho"], reward_noise=meta["reward_noise"], name=meta["name"],
                          params=meta["params"])
