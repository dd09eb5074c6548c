"""Post-processing of noisy counts so they satisfy Assumption 4 (Bai et al. Sec. V, Eq. 4-5).

Bai et al. (full version), Sec. V-A. For each (h, x, a) -- one row here -- given the noisy
``v[x'] = N..(x, a, x')`` (S entries), the noisy ``c = N..(x, a)`` and the error level ``E``:

Eq. (4)::   min t  s.t.  n(x') >= 0,  |n(x') - v[x']| <= t  for all x',
                         |sum_x' n(x') - c| <= E / 4

Eq. (5)::   N~(x, a, x') = Nbar(x, a, x') + E / (2 S),   N~(x, a) = Nbar(x, a) + E / 2,

with ``Nbar`` a minimiser and ``Nbar(x, a) = sum_x' Nbar(x, a, x')``. Then
``N~(x, a) = sum_x' N~(x, a, x')`` and ``N~(x, a, x') >= E/(2S) > 0`` always, and
``N~(x, a) >= N(x, a)`` whenever all noisy counts are within E/4 of the truth (Bai et al.).

Exact closed form (no LP solver; tested against ``scipy.optimize.linprog``). With
``r = E/4``, the problem is feasible at t iff ``t >= t0 = max(0, max_i -v_i)`` (boxes
``[max(0, v_i - t), v_i + t]`` non-empty), ``hi(t) = sum_i v_i + S t >= c - r`` and
``lo(t) = sum_i max(0, v_i - t) <= c + r``. So ``t* = max(t0, t_hi, t_lo)`` with
``t_hi = (c - r - sum v)/S`` and ``t_lo`` the root of the decreasing piecewise-linear ``lo``.
The minimiser is not unique; we return the canonical one
``n_i = clip(v_i + lambda, max(0, v_i - t*), v_i + t*)`` whose sum is the point of
``[c - r, c + r]`` nearest to ``sum_i max(v_i, 0)`` (a shift of v projected onto the box).
If ``c + r < 0`` no n >= 0 can satisfy the sum constraint (only possible outside the
high-probability event of Assumption 4); we then use ``c = -r`` (decisions D6).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, _nrt=True)
def _sort_large(a):
    """``a.sort()`` as a call with numba's reference-counting runtime on (explicitly: a callee inherits
    the caller's ``_nrt``), which numba's quicksort needs: an episode loop compiled without it
    (``_nrt=False``) that inlines :func:`postprocess_row` reaches the sort here."""
    a.sort()


@njit(cache=True, inline="always")
def _sort_small(a):
    """Sort a[n] ascending in place: insertion sort, the algorithm numba's ``np.sort`` itself uses
    below 16 elements (same order of equal values, NaN last); ``np.sort`` in place above
    (:func:`_sort_large`)."""
    n = a.shape[0]
    if n > 15:
        _sort_large(a)
        return
    for i in range(1, n):
        v = a[i]
        j = i
        while j > 0 and (v < a[j - 1] or (np.isnan(a[j - 1]) and not np.isnan(v))):
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


@njit(cache=True, inline="always")
def _t_lo(v, C, work):
    """Smallest t >= 0 with ``sum_i max(0, v_i - t) <= C`` (C >= 0); work[S] is scratch."""
    S = v.shape[0]
    lo0 = 0.0
    for i in range(S):
        if v[i] > 0.0:
            lo0 += v[i]
    if lo0 <= C:
        return 0.0
    for i in range(S):  # descending order of v, as -sort(-v)
        work[i] = -v[i]
    _sort_small(work)
    P = 0.0
    for k in range(1, S + 1):
        P -= work[k - 1]
        t = (P - C) / k
        nxt = -work[k] if k < S else -np.inf
        if t >= nxt:
            return t
    return (P - C) / S


@njit(cache=True, inline="always")
def postprocess_row(v, c, E, out):
    """Solve Eq. 4 for one (h, x, a) and apply Eq. 5.

    v[S] noisy N(x,a,.), c noisy N(x,a), E > 0 the error level; out[S] receives
    ``N~(x,a,.)`` (and serves as scratch before: it must not alias v). Returns ``(N~(x,a), t*)``.
    No allocation (the sorts run in ``out``): it runs for every refreshed row of every episode.
    """
    S = v.shape[0]
    r = 0.25 * E
    if c + r < 0.0:
        c = -r
    t0 = 0.0
    sv = 0.0
    for i in range(S):
        sv += v[i]
        if -v[i] > t0:
            t0 = -v[i]
    t_hi = (c - r - sv) / S
    t_lo = _t_lo(v, c + r, out)
    t = max(t0, t_hi, t_lo)
    # box [l_i, u_i]; find the shift lambda so that sum_i max(l_i, v_i + lambda) hits the target
    lsum = 0.0
    usum = 0.0
    base = 0.0
    b = out  # scratch: b[i] = l_i - v_i, sorted
    for i in range(S):
        li = max(0.0, v[i] - t)
        lsum += li
        usum += v[i] + t
        base += max(v[i], 0.0)
        b[i] = li - v[i]
    target = min(max(base, max(c - r, lsum)), min(c + r, usum))
    D = target - lsum
    _sort_small(b)
    lam = b[0]
    if D > 0.0:
        B = 0.0
        for k in range(1, S + 1):
            B += b[k - 1]
            lam = (D + B) / k
            if k == S or lam <= b[k]:
                break
    total = 0.0
    for i in range(S):
        ni = min(max(v[i] - t, 0.0, v[i] + lam), v[i] + t)
        out[i] = ni
        total += ni
    extra = E / (2.0 * S)
    for i in range(S):
        out[i] += extra
    return total + 0.5 * E, t


@njit(cache=True)
def postprocess_counts(N_sas, N_sa, E, out_sas, out_sa, out_t):
    """Eq. 4-5 for ``m`` rows (one per (h, x, a)).

    N_sas[m, S] noisy N(x,a,x'); N_sa[m] noisy N(x,a); E > 0 the error level E_{eps,delta};
    out_sas[m, S], out_sa[m]: the post-processed counts; out_t[m]: the optimal t of Eq. 4.
    """
    for row in range(N_sas.shape[0]):
        tot, t = postprocess_row(N_sas[row], N_sa[row], E, out_sas[row])
        out_sa[row] = tot
        out_t[row] = t


def postprocess(N_sas, N_sa, E: float):
    """Python convenience: returns ``(N~_sas[m, S], N~_sa[m], t[m])`` as new arrays."""
    N_sas = np.ascontiguousarray(N_sas, dtype=np.float64)
    if N_sas.ndim == 1:
        N_sas = N_sas[None, :]
    N_sa = np.ascontiguousarray(np.atleast_1d(N_sa), dtype=np.float64)
    if not E > 0:
        raise ValueError(f"E must be > 0; got {E}")
    out_sas = np.empty_like(N_sas)
    out_sa = np.empty(N_sas.shape[0])
    out_t = np.empty(N_sas.shape[0])
    postprocess_counts(N_sas, N_sa, float(E), out_sas, out_sa, out_t)
    return out_sas, out_sa, out_t
