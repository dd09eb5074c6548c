"""A lean DP-UCBVI kernel: the reference for the private UCBVI family's per-episode cost.

    python bench/lean_dp_ucbvi.py [--episodes 1000000] [--rounds 3]

One numba function doing, per episode, the work DP-UCBVI (the reconstruction of
:mod:`privrl.agents.private_ucbvi`: Qiao & Wang 2023 as in Bai et al. Table I) needs and nothing
else, on the same random stream as privrl's ``dp-ucbvi-jdp`` / ``dp-ucbvi-ldp``; with ``bernstein``
False, the same for Private-UCBVI (``private-ucbvi-jdp`` / ``-ldp``: the Hoeffding bonus and planner):

* the Bernstein backward induction (Azar et al. 2017, bonus_2 without its third term;
  ``planning.bernstein_plan``: Q = q_static + coef sqrt(Var_p(V_{h+1})) + p . V_{h+1}, clipped at
  H - h, ties to the smaller post-processed count, then the lower action), or the Hoeffding one
  (``planning.optimistic_plan``: Q = q_static + p . V_{h+1}, q_static with bonus_1 = 7 H L / sqrt(n));
* the exact regret of the played policy and the sampled episode (as ``engine.step``);
* the release of all (S + 2) H S A counters [R | N_sa | N_sas]: the binary mechanism per counter
  at eps/(3H) (JDP: Vietri et al. App. A Alg. 5, one fresh Laplace node per counter per release,
  node scale L / eps', L = K.bit_length()) or Lap(6H/eps) per coordinate and user (LDP);
* the error level E (Assumption 4 of Bai et al.: 4 x the Chernoff bound of ``bounds``, or at
  ``z`` > 0, 4 z sd of the current release's noise);
* the post-processing (Bai et al. Sec. V-A, Eq. 4-5, closed form) and model refresh of ceil(H/2)
  rows in a fixed round robin.

No recorder (one running regret sum), no evaluation cache, no door, no domain checks, no chunking
or resumable state, no privatizer state tuple: the tree is one [n, L] array of exact p-sums and one
[n, L + 1] array of partial sums (counter-major: a pass for the entering nodes, one call drawing
their noise, a pass for the releases). Its cumulative regret equals
privrl's bit for bit (tests/agents/test_lean_dp_ucbvi.py), so the ratio of their times is privrl's
fixed overhead for this family.

Floating point: compiled with the planners' flags (``planning.FP_FLAGS``, contraction only) so the
planner's and the evaluation's sums are privrl's; every other product that contraction could fuse
into a sum is either exact (``0.25 E``) or made in a call compiled without flags
(``laplace.laplace_release``: ``x + scale * Laplace`` per counter, one call per release), as in
privrl's fastmath-free mechanisms.

Arrays as :func:`privrl.rl.engine.env_arrays`: P, P_cdf float64[H, S, A, S], R float64[H, S, A],
det int64[H, S, A], rho, rho_cdf float64[S], v_star = rho^T V*_1.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from numba import njit

from privrl.mechanisms.bounds import laplace_sum_bound, tree_error_bound
from privrl.mechanisms.laplace import laplace_release
from privrl.mechanisms.tree import tree_levels


@njit(cache=True, fastmath={"contract"})  # privrl's planner flags (planning.FP_FLAGS): the same sums
def lean_dp_ucbvi(P, P_cdf, R, det, rho, rho_cdf, v_star, bern, K, eps, scale, delta, z, ldp, bernstein, rng):
    """K episodes of DP-UCBVI (``bernstein``: the Bernstein bonus) or Private-UCBVI (the Hoeffding bonus
    and planner) on central-tree (``ldp`` False) or local-Laplace counts; returns
    sum_k max(0, V*_1 - V^{pi_k}_1) (exact)."""
    H, S, A = R.shape
    HSA = H * S * A
    n = HSA * (S + 2)  # counters [R (HSA) | N_sa (HSA) | N_sas (HSAS)]
    L = math.log(5.0 * S * A * K * H / delta)
    d_one = delta / (n * K)
    ep = eps / (3.0 * H)  # accounting.per_counter_epsilon
    levels = tree_levels(K)
    node = levels * 1.0 / ep  # tree node scale L sensitivity / eps'
    b_ldp = 6.0 * H / eps
    matched = z > 0.0
    pscale = 1.0 if matched else scale
    E = 0.0 if ldp else 4.0 * tree_error_bound(K, ep, 1.0, d_one)
    x = np.zeros(n)
    ai = np.zeros(n)  # JDP: the entering node's exact p-sum
    nz = np.zeros(n)  # the release's fresh noisy values
    c = np.zeros(n)  # released cumulative counts
    exact = np.zeros((n, levels))  # JDP: exact p-sums per counter and level
    psum = np.zeros((n, levels + 1))  # JDP: psum[c, j] = noisy nodes of t at levels >= j
    nt = np.zeros((H, S, A, S))  # post-processed N~(s, a, .)
    nsa = np.zeros((H, S, A))
    ph = np.zeros((H, S, A, S))
    q = np.full((H, S, A), np.inf)
    coef = np.zeros((H, S, A))
    V = np.zeros((H + 1, S))
    W = np.zeros((H + 1, S))
    pi = np.zeros((H, S), np.int64)
    st = np.zeros(H + 1, np.int64)
    ac = np.zeros(H, np.int64)
    work = np.zeros(S)
    v = np.zeros(S)
    n_refresh = (H + 1) // 2
    ch, cs, ca = 0, 0, 0
    regret = 0.0
    for k in range(K):
        for h in range(H - 1, -1, -1):  # Bernstein (or Hoeffding) backward induction
            cap = float(H - h)
            for s in range(S):
                best, ba, nb = -1.0, 0, (np.inf if bernstein else 0.0)  # optimistic_plan starts from nb0 = 0
                for a in range(A):
                    qa = q[h, s, a]
                    if qa < cap and not bernstein:  # planning.optimistic_layer: q_base + p^ . V_{h+1}
                        for s2 in range(S):
                            qa += ph[h, s, a, s2] * V[h + 1, s2]
                    elif qa < cap:
                        m1 = 0.0
                        m2 = 0.0
                        for s2 in range(S):
                            w = ph[h, s, a, s2]
                            vv = V[h + 1, s2]
                            m1 += w * vv
                            m2 += w * vv * vv
                        var = m2 - m1 * m1
                        if var < 0.0:
                            var = 0.0
                        qa += coef[h, s, a] * math.sqrt(var) + m1
                    if qa >= cap:
                        qa = cap
                    if qa > best or (qa == best and nsa[h, s, a] < nb):
                        best, ba, nb = qa, a, nsa[h, s, a]
                pi[h, s] = ba
                V[h, s] = best
        for h in range(H - 1, -1, -1):  # exact value of the policy played
            for s in range(S):
                a = pi[h, s]
                val = R[h, s, a]
                for s2 in range(S):
                    val += P[h, s, a, s2] * W[h + 1, s2]
                W[h, s] = val
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
            i = (h * S + s) * A + a
            x[i] += r
            x[HSA + i] += 1.0
            x[2 * HSA + i * S + s2] += 1.0
            st[h], ac[h] = s, a
            s = s2
        st[H] = s
        t = k + 1  # release t (1-based)
        if ldp:  # each user's coordinates + Lap(6H/eps), summed into the released counts
            laplace_release(x, b_ldp, rng, nz)
            for j in range(n):
                c[j] += nz[j]
            if matched:
                E = 4.0 * z * (b_ldp * math.sqrt(2.0 * (k + 1.0)))
            else:
                E = 4.0 * laplace_sum_bound(k + 1.0, b_ldp, d_one)
        else:  # binary mechanism step t: node i = lowest set bit of t enters, the levels below leave
            lb = 0
            while ((t >> lb) & 1) == 0:
                lb += 1
            for j in range(n):
                al = x[j]
                for l in range(lb):
                    al += exact[j, l]
                    exact[j, l] = 0.0
                exact[j, lb] = al
                ai[j] = al
            laplace_release(ai, node, rng, nz)  # the new nodes: ai + Lap(node scale), counter by counter
            for j in range(n):
                out = psum[j, lb + 1] + nz[j]
                for l in range(lb + 1):
                    psum[j, l] = out
                c[j] = out
            if matched:  # tree_release_sd(t): popcount(t) nodes
                pc = 0
                tt = t
                while tt > 0:
                    pc += tt & 1
                    tt >>= 1
                E = 4.0 * z * (math.sqrt(pc) * math.sqrt(2.0) * levels * 1.0 / ep)
        for _ in range(n_refresh):  # round robin: post-process (Eq. 4-5) and refresh one row
            i = (ch * S + cs) * A + ca
            base = 2 * HSA + i * S
            cn = c[HSA + i]
            rr = 0.25 * E
            if cn + rr < 0.0:
                cn = -rr
            t0 = 0.0
            sv = 0.0
            lo0 = 0.0
            for j in range(S):
                vj = c[base + j]
                v[j] = vj
                sv += vj
                if -vj > t0:
                    t0 = -vj
                if vj > 0.0:
                    lo0 += vj
            t_hi = (cn - rr - sv) / S
            C = cn + rr
            t_lo = 0.0
            if lo0 > C:  # smallest t with sum_j max(0, v_j - t) <= C: v in descending order
                for j in range(S):
                    work[j] = -v[j]
                _insertion_sort(work)
                Pp = 0.0
                found = False
                for kk in range(1, S + 1):
                    Pp -= work[kk - 1]
                    t_lo = (Pp - C) / kk
                    nxt = -work[kk] if kk < S else -np.inf
                    if t_lo >= nxt:
                        found = True
                        break
                if not found:
                    t_lo = (Pp - C) / S
            tt_ = max(t0, t_hi, t_lo)
            lsum = 0.0
            usum = 0.0
            bs = 0.0
            for j in range(S):
                li = max(0.0, v[j] - tt_)
                lsum += li
                usum += v[j] + tt_
                bs += max(v[j], 0.0)
                work[j] = li - v[j]
            target = min(max(bs, max(cn - rr, lsum)), min(cn + rr, usum))
            D = target - lsum
            _insertion_sort(work)
            lam = work[0]
            if D > 0.0:
                B = 0.0
                for kk in range(1, S + 1):
                    B += work[kk - 1]
                    lam = (D + B) / kk
                    if kk == S or lam <= work[kk]:
                        break
            tot = 0.0
            for j in range(S):
                nj = min(max(v[j] - tt_, 0.0, v[j] + lam), v[j] + tt_)
                nt[ch, cs, ca, j] = nj
                tot += nj
            extra = E / (2.0 * S)
            for j in range(S):
                nt[ch, cs, ca, j] += extra
            nn = tot + 0.5 * E
            nsa[ch, cs, ca] = nn
            if not nn > 0.0:
                q[ch, cs, ca] = np.inf
            else:
                inv = 1.0 / nn
                for j in range(S):
                    ph[ch, cs, ca, j] = nt[ch, cs, ca, j] * inv
                if bernstein:
                    q[ch, cs, ca] = c[i] / nn + scale * 14.0 * H * L / (3.0 * nn) + pscale * 2.0 * (S * H + 1.0) * E / nn
                    coef[ch, cs, ca] = scale * math.sqrt(8.0 * L / nn)
                else:  # ucbvi.hoeffding_bonus: Azar et al. bonus_1, 7 H L / sqrt(n)
                    q[ch, cs, ca] = c[i] / nn + scale * 7.0 * H * L / math.sqrt(nn) + pscale * 2.0 * (S * H + 1.0) * E / nn
            ca += 1
            if ca == A:
                ca = 0
                cs += 1
                if cs == S:
                    cs = 0
                    ch = 0 if ch == H - 1 else ch + 1
        for h in range(H):
            i = (h * S + st[h]) * A + ac[h]
            x[i] = 0.0
            x[HSA + i] = 0.0
            x[2 * HSA + i * S + st[h + 1]] = 0.0
    return regret


@njit(cache=True, inline="always")
def _insertion_sort(a):
    """Sort a[S] ascending in place (postprocess._sort_small's insertion sort, NaN last; any S)."""
    for i in range(1, a.shape[0]):
        val = a[i]
        j = i
        while j > 0 and (val < a[j - 1] or (np.isnan(a[j - 1]) and not np.isnan(val))):
            a[j] = a[j - 1]
            j -= 1
        a[j] = val


def lean_args(env: tuple) -> tuple:
    """The lean kernel's environment arguments from privrl's env tuple."""
    P, P_cdf, R, det, bern, rho, rho_cdf, v_star = env[:8]
    return P, P_cdf, R, det, rho, rho_cdf, float(v_star[0]), bool(bern[0])


def lean_run(env: tuple, K: int, rng, params: dict, ldp: bool, bernstein: bool = True) -> float:
    """The lean kernel on privrl's env tuple with dp-ucbvi's (``bernstein``) or private-ucbvi's parameters
    (defaults filled in)."""
    p = {"epsilon": 1.0, "bonus_scale": 1.0, "delta": 0.05, "z": 0.0, **params}
    return lean_dp_ucbvi(*lean_args(env), np.int64(K), float(p["epsilon"]), float(p["bonus_scale"]),
                         float(p["delta"]), float(p["z"]), ldp, bernstein, rng)


def main() -> None:
    from privrl.runs import run
    from privrl.rl import engine, envs, seeding

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--z", type=float, default=0.0)
    args = ap.parse_args()
    instances = {"bandit H=1": envs.make("garnet", S=1, A=2, branching=1, H=1, seed=0),
                 "riverswim S=2 H=2": envs.make("riverswim", S=2, H=2)}
    K = args.episodes
    params = {"epsilon": 1.0, "z": args.z}
    print("# CPU time per episode, best of rounds, interleaved; compile excluded; K =", K, "z =", args.z)
    for inst, mdp in instances.items():
        env = engine.env_arrays(mdp)
        for ldp, agent in ((False, "dp-ucbvi-jdp"), (True, "dp-ucbvi-ldp"), (False, "private-ucbvi-jdp"),
                           (True, "private-ucbvi-ldp")):
            bernstein = agent.startswith("dp-")
            lean_run(env, 50, seeding.generator("bench", "lean", 999), params, ldp, bernstein)
            run.run_seed(agent, params, mdp, 50, 999)
            best = {"lean": np.inf, "privrl": np.inf}
            for r in range(args.rounds):
                t0 = time.process_time()
                a = lean_run(env, K, seeding.generator("adhoc", "default", r), params, ldp, bernstein)
                t1 = time.process_time()
                b = run.run_seed(agent, params, mdp, K, r)["cum_regret"].iloc[-1]
                t2 = time.process_time()
                best["lean"] = min(best["lean"], t1 - t0)
                best["privrl"] = min(best["privrl"], t2 - t1)
                assert a == b, (inst, agent, r, a, b)
            lean_ns, priv_ns = (best[w] / K * 1e9 for w in ("lean", "privrl"))
            print(f"{inst:18s} {agent:17s} lean {lean_ns:7.1f} ns/ep   privrl {priv_ns:7.1f} ns/ep   "
                  f"privrl/lean {priv_ns / lean_ns:5.2f}x   (regret equal)")


if __name__ == "__main__":
    main()
