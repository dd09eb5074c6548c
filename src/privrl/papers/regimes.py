"""Glue between a paper's analysis and the verdict module: the regime of a run cell and the
claims frame an analysis returns. Registers nothing; holds no threshold
(every number is :data:`privrl.results.verdicts.THRESHOLDS`).

Shapes: a fit row is one row of fits.csv (exponent, exponent_lo, exponent_hi, window_lo,
window_hi, saturated_fraction, n_seeds); an info is a run's info JSON (agent, params, env_key).
"""
from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from privrl import agents
from privrl.results import verdicts as V
from privrl.results.claims import claims_frame


def agent_crossover(agent: str, params: Mapping, mdp) -> float:
    """The agent's crossover K (``AgentSpec.crossover``) at ``params`` on ``mdp``; nan without an
    MDP. The one place the papers' analyses read a crossover (regimes, claim_helpers, cross_paper)."""
    if mdp is None:
        return float("nan")
    spec = agents.get(agent)
    return float(spec.crossover({k: float(v) for k, v in params.items() if k in spec.defaults}, mdp))


def crossover_of(info: Mapping, mdp) -> float:
    """The crossover K of a run cell (its info's agent and parameters)."""
    return agent_crossover(info["agent"], info["params"], mdp)


def regime_of(info: Mapping, mdp, fit_row: Mapping) -> V.Regime:
    """Regime of one run cell: its crossover K against its fit window and saturation."""
    return V.Regime(crossover_of(info, mdp), float(fit_row["window_lo"]), float(fit_row["window_hi"]),
                    float(fit_row.get("saturated_fraction", float("nan"))))


CONVERGES = ("; instance-dependent: converges (one fixed-gap instance past its crossover: regret turns O(log K), "
             "so the bound is met; the worst-case rate needs a family of gaps)")


def with_note(score: V.Score, note: str) -> V.Score:
    """``score`` with ``note`` appended to its regime text."""
    return V.Score(score.verdict, score.measured, "; ".join(t for t in (score.regime, note) if t), score.k_needed)


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
        need = V.first_k(K, lambda k: bound(k) >= accrued)
        why = (f"met, but uninformative: the agent's linear phase (until K ~ {linear_until:.3g}) accrues up to "
               f"{accrued:.3g}, above the bound")
        if need == math.inf:
            return V.Score(V.INCONCLUSIVE, text, f"{why} at every K <= {V.THRESHOLDS.k_max:.0e}")
        return V.Score(V.NOT_REACHED, text, f"{why} until K = {need:.3g}", need)
    return V.Score(V.REPRODUCED, text, f"at or above the bound; {hidden} hidden")


def frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    """The claims.csv-column frame an analysis returns (one row per Claim)."""
    return claims_frame(list(claims))
