"""The one backward induction of the package: every agent's planner and the exact evaluation.

Every backward induction (a loop over the horizon h = H-1..0) lives in this module; a
test fails if one appears anywhere else (tests/rl/test_planning.py). Each is a loop over h
calling one *layer* function, and the layers share their per-action pieces:

* :func:`plus_expected_next` -- ``q + sum_s' p[s, a, s'] V_{h+1}(s')``, accumulated onto q in
  the order s' = 0, 1, ... (no reassociation, so the same on every FMA-capable CPU;
  docs/decisions/performance.md, "Determinism across machines");
* :func:`clip_and_compare` -- clip at the value range, then the greedy comparison with ties
  to the smaller count, then the lower index (docs/decisions/engine.md, "Tie-breaking"), as
  selects (UCBVI, RLSVI); :func:`clip_and_compare_branching`, the same with branches (OBI,
  Bernstein, PrivQ: faster there; docs/decisions/performance.md, "Private agents").

Optimistic layers (return the number of (s, a) whose Q is clipped; ``aux`` of the runner):

* :func:`optimistic_layer` -- ``Q = min(cap, q_base + p . V_{h+1})`` (the dot product skipped
  when q_base >= cap): UCBVI (:func:`optimistic_plan`);
* :func:`stationary_layer` -- the same for OBI's stationary model (:func:`stationary_plan`),
  q_base = ``r+ + cap beta^p`` computed in the layer;
* :func:`bernstein_layer` -- variance-dependent bonus (:func:`bernstein_plan`);
* :func:`privq_layer` -- PUCB's PrivQ on unnormalised private counters (:func:`privq_plan`;
  fastmath-free, its multiply-adds written as :func:`privq_fma`, so that PUCB's loop inlines it).
Exact layers: :func:`evaluation_layer` (V^pi; :func:`policy_start_value`), RLSVI's unclipped
greedy induction (:func:`perturbed_plan`), and :func:`backward_induction`, the numpy loop of
``mdp.optimal_values`` / ``mdp.policy_values`` and the numpy UCBVI reference.

Inputs of the time-inhomogeneous planners (as in Vietri et al. Alg. 2):
    p_hat   float64[H, S, A, S]  estimated transition rows (possibly from private counts)
    q_base  float64[H, S, A]     r^ + bonus for the pair; +inf for an unvisited pair
    n_sa    float64[H, S, A]     visit counts (used only to break ties)
Outputs: pi int64[H, S] greedy in the (optimistic) Q, V float64[H + 1, S].

The layer helpers are ``inline="always"`` (a numba call per layer costs more than the
layer; docs/decisions/performance.md, "Throughput") and carry the same fastmath flags as every function
that calls them: an inlined body takes its caller's flags (tested).
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

# FMA contraction only, no reassociation: every sum runs in source order, so the numbers do not
# depend on the vector width LLVM picks for the host (AVX2 and AVX-512 nodes agree bit for bit;
# tests/rl/test_cpu_targets.py; docs/decisions/performance.md, "Determinism across machines").
FP_FLAGS = {"contract"}


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def plus_expected_next(q, p, hp, s, a, V, h1):
    """q + sum_s' p[hp, s, a, s'] V[h1, s'] with p float64[., S, A, S'], V float64[., S'].

    Layers index the full arrays (no per-layer views: a numba view costs a reference count)."""
    for s2 in range(V.shape[1]):
        q += p[hp, s, a, s2] * V[h1, s2]
    return q


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def clip_and_compare(q, cap, n, a, best, best_a, nb):
    """One action of a greedy selection: clip q at cap, then keep (q, a, n) over (best, best_a, nb)
    if q is larger, or equal with a smaller tie count n. Returns (clipped, best, best_a, nb).

    Written as selects, not branches: the comparisons depend on the data ("Throughput").
    """
    c = q >= cap
    q = cap if c else q
    take = (q > best) | ((q == best) & (n < nb))
    return c, (q if take else best), (a if take else best_a), (n if take else nb)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def clip_and_compare_branching(q, cap, n, a, best, best_a, nb):
    """:func:`clip_and_compare` written with branches (same results): faster in the planners
    whose per-action work is heavier or whose comparisons are predictable (OBI's stationary
    model, Bernstein, PrivQ), where the selects only lengthened the dependency chain."""
    c = q >= cap
    if c:
        q = cap
    if q > best or (q == best and n < nb):
        return c, q, a, n
    return c, best, best_a, nb


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def optimistic_layer(p, hp, q_base, tie, hq, V, h, cap, floor, nb0, pi):
    """One optimistic backup of layer h: Q(s, a) = min(cap, q_base[hq, s, a] + p[hp, s, a] . V[h + 1]),
    the dot product skipped when q_base >= cap; pi[h, s] = argmax with ties to the smaller
    tie[hq, s, a], then the lower a; V[h, s] = max.

    p float64[., S, A, S], q_base/tie float64[., S, A], V float64[H + 1, S], pi int64[H, S]
    (hp = hq = h for per-layer models, 0 for a stationary one). The selection starts from (floor, action 0, count nb0): UCBVI uses
    (-1, 0) as it always has; nb0 = +inf reproduces "compare with the count of best_a".
    Returns the number of clipped (s, a).
    """
    S, A = q_base.shape[1], q_base.shape[2]
    clipped = 0
    for s in range(S):
        best = floor
        best_a = 0
        nb = nb0
        for a in range(A):
            q = q_base[hq, s, a]
            if q < cap:
                q = plus_expected_next(q, p, hp, s, a, V, h + 1)
            c, best, best_a, nb = clip_and_compare(q, cap, tie[hq, s, a], a, best, best_a, nb)
            clipped += c
        pi[h, s] = best_a
        V[h, s] = best
    return clipped


@njit(cache=True, fastmath=FP_FLAGS)
def optimistic_plan(p_hat, q_base, n_sa, pi, V):
    """Q_h(s,a) = min(H - h, q_base + p_hat . V_{h+1}) for 0-based h (= H - h' + 1 for 1-based h').

    Ties (typically all-saturated actions) go to the action with the smaller count n_sa,
    then to the lower index, so a fully optimistic agent explores systematically instead
    of repeating action 0 (docs/decisions/engine.md, "Tie-breaking").
    Returns the fraction of (h, s, a) whose Q is clipped at H - h (bonus saturated).
    """
    return optimistic_backup(p_hat, q_base, n_sa, pi, V)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def optimistic_backup(p_hat, q_base, n_sa, pi, V):
    """:func:`optimistic_plan` inlined into its caller (UCBVI's episode loop: a call passing five
    arrays cost more than this planner at S=2 H=3; docs/decisions/performance.md, "A lean engine")."""
    H, S, A = q_base.shape
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        clipped += optimistic_layer(p_hat, h, q_base, n_sa, h, V, h, float(H - h), -1.0, 0.0, pi)
    return clipped / (H * S * A)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def stationary_layer(p1, r_plus, bp, n_tie, V, h, cap, pi):
    """One backup of :func:`stationary_plan`: ``Q(s, a) = min(cap, r_plus + cap bp + p~ . V_{h+1})``
    (the dot product skipped when ``r_plus + cap bp >= cap``), argmax with ties to the smaller
    n_tie then the lower a, from (-inf, 0, +inf) as :func:`optimistic_layer` with q_base = that
    layer's ``r_plus + cap bp`` (computed here: no per-plan buffer). p1 float64[1, S, A, S].
    Returns the number of clipped (s, a)."""
    S, A = r_plus.shape[0], r_plus.shape[1]
    clipped = 0
    for s in range(S):
        best = -np.inf
        best_a = 0
        nb = np.inf
        for a in range(A):
            q = r_plus[s, a] + cap * bp[s, a]
            if q < cap:
                q = plus_expected_next(q, p1, 0, s, a, V, h + 1)
            c, best, best_a, nb = clip_and_compare_branching(q, cap, n_tie[s, a], a, best, best_a, nb)
            clipped += c
        pi[h, s] = best_a
        V[h, s] = best
    return clipped


@njit(cache=True, fastmath=FP_FLAGS)
def stationary_plan(p_t, r_plus, bp, n_tie, pi, V):
    """Garcelon et al. note Eq. 17 for a stationary model (OBI).

    p_t float64[S, A, S] (Eq. 16 p~, need not sum to 1), r_plus float64[S, A] = r~ + beta^r,
    bp float64[S, A] = beta^p (``inf`` = no information), n_tie float64[S, A] private counts
    used only to break ties (least visited first, as :func:`optimistic_plan`).
    ``Q_h = r~ + (H - h + 1) beta^p + beta^r + p~ . V_{h+1}``, ``V_h = min(H - h + 1, max_a Q_h)``
    (1-based h; the clip is applied per action, which leaves V and the argmax among
    unclipped actions unchanged). Returns the clipped fraction.
    """
    S, A = r_plus.shape[0], r_plus.shape[1]
    return stationary_backup(p_t.reshape((1, S, A, S)), r_plus, bp, n_tie, pi, V)


@njit(cache=True, fastmath=FP_FLAGS)
def stationary_plan_1(p1, r_plus, bp, n_tie, pi, V):
    """:func:`stationary_plan` on the model already shaped p1 float64[1, S, A, S] (the OBI episode
    loops keep it so: no view made per call). A call, not inlined: its callers are fastmath-free."""
    return stationary_backup(p1, r_plus, bp, n_tie, pi, V)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def stationary_backup(p1, r_plus, bp, n_tie, pi, V):
    """The backward induction of :func:`stationary_plan` (inlined into its two entry points, which
    have its flags): V[H] = 0, then :func:`stationary_layer` for h = H-1..0 with cap H - h."""
    H, S = pi.shape
    A = r_plus.shape[1]
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        clipped += stationary_layer(p1, r_plus, bp, n_tie, V, h, float(H - h), pi)
    return clipped / (H * S * A)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def bernstein_layer(p, q_static, coef, tie, V, h, cap, pi):
    """One backup with an empirical-Bernstein bonus: if q_static < cap,
    ``Q = q_static + (coef sqrt(Var_p(V_{h+1})) + p . V_{h+1})``, both moments in one pass; then
    clip and select as :func:`optimistic_layer` (floor -1, ties to the smaller count of best_a).
    The mean is summed from 0 (not onto q_static), so it cannot use :func:`plus_expected_next`
    without changing the numbers. Returns the number of clipped (s, a).
    """
    S, A = q_static.shape[1], q_static.shape[2]
    clipped = 0
    for s in range(S):
        best = -1.0
        best_a = 0
        nb = np.inf
        for a in range(A):
            q = q_static[h, s, a]
            if q < cap:
                m1 = 0.0
                m2 = 0.0
                for s2 in range(S):
                    w = p[h, s, a, s2]
                    v = V[h + 1, s2]
                    m1 += w * v
                    m2 += w * v * v
                var = m2 - m1 * m1
                if var < 0.0:
                    var = 0.0
                q += coef[h, s, a] * math.sqrt(var) + m1
            c, best, best_a, nb = clip_and_compare_branching(q, cap, tie[h, s, a], a, best, best_a, nb)
            clipped += c
        pi[h, s] = best_a
        V[h, s] = best
    return clipped


@njit(cache=True, fastmath=FP_FLAGS)
def bernstein_plan(p_hat, q_static, coef, n_tie, pi, V):
    """UCBVI backward induction with a variance-dependent bonus (Azar et al. 2017, bonus_2, first
    two terms; DP-UCBVI reconstruction).

    p_hat float64[H, S, A, S] (valid rows), q_static float64[H, S, A] = r~ + the terms of the
    bonus that do not depend on V (``+inf`` for a pair without information), coef
    float64[H, S, A] multiplies ``sqrt(Var_{p_hat}(V_{h+1}))``. Q is clipped at H - h
    (0-based h); ties to the smaller n_tie. Returns the clipped fraction.
    """
    H, S, A = q_static.shape
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        clipped += bernstein_layer(p_hat, q_static, coef, n_tie, V, h, float(H - h), pi)
    return clipped / (H * S * A)


@intrinsic
def privq_fma(typingctx, a, b, c):
    """``a b + c`` rounded once (``llvm.fma.f64``): the fused multiply-add that the ``contract``
    flag (:data:`FP_FLAGS`) lets LLVM make of a product feeding a sum, written out so that PrivQ
    computes the planners' numbers without the flag (and can be inlined into PUCB's flag-free
    episode loop, whose own products must not be fused)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True, inline="always")
def privq_layer(c, h, H, S, A, E, ln_tb, scale, V, pi):
    """Vietri et al. Alg. 3 (PrivQ) for layer h on released counters c[(S+2)HSA] laid out
    [r~ (HSA) | n~ (HSA) | m~ (HSAS)], index of (h, s, a) ``(h S + s) A + a``.

    If n~ >= 2E (and > 0): ``Q~ = (r~ + sum_s' V(s') m~(s')) / n~`` plus
    ``conf = scale (H+1) phi~ + psi~``; otherwise Q+ = H. Q+ is clipped at H (every h, as
    printed); ties to the smaller n~. The sum is over unnormalised counts and divided after,
    so it cannot use :func:`plus_expected_next` without changing the numbers.

    Fastmath-free: the multiply-adds the planners' ``contract`` flag fuses are written as
    :func:`privq_fma` (the sum over s' in source order, and ``Q~ + scale (H+1) phi~``), so the
    numbers are those of the flagged build on every FMA-capable CPU (tests/agents/test_output_digests.py)
    and PrivQ can be inlined into PUCB's fastmath-free episode loop.
    Returns the number of clipped (s, a).
    """
    HSA = H * S * A
    capH = float(H)
    clipped = 0
    for s in range(S):
        best = -np.inf
        best_a = 0
        nb = 0.0
        for a in range(A):
            i = (h * S + s) * A + a
            n = c[HSA + i]
            q = capH
            if n >= 2.0 * E and n > 0.0:
                acc = c[i]
                base = 2 * HSA + i * S
                for s2 in range(S):
                    acc = privq_fma(V[h + 1, s2], c[base + s2], acc)
                phi = math.sqrt(2.0 * ln_tb / max(n - E, 1.0))
                psi = (1.0 + S * H) * (3.0 * E / n + 2.0 * E * E / (n * n))
                q = privq_fma(scale * (H + 1.0), phi, acc / n) + psi
            cl, best, best_a, nb = privq_clip_and_compare(q, capH, n, a, best, best_a, nb)
            clipped += cl
        pi[h, s] = best_a
        V[h, s] = best
    return clipped


@njit(cache=True, inline="always")
def privq_clip_and_compare(q, cap, n, a, best, best_a, nb):
    """:func:`clip_and_compare_branching` without fastmath flags (it does no arithmetic: the same
    comparisons), for the fastmath-free PrivQ layer."""
    c = q >= cap
    if c:
        q = cap
    if q > best or (q == best and n < nb):
        return c, q, a, n
    return c, best, best_a, nb


@njit(cache=True, inline="always")
def privq_backup(c, H, S, A, E, ln_tb, scale, pi, V):
    """:func:`privq_plan` inlined into its caller (PUCB's episode loop: a call passing three arrays
    cost about as much as this planner on a small instance; docs/decisions/performance.md)."""
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        clipped += privq_layer(c, h, H, S, A, E, ln_tb, scale, V, pi)
    return clipped / (H * S * A)


@njit(cache=True)
def privq_plan(c, H, S, A, E, ln_tb, scale, pi, V):
    """Alg. 3 (PrivQ) of Vietri et al. 2020 for every layer; fills pi[H, S], V[H+1, S].

    c float64[(S+2)HSA]: the released counters (:func:`privq_layer`); E: error level the planner
    assumes (``bonus_scale * E_eps``); ln_tb = ln(T/beta').
    Returns the fraction of (s, a, h) whose Q+ equals the cap H.
    """
    return privq_backup(c, H, S, A, E, ln_tb, scale, pi, V)


@njit(cache=True, fastmath=FP_FLAGS)
def perturbed_plan(r_hat, p_hat, w, pi, V, Q):
    """Lu et al. 2026 Alg. 1 lines 5-15 (RLSVI): Q~ = R^ + w + P^ . V~_{h+1} (no clipping),
    V~ = max_a Q~, pi = argmax_a with ties to the first index. r_hat, w, Q float64[H, S, A]."""
    H, S, A = r_hat.shape
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        for s in range(S):
            best = -np.inf
            best_a = 0
            nb = 0.0
            for a in range(A):
                q = plus_expected_next(r_hat[h, s, a] + w[h, s, a], p_hat, h, s, a, V, h + 1)
                Q[h, s, a] = q
                c, best, best_a, nb = clip_and_compare(q, np.inf, 0.0, a, best, best_a, nb)
            pi[h, s] = best_a
            V[h, s] = best


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def evaluation_layer(P, R, pi, V, h):
    """V[h, s] = R[h, s, pi[h, s]] + P[h, s, pi[h, s]] . V[h + 1] for the states s < S that have
    an action; the remaining states (an absorbing x-dagger, Bai et al. Def. 5) get 0.
    P float64[H, S', A, S'], R float64[H, S', A], pi int[H, S], V float64[H + 1, S']."""
    for s in range(pi.shape[1]):
        a = pi[h, s]
        V[h, s] = plus_expected_next(R[h, s, a], P, h, s, a, V, h + 1)
    for s in range(pi.shape[1], V.shape[1]):
        V[h, s] = 0.0


@njit(cache=True, fastmath=FP_FLAGS)
def policy_start_value(P, R, rho, pi, V):
    """rho^T V^pi_1 for a deterministic pi[H, S] (Vietri et al. Sec. 2.1); V[H + 1, S'] is a
    work buffer, S' >= S (states beyond pi's are absorbing with value 0)."""
    return start_value(P, R, rho, pi, V)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def start_value(P, R, rho, pi, V):
    """:func:`policy_start_value` inlined into its caller (same sums, same flags)."""
    H = pi.shape[0]
    for s in range(V.shape[1]):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        evaluation_layer(P, R, pi, V, h)
    v = 0.0
    for s in range(V.shape[1]):
        v += rho[s] * V[0, s]
    return v


def backward_induction(H: int, S: int, layer) -> np.ndarray:
    """numpy backward induction: V float64[H + 1, S] with V[H] = 0 and V[h] = layer(h, V[h + 1])."""
    V = np.zeros((H + 1, S))
    for h in range(H - 1, -1, -1):
        V[h] = layer(h, V[h + 1])
    return V


@njit(cache=True, inline="always")
def refresh_row(counts_sas, n, row_out):
    """row_out[:] = counts_sas / n (the empirical transition row of one pair; n > 0)."""
    inv = 1.0 / n
    for s2 in range(row_out.shape[0]):
        row_out[s2] = counts_sas[s2] * inv


@njit(cache=True, inline="always")
def count_step(n_sa, n_sas, r_sum, p_hat, h, s, a, s_next, r):
    """Add one observed step (h, s, a) -> s_next with reward r to the per-layer counts
    n_sa[H, S, A], n_sas[H, S, A, S], r_sum[H, S, A] and refresh the row p_hat[h, s, a].
    Returns the new n_sa[h, s, a]."""
    n_sa[h, s, a] += 1.0
    n_sas[h, s, a, s_next] += 1.0
    r_sum[h, s, a] += r
    n = n_sa[h, s, a]
    refresh_row(n_sas[h, s, a], n, p_hat[h, s, a])
    return n
