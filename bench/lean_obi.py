"""A lean LDP-OBI kernel: the reference for what privrl's ``ldp-obi`` costs per episode.

    python bench/lean_obi.py [--episodes 1000000] [--rounds 3]

One numba function doing, per episode, the work LDP-OBI needs and nothing else (Garcelon et al.
2021 as summarised in App. B of the Garcelon et al. ICML-21 note; the reconstruction of
``privrl.agents.obi``): the deviation bounds c_{k,i} of the summed Laplace noise
(``privrl.mechanisms.bounds.laplace_sum_bound_ln``, one when S = 1; its explicit minimiser past the
first ~100 ln(2/d) episodes, as privrl's), the model of
Eq. 16 with the widths of Prop. 7, the stationary optimistic backward induction of Eq. 17 (ties to
the smaller private count, then the lower action), the exact regret of the played policy, one
sampled episode, and the user's count vector [N^r | R | N^p] released with Lap((6H - 2)/eps) per
coordinate (``laplace_unit``, privrl's one-word sampler: the same stream). No recorder (one
running sum), no evaluation cache, no privatizer state or door, no chunking, no domain checks.
``main`` times it against privrl's ``ldp-obi`` and UCBVI in one run (interleaved rounds, CPU time);
tests/agents/test_lean_obi.py checks that its regret equals privrl's bit for bit.

privrl's planner and policy evaluation are compiled with ``contract`` (``planning.FP_FLAGS``:
``a * b + c`` fused into one FMA), its model and bounds without it. This kernel is compiled without
fastmath, and writes the planner's and the evaluation's fused operations as explicit FMAs
(:func:`fma`, LLVM's ``llvm.fma``: ``a * b + c`` rounded once), so both halves keep privrl's numbers.

Arrays as :func:`privrl.rl.engine.env_arrays`: P, P_cdf float64[H, S, A, S], R float64[H, S, A],
det int64[H, S, A], rho, rho_cdf float64[S], v_star = rho^T V*_1. Returns the cumulative regret.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from privrl.mechanisms.bounds import laplace_sum_bound_ln
from privrl.mechanisms.laplace import laplace_unit


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c`` with one rounding (``llvm.fma.f64``): what ``contract`` makes of privrl's planner sums."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(d, [d, d, d]), "llvm.fma.f64")
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True, error_model="numpy")  # no zero test per division (none divides by zero): the same numbers
def lean_ldp_obi(P, P_cdf, R, det, rho, rho_cdf, v_star, bern, K, eps, scale, delta, alpha, rng):
    """K episodes of LDP-OBI (noise on, z = 0); returns sum_k max(0, V*_1 - V^{pi_k}_1) (exact)."""
    H, S, A = R.shape
    SA = S * A
    n_cnt = SA * (S + 2)  # [N^r (SA) | R (SA) | N^p (SAS)]
    b = (6.0 * H - 2.0) / eps  # Laplace scale per coordinate and user (l1 sensitivity 6H - 2)
    cum = np.zeros(n_cnt)  # released sums
    x = np.zeros(n_cnt)  # this user's counts
    p_t = np.zeros((S, A, S))
    r_plus = np.zeros((S, A))
    bp = np.zeros((S, A))
    V = np.zeros((H + 1, S))
    W = np.zeros((H + 1, S))
    pi = np.zeros((H, S), np.int64)
    states = np.zeros(H + 1, np.int64)
    actions = np.zeros(H, np.int64)
    regret = 0.0
    lk0 = math.log(4.0 * math.pi ** 2 * S * A * H / (3.0 * delta))
    la0 = math.log(16.0 * math.pi ** 2 * SA / (3.0 * delta))
    lS = math.log(float(S))
    for k in range(K):
        # c_{k,i}: |sum of n Laplace(b)| <= c w.p. 1 - d, for n = k (N^r, R), S k (N^p(s,a)), k (N^p(s,a,s')),
        # at delta_k / (4 S A) (/ (4 S A S) for c4), delta_k = 3 delta / (2 pi^2 (k + 1)^2): ln(2 / d) = la0 + 2 ln(k + 1)
        l1 = math.log(k + 1.0)
        A12 = la0 + 2.0 * l1
        c12 = laplace_sum_bound_ln(float(k), b, A12)
        c3 = laplace_sum_bound_ln(float(S * k), b, A12) if S > 1 else c12
        c4 = laplace_sum_bound_ln(float(k), b, A12 + lS) if S > 1 else c12
        # Eq. 16 and Prop. 7: L_k = ln(4 pi^2 S A H k^3 / (3 delta)) for the 1-based k + 1
        Lk = lk0 + 3.0 * l1
        for s in range(S):
            for a in range(A):
                i = s * A + a
                nr = cum[i]
                np_sa = 0.0
                for s2 in range(S):
                    np_sa += cum[2 * SA + i * S + s2]
                den_r = nr + alpha * c12
                den_p = np_sa + alpha * c3
                if den_r > 0.0 and den_p > 0.0:
                    br = math.sqrt(2.0 * Lk / den_r) + ((alpha + 1.0) * c12 + c12) / den_r
                    bpp = math.sqrt(14.0 * S * Lk / den_p) + (S * c4 + (alpha + 1.0) * c3) / den_p
                    r_plus[s, a] = cum[SA + i] / den_r + scale * br
                    bp[s, a] = scale * bpp
                    inv = 1.0 / den_p
                    for s2 in range(S):
                        p_t[s, a, s2] = cum[2 * SA + i * S + s2] * inv
                else:
                    r_plus[s, a] = np.inf
                    bp[s, a] = np.inf
        # Eq. 17: Q = min(cap, r+ + cap beta^p + p~ . V_{h+1}), ties to the smaller N~^r, then the lower a
        for s in range(S):
            V[H, s] = 0.0
        for h in range(H - 1, -1, -1):
            cap = float(H - h)
            for s in range(S):
                best, best_a, nb = -np.inf, 0, np.inf
                for a in range(A):
                    q = fma(cap, bp[s, a], r_plus[s, a])
                    if q < cap:
                        for s2 in range(S):
                            q = fma(p_t[s, a, s2], V[h + 1, s2], q)
                    if q >= cap:
                        q = cap
                    n = cum[s * A + a]
                    if q > best or (q == best and n < nb):
                        best, best_a, nb = q, a, n
                pi[h, s] = best_a
                V[h, s] = best
        # exact value of the policy played
        for s in range(S):
            W[H, s] = 0.0
        for h in range(H - 1, -1, -1):
            for s in range(S):
                a = pi[h, s]
                v = R[h, s, a]
                for s2 in range(S):
                    v = fma(P[h, s, a, s2], W[h + 1, s2], v)
                W[h, s] = v
        v1 = 0.0
        for s in range(S):
            v1 = fma(rho[s], W[0, s], v1)
        gap = v_star - v1
        regret += gap if gap > 0.0 else 0.0
        # one episode, and the user's counts
        s = 0
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
            states[h] = s
            actions[h] = a
            i = s * A + a
            x[i] += 1.0
            x[SA + i] += r
            if h < H - 1:
                x[2 * SA + i * S + s2] += 1.0
            s = s2
        # the Laplace mechanism on the user's vector, then the released sums
        for j in range(n_cnt):
            cum[j] += x[j] + b * laplace_unit(rng)
            x[j] = 0.0
    return regret


def lean_args(env: tuple) -> tuple:
    """The lean kernel's environment arguments from privrl's env tuple."""
    P, P_cdf, R, det, bern, rho, rho_cdf, v_star = env[:8]
    return P, P_cdf, R, det, rho, rho_cdf, float(v_star[0]), bool(bern[0])


def main() -> None:
    from privrl.agents import REGISTRY
    from privrl.rl import engine, envs, seeding

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    K = args.episodes
    instances = {"bandit H=1": envs.make("garnet", S=1, A=2, branching=1, H=1, seed=0),
                 "bandit H=2": envs.make("garnet", S=1, A=2, branching=1, H=2, seed=0),
                 "riverswim S=2 H=2": envs.riverswim(S=2, H=2)}
    print(f"# ns per episode at K = {K:g}, CPU time, fastest of {args.rounds} interleaved rounds (compile excluded)")
    print(f"{'instance':20s} {'ucbvi':>8s} {'ldp-obi':>8s} {'lean':>8s} {'ldp-obi/lean':>12s} {'lean xU':>8s} "
          f"{'ldp-obi xU':>10s}")
    for name, mdp in instances.items():
        env = engine.env_arrays(mdp)
        largs = lean_args(env)

        def run_lean(K, seed):
            return lean_ldp_obi(*largs, K, 1.0, 1.0, 0.05, 2.0, seeding.generator("bench", "lean-obi", seed))

        def run_agent(agent, K, seed):
            spec = REGISTRY[agent]
            pv = spec.param_vector({"epsilon": 1.0} if "epsilon" in spec.defaults else {})
            rec = engine.new_recorder(K, np.array([0.1]))
            spec.run_episodes(env, pv, np.int64(K), np.int64(0), np.int64(K), seeding.generator("bench", agent, seed),
                              rec, spec.init_state(env, pv, np.int64(K)))

        parts = {"ucbvi": lambda seed: run_agent("ucbvi", K, seed), "ldp-obi": lambda seed: run_agent("ldp-obi", K, seed),
                 "lean": lambda seed: run_lean(K, seed)}
        run_lean(50, 999), run_agent("ucbvi", 50, 999), run_agent("ldp-obi", 50, 999)  # compile
        best = {key: math.inf for key in parts}
        for rnd in range(args.rounds):
            for key, fn in parts.items():
                t0 = time.process_time()
                fn(rnd)
                best[key] = min(best[key], (time.process_time() - t0) / K * 1e9)
        u, o, le = best["ucbvi"], best["ldp-obi"], best["lean"]
        print(f"{name:20s} {u:8.1f} {o:8.1f} {le:8.1f} {o / le:11.2f}x {le / u:7.2f}x {o / u:9.2f}x", flush=True)


if __name__ == "__main__":
    main()
