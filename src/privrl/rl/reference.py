"""Straightforward numpy implementation of UCBVI + the runner loop, per seed.

It exists for two reasons: ``bench/throughput.py`` measures the numba engine against it,
and the tests check that the numba kernel reproduces it (same algorithm, same random
stream consumed in the same order, so the regret curves agree to rounding).
"""
from __future__ import annotations

import numpy as np

from privrl.rl.mdp import TabularMDP, optimal_return, policy_values
from privrl.rl.planning import backward_induction


def ucbvi_numpy(mdp: TabularMDP, K: int, rng: np.random.Generator, bonus_scale: float = 1.0,
                delta: float = 0.05) -> np.ndarray:
    """Per-episode regret gaps float64[K] of UCBVI-Hoeffding (Azar et al. 2017, Alg. 1)."""
    H, S, A = mdp.H, mdp.S, mdp.A
    L = np.log(5.0 * S * A * K * H / delta)
    n_sa = np.zeros((H, S, A))
    n_sas = np.zeros((H, S, A, S))
    r_sum = np.zeros((H, S, A))
    P_cdf = np.cumsum(mdp.P, axis=3)
    P_cdf[..., -1] = 1.0
    det = np.isclose(mdp.P.max(axis=3), 1.0, atol=0.0, rtol=0.0)
    rho_cdf = np.cumsum(mdp.rho)
    v_star = optimal_return(mdp)
    bern = mdp.reward_noise == "bernoulli"
    gaps = np.zeros(K)
    pi = np.zeros((H, S), np.int64)

    def layer(h: int, V: np.ndarray) -> np.ndarray:
        cap = float(H - h)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = (r_sum[h] + n_sas[h] @ V) / n_sa[h] + bonus_scale * 7.0 * H * L / np.sqrt(n_sa[h])
        q = np.where(n_sa[h] > 0, np.minimum(q, cap), cap)
        best = q.max(axis=1, keepdims=True)
        masked = np.where(q == best, n_sa[h], np.inf)  # ties -> least visited, then lowest index
        pi[h] = masked.argmin(axis=1)
        return best[:, 0]

    for k in range(K):
        backward_induction(H, S, layer)
        gaps[k] = max(v_star - float(mdp.rho @ policy_values(mdp, pi)[0]), 0.0)
        s = int(np.searchsorted(rho_cdf, rng.random(), side="right")) if rho_cdf[0] < 1.0 else 0
        for h in range(H):
            a = pi[h, s]
            mean = mdp.R[h, s, a]
            r = (1.0 if rng.random() < mean else 0.0) if bern and 0.0 < mean < 1.0 else mean
            s2 = int(mdp.P[h, s, a].argmax()) if det[h, s, a] else \
                min(int(np.searchsorted(P_cdf[h, s, a], rng.random(), side="right")), S - 1)
            n_sa[h, s, a] += 1
            n_sas[h, s, a, s2] += 1
            r_sum[h, s, a] += r
            s = s2
    return gaps
