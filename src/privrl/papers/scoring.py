"""Scoring glue between a paper's analysis and the verdict modules (one module for every paper):
the regime of a run cell, the claims frame an analysis returns, a slope across cells and a
figure's PDF twin. Registers nothing; holds no threshold (every number is
:data:`privrl.results.verdicts.THRESHOLDS`; the verdict rules are in :mod:`privrl.results`).

* :func:`crossover_of` -- one cell's crossover K from its run info (the lookup is
  :func:`privrl.agents.registry.agent_crossover`, re-exported here);
* :func:`regime_of` -- the :class:`~privrl.results.verdicts.Regime` of a fits.csv row at a crossover K;
  :func:`cell_regime` -- the same from a run cell's info and MDP; :func:`point_regime` -- at one K;
* :func:`frame` -- a list of :class:`~privrl.results.verdicts.Claim` as the analysis' claims table
  (``privrl.results.claims.CSV_COLUMNS``);
* :func:`slope_fit` -- a seed-bootstrap log-log slope of a per-seed statistic across *cells*
  (e.g. regret at K against the privatizer's error level E, or against X), as a RateFit;
* :func:`save_pdf` -- the PDF twin of an analysis figure (the workflow writes the PNG).

Shapes: a fit row is one row of fits.csv (exponent, exponent_lo, exponent_hi, window_lo,
window_hi, saturated_fraction, n_seeds); an info is a run's info JSON (agent, params, env_key).
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from privrl.agents.registry import agent_crossover
from privrl.results import verdicts as V
from privrl.results.claims import claims_frame
from privrl.results.fits import loglog_slope
from privrl.results.stats import bootstrap, percentile_ci


def crossover_of(info: Mapping, mdp) -> float:
    """The crossover K of a run cell (its info's agent and parameters)."""
    return agent_crossover(info["agent"], info["params"], mdp)


def cell_regime(info: Mapping, mdp, fit_row: Mapping) -> V.Regime:
    """Regime of one run cell: its crossover K against its fit window and saturation."""
    return V.Regime(crossover_of(info, mdp), float(fit_row["window_lo"]), float(fit_row["window_hi"]),
                    float(fit_row.get("saturated_fraction", float("nan"))))


CONVERGES = ("; instance-dependent: converges (one fixed-gap instance past its crossover: regret turns O(log K), "
             "so the bound is met; the worst-case rate needs a family of gaps)")


def frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    """The claims.csv-column frame an analysis returns (one row per Claim; the columns when none)."""
    return claims_frame(list(claims))


# agents whose aux is the fraction of policies still active (Bai et al. Alg. 1), not a saturated
# width: a policy-elimination run still "explores" only while it has eliminated nothing (its active
# set never falls below the optimal policies, e.g. >= 1/4 on a 4-policy garnet)
ACTIVE_FRACTION_AUX = frozenset({"sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp", "pe"})


def regime_of(fit_row: Mapping, crossover_K: float) -> V.Regime:
    """Regime of a fits.csv row; for :data:`ACTIVE_FRACTION_AUX` agents the saturation is 1 when
    no policy was eliminated in the fit window (mean active fraction 1), else 0."""
    sat = float(fit_row.get("saturated_fraction", float("nan")))
    if fit_row.get("agent") in ACTIVE_FRACTION_AUX and np.isfinite(sat):
        sat = float(sat >= 1.0 - 1e-12)
    return V.Regime(float(crossover_K), float(fit_row["window_lo"]), float(fit_row["window_hi"]), sat)


def point_regime(crossover_K: float, K: float) -> V.Regime:
    """A regime read at one K (a comparison at the run's last episode): window [K, K]."""
    return V.Regime(float(crossover_K), float(K), float(K))


def _means(*res: np.ndarray) -> np.ndarray:
    return np.array([r.mean() for r in res])


def slope_fit(x: Sequence[float], samples: Sequence[np.ndarray], rng: np.random.Generator, n_boot: int,
              values: Callable[..., np.ndarray] = _means) -> V.RateFit:
    """Slope of log y on log x, y = ``values(*samples)`` float64[len(x)] (default: the mean of
    each per-seed sample float64[n_i]); CI from resampling every sample's seeds independently
    (percentile bootstrap of privrl.results.stats). y <= 0 is floored at 1e-12 by
    :func:`~privrl.results.fits.loglog_slope` (callers pass positive quantities)."""
    xs = np.asarray(x, dtype=np.float64)

    def slope(*res):
        return loglog_slope(xs, np.asarray(values(*res), dtype=np.float64))[0]

    est = slope(*samples)
    boots = bootstrap([np.asarray(s, dtype=np.float64) for s in samples], slope, rng, n_boot)
    lo, hi = percentile_ci(boots)
    return V.RateFit(float(est), float(lo), float(hi), float(np.min(x)), float(np.max(x)),
                     int(min(len(s) for s in samples)))


def save_pdf(fig, ctx, name: str) -> None:
    """Write ``{figures}/{experiment}/{name}.pdf`` beside the PNG the workflow writes."""
    if fig is None:
        return
    from privrl.io import save_figure

    save_figure(fig, ctx.artifact(name, "pdf"))
