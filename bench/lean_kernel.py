"""A lean UCBVI kernel: the reference for privrl's fixed per-episode cost.

    python bench/lean_kernel.py [--episodes 100000]

One numba function doing, per episode, the work the algorithm needs and nothing else: the
optimistic backward induction of UCBVI-Hoeffding (Azar, Osband & Munos 2017, Alg. 1, bonus_1;
Q_h = min(H - h, r^ + bonus + p^ . V_{h+1}), 0-based h, greedy argmax), the exact regret of
the played policy (V*_1 - V^pi_1 averaged over rho, by a full evaluation every episode: no
cache), one sampled episode, and the count updates. No recorder (one running sum), no
checkpoints, ties to the less visited action then the lower index (as privrl), no evaluation cache, no
chunking or resumable state, one flat loop. ``bench/throughput.py`` times privrl's UCBVI
against it; the ratio is privrl's fixed per-episode overhead at a given instance size.

Arrays as :func:`privrl.rl.engine.env_arrays`: P, P_cdf float64[H, S, A, S], R float64[H, S, A],
rho_cdf float64[S], v_star = rho^T V*_1. Returns the cumulative regret after K episodes.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit


@njit(cache=True, fastmath={"contract"})  # privrl's planner flags (planning.FP_FLAGS): the same sums
def lean_ucbvi(P, P_cdf, R, det, rho, rho_cdf, v_star, K, delta, scale, bern, rng):
    """K episodes of UCBVI-Hoeffding; returns sum_k max(0, V*_1 - V^{pi_k}_1) (exact)."""
    H, S, A = R.shape
    L = np.log(5.0 * S * A * K * H / delta)
    n = np.zeros((H, S, A))
    nn = np.zeros((H, S, A, S))
    rsum = np.zeros((H, S, A))
    qb = np.full((H, S, A), np.inf)  # r^ + bonus (inf: unvisited)
    V = np.zeros((H + 1, S))
    W = np.zeros((H + 1, S))
    pi = np.zeros((H, S), np.int64)
    regret = 0.0
    for _ in range(K):
        for h in range(H - 1, -1, -1):  # optimistic backward induction
            cap = float(H - h)
            for s in range(S):
                best, ba, nb = -1.0, 0, 0.0
                for a in range(A):
                    q = qb[h, s, a]
                    if q < cap:
                        inv = 1.0 / n[h, s, a]
                        for s2 in range(S):
                            q += (nn[h, s, a, s2] * inv) * V[h + 1, s2]
                    if q >= cap:
                        q = cap
                    c = n[h, s, a]
                    if q > best or (q == best and c < nb):  # ties to the less visited, then the lower a
                        best, ba, nb = q, a, c
                pi[h, s] = ba
                V[h, s] = best
        for h in range(H - 1, -1, -1):  # exact value of the policy played
            for s in range(S):
                a = pi[h, s]
                v = R[h, s, a]
                for s2 in range(S):
                    v += P[h, s, a, s2] * W[h + 1, s2]
                W[h, s] = v
        v1 = 0.0
        for s in range(S):
            v1 += rho[s] * W[0, s]
        gap = v_star - v1
        regret += gap if gap > 0.0 else 0.0
        s = 0  # one episode
        if S > 1 and rho_cdf[0] < 1.0:
            u = rng.random()
            while s < S - 1 and u >= rho_cdf[s]:
                s += 1
        for h in range(H):
            a = pi[h, s]
            m = R[h, s, a]
            r = (1.0 if rng.random() < m else 0.0) if bern and 0.0 < m < 1.0 else m
            s2 = det[h, s, a]
            if s2 < 0:
                u = rng.random()
                s2 = 0
                while s2 < S - 1 and u >= P_cdf[h, s, a, s2]:
                    s2 += 1
            n[h, s, a] += 1.0
            nn[h, s, a, s2] += 1.0
            rsum[h, s, a] += r
            c = n[h, s, a]
            qb[h, s, a] = rsum[h, s, a] / c + scale * 7.0 * H * L / np.sqrt(c)
            s = s2
    return regret


def lean_args(env: tuple) -> tuple:
    """The lean kernel's environment arguments from privrl's env tuple."""
    P, P_cdf, R, det, bern, rho, rho_cdf, v_star = env[:8]  # env[8:]: the common-random-numbers stream
    return P, P_cdf, R, det, rho, rho_cdf, float(v_star[0]), bool(bern[0])


def lean_seconds(env: tuple, K: int, seeds: int, rng_of) -> float:
    """CPU seconds for ``seeds`` runs of K episodes (compiled before the clock starts)."""
    args = lean_args(env)
    lean_ucbvi(*args[:-1], 10, 0.05, 1.0, args[-1], rng_of(999))
    t0 = time.process_time()
    for s in range(seeds):
        lean_ucbvi(*args[:-1], K, 0.05, 1.0, args[-1], rng_of(s))
    return time.process_time() - t0


def main() -> None:
    from privrl.rl import engine, envs, seeding

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=100_000)
    args = ap.parse_args()
    env = engine.env_arrays(envs.riverswim(S=2, H=3))
    t = lean_seconds(env, args.episodes, 4, lambda s: seeding.generator("bench", "lean", s))
    print(f"lean UCBVI, riverswim S=2 H=3: {t / (4 * args.episodes) * 1e9:.1f} ns per episode")


if __name__ == "__main__":
    main()
