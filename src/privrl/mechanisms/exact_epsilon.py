"""Exact epsilons of count distributions (hockey-stick divergence) and their compositions.

``delta(eps) = sum_o max(0, P(o) - e^eps Q(o))`` (both directions), solved for eps exactly on
the piecewise form (:func:`epsilon_for_delta`). Multi-counter compositions use
``dp_accounting``'s privacy-loss distributions (pessimistic rounding, 1e-4 grid).
Re-exported by :mod:`.accounting`.
"""
from __future__ import annotations

import math

import numpy as np

def hockey_stick(logP: np.ndarray, logQ: np.ndarray, eps: float) -> float:
    """``sum max(0, P - e^eps Q)`` over a common support (log-pmfs, ``-inf`` for zero mass)."""
    P, Q = np.exp(logP), np.exp(logQ)
    return float(np.maximum(P - math.exp(eps) * Q, 0.0).sum())


def _eps_one_direction(logP: np.ndarray, logQ: np.ndarray, delta: float) -> float:
    P = np.exp(logP)
    keep = P > 0
    logP, logQ, P = logP[keep], logQ[keep], P[keep]
    inf_mask = ~np.isfinite(logQ)
    d_inf = float(P[inf_mask].sum())
    if d_inf > delta:
        return math.inf
    L = logP[~inf_mask] - logQ[~inf_mask]
    Pf, Qf = P[~inf_mask], np.exp(logQ[~inf_mask])
    order = np.argsort(-L, kind="stable")
    L, Pf, Qf = L[order], Pf[order], Qf[order]
    cP, cQ = np.cumsum(Pf), np.cumsum(Qf)
    D = d_inf + cP - np.exp(L) * cQ  # delta(eps) at eps = L_j (non-decreasing in j)
    j = int(np.searchsorted(D, delta, side="right"))  # first j with D_j > delta
    if j >= len(L):
        return 0.0
    eps = math.log((d_inf + cP[j - 1] - delta) / cQ[j - 1])
    return max(eps, 0.0)


def epsilon_for_delta(logP: np.ndarray, logQ: np.ndarray, delta: float) -> float:
    """Exact smallest eps >= 0 with both hockey-sticks ``D_eps(P||Q), D_eps(Q||P) <= delta``."""
    logP, logQ = np.asarray(logP, float), np.asarray(logQ, float)
    return max(_eps_one_direction(logP, logQ, delta), _eps_one_direction(logQ, logP, delta))


def _binom_window(n: int, q: float, width: float = 40.0) -> tuple[int, np.ndarray]:
    sd = math.sqrt(max(n * q * (1.0 - q), 1.0))
    lo = max(0, int(math.floor(n * q - width * sd - 10)))
    hi = min(n, int(math.ceil(n * q + width * sd + 10)))
    ks = np.arange(lo, hi + 1)
    from scipy import stats

    return lo, stats.binom.logpmf(ks, n, q)


def bitsum_logpmfs(n_users: int, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Laws of the shuffled bit-sum output for neighbours ``y* = 0`` / ``y* = 1`` (Lemma 42 proof).

    The output is ``Gamma + y* + Q`` with ``Q ~ Bin(n_bits, q)``; returns log-pmfs of ``Q`` and
    ``Q + 1`` on a common (windowed) support.
    """
    from privrl.mechanisms.bitsum import bitsum_noise_law

    n_bits, q, _ = bitsum_noise_law(int(n_users), float(tau))
    _, lp = _binom_window(int(n_bits), float(q))
    logQ = np.concatenate([lp, [-np.inf]])
    logP = np.concatenate([[-np.inf], lp])
    return logQ, logP


def bitsum_exact_epsilon(n_users: int, tau: float, delta: float) -> float:
    """Exact eps at ``delta`` of Bai et al. Alg. 4 (both directions), for ``n_users`` users."""
    logQ, logP = bitsum_logpmfs(n_users, tau)
    return epsilon_for_delta(logP, logQ, delta)


def rr_sum_logpmf(n_bits: int, ones: int, p: float) -> tuple[int, np.ndarray]:
    """Law of the sum of R_p over ``n_bits`` bits with ``ones`` ones: ``Bin(ones, 1-p/2) + Bin(n_bits-ones, p/2)``.

    Returns ``(offset, logpmf)`` on a window of the support (mass outside < 1e-300).
    """
    lo1, l1 = _binom_window(ones, 1.0 - p / 2.0)
    lo0, l0 = _binom_window(n_bits - ones, p / 2.0)
    a, b = np.exp(l1 - l1.max()), np.exp(l0 - l0.max())
    if min(len(a), len(b)) <= 4096:
        conv = np.convolve(a, b)
    else:  # FFT: absolute error ~1e-16 of the mode, negligible against delta >= 1e-12
        from scipy import signal

        conv = np.maximum(signal.fftconvolve(a, b), 0.0)
    with np.errstate(divide="ignore"):
        return lo1 + lo0, np.log(conv) + l1.max() + l0.max()


def _align(o1: int, l1: np.ndarray, o2: int, l2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = min(o1, o2), max(o1 + len(l1), o2 + len(l2))
    A, B = np.full(hi - lo, -np.inf), np.full(hi - lo, -np.inf)
    A[o1 - lo: o1 - lo + len(l1)] = l1
    B[o2 - lo: o2 - lo + len(l2)] = l2
    return A, B


def shuffled_rr_exact_epsilon(n_bits: int, p: float, delta: float, flips: int = 1, ones: int = 0) -> float:
    """Exact eps at ``delta`` of one shuffled-RR counter (the sum of ``n_bits`` R_p bits) when one
    user turns ``flips`` of its zeros into ones, the other bits holding ``ones`` ones."""
    oP, lP = rr_sum_logpmf(n_bits, ones + flips, p)
    oQ, lQ = rr_sum_logpmf(n_bits, ones, p)
    A, B = _align(oP, lP, oQ, lQ)
    return epsilon_for_delta(A, B, delta)


def shuffled_rr_composed_epsilon(k: int, H: int, m: int, p: float, delta0: float) -> float:
    """eps at ``delta0`` of the three shuffled count families of Garcelon Prop. 5, composed.

    Neighbouring users (k users; the others contribute zeros): the changed user moves all H
    visits from one (s, a) to another -- two x-counters with H flips each (kH bits), two
    y-counters with H-1 flips (k(H-1) bits), two reward counters with mH flips (kHm bits).
    Per-counter exact laws, composed with dp_accounting PLDs (pessimistic, 1e-4 grid).
    """
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for n_bits, f in ((k * H, H), (k * (H - 1), H - 1), (k * H * m, H * m)):
        if f <= 0:
            continue
        oP, lP = rr_sum_logpmf(n_bits, f, p)
        oQ, lQ = rr_sum_logpmf(n_bits, 0, p)
        A, B = _align(oP, lP, oQ, lQ)
        pa = {i: v for i, v in enumerate(A) if np.isfinite(v)}
        pb = {i: v for i, v in enumerate(B) if np.isfinite(v)}
        for lower, upper in ((pa, pb), (pb, pa)):  # the (s,a) the user leaves / enters
            d = pld.from_two_probability_mass_functions(lower, upper, symmetric=False)
            total = d if total is None else total.compose(d)
    return float(total.get_epsilon_for_delta(delta0))
