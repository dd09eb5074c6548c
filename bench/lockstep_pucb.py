"""Lock-step seeds, measured: G seeds of the lean PUCB kernel advanced episode by episode together.

    python bench/lockstep_pucb.py [--episodes 300000] [--seeds 1 2 4 8] [--rounds 3]

The one lever left for the private agents' episode that keeps every bit (docs/decisions/performance.md,
"The throughput table on one CPU, and the design at its lean kernels"): a kernel that runs G seeds at
once, each on its own generator, with every phase of the episode (PrivQ's plan, the evaluation of the
policy played, the sampled episode, the binary mechanism's step) looped over the seeds innermost, so
that the core overlaps G independent dependency chains instead of waiting on one. Each seed draws from
its own generator in the order :func:`lean_pucb.lean_pucb` draws (the phases reorder draws across seeds,
never within one), so every seed's regret equals the single-seed lean kernel's, and privrl's ``pucb``,
bit for bit (checked before timing; tests/agents/test_lean_pucb.py checks the lean kernel against privrl).

This is a measurement, not an engine: privrl runs one seed per kernel call (its runner chunks, saves
and resumes each seed on its own), and a lock-step runner would change that, not the numbers. Printed:
ns per seed-episode at each G, and the speed-up over G = 1 in the same run (CPU time, fastest round).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.np.random._constants import fe_double, ke_double, we_double, ziggurat_exp_r

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lean_pucb import (BYTE, LOW9, TWO_53, U1, error_level, fma, lean_args, lean_pucb, privq_value,  # noqa: E402
                       pucb_constants)
from pcg64_step import uniform  # noqa: E402


@njit(inline="always")
def _call(rng):
    """numba's ``rng.random()``: a call through the bit generator's function pointer."""
    return rng.random()


def make_lockstep(draw):
    """The lock-step kernel drawing each uniform with ``draw(rng)``: :func:`_call` (numba's call, as privrl)
    or :func:`pcg64_step.uniform` (the PCG64 step inlined; the same doubles). Not cached (a closure)."""
    @njit
    def lockstep(P, P_cdf, R, det, rho, rho_cdf, v_star, bern, K, eps, scale, beta, noise, z, rngs, regret):
        """K episodes of PUCB with its noise on (``noise`` must be True: the exact-count twin is not written here)
        for G = len(rngs) seeds in lock-step, rngs a tuple of G generators; regret float64[G] receives each seed's
        sum_k max(0, V*_1 - V^{pi_k}_1), as :func:`lean_pucb.lean_pucb` returns it for that seed's generator."""
        if not noise:
            raise ValueError("lockstep_pucb: noise must be on (the exact-count twin is not written here)")
        G = len(rngs)
        H, S, A = R.shape
        HSA = H * S * A
        n_cnt = HSA * (S + 2)
        eps_c, L, b, E0, ln_tb = pucb_constants(K, eps, beta, H, S, A, noise)
        c = np.zeros((G, n_cnt))
        x = np.zeros((G, n_cnt))
        exact = np.zeros((G, L, n_cnt))
        node = np.zeros((G, n_cnt))
        psum = np.zeros((G, L + 1, n_cnt))
        V = np.zeros((G, H + 1, S))
        W = np.zeros((G, H + 1, S))
        pi = np.zeros((G, H, S), np.int64)
        st = np.zeros((G, H + 1), np.int64)
        ac = np.zeros((G, H), np.int64)
        rw = np.zeros((G, H))
        capH = float(H)
        coef = scale * (H + 1.0)
        for g in range(G):
            regret[g] = 0.0
        for k in range(K):
            E = error_level(k, z, noise, scale, E0, L, eps_c)
            for h in range(H - 1, -1, -1):  # PrivQ, seeds innermost
                for s in range(S):
                    for g in range(G):
                        best, ba, nb = -np.inf, 0, 0.0
                        for a in range(A):
                            i = (h * S + s) * A + a
                            n = c[g, HSA + i]
                            q = capH
                            if n >= 2.0 * E and n > 0.0:
                                acc = c[g, i]
                                base = 2 * HSA + i * S
                                for s2 in range(S):
                                    acc = fma(V[g, h + 1, s2], c[g, base + s2], acc)
                                q = privq_value(acc, n, E, coef, ln_tb, S, H)
                            if q >= capH:
                                q = capH
                            if q > best or (q == best and n < nb):
                                best, ba, nb = q, a, n
                        pi[g, h, s] = ba
                        V[g, h, s] = best
            for h in range(H - 1, -1, -1):  # exact value of each seed's policy
                for s in range(S):
                    for g in range(G):
                        a = pi[g, h, s]
                        v = R[h, s, a]
                        for s2 in range(S):
                            v = fma(P[h, s, a, s2], W[g, h + 1, s2], v)
                        W[g, h, s] = v
            for g in range(G):
                v1 = 0.0
                for s in range(S):
                    v1 = fma(rho[s], W[g, 0, s], v1)
                gap = v_star - v1
                regret[g] += gap if gap > 0.0 else 0.0
            for g in range(G):  # one episode per seed, each from its own generator
                rng = rngs[g]
                s = 0
                if S > 1 and rho_cdf[0] < 1.0:
                    u = draw(rng)
                    while s < S - 1 and u >= rho_cdf[s]:
                        s += 1
                for h in range(H):
                    a = pi[g, h, s]
                    m = R[h, s, a]
                    st[g, h], ac[g, h] = s, a
                    rw[g, h] = (1.0 if draw(rng) < m else 0.0) if bern and 0.0 < m < 1.0 else m
                    s2 = det[h, s, a]
                    if s2 < 0:
                        u = draw(rng)
                        s2 = 0
                        while s2 < S - 1 and u >= P_cdf[h, s, a, s2]:
                            s2 += 1
                    s = s2
                st[g, H] = s
                for h in range(H):
                    i = (h * S + st[g, h]) * A + ac[g, h]
                    x[g, i] = rw[g, h]
                    x[g, HSA + i] = 1.0
                    x[g, 2 * HSA + i * S + st[g, h + 1]] = 1.0
            lo = trailing_zeros(np.int64(k + 1))  # the binary mechanism's step t = k + 1, every seed
            for g in range(G):
                rng = rngs[g]
                for cc in range(n_cnt):
                    exact[g, lo, cc] = x[g, cc]
                for j in range(lo):
                    for cc in range(n_cnt):
                        exact[g, lo, cc] += exact[g, j, cc]
                        exact[g, j, cc] = 0.0
                for cc in range(n_cnt):
                    while True:
                        w = np.uint64(draw(rng) * TWO_53)
                        li = (w >> U1) & BYTE
                        r = (w >> LOW9) << LOW9
                        y = r * we_double[li]
                        if r < ke_double[li]:
                            break
                        if li == 0:
                            y = ziggurat_exp_r - np.log1p(-draw(rng))
                            break
                        if (fe_double[li - U1] - fe_double[li]) * draw(rng) + fe_double[li] < np.exp(-y):
                            break
                    node[g, cc] = exact[g, lo, cc] + b * (-y if w & U1 else y)
                for cc in range(n_cnt):
                    c[g, cc] = psum[g, lo + 1, cc] + node[g, cc]
                for j in range(lo + 1):
                    for cc in range(n_cnt):
                        psum[g, j, cc] = c[g, cc]
                for h in range(H):
                    i = (h * S + st[g, h]) * A + ac[g, h]
                    x[g, i] = 0.0
                    x[g, HSA + i] = 0.0
                    x[g, 2 * HSA + i * S + st[g, h + 1]] = 0.0

    return lockstep


#: the kernel as privrl draws (numba's call per uniform), and with the PCG64 step inlined
lockstep_pucb = make_lockstep(_call)
lockstep_pucb_inlined = make_lockstep(uniform)


def main() -> None:
    from privrl.rl import engine, envs, seeding
    from privrl.runs import run

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=300_000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 4, 8], help="seeds in lock-step (G)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    p = (1.0, 1.0, 0.05, True, 0.0)  # PUCB's defaults: epsilon, bonus_scale, beta, noise, z
    K = np.int64(args.episodes)
    kernels = {"call": lockstep_pucb, "inlined": lockstep_pucb_inlined}
    print(f"# lean PUCB, G seeds in lock-step, K = {args.episodes:g} per seed: ns per seed-episode, CPU time, fastest "
          f"of {args.rounds} interleaved rounds; speed-up over the single-seed lean kernel (numba's call per draw) in "
          "the same run; 'inlined': the PCG64 step in the kernel (bench/pcg64_step.py)")
    for name, mdp in {"bandit H=1": envs.make("garnet", S=1, A=2, branching=1, H=1, seed=0),
                      "riverswim S=2 H=2": envs.make("riverswim", S=2, H=2)}.items():
        env = engine.env_arrays(mdp)
        a = lean_args(env)
        want = [run.run_seed("pucb", {}, mdp, 20_000, g)["cum_regret"].iloc[-1] for g in range(max(args.seeds))]
        for kind, kernel in kernels.items():  # compile, and check each seed against privrl's pucb at 2e4 episodes
            for G in args.seeds:
                out = np.zeros(G)
                kernel(*a, np.int64(20_000), *p, tuple(seeding.generator("adhoc", "default", g) for g in range(G)), out)
                assert list(out) == want[:G], (name, kind, G, list(out), want[:G])
        lean_pucb(*a, np.int64(10), *p, np.random.Generator(np.random.PCG64(999)))
        best = {key: np.inf for key in [("single", 1)] + [(kind, G) for kind in kernels for G in args.seeds]}
        for r in range(args.rounds):
            t0 = time.process_time()
            lean_pucb(*a, K, *p, seeding.generator("bench", "lockstep", r))
            best["single", 1] = min(best["single", 1], (time.process_time() - t0) / K)
            for kind, kernel in kernels.items():
                for G in args.seeds:
                    out = np.zeros(G)
                    rngs = tuple(seeding.generator("bench", "lockstep", r * 100 + g) for g in range(G))
                    t0 = time.process_time()
                    kernel(*a, K, *p, rngs, out)
                    best[kind, G] = min(best[kind, G], (time.process_time() - t0) / (K * G))
        single = best["single", 1]
        print(f"{name}: single-seed lean {single * 1e9:.1f} ns", flush=True)
        for kind in kernels:
            cells = "   ".join(f"G={G} {best[kind, G] * 1e9:6.1f} ({single / best[kind, G]:.2f}x)" for G in args.seeds)
            print(f"  {kind:8s} {cells}", flush=True)
    print("(every seed's regret equal to privrl's pucb, both kernels, every G)")


if __name__ == "__main__":
    main()
