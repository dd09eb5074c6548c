"""Claim rows of the papers' analyses, through :mod:`privrl.results.verdicts` (no thresholds here).

* :func:`frame` -- a list of :class:`~privrl.results.verdicts.Claim` as the analysis' claims table
  (``privrl.results.claims.CSV_COLUMNS``);
* :func:`regime_of` -- the :class:`~privrl.results.verdicts.Regime` of a fits.csv row (its agent's
  crossover K on the experiment's MDP, the fit window, the saturation in the window);
* :func:`crossover_of` -- one cell's crossover K from its run info (defined in :mod:`privrl.papers.regimes`);
* :func:`slope_fit` -- a seed-bootstrap log-log slope of a per-seed statistic across *cells*
  (e.g. regret at K against the privatizer's error level E, or against X), as a RateFit;
* :func:`save_pdf` -- the PDF twin of an analysis figure (the workflow writes the PNG).
"""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from privrl.papers.regimes import CONVERGES, crossover_of  # noqa: F401 (re-export: defined in regimes)
from privrl.results import verdicts as V
from privrl.results.claims import CSV_COLUMNS, claims_frame
from privrl.results.fits import loglog_slope
from privrl.results.stats import bootstrap, percentile_ci


def frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    return claims_frame(claims) if claims else pd.DataFrame(columns=CSV_COLUMNS)


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
