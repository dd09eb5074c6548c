"""Error / width bounds of each mechanism's noise, next to the mechanisms (numba where agents use them).

Agents combine these into their own confidence widths (e.g. LDP-OBI's c_{k,i}, the private
UCBVI family's Assumption-4 level E); the combinations stay in the agents. None draws noise.

Laplace (:mod:`.laplace`, local-laplace and the tree's nodes):

* :func:`laplace_sum_bound` -- the exact two-sided Chernoff bound on a sum S of ``n`` i.i.d.
  Laplace(b): with the Laplace MGF ``E e^{l X} = 1/(1 - b^2 l^2)`` (``|l| < 1/b``),
  ``P(|S| >= t) <= 2 e^{-l t} (1 - b^2 l^2)^{-n}``; setting it to ``d`` and minimising over
  ``v = (b l)^2`` gives ``t = b (A - n ln(1 - v)) / sqrt(v)``, ``A = ln(2/d)``, at the root of
  ``2 n v/(1 - v) + n ln(1 - v) = A`` (increasing in v; its inverse series once n >= 100 A,
  safeguarded Newton below). For large n,
  ``t -> b sqrt(4 n ln(2/d))`` (docs/decisions/agents.md, "Confidence widths").
* :func:`laplace_sum_bound_chan_shi_song` -- Chan, Shi & Song 2011, Cor. 2.9.

Binary mechanism (:mod:`.tree`): :func:`tree_error_bound` (a release sums at most
``L`` nodes: :func:`laplace_sum_bound` of ``L`` terms), :func:`thm12_bound` (Vietri et al.
Thm 12 as printed).

Shuffle bit-sum (:mod:`.bitsum`, Bai et al. App. Alg. 4): :func:`bitsum_variance` (exact
variance of the noise ``Q - E[Q]``, Lemma 42), :func:`binomial_sum_bound` (Bernstein for a
centred sum of Bernoulli bits).

Shuffled randomized response (:mod:`.rr`, Garcelon et al. note): :func:`rr_count_width`
(Eq. 7) and :func:`rr_reward_width` (Eq. 8, unary reward code), both as printed.

Standard deviations of the realised noise (the matched-coverage width ``z sd`` of the
optimism agents, docs/decisions/verdicts.md "Ratios and orders"), each next to its bound:
:func:`laplace_sum_sd` (Var Lap(b) = 2 b^2), :func:`tree_release_sd` (a release at step t sums
popcount(t) noisy nodes), :func:`binomial_sum_sd` (bit-sum: the exact variance of Lemma 42),
:func:`rr_count_sd` and :func:`rr_reward_sd` (the debiased Eq. 6 analyzer of R_p bits).
"""
from __future__ import annotations

import math

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from privrl.mechanisms.bitsum import bitsum_noise_law
from privrl.mechanisms.tree import tree_levels


# ----------------------------------------------------------------------------- Laplace
@njit(cache=True)
def laplace_sum_bound(n, b, delta):
    """Two-sided (1 - delta) bound on |sum of n i.i.d. Laplace(b)| (module docstring).

    n >= 0 (number of noise terms, float or int), b >= 0 the scale. 0 if n == 0 or b == 0.
    """
    if n <= 0 or b <= 0.0:
        return 0.0
    return laplace_sum_bound_ln(n, b, math.log(2.0 / delta))


#: above this a = A / n the minimiser is found by Newton's method; at or below it from its series
SERIES_MAX_A = 0.01


@njit(cache=True, inline="always")
def laplace_sum_bound_ln(n, b, A):
    """:func:`laplace_sum_bound` with ``A = ln(2 / delta)`` given (the same number): a caller that asks
    for the bound of every episode at one delta (the LDP agents' error level) takes the log once.

    The bound is ``b (A - n ln(1 - v)) / sqrt(v)`` at its minimiser v, the root of
    ``h(v) = 2 v / (1 - v) + ln(1 - v) = a``, ``a = A / n`` (``h(v) = sum_m (2 - 1/m) v^m``).
    At ``a <= SERIES_MAX_A`` (every n past 100 A: all but an LDP run's first ~2,000-4,000 episodes) v is
    h's inverse series to a^6, ``v = a - 3/2 a^2 + 17/6 a^3 - 49/8 a^4 + 1729/120 a^5 - 8609/240 a^6``
    (next term 93 a^7: v within 1e-10 relative, and E, flat at its minimum, within rounding of the
    minimum), and ``ln(1 - v)`` is ``log1p(-v)``: two operations of fixed cost, where a Newton solve
    took ~155 ns on average. Above it: the safeguarded Newton solve (stops at ``|g| < 1e-12 A`` or
    after 60 steps). The result is the Chernoff bound at *some* v in (0, 1) chosen from (n, b, A) alone,
    so a valid (1 - delta) bound whatever v (docs/decisions/mechanisms.md, "The Laplace-sum bound's
    minimiser"); it is a pure function of (n, b, A), so a run's numbers do not depend on how it is
    chunked. Inlined into its callers (the series branch is a few operations; the Newton solve,
    :func:`laplace_sum_bound_newton`, stays a call)."""
    if n <= 0 or b <= 0.0 or A <= 0.0:  # A <= 0: delta >= 2, any t >= 0 holds
        return 0.0
    a = A / n
    if a <= SERIES_MAX_A:
        v = a * (1.0 + a * (-1.5 + a * (17.0 / 6.0 + a * (-49.0 / 8.0 + a * (1729.0 / 120.0
                                                                          + a * (-8609.0 / 240.0))))))
        return b * (A - n * math.log1p(-v)) / math.sqrt(v)
    return laplace_sum_bound_newton(n, b, A)


@njit(cache=True)
def laplace_sum_bound_newton(n, b, A):
    """The Chernoff bound of :func:`laplace_sum_bound_ln` at Newton's root of
    ``g(v) = 2 n v / (1 - v) + n ln(1 - v) - A`` (safeguarded: a step leaving the bracket bisects), from
    ``min(A / n, 1/2)``; stops at ``|g| < 1e-12 A`` or after 60 steps. n > 0, b > 0."""
    a = A / n
    lo, hi = 0.0, 1.0
    v = min(a, 0.5)
    lg = 0.0  # ln(1 - v) at the current v (reused by the return once converged: one log fewer per call)
    converged = False
    for _ in range(60):
        lg = math.log(1.0 - v)
        g = 2.0 * n * v / (1.0 - v) + n * lg - A
        if g > 0.0:
            hi = v
        else:
            lo = v
        if abs(g) < 1e-12 * A:
            converged = True
            break
        dg = 2.0 * n / (1.0 - v) ** 2 - n / (1.0 - v)
        v_new = v - g / dg
        v = v_new if lo < v_new < hi else 0.5 * (lo + hi)
    if not converged:
        lg = math.log(1.0 - v)
    return b * (A - n * lg) / math.sqrt(v)


@njit(cache=True)
def laplace_sum_sd(n, b):
    """Standard deviation ``b sqrt(2 n)`` of a sum of ``n`` i.i.d. Laplace(b) (Var Lap(b) = 2 b^2;
    e.g. Dwork & Roth 2014, Def. 3.2); 0 if n <= 0."""
    if n <= 0 or b <= 0.0:
        return 0.0
    return b * math.sqrt(2.0 * n)


def laplace_sum_bound_chan_shi_song(k: int, scale: float, delta: float) -> float:
    """Width w with ``P(|sum_{i<=k} Lap(scale)| > w) <= delta`` (Chan-Shi-Song 2011, Cor. 2.9).

    ``w = nu sqrt(8 ln(2/delta))`` with ``nu = scale * max(sqrt(k), sqrt(ln(2/delta)))``
    (looser than :func:`laplace_sum_bound`; decisions D11).
    """
    if k <= 0:
        return 0.0
    L = math.log(2.0 / delta)
    nu = scale * max(math.sqrt(k), math.sqrt(L))
    return nu * math.sqrt(8.0 * L)


# ----------------------------------------------------------------------------- binary mechanism
@njit(cache=True)
def tree_error_bound(horizon, epsilon, sensitivity, delta):
    """(1 - delta) bound on one counter's release error of a central-tree privatizer over
    ``horizon`` releases at ``epsilon`` per counter: a release sums at most ``L`` noisy nodes of
    scale ``L sensitivity / epsilon`` (Vietri et al. App. A Alg. 5), so
    ``laplace_sum_bound(L, L sensitivity / epsilon, delta)``."""
    L = tree_levels(horizon)
    return laplace_sum_bound(L, L * sensitivity / epsilon, delta)


@njit(cache=True)
def popcount(t):
    """Number of set bits of ``t >= 0``."""
    c = 0
    while t > 0:
        c += t & 1
        t >>= 1
    return c


@njit(cache=True)
def tree_release_sd(t, horizon, epsilon, sensitivity):
    """Standard deviation of one counter's release error at step ``t`` (1-based; 0 releases: 0)
    of a central-tree privatizer over ``horizon`` steps at ``epsilon``: the release sums the
    noisy nodes of t's binary expansion (Vietri et al. App. A Alg. 5; Chan, Shi & Song 2011),
    ``levels_used = popcount(t)`` i.i.d. Laplace(``L sensitivity / epsilon``), L = tree_levels(horizon):
    ``sqrt(levels_used) sqrt(2) L sensitivity / epsilon``."""
    return tree_release_sd_levels(t, tree_levels(horizon), epsilon, sensitivity)


@intrinsic
def _ctpop(typingctx, t):
    """Number of set bits of an int64 (``llvm.ctpop.i64``: one instruction where the CPU has it)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = builder.module.declare_intrinsic("llvm.ctpop", [i64], ir.FunctionType(i64, [i64]))
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True, inline="always")
def tree_release_sd_levels(t, levels, epsilon, sensitivity):
    """:func:`tree_release_sd` with the tree's ``levels`` = tree_levels(horizon) given: per-release
    work in an episode loop (a popcount instruction and the same products in the same order, so the
    same number; inlined, no fastmath flags)."""
    if t <= 0:
        return 0.0
    return math.sqrt(_ctpop(t)) * math.sqrt(2.0) * levels * sensitivity / epsilon


@njit(cache=True)
def tree_release_sd_max(horizon, epsilon, sensitivity):
    """Largest :func:`tree_release_sd` over ``t <= horizon`` bounded by all L levels used
    (``t = 2^L - 1``): a monotone stand-in for the crossover search."""
    L = tree_levels(horizon)
    return math.sqrt(L) * math.sqrt(2.0) * L * sensitivity / epsilon


def thm12_bound(epsilon: float, beta: float, T: int, log_T: str = "log2") -> float:
    """Vietri et al. Thm 12 error bound ``(4/eps) log(1/beta) log^{2.5}(T)``.

    ``log(1/beta)`` is natural (Vietri Sec. 2.3 prints ``ln(1/beta)``); ``log T`` is base 2 by
    default (DNPR10's convention) or natural with ``log_T="ln"`` -- the theorem does not say;
    the checks report both (decisions D2).
    """
    lt = math.log2(T) if log_T == "log2" else math.log(T)
    return 4.0 / epsilon * math.log(1.0 / beta) * lt**2.5


# ----------------------------------------------------------------------------- shuffle bit-sum
@njit(cache=True)
def bitsum_variance(n_users, tau):
    """Exact variance ``n_bits q (1 - q)`` of the bit-sum error ``Q - E[Q]`` (input-independent;
    Bai et al. Alg. 4, Lemma 42 proof)."""
    n_bits, q, _regime = bitsum_noise_law(n_users, tau)
    return n_bits * q * (1.0 - q)


@njit(cache=True)
def binomial_sum_bound(var, delta):
    """Bernstein two-sided bound for a centred sum of independent Bernoulli bits of total
    variance ``var`` (each term in [-1, 1]): ``sqrt(2 var ln(2/d)) + (2/3) ln(2/d)``."""
    if var <= 0.0:
        return 0.0
    lg = math.log(2.0 / delta)
    return math.sqrt(2.0 * var * lg) + 2.0 * lg / 3.0


@njit(cache=True)
def binomial_sum_sd(var):
    """Standard deviation of the bit-sum error: ``sqrt(var)``, var from :func:`bitsum_variance`
    (Bai et al. Alg. 4, Lemma 42 proof: Q ~ Bin(n_bits, q) exactly)."""
    return math.sqrt(var) if var > 0.0 else 0.0


# ----------------------------------------------------------------------------- shuffled RR
@njit(cache=True)
def rr_bit_variance(p):
    """Variance of one debiased R_p bit (Garcelon note Alg. 2 and Eq. 6, debiased as in
    :mod:`.rr`): R_p(b) ~ Ber(1 - p/2) or Ber(p/2), so Var = (p/2)(1 - p/2), divided by (1 - p)^2."""
    return 0.5 * p * (1.0 - 0.5 * p) / ((1.0 - p) * (1.0 - p))


@njit(cache=True)
def rr_count_sd(n_bits, p):
    """Standard deviation of the debiased count of ``n_bits`` R_p bits (Eq. 6 analyzer; the
    quantity Eq. 7 bounds): ``sqrt(n_bits (p/2)(1 - p/2)) / (1 - p)``, input-independent."""
    if n_bits <= 0:
        return 0.0
    return math.sqrt(n_bits * rr_bit_variance(p))


@njit(cache=True)
def rr_reward_sd(k, H, m, p):
    """Standard deviation bound of the debiased reward sum (the quantity Eq. 8 bounds), in reward
    units: R_p on ``k H m`` unary bits plus the Eq. 5 rounding ``floor(m r) + Ber(frac(m r))``
    (variance <= 1/4 per step, at most ``k H`` steps), all divided by m:
    ``sqrt(k H m Var_bit + k H / 4) / m``."""
    if k <= 0:
        return 0.0
    return math.sqrt(k * H * m * rr_bit_variance(p) + 0.25 * k * H) / m



@njit(cache=True)
def rr_count_width(n_bits, p, delta):
    """Garcelon note Eq. 7 as printed: ``2 ln(1/d)/(3(1-p)) + sqrt(n p (1-p/2) ln(1/d))/(1-p)``.

    Deviation of the debiased count of ``n_bits`` randomized bits from the truth with
    probability >= 1 - delta (``n_bits = (k-1) H`` in the paper); 0 if no bits yet.
    """
    if n_bits <= 0:
        return 0.0
    return rr_count_width_lg(n_bits, p, math.log(1.0 / delta))


@njit(cache=True, inline="always")
def rr_count_width_lg(n_bits, p, lg):
    """:func:`rr_count_width` given ``lg = ln(1/delta)`` (an agent needing several widths at one
    delta takes the log once; the same numbers)."""
    if n_bits <= 0:
        return 0.0
    return 2.0 * lg / (3.0 * (1.0 - p)) + math.sqrt(n_bits * p * (1.0 - p / 2.0) * lg) / (1.0 - p)


@njit(cache=True)
def rr_reward_width(k, H, m, p, delta):
    """Garcelon note Eq. 8 as printed (reward counter, unary code of m bits)::

        sqrt(2 H k log(2/d)) / m + sqrt(k H m p (1-p/2) ln(1/d)) / (m (1-p)) + 2 ln(1/d) / (3(1-p))
    """
    if k <= 0:
        return 0.0
    return rr_reward_width_lg(k, H, m, p, delta, math.log(1.0 / delta))


@njit(cache=True, inline="always")
def rr_reward_width_lg(k, H, m, p, delta, lg):
    """:func:`rr_reward_width` given ``lg = ln(1/delta)`` (the same numbers)."""
    if k <= 0:
        return 0.0
    return (math.sqrt(2.0 * H * k * math.log(2.0 / delta)) / m
            + math.sqrt(k * H * m * p * (1.0 - p / 2.0) * lg) / (m * (1.0 - p))
            + 2.0 * lg / (3.0 * (1.0 - p)))


#: the paper's names of Eq. 7 / Eq. 8 (same formulas)
garcelon_eq7_bound = rr_count_width
garcelon_eq8_bound = rr_reward_width
