"""Lean LDP-OBI and Shuffled-OBI kernels: the references for what privrl's ``ldp-obi`` and ``shuffled-obi``
cost per episode.

    python bench/lean_obi.py [--episodes 1000000] [--rounds 3]

One numba function per agent doing, per episode, the work the agent needs and nothing else, from shared
inline pieces: the stationary model of Eq. 16 with the widths of Prop. 7 (:func:`obi_model`), the stationary
optimistic backward induction of Eq. 17 (:func:`obi_plan`: ties to the smaller private count, then the lower
action) and the exact regret of the played policy (:func:`policy_gap`). The sampled episode and the draws stay
in each kernel's own body: the generator handed to an inlined helper cost ~40 ns per episode on the H = 1
bandit (the Generator's reference counting at each call site; measured when these pieces were shared).

* :func:`lean_ldp_obi` (Garcelon et al. 2021 as summarised in App. B of the Garcelon et al. ICML-21 note; the
  reconstruction of ``privrl.agents.obi``): the deviation bounds c_{k,i} of the summed Laplace noise
  (``privrl.mechanisms.bounds.laplace_sum_bound_ln``, one when S = 1; its explicit minimiser past the first
  ~100 ln(2/d) episodes, as privrl's), and the user's count vector [N^r | R | N^p] released with
  Lap((6H - 2)/eps) per coordinate (``laplace_unit``, privrl's one-word sampler: the same stream).
* :func:`lean_shuffled_obi` (the note's Alg. 4 with M_sh of Alg. 3): the tau burn-in of uniformly random
  policies, the Eq. 7-8 widths (``privrl.agents.obi.shuffled_deviation_bounds``), and the user's visit,
  transition and unary reward codes through R_p bit by bit with the Eq. 6 debiased sums (privrl's shuffle-rr
  release: one uniform per bit, ones first; above 12 bits per entry privrl's binomials).

No recorder (one running sum), no evaluation cache, no privatizer state or door, no chunking, no domain checks.
``main`` times each against privrl's agent and UCBVI in one run (interleaved rounds, CPU time);
tests/agents/test_lean_obi.py checks that their regrets equal privrl's bit for bit. Both at noise on and z = 0
(the paper's widths).

privrl's planner and policy evaluation are compiled with ``contract`` (``planning.FP_FLAGS``:
``a * b + c`` fused into one FMA), its model and bounds without it. These kernels are compiled without
fastmath, and write the planner's and the evaluation's fused operations as explicit FMAs
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

from privrl.agents.obi import SHUFFLED_MIN_HORIZON, shuffled_deviation_bounds, shuffled_tau_py
from privrl.mechanisms.bounds import laplace_sum_bound_ln
from privrl.mechanisms.laplace import laplace_unit
from privrl.mechanisms.rr import rr_sum_counts


@intrinsic
def fma(typingctx, a, b, c):
    """``a * b + c`` with one rounding (``llvm.fma.f64``): what ``contract`` makes of privrl's planner sums."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(d, [d, d, d]), "llvm.fma.f64")
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True, inline="always")
def obi_model(S, A, cum, o_r, o_p, r_div, c1, c2, c3, c4, alpha, Lk, scale, p_t, r_plus, bp):
    """Eq. 16 and Prop. 7 (privrl.agents.obi's ``_model`` at z = 0) from the released sums cum[SA (S + 2)]:
    N~^r at [0, SA), the reward sums at [o_r, o_r + SA) (divided by ``r_div``: Shuffled-OBI's m, LDP-OBI's 1),
    N~^p at [o_p, o_p + SAS). Fills p_t[S, A, S], r_plus[S, A] = r~ + scale beta^r, bp[S, A] = scale beta^p."""
    for s in range(S):
        for a in range(A):
            i = s * A + a
            nr = cum[i]
            np_sa = 0.0
            for s2 in range(S):
                np_sa += cum[o_p + i * S + s2]
            den_r = nr + alpha * c2
            den_p = np_sa + alpha * c3
            if den_r > 0.0 and den_p > 0.0:
                br = math.sqrt(2.0 * Lk / den_r) + ((alpha + 1.0) * c2 + c1) / den_r
                bpp = math.sqrt(14.0 * S * Lk / den_p) + (S * c4 + (alpha + 1.0) * c3) / den_p
                rv = cum[o_r + i]
                if r_div != 1.0:
                    rv = rv / r_div
                r_plus[s, a] = rv / den_r + scale * br
                bp[s, a] = scale * bpp
                inv = 1.0 / den_p
                for s2 in range(S):
                    p_t[s, a, s2] = cum[o_p + i * S + s2] * inv
            else:
                r_plus[s, a] = np.inf
                bp[s, a] = np.inf


@njit(cache=True, inline="always")
def obi_plan(H, S, A, p_t, r_plus, bp, cum, V, pi):
    """Eq. 17: Q = min(cap, r+ + cap beta^p + p~ . V_{h+1}), cap = H - h, ties to the smaller N~^r (cum[s A + a]),
    then the lower a; fills pi[H, S] and V[H + 1, S]."""
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


@njit(cache=True, inline="always")
def policy_gap(P, R, rho, v_star, pi, W):
    """max(0, V*_1 - V^pi_1): the exact value of the policy played (W float64[H + 1, S] work)."""
    H, S = pi.shape
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
    return gap if gap > 0.0 else 0.0


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
        # Eq. 16 and Prop. 7 (L_k = ln(4 pi^2 S A H k^3 / (3 delta)) for the 1-based k + 1), Eq. 17
        obi_model(S, A, cum, SA, 2 * SA, 1.0, c12, c12, c3, c4, alpha, lk0 + 3.0 * l1, scale, p_t, r_plus, bp)
        obi_plan(H, S, A, p_t, r_plus, bp, cum, V, pi)
        regret += policy_gap(P, R, rho, v_star, pi, W)
        # one episode (privrl.rl.engine.play_episode's draws), and the user's counts; the generator is used in
        # the kernel's own body only: handed to an inlined helper it costs ~40 ns per episode here (reference
        # counting of the Generator at each call site)
        s = 0
        if S > 1 and rho_cdf[0] < 1.0:
            u = rng.random()
            while s < S - 1 and u >= rho_cdf[s]:
                s += 1
        for h in range(H):
            a = pi[h, s]
            mean = R[h, s, a]
            r = (1.0 if rng.random() < mean else 0.0) if bern and 0.0 < mean < 1.0 else mean
            s2 = det[h, s, a]
            if s2 < 0:
                u = rng.random()
                s2 = 0
                while s2 < S - 1 and u >= P_cdf[h, s, a, s2]:
                    s2 += 1
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


@njit(cache=True, error_model="numpy")
def lean_shuffled_obi(P, P_cdf, R, det, rho, rho_cdf, v_star, bern, K, eps0, scale, delta, alpha, m, tau, rng):
    """K episodes of Shuffled-OBI (noise on, z = 0; Garcelon note Alg. 4 with M_sh of Alg. 3): ``tau`` burn-in
    episodes of uniformly random deterministic policies, then Eq. 16-17 with the Eq. 7-8 widths
    (privrl.agents.obi.shuffled_deviation_bounds); every user's visit, transition and m-bit unary reward codes
    through R_p at eps0 / ((4 + 2m) H) per bit (Lemma 4). Returns sum_k max(0, V*_1 - V^{pi_k}_1) (exact)."""
    H, S, A = R.shape
    SA = S * A
    n_cnt = SA * (S + 2)  # [N^r (SA) | unary reward ones (SA) | N^p (SAS)]
    p = 2.0 / (math.exp(eps0 / ((4.0 + 2.0 * m) * H)) + 1.0)  # R_p's p at the per-bit epsilon (Alg. 3)
    q1, q0, inv = 1.0 - 0.5 * p, 0.5 * p, 1.0 / (1.0 - p)  # P(R_p(1) = 1), P(R_p(0) = 1), the debiasing factor
    cum = np.zeros(n_cnt)
    x = np.zeros(n_cnt)
    tmp = np.zeros(SA * S)
    p_t = np.zeros((S, A, S))
    r_plus = np.zeros((S, A))
    bp = np.zeros((S, A))
    V = np.zeros((H + 1, S))
    W = np.zeros((H + 1, S))
    pi = np.zeros((H, S), np.int64)
    states = np.zeros(H + 1, np.int64)
    actions = np.zeros(H, np.int64)
    rewards = np.zeros(H)
    regret = 0.0
    for k in range(K):
        if k < tau:  # Alg. 4's burn-in, pi[h, s] ~ U{0..A-1} in (h, s) order
            for h in range(H):
                for s in range(S):
                    pi[h, s] = rng.integers(0, A)
        else:
            dk = 3.0 * delta / (2.0 * math.pi ** 2 * (k + 1.0) ** 2)  # delta_k (Alg. 4): 4 families, two tails
            c1, c2, c3, c4 = shuffled_deviation_bounds(k, H, S, m, p, dk / (8.0 * SA), dk / (8.0 * SA * S))
            Lk = math.log(4.0 * math.pi ** 2 * S * A * H * float(k + 1) ** 3 / (3.0 * delta))
            obi_model(S, A, cum, SA, 2 * SA, float(m), c1, c2, c3, c4, alpha, Lk, scale, p_t, r_plus, bp)
            obi_plan(H, S, A, p_t, r_plus, bp, cum, V, pi)
        regret += policy_gap(P, R, rho, v_star, pi, W)
        s = 0  # one episode (as lean_ldp_obi's)
        if S > 1 and rho_cdf[0] < 1.0:
            u = rng.random()
            while s < S - 1 and u >= rho_cdf[s]:
                s += 1
        for h in range(H):
            a = pi[h, s]
            mean = R[h, s, a]
            rewards[h] = (1.0 if rng.random() < mean else 0.0) if bern and 0.0 < mean < 1.0 else mean
            s2 = det[h, s, a]
            if s2 < 0:
                u = rng.random()
                s2 = 0
                while s2 < S - 1 and u >= P_cdf[h, s, a, s2]:
                    s2 += 1
            states[h] = s
            actions[h] = a
            s = s2
        states[H] = s
        for h in range(H):  # the user's messages: x (Eq. 4), the unary reward's ones (Eq. 5), y (Eq. 4)
            i = states[h] * A + actions[h]
            x[i] += 1.0
            mr = m * rewards[h]
            f = math.floor(mr)
            x[SA + i] += f + (1.0 if rng.random() < mr - f else 0.0)
            if h < H - 1:
                x[2 * SA + i * S + states[h + 1]] += 1.0
        # R_p on every bit of each entry (x[j] of them ones), the Eq. 6 debiased sums added to the released ones:
        # privrl's shuffle-rr release, in its order (visits, transitions, rewards); one uniform per bit up to 12
        # bits per entry, ones first, above privrl.mechanisms.rr.rr_sum_counts's binomials
        for part in range(3):
            o, n, bits = (0, SA, H) if part == 0 else ((2 * SA, SA * S, H - 1) if part == 1 else (SA, SA, m * H))
            half = 0.5 * p * bits
            if bits <= 12:
                for j in range(o, o + n):
                    c = int(x[j])
                    ones = 0
                    for _ in range(c):
                        ones += rng.random() < q1
                    for _ in range(bits - c):
                        ones += rng.random() < q0
                    cum[j] += (float(ones) - half) * inv
            else:
                rr_sum_counts(x[o:o + n], bits, p, rng, tmp[:n])
                for j in range(n):
                    cum[o + j] += (tmp[j] - half) * inv
        for h in range(H):
            i = states[h] * A + actions[h]
            x[i] = 0.0
            x[SA + i] = 0.0
            if h < H - 1:
                x[2 * SA + i * S + states[h + 1]] = 0.0
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
                 "riverswim S=2 H=2": envs.riverswim(S=2, H=2),
                 "riverswim S=2 H=3": envs.riverswim(S=2, H=3)}
    lean = {"ldp-obi": lambda la, p, K, rng: lean_ldp_obi(*la, K, p["epsilon"], p["bonus_scale"], p["delta"],
                                                          p["alpha"], rng),
            "shuffled-obi": lambda la, p, K, rng: lean_shuffled_obi(*la, K, p["epsilon"], p["bonus_scale"], p["delta"],
                                                                    p["alpha"], int(p["m"]), shuffled_tau_py(p, K), rng)}
    print(f"# ns per episode at K = {K:g}, eps = 1, the agents' defaults, CPU time, fastest of {args.rounds} "
          "interleaved rounds (compile excluded)")
    print(f"{'instance':20s} {'agent':13s} {'ucbvi':>8s} {'agent':>8s} {'lean':>8s} {'agent/lean':>10s} {'lean xU':>8s} "
          f"{'agent xU':>9s}")
    for name, mdp in instances.items():
        env = engine.env_arrays(mdp)
        la = lean_args(env)

        def run_agent(agent, K, seed):
            spec = REGISTRY[agent]
            pv = spec.param_vector({"epsilon": 1.0} if "epsilon" in spec.defaults else {})
            rec = engine.new_recorder(K, np.array([0.1]))
            spec.run_episodes(env, pv, np.int64(K), np.int64(0), np.int64(K), seeding.generator("bench", agent, seed),
                              rec, spec.init_state(env, pv, np.int64(K)))

        agents = [a for a in lean if a != "shuffled-obi" or mdp.H >= SHUFFLED_MIN_HORIZON]
        parts = {"ucbvi": lambda seed: run_agent("ucbvi", K, seed)}
        for agent in agents:
            p = {**REGISTRY[agent].defaults, "epsilon": 1.0}
            parts[agent] = lambda seed, agent=agent: run_agent(agent, K, seed)
            parts["lean " + agent] = lambda seed, agent=agent, p=p: lean[agent](
                la, p, K, seeding.generator("bench", "lean-" + agent, seed))
            lean[agent](la, p, 50, seeding.generator("bench", "compile", 0)), run_agent(agent, 50, 999)  # compile
        run_agent("ucbvi", 50, 999)
        best = {key: math.inf for key in parts}
        for rnd in range(args.rounds):
            for key, fn in parts.items():
                t0 = time.process_time()
                fn(rnd)
                best[key] = min(best[key], (time.process_time() - t0) / K * 1e9)
        u = best["ucbvi"]
        for agent in agents:
            o, le = best[agent], best["lean " + agent]
            print(f"{name:20s} {agent:13s} {u:8.1f} {o:8.1f} {le:8.1f} {o / le:9.2f}x {le / u:7.2f}x {o / u:8.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
