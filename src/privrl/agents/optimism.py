"""Shared confidence widths and planners of the issue-4 optimistic private agents.

Not an agent module (leading underscore: the registry does not import it as one). Every
function is a numba kernel that touches only *released* (private) statistics; none draws
randomness.

Confidence widths: :func:`obi_widths` combines the mechanisms' noise bounds
(:mod:`privrl.mechanisms.bounds`: ``laplace_sum_bound``, ``rr_count_width``,
``rr_reward_width``, ``binomial_sum_bound``) into Garcelon et al.'s Prop. 7 widths.

Planners (arrays: pi int64[H, S], V float64[H + 1, S]; all return the fraction of (h, s, a)
whose optimistic value is clipped, the ``aux`` the runner records):

* :func:`stationary_plan` -- Garcelon note Eq. 17 (stationary p~[S, A, S], r~, bonus
  ``b_{h,k} = (H - h + 1) beta^p + beta^r``, V clipped at ``H - h + 1``).
* :func:`bernstein_plan` -- UCBVI with a per-(h, s, a) empirical-Bernstein bonus whose
  variance term depends on V_{h+1} (Azar et al. 2017, bonus_2, first two terms; DP-UCBVI
  reconstruction).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit


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


@njit(cache=True, fastmath={"reassoc", "contract"})
def stationary_plan(p_t, r_plus, bp, n_tie, pi, V):
    """Garcelon note Eq. 17 for a stationary model.

    p_t float64[S, A, S] (Eq. 16 p~, need not sum to 1), r_plus float64[S, A] = r~ + beta^r,
    bp float64[S, A] = beta^p (``inf`` = no information), n_tie float64[S, A] private counts
    used only to break ties (least visited first, as planning.optimistic_plan).
    ``Q_h = r~ + (H - h + 1) beta^p + beta^r + p~ . V_{h+1}``, ``V_h = min(H - h + 1, max_a Q_h)``
    (1-based h; the clip is applied per action, which leaves V and the argmax among
    unclipped actions unchanged).
    """
    H, S = pi.shape
    A = r_plus.shape[1]
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        cap = float(H - h)
        for s in range(S):
            best = -np.inf
            best_a = 0
            for a in range(A):
                q = r_plus[s, a] + cap * bp[s, a]
                if q < cap:
                    for s2 in range(S):
                        q += p_t[s, a, s2] * V[h + 1, s2]
                if q >= cap:
                    q = cap
                    clipped += 1
                if q > best or (q == best and n_tie[s, a] < n_tie[s, best_a]):
                    best = q
                    best_a = a
            pi[h, s] = best_a
            V[h, s] = best
    return clipped / (H * S * A)


@njit(cache=True, fastmath={"reassoc", "contract"})
def bernstein_plan(p_hat, q_static, coef, n_tie, pi, V):
    """UCBVI backward induction with a variance-dependent bonus (DP-UCBVI reconstruction).

    p_hat float64[H, S, A, S] (valid rows), q_static float64[H, S, A] = r~ + the terms of the
    bonus that do not depend on V (``+inf`` for a pair without information), coef
    float64[H, S, A] multiplies ``sqrt(Var_{p_hat}(V_{h+1}))``. Q is clipped at H - h
    (0-based h); ties to the smaller n_tie.
    """
    H, S, A = q_static.shape
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        cap = float(H - h)
        for s in range(S):
            best = -1.0
            best_a = 0
            for a in range(A):
                q = q_static[h, s, a]
                if q < cap:
                    m1 = 0.0
                    m2 = 0.0
                    for s2 in range(S):
                        w = p_hat[h, s, a, s2]
                        v = V[h + 1, s2]
                        m1 += w * v
                        m2 += w * v * v
                    var = m2 - m1 * m1
                    if var < 0.0:
                        var = 0.0
                    q += coef[h, s, a] * math.sqrt(var) + m1
                if q >= cap:
                    q = cap
                    clipped += 1
                if q > best or (q == best and n_tie[h, s, a] < n_tie[h, s, best_a]):
                    best = q
                    best_a = a
            pi[h, s] = best_a
            V[h, s] = best
    return clipped / (H * S * A)

