"""Verdict rules of bound claims, by kind (thresholds: :data:`privrl.results.verdicts.THRESHOLDS`):

* :func:`score_bound_one_sided` -- an O(.) upper bound evaluated at constant 1;
* :func:`score_lower_bound` -- a minimax lower bound Omega(f(K)) at constant 1 on one instance of the
  paper's hard family;
* :func:`score_minimax` -- the K-exponent of the empirical minimax regret over a gap grid against 0.5,
  one-sided both ways (``privrl.papers.vietri2020.minimax`` fits it).

The privacy-cost rules are :mod:`privrl.results.eps_verdicts`, coverage rates
:mod:`privrl.results.coverage_verdicts`, the rate / order / ratio rules :mod:`privrl.results.verdicts`.
"""
from __future__ import annotations

import dataclasses

import math

import numpy as np

from privrl.results import verdicts as V


def with_note(score: V.Score, note: str) -> V.Score:
    """``score`` with ``note`` appended to its regime text."""
    return dataclasses.replace(score, regime="; ".join(t for t in (score.regime, note) if t))


def score_bound_one_sided(measured: tuple[float, float, float], bound, K: float, trivial_per_episode: float,
                          hidden: str) -> V.Score:
    """An O(.) expression evaluated with constant 1 (``hidden`` names what the O hides) used as an
    upper bound: :func:`~privrl.results.verdicts.score_bound`, except that a measurement above
    it is "inconclusive" (the hidden constant may exceed 1), never "contradicted"."""
    s = V.score_bound(measured, bound, K, trivial_per_episode)
    s = V.Score(s.verdict, s.measured.replace("vs bound", "vs constant-1 value"), s.regime, s.k_needed)
    if s.verdict == V.CONTRADICTED:
        s = V.Score(V.INCONCLUSIVE, s.measured, f"untestable at constant 1 (not a violation): above the constant-1 "
                    f"value; the O hides {hidden}")
    return with_note(s, f"constant 1, {hidden} dropped") if s.verdict != V.NOT_REACHED else s


def score_lower_bound(measured: tuple[float, float, float], bound, K: float, trivial_per_episode: float,
                      hidden: str, linear_until: float = 0.0) -> V.Score:
    """A minimax lower bound Omega(f(K)) evaluated with constant 1 against one instance of the
    paper's hard family.

    "not reached" while f(K) exceeds the trivial ``K x trivial_per_episode`` (no run can meet it:
    the hidden constant must be below the ratio), with the K from which it is attainable. Below
    the constant-1 expression: "inconclusive" (contradicts nothing: the hidden constant and the
    choice of instance are the paper's). Met: informative only once f(K) exceeds the regret the
    agent accrues in its linear phase, ``linear_until x trivial_per_episode`` (``linear_until`` =
    its crossover K): before that, regret of order K x gap meets any sqrt-K bound and keeps
    meeting it after the crossover, so the row is "not reached" with the K where f overtakes the
    accrued regret, or "inconclusive" when no K up to ``THRESHOLDS.k_max`` does (or the crossover
    is unknown, nan). Only then is it "reproduced" (regret at or above the bound)."""
    m, lo, hi = measured
    b = float(bound(K))
    text = f"{m:.4g} [{lo:.4g}, {hi:.4g}] vs lower bound {b:.4g} at K = {K:.3g} (constant 1)"
    if b >= K * trivial_per_episode:
        need = V.first_k(K, lambda k: bound(k) < k * trivial_per_episode)
        return V.Score(V.NOT_REACHED, text, f"bound above the trivial K x {trivial_per_episode:.3g} until K = {need:.3g}",
                       need)
    if lo < b:
        return V.Score(V.INCONCLUSIVE, text, f"untestable at constant 1 (not a violation): below the constant-1 value; "
                       f"{hidden} hidden, minimax over the family")
    accrued = linear_until * trivial_per_episode
    if not np.isfinite(accrued):
        return V.Score(V.INCONCLUSIVE, text, "met, but the agent's crossover is unknown: a linear regret meets any "
                       "sqrt-K bound, so meeting it may say nothing")
    if b < accrued:
        need = informative_from(bound, linear_until, trivial_per_episode, K)
        why = (f"met, but uninformative: the agent's linear phase (until K ~ {linear_until:.3g}) accrues up to "
               f"{accrued:.3g}, above the bound")
        if need == math.inf:
            return V.Score(V.INCONCLUSIVE, text, f"{why} at every K <= {V.THRESHOLDS.k_max:.0e}")
        return V.Score(V.NOT_REACHED, text, f"{why} until K = {need:.3g}", need)
    return V.Score(V.REPRODUCED, text, f"at or above the bound; {hidden} hidden")


def minimax_k_needed(lo: float, smallest_crossover: float) -> float:
    """K needed of a minimax exponent read from ``lo`` (regime_factor x the largest gap's crossover): a decade
    of window, 10 x lo, when the grid's smallest gap is still unresolved there; else never (a wider grid)."""
    return 10.0 * lo if smallest_crossover >= 10.0 * lo else math.inf


def informative_from(bound, linear_until: float, trivial_per_episode: float, start: float = 1.0) -> float:
    """The K from which a lower bound exceeds the regret of the agent's linear phase (``linear_until`` x
    ``trivial_per_episode``; :func:`score_lower_bound` from the K run, the claim plan from K = 1)."""
    accrued = linear_until * trivial_per_episode
    return V.first_k(start, lambda k: bound(k) >= accrued)


def score_minimax(fit: V.RateFit, lo: float, hi: float, smallest_crossover: float,
                  th: V.Thresholds = V.THRESHOLDS) -> tuple[V.Score, V.Score]:
    """(upper, lower) scores of the minimax exponent against 0.5: "not reached" under a decade of
    window (K needed 10 x lo when the grid's smallest gap allows it, else never: a wider grid)."""
    if not (hi >= 10.0 * lo):
        need = minimax_k_needed(lo, smallest_crossover)
        why = ("window under a decade: run to K = 10 x lo" if math.isfinite(need) else
               "the gap grid is too narrow for a decade of window: add smaller gaps")
        s = V.Score(V.NOT_REACHED, fit.text("minimax exponent"), f"window [{lo:.3g}, {hi:.3g}]: {why}", need)
        return s, s
    reg = V.Regime(lo / th.regime_factor, fit.window_lo, fit.window_hi)  # pre-registered from the formula
    up = V.score_rate_upper(fit, th.sqrt_k_exponent, th.log_allowance, reg)
    low = V.score_rate_lower(fit, th.sqrt_k_exponent, th.log_allowance, reg)
    if low.verdict == V.CONTRADICTED:  # the grid's maximum is below the family's supremum
        low = V.Score(V.INCONCLUSIVE, low.measured, low.regime + "; the grid's max is below the family's sup")
    return up, low
