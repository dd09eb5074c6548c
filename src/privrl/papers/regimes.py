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


def crossover_of(info: Mapping, mdp) -> float:
    """The agent's crossover K (``AgentSpec.crossover``) at the run's own parameters."""
    spec = agents.get(info["agent"])
    params = {k: float(v) for k, v in info["params"].items() if k in spec.defaults}
    return float(spec.crossover(params, mdp))


def regime_of(info: Mapping, mdp, fit_row: Mapping) -> V.Regime:
    """Regime of one run cell: its crossover K against its fit window and saturation."""
    return V.Regime(crossover_of(info, mdp), float(fit_row["window_lo"]), float(fit_row["window_hi"]),
                    float(fit_row.get("saturated_fraction", float("nan"))))


def with_note(score: V.Score, note: str) -> V.Score:
    """``score`` with ``note`` appended to its regime text."""
    return V.Score(score.verdict, score.measured, "; ".join(t for t in (score.regime, note) if t), score.k_needed)


def score_bound_one_sided(measured: tuple[float, float, float], bound, K: float, trivial_per_episode: float,
                          hidden: str) -> V.Score:
    """An O(.) expression evaluated with constant 1 (``hidden`` names what the O hides) used as an
    upper bound: :func:`~privrl.results.verdicts.score_bound`, except that a measurement above
    it is "inconclusive" (the hidden constant may exceed 1), never "contradicted"."""
    s = V.score_bound(measured, bound, K, trivial_per_episode)
    if s.verdict == V.CONTRADICTED:
        s = V.Score(V.INCONCLUSIVE, s.measured, f"above the constant-1 expression; the O hides {hidden}")
    return with_note(s, f"constant 1, {hidden} dropped") if s.verdict != V.NOT_REACHED else s


def score_lower_bound(measured: tuple[float, float, float], bound, K: float, trivial_per_episode: float,
                      hidden: str, informative_from: float = 0.0) -> V.Score:
    """A minimax lower bound Omega(f(K)) evaluated with constant 1 against one instance of the
    paper's hard family: "reproduced" when the measurement's CI lower end is at or above it and
    ``K >= informative_from`` (the K from which the agent's regret is past its linear phase,
    ``regime_factor`` x its crossover: before it, regret of order K x gap exceeds any sqrt-K bound
    whatever the bound says, so meeting it is uninformative and the row is "not reached" with
    that K); "not reached" while f(K) exceeds the trivial ``K x trivial_per_episode`` (no run can
    meet it: the hidden constant must be below the ratio), with the K from which it is
    attainable; otherwise "inconclusive" (below a constant-1 minimax bound on one instance
    contradicts nothing: the hidden constant and the choice of instance are the paper's)."""
    m, lo, hi = measured
    b = float(bound(K))
    text = f"{m:.4g} [{lo:.4g}, {hi:.4g}] vs lower bound {b:.4g} at K = {K:.3g} (constant 1)"
    if b >= K * trivial_per_episode:
        grid = np.geomspace(max(K, 1.0), V.THRESHOLDS.k_max, V.THRESHOLDS.bound_grid)
        ok = [k for k in grid if bound(k) < k * trivial_per_episode]
        need = float(ok[0]) if ok else math.inf
        return V.Score(V.NOT_REACHED, text, f"bound above the trivial K x {trivial_per_episode:.3g} until K = {need:.3g}",
                       need)
    if lo >= b and K < informative_from:
        return V.Score(V.NOT_REACHED, text, f"met while the agent is pre-regime (linear phase until ~K = "
                       f"{informative_from / V.THRESHOLDS.regime_factor:.3g}): uninformative; informative from "
                       f"K = {informative_from:.3g}", informative_from)
    if lo >= b:
        return V.Score(V.REPRODUCED, text, f"at or above the bound; {hidden} hidden")
    return V.Score(V.INCONCLUSIVE, text, f"below the constant-1 expression; {hidden} hidden, minimax over the family")


def frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    """The claims.csv-column frame an analysis returns (one row per Claim)."""
    return claims_frame(list(claims))
