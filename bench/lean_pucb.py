"""A lean PUCB kernel: the reference for privrl PUCB's fixed per-episode cost.

    python bench/lean_pucb.py [--episodes 1000000] [--rounds 3]

One numba function doing, per episode, the work PUCB needs and nothing else (Vietri, Balle,
Krishnamurthy & Wu 2020, Alg. 2 with Alg. 3 (PrivQ) and the binary mechanism of App. A, Alg. 5):

* PrivQ on the released counters c[(S + 2) H S A] = [r~ (HSA) | n~ (HSA) | m~ (HSAS)]: if
  n~ >= 2E (and > 0), ``Q~ = (r~ + sum_s' V_{h+1}(s') m~(s')) / n~ + s (H+1) phi~ + psi~``
  with ``phi~ = sqrt(2 ln(T/beta') / max(n~ - E, 1))``, ``psi~ = (1 + SH)(3E/n~ + 2E^2/n~^2)``;
  else ``Q+ = H``; clipped at H, greedy with ties to the smaller n~, then the lower a;
  E = ``s E_eps`` (as printed) or ``z sd`` of the tree's release at the current step (z > 0);
* the exact regret of the played policy (V*_1 - V^pi_1 averaged over rho, evaluated every
  episode: no cache);
* one sampled episode (the engine's draws: start state, Bernoulli reward, transition);
* one step of the binary mechanism for every counter (Alg. 5: the node of the step's lowest
  set bit i absorbs the exact nodes below it, gets a fresh Laplace(L / eps') draw per counter,
  counter index order, one generator word per variate as privrl.mechanisms.laplace.laplace_unit
  draws it; the release is the partial sum of the levels above i plus the new node).

No recorder (one running sum), no checkpoints, no privatizer state tuple or door, no domain check,
no chunking. Its cumulative regret equals privrl's ``pucb`` bit for bit on the same seed
(tests/agents/test_lean_pucb.py), so privrl's time over it is privrl's fixed overhead.

Floating point: the kernel is compiled without fastmath flags (as privrl's episode loop and tree);
the sums privrl's planner and evaluation build under the ``contract`` flag (planning.FP_FLAGS) are
written here as the fused multiply-adds LLVM makes of them (:func:`fma`): the dot products
``acc + V m~``, ``Q~ = fma(s (H+1), phi~, acc / n~) + psi~`` and the evaluation's ``R + P . V`` and
``sum rho V``. The tree's ``alpha_i + b Lap`` stays unfused, as in privrl.

Arrays as :func:`privrl.rl.engine.env_arrays`: P, P_cdf float64[H, S, A, S], R float64[H, S, A],
det int64[H, S, A], rho, rho_cdf float64[S], v_star = rho^T V*_1. Returns the cumulative regret
after K episodes.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic
from numba.np.random._constants import fe_double, ke_double, we_double, ziggurat_exp_r

TWO_53 = 9007199254740992.0
U1 = np.uint64(1)
BYTE = np.uint64(0xFF)
LOW9 = np.uint64(9)


@intrinsic
def fma(typingctx, a, b, c):
    """``a b + c`` rounded once (llvm.fma.f64): what the ``contract`` flag makes of a product
    feeding a sum."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)
    return sig, codegen


@njit(inline="always")
def pucb_constants(K, eps, beta, H, S, A, noise):
    """(eps' = eps / (3H) per counter (accounting.per_counter_epsilon), the tree's levels L = K.bit_length()
    (tree.tree_levels), its node scale L Delta / eps', E_eps as printed with beta' = beta / K
    (pucb.pucb_error_level; 0 without noise), ln(T / beta'))."""
    eps_c = eps / (3.0 * H)
    L = 1
    while (K >> L) > 0:
        L += 1
    b = L * 1.0 / eps_c
    E0 = 0.0
    if noise and K >= 2:
        E0 = 3.0 / eps * H * math.log((2.0 * S * A * H + S * S * A * H) / (beta / K)) * math.log(K) ** 2.5
    return eps_c, L, b, E0, math.log(K / (beta / K))


@njit(inline="always")
def error_level(k, z, noise, scale, E0, L, eps_c):
    """E of episode k: z sd of the release after k steps (bounds.tree_release_sd) at z > 0 with noise, else
    bonus_scale x E_eps."""
    if z > 0.0 and noise:
        pc, t = 0, k
        while t > 0:
            pc += t & 1
            t >>= 1
        return z * (math.sqrt(pc) * math.sqrt(2.0) * L * 1.0 / eps_c)
    return scale * E0


@njit(inline="always")
def privq_value(acc, n, E, coef, ln_tb, S, H):
    """PrivQ's Q~ (Alg. 3) from acc = r~ + sum_s' V_{h+1}(s') m~(s') and the count n~ (n~ >= 2E, > 0)."""
    phi = math.sqrt(2.0 * ln_tb / max(n - E, 1.0))
    psi = (1.0 + S * H) * (3.0 * E / n + 2.0 * E * E / (n * n))
    return fma(coef, phi, acc / n) + psi


@njit(cache=True)
def lean_pucb(P, P_cdf, R, det, rho, rho_cdf, v_star, bern, K, eps, scale, beta, noise, z, rng):
    """K episodes of PUCB (module docstring); returns sum_k max(0, V*_1 - V^{pi_k}_1) (exact).

    eps: the agent's epsilon (each counter eps' = eps / (3H)); scale: bonus_scale; beta: PrivQ's
    confidence; noise: False = exact counts and E = 0; z > 0: matched coverage."""
    H, S, A = R.shape
    HSA = H * S * A
    n_cnt = HSA * (S + 2)
    eps_c, L, b, E0, ln_tb = pucb_constants(K, eps, beta, H, S, A, noise)
    c = np.zeros(n_cnt)  # released counters
    x = np.zeros(n_cnt)  # the episode's increments
    exact = np.zeros((L, n_cnt))  # exact p-sums of the tree (levels)
    node = np.zeros(n_cnt)  # the new noisy node
    psum = np.zeros((L + 1, n_cnt))  # partial sums of the noisy nodes from the top level down
    V = np.zeros((H + 1, S))
    W = np.zeros((H + 1, S))
    pi = np.zeros((H, S), np.int64)
    st = np.zeros(H + 1, np.int64)
    ac = np.zeros(H, np.int64)
    rw = np.zeros(H)
    capH = float(H)
    coef = scale * (H + 1.0)
    regret = 0.0
    for k in range(K):
        E = error_level(k, z, noise, scale, E0, L, eps_c)
        for s in range(S):  # PrivQ (Alg. 3)
            V[H, s] = 0.0
        for h in range(H - 1, -1, -1):
            for s in range(S):
                best, ba, nb = -np.inf, 0, 0.0
                for a in range(A):
                    i = (h * S + s) * A + a
                    n = c[HSA + i]
                    q = capH
                    if n >= 2.0 * E and n > 0.0:
                        acc = c[i]
                        base = 2 * HSA + i * S
                        for s2 in range(S):
                            acc = fma(V[h + 1, s2], c[base + s2], acc)
                        q = privq_value(acc, n, E, coef, ln_tb, S, H)
                    if q >= capH:
                        q = capH
                    if q > best or (q == best and n < nb):
                        best, ba, nb = q, a, n
                pi[h, s] = ba
                V[h, s] = best
        for s in range(S):  # exact value of the policy played
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
        s = 0  # one episode
        if S > 1 and rho_cdf[0] < 1.0:
            u = rng.random()
            while s < S - 1 and u >= rho_cdf[s]:
                s += 1
        for h in range(H):
            a = pi[h, s]
            m = R[h, s, a]
            st[h], ac[h] = s, a
            rw[h] = (1.0 if rng.random() < m else 0.0) if bern and 0.0 < m < 1.0 else m
            s2 = det[h, s, a]
            if s2 < 0:
                u = rng.random()
                s2 = 0
                while s2 < S - 1 and u >= P_cdf[h, s, a, s2]:
                    s2 += 1
            s = s2
        st[H] = s
        for h in range(H):  # this episode's stream elements sigma(t): one per counter, mostly 0
            i = (h * S + st[h]) * A + ac[h]
            x[i] = rw[h]
            x[HSA + i] = 1.0
            x[2 * HSA + i * S + st[h + 1]] = 1.0
        if noise:  # the binary mechanism's step t = k + 1 (Alg. 5); node lo = the lowest set bit of t
            lo = trailing_zeros(np.int64(k + 1))
            for cc in range(n_cnt):  # alpha_lo <- sigma(t) + sum_{j < lo} alpha_j; alpha_j <- 0
                exact[lo, cc] = x[cc]
            for j in range(lo):
                for cc in range(n_cnt):
                    exact[lo, cc] += exact[j, cc]
                    exact[j, cc] = 0.0
            for cc in range(n_cnt):  # alpha_hat_lo = alpha_lo + Lap(b)
                while True:  # laplace_unit: one 64-bit word per variate (ziggurat; rare extra draws)
                    w = np.uint64(rng.random() * TWO_53)
                    li = (w >> U1) & BYTE
                    r = (w >> LOW9) << LOW9
                    y = r * we_double[li]
                    if r < ke_double[li]:
                        break
                    if li == 0:
                        y = ziggurat_exp_r - np.log1p(-rng.random())
                        break
                    if (fe_double[li - U1] - fe_double[li]) * rng.random() + fe_double[li] < np.exp(-y):
                        break
                node[cc] = exact[lo, cc] + b * (-y if w & U1 else y)
            for cc in range(n_cnt):  # release = psum[lo + 1] + alpha_hat_lo; psum[0..lo] <- release
                c[cc] = psum[lo + 1, cc] + node[cc]
            for j in range(lo + 1):
                for cc in range(n_cnt):
                    psum[j, cc] = c[cc]
        else:  # exact counts (privrl's kind "none"): the cumulative sums
            for cc in range(n_cnt):
                c[cc] += x[cc]
        for h in range(H):
            i = (h * S + st[h]) * A + ac[h]
            x[i] = 0.0
            x[HSA + i] = 0.0
            x[2 * HSA + i * S + st[h + 1]] = 0.0
    return regret


def lean_args(env: tuple) -> tuple:
    """The lean kernel's environment arguments from privrl's env tuple."""
    P, P_cdf, R, det, bern, rho, rho_cdf, v_star = env[:8]  # env[8:]: the common-random-numbers stream
    return P, P_cdf, R, det, rho, rho_cdf, float(v_star[0]), bool(bern[0])


def lean_seconds(env: tuple, K: int, rng, params: dict | None = None) -> float:
    """CPU seconds of one run of K episodes at PUCB's parameters ``params`` (defaults: epsilon 1,
    bonus_scale 1, beta 0.05, noise on, z 0), compiled before the clock starts."""
    p = {"epsilon": 1.0, "bonus_scale": 1.0, "beta": 0.05, "noise": 1.0, "z": 0.0, **(params or {})}
    a = lean_args(env) + (p["epsilon"], p["bonus_scale"], p["beta"], p["noise"] > 0.5, p["z"])
    lean_pucb(*a[:8], 10, *a[8:], np.random.Generator(np.random.PCG64(999)))
    t0 = time.process_time()
    lean_pucb(*a[:8], K, *a[8:], rng)
    return time.process_time() - t0


def main() -> None:
    from privrl.agents import REGISTRY
    from privrl.rl import engine, envs, seeding

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the fastest of each is kept")
    ap.add_argument("--z", type=float, default=0.0, help="PUCB's z (0: E as printed; the design uses 3)")
    args = ap.parse_args()
    spec = REGISTRY["pucb"]
    params = {"epsilon": 1.0, "z": args.z}
    pv = spec.param_vector(params)
    K = np.int64(args.episodes)
    print(f"# PUCB at {params}, K = {args.episodes:g}: ns per episode, CPU time, best of {args.rounds} rounds")
    for name, (env_name, env_params) in {"bandit H=1": ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}),
                                         "riverswim S=2 H=2": ("riverswim", {"S": 2, "H": 2})}.items():
        env = engine.env_arrays(envs.make(env_name, **env_params))
        best = {"lean": np.inf, "privrl": np.inf}
        spec.kernel(env, pv, 50, seeding.generator("bench", "lean", 999), engine.new_recorder(50, np.array([0.1])))
        for r in range(args.rounds):
            best["lean"] = min(best["lean"], lean_seconds(env, int(K), seeding.generator("bench", "lean", r), params))
            rec, st = engine.new_recorder(int(K), np.array([0.1])), spec.init_state(env, pv, K)
            t0 = time.process_time()
            spec.run_episodes(env, pv, K, np.int64(0), K, seeding.generator("bench", "lean", r), rec, st)
            best["privrl"] = min(best["privrl"], time.process_time() - t0)
        print(f"{name:18s} lean {best['lean'] / K * 1e9:7.1f} ns/ep   privrl pucb {best['privrl'] / K * 1e9:7.1f} ns/ep"
              f"   privrl / lean {best['privrl'] / best['lean']:.2f}x")


if __name__ == "__main__":
    main()
