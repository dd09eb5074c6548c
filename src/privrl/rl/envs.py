"""Environment registry: named factories returning validated :class:`TabularMDP` s.

``make(name, **params)`` is the only entry point the pipeline uses; ``ENVS`` is the
single lookup table of environment factories, each added by :func:`register` with its shape.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from privrl.rl.mdp import TabularMDP, stationary


def riverswim(S: int = 6, H: int = 20, reward_noise: str = "bernoulli") -> TabularMDP:
    """RiverSwim in the form of Osband, Russo & Van Roy (2013), App. / Strehl & Littman (2008).

    Actions: 0 = left (deterministic s -> max(s-1, 0)), 1 = right:
    from s0 0.6 right / 0.4 stay; interior 0.35 right / 0.6 stay / 0.05 left;
    last state 0.6 stay / 0.4 left. Mean reward 0.005 at (s0, left), 1 at (last, right).
    Start in s0. Stationary over the H layers.
    """
    if S < 2:
        raise ValueError(f"riverswim needs S >= 2; got S={S}")
    P = np.zeros((S, 2, S))
    R = np.zeros((S, 2))
    for s in range(S):
        P[s, 0, max(s - 1, 0)] = 1.0
        if s == 0:
            P[s, 1, min(1, S - 1)] += 0.6
            P[s, 1, 0] += 0.4
        elif s == S - 1:
            P[s, 1, s] += 0.6
            P[s, 1, s - 1] += 0.4
        else:
            P[s, 1, s + 1] += 0.35
            P[s, 1, s] += 0.6
            P[s, 1, s - 1] += 0.05
    R[0, 0] = 0.005
    R[S - 1, 1] = 1.0
    rho = np.zeros(S)
    rho[0] = 1.0
    return stationary(P, R, rho, H, reward_noise=reward_noise, name="riverswim",
                      params={"S": S, "H": H, "reward_noise": reward_noise})


def garnet(S: int = 10, A: int = 3, branching: int = 3, H: int = 10, seed: int = 0,
           reward_noise: str = "bernoulli") -> TabularMDP:
    """Random stationary MDP (Archibald et al. 1995 "garnet"): each (s, a) has ``branching``
    distinct random successors with Dirichlet(1) weights; mean rewards ~ U[0, 1]; start in s0.
    Deterministic given ``seed`` (its own SeedSequence, no global RNG)."""
    if not 1 <= branching <= S:
        raise ValueError(f"garnet needs 1 <= branching <= S; got branching={branching}, S={S}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, S, A, branching]))
    P = np.zeros((S, A, S))
    for s in range(S):
        for a in range(A):
            succ = rng.choice(S, size=branching, replace=False)
            P[s, a, succ] = rng.dirichlet(np.ones(branching))
    P /= P.sum(axis=2, keepdims=True)
    R = rng.uniform(0.0, 1.0, size=(S, A))
    rho = np.zeros(S)
    rho[0] = 1.0
    return stationary(P, R, rho, H, reward_noise=reward_noise, name="garnet",
                      params={"S": S, "A": A, "branching": branching, "H": H, "seed": seed,
                              "reward_noise": reward_noise})


def hard_instance(n: int = 4, m: int = 2, H: int = 5, gap: float = 0.2, seed: int = 0,
                  reward_noise: str = "bernoulli") -> TabularMDP:
    """Lower-bound family of Vietri et al. (2020), Sec. 6 and App. Fig. 2.

    States 0..n-1 are the initial states (drawn uniformly), n is '+', n+1 is '-'; actions
    {0..m}. From an initial state, action a reaches '+' with probability
    1/2 + gap/2 for a = 0, 1/2 + gap for a = I_s != 0, and 1/2 otherwise; '+' and '-' are
    absorbing (every action self-loops). Reward 1 per step spent in '+', including the
    step that enters it, so an episode returns H or 0. Here the first-step reward is drawn
    with mean Pr[+|s, a] (same expectation; see docs/decisions/engine.md). The optimal arms I_s are
    drawn from ``seed`` (I_s = 0 is allowed, as in the paper).
    """
    if n < 1 or m < 1 or H < 2 or not 0 < gap <= 1:
        raise ValueError(f"hard_instance needs n, m >= 1, H >= 2, 0 < gap <= 1; got {n=}, {m=}, {H=}, {gap=}")
    S, A = n + 2, m + 1
    plus, minus = n, n + 1
    rng = np.random.default_rng(np.random.SeedSequence([seed, n, m]))
    arms = rng.integers(0, A, size=n)
    p_plus = np.full((n, A), 0.5)
    p_plus[:, 0] = 0.5 + gap / 2
    for s in range(n):
        if arms[s] != 0:
            p_plus[s, arms[s]] = 0.5 + gap
    P = np.zeros((H, S, A, S))
    R = np.zeros((H, S, A))
    P[:, :n, :, plus] = p_plus
    P[:, :n, :, minus] = 1 - p_plus
    P[:, plus, :, plus] = 1.0
    P[:, minus, :, minus] = 1.0
    R[0, :n, :] = p_plus
    R[1:, plus, :] = 1.0
    rho = np.zeros(S)
    rho[:n] = 1.0 / n
    return TabularMDP(P, R, rho, reward_noise=reward_noise, name="hard_instance",
                      params={"n": n, "m": m, "H": H, "gap": gap, "seed": seed,
                              "optimal_arms": arms.tolist(), "reward_noise": reward_noise})


ENVS: dict[str, Callable[..., TabularMDP]] = {}


def register(name: str, factory: Callable[..., TabularMDP],
             shape: Callable[[dict[str, Any]], tuple[int, int, int]]) -> None:
    """Add environment ``name``: ``factory(**params)`` builds it; ``shape(params)`` gives its (H, S, A)
    from its parameters (every default filled in) without building it -- what the door's memory guard
    (privrl.plan.memory_bounds) prices before any job, so that a size too large is refused before the
    factory allocates it. Every environment declares its shape: one without (added to ``ENVS`` by
    hand) is refused by the door."""
    factory.shape = shape
    ENVS[name] = factory


register("riverswim", riverswim, lambda p: (p["H"], p["S"], 2))
register("garnet", garnet, lambda p: (p["H"], p["S"], p["A"]))
register("hard_instance", hard_instance, lambda p: (p["H"], p["n"] + 2, p["m"] + 1))


def make(name: str, **params: Any) -> TabularMDP:
    """Build a registered environment by name."""
    try:
        factory = ENVS[name]
    except KeyError:
        raise ValueError(f"unknown environment {name!r}; registered: {sorted(ENVS)}") from None
    return factory(**params)
