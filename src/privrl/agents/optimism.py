"""Shared confidence widths and planners of the issue-4 optimistic private agents.

Not an agent module (leading underscore: the registry does not import it as one). Every
function is a numba kernel that touches only *released* (private) statistics; none draws
randomness.

Confidence widths (docs/decisions_agents_optimism.md, "Confidence widths"):

* :func:`laplace_sum_bound` -- the exact two-sided Chernoff bound on a sum S of ``n`` i.i.d.
  Laplace(b): with the Laplace MGF ``E e^{l X} = 1/(1 - b^2 l^2)`` (``|l| < 1/b``),
  ``P(|S| >= t) <= 2 e^{-l t} (1 - b^2 l^2)^{-n}``; setting it to ``d`` and minimising over
  ``v = (b l)^2`` gives ``t = b (A - n ln(1 - v)) / sqrt(v)``, ``A = ln(2/d)``, at the root of
  ``2 n v/(1 - v) + n ln(1 - v) = A`` (increasing in v; solved by safeguarded Newton).
  For large n, ``t -> b sqrt(4 n ln(2/d))`` (the Gaussian tail of the sum's variance 2 n b^2).
  This is the c_{k,i} of LDP-OBI (Garcelon et al. note, App. B, Prop. 7) and the E of the
  private UCBVI family (Bai et al. Assumption 4) for Laplace-based privatizers; coverage
  and tightness are tested (tests/test_issue4_widths.py).
* :func:`rr_count_width` / :func:`rr_reward_width` -- Garcelon et al. note Eq. 7 / Eq. 8 as
  printed (Shuffled-OBI's c_{k,i}).
* :func:`binomial_sum_bound` -- Bernstein for the centred bit-sum noise of Bai et al. Alg. 4.

Planners: :func:`stationary_plan` (Garcelon note Eq. 17) and :func:`bernstein_plan` (UCBVI
with an empirical-Bernstein bonus) are the backward inductions of ``privrl.rl.planning``,
re-exported here for OBI and the private UCBVI family.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.rl.planning import bernstein_plan, stationary_plan  # noqa: F401 (re-exported)


@njit(cache=True)
def laplace_sum_bound(n, b, delta):
    """Two-sided (1 - delta) bound on |sum of n i.i.d. Laplace(b)| (module docstring).

    n >= 0 (number of noise terms, float or int), b >= 0 the scale. 0 if n == 0 or b == 0.
    """
    if n <= 0 or b <= 0.0:
        return 0.0
    A = math.log(2.0 / delta)
    lo, hi = 0.0, 1.0
    v = min(A / n, 0.5)
    for _ in range(60):
        g = 2.0 * n * v / (1.0 - v) + n * math.log(1.0 - v) - A
        if g > 0.0:
            hi = v
        else:
            lo = v
        if abs(g) < 1e-12 * A:
            break
        dg = 2.0 * n / (1.0 - v) ** 2 - n / (1.0 - v)
        v_new = v - g / dg
        v = v_new if lo < v_new < hi else 0.5 * (lo + hi)
    return b * (A - n * math.log(1.0 - v)) / math.sqrt(v)


@njit(cache=True)
def binomial_sum_bound(var, delta):
    """Bernstein two-sided bound for a centred sum of independent Bernoulli bits of total
    variance ``var`` (each term in [-1, 1]): ``sqrt(2 var ln(2/d)) + (2/3) ln(2/d)``."""
    if var <= 0.0:
        return 0.0
    lg = math.log(2.0 / delta)
    return math.sqrt(2.0 * var * lg) + 2.0 * lg / 3.0


@njit(cache=True)
def rr_count_width(n_bits, p, delta):
    """Garcelon note Eq. 7 as printed: ``2 ln(1/d)/(3(1-p)) + sqrt(n p (1-p/2) ln(1/d))/(1-p)``.

    n_bits: randomized bits summed in the counter (``(k-1) H``); 0 if no bits yet.
    """
    if n_bits <= 0:
        return 0.0
    lg = math.log(1.0 / delta)
    return 2.0 * lg / (3.0 * (1.0 - p)) + math.sqrt(n_bits * p * (1.0 - p / 2.0) * lg) / (1.0 - p)


@njit(cache=True)
def rr_reward_width(k, H, m, p, delta):
    """Garcelon note Eq. 8 as printed (reward counter, unary code of m bits)::

        sqrt(2 H k log(2/d)) / m + sqrt(k H m p (1-p/2) ln(1/d)) / (m (1-p)) + 2 ln(1/d) / (3(1-p))
    """
    if k <= 0:
        return 0.0
    lg = math.log(1.0 / delta)
    return (math.sqrt(2.0 * H * k * math.log(2.0 / delta)) / m
            + math.sqrt(k * H * m * p * (1.0 - p / 2.0) * lg) / (m * (1.0 - p))
            + 2.0 * lg / (3.0 * (1.0 - p)))


@njit(cache=True)
def obi_widths(nr_t, np_t, c1, c2, c3, c4, alpha, Lk, S):
    """Garcelon note Prop. 7: ``(beta^r, beta^p, den_r, den_p)`` for one (s, a).

    nr_t = N~^r(s, a), np_t = N~^p(s, a) = sum_s' N~^p(s, a, s'); c1..c4 the deviation bounds
    of R~, N~^r, N~^p(s, a), N~^p(s, a, s'); Lk = ln(4 pi^2 S A H k^3 / (3 delta)).
    Denominators of Eq. 16 ``den = N~ + alpha c``; a non-positive denominator (only outside
    the high-probability event, or an unvisited pair without noise) gives infinite widths.
    """
    den_r = nr_t + alpha * c2
    den_p = np_t + alpha * c3
    if den_r <= 0.0:
        br = np.inf
    else:
        br = math.sqrt(2.0 * Lk / den_r) + ((alpha + 1.0) * c2 + c1) / den_r
    if den_p <= 0.0:
        bp = np.inf
    else:
        bp = math.sqrt(14.0 * S * Lk / den_p) + (S * c4 + (alpha + 1.0) * c3) / den_p
    return br, bp, den_r, den_p
