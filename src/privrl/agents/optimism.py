"""Shared confidence widths and planners of the optimism-based private agents (OBI, private UCBVI).

A helper module that registers no agent: :mod:`privrl.agents` imports every module of the
package (all but ``registry`` and ``_``-prefixed names) and this one adds nothing to the
registry. Every function is a numba kernel that touches only *released* (private)
statistics; none draws randomness.

Confidence widths: :func:`obi_widths` turns the deviation bounds c1..c4 of the released counts
(computed by the calling agent from :mod:`privrl.mechanisms.bounds`: ``laplace_sum_bound``,
``rr_count_width``, ``rr_reward_width``, ``binomial_sum_bound``) into Garcelon et al.'s
Prop. 7 widths.

Both are ``inline="always"`` (fastmath-free, as are the OBI episode loops that inline them).

Planners: :func:`stationary_plan` (Garcelon note Eq. 17; :func:`stationary_plan_1` on a model
already shaped [1, S, A, S], the OBI loops' call) and :func:`bernstein_plan` (UCBVI
with an empirical-Bernstein bonus) are the backward inductions of ``privrl.rl.planning``,
re-exported here for OBI and the private UCBVI family.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.rl.planning import bernstein_plan, stationary_plan, stationary_plan_1  # noqa: F401 (re-exported)


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def obi_width_parts(nr_t, np_t, c1, c2, c3, c4, alpha, Lk, S):
    """:func:`obi_widths` split into its statistical and privacy parts (Prop. 7):
    ``(stat_r, priv_r, stat_p, priv_p, den_r, den_p)`` with ``beta^r = stat_r + priv_r``,
    ``stat_r = sqrt(2 Lk / den_r)``, ``priv_r = ((alpha+1) c2 + c1) / den_r`` and likewise for
    beta^p; the matched-coverage agents (``z`` > 0) scale only the statistical parts."""
    den_r = nr_t + alpha * c2
    den_p = np_t + alpha * c3
    if den_r <= 0.0:
        sr, pr = np.inf, np.inf
    else:
        sr, pr = math.sqrt(2.0 * Lk / den_r), ((alpha + 1.0) * c2 + c1) / den_r
    if den_p <= 0.0:
        sp, pp = np.inf, np.inf
    else:
        sp, pp = math.sqrt(14.0 * S * Lk / den_p), (S * c4 + (alpha + 1.0) * c3) / den_p
    return sr, pr, sp, pp, den_r, den_p
