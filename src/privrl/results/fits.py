"""Empirical rate exponents with seed-bootstrap confidence intervals.

* K-exponent: cumulative regret R(K) ~ c K^a, OLS of log mean R on log K over the fit
  window (default: the last two decades of K, [K/100, K]).
Each fit returns plain dicts so the DAG can write them as CSV rows.
"""
from __future__ import annotations

import numpy as np

from privrl.results.stats import LEVEL, bootstrap, percentile_ci
from privrl.results.verdicts import THRESHOLDS

TINY = 1e-12
# Mean saturation (fraction of (h, s, a) whose optimistic value is clipped, or of policies still
# active) in the fit window above which a cell is still exploring: the one gate of
# privrl.results.verdicts.THRESHOLDS (a saturated cell is never "contradicted").
SATURATED_FRACTION = THRESHOLDS.saturation_gate


def window_mask(episodes: np.ndarray, decades: float = 2.0) -> np.ndarray:
    """Checkpoints in the last ``decades`` decades of K = episodes.max()."""
    K = episodes.max()
    return episodes >= K / 10.0 ** decades


def loglog_slope(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(slope, intercept) of log y on log x by least squares; nan if y has no positive values."""
    y = np.asarray(y, dtype=np.float64)
    if np.all(y <= 0):
        return float("nan"), float("nan")
    a, b = np.polyfit(np.log(x), np.log(np.maximum(y, TINY)), 1)
    return float(a), float(b)


def fit_k_exponent(episodes: np.ndarray, curves: np.ndarray, rng: np.random.Generator,
                   decades: float = 2.0, *, n_boot: int, level: float = LEVEL) -> dict:
    """Exponent a of R(K) ~ K^a on the mean curve; CI from resampling seeds.

    episodes: int64[C]; curves: float64[n_seeds, C] cumulative regret per seed.
    """
    episodes = np.asarray(episodes, dtype=np.float64)
    curves = np.atleast_2d(curves)
    m = window_mask(episodes, decades)
    if m.sum() < 3:
        raise ValueError(f"fit window [{episodes.max() / 10 ** decades:g}, {episodes.max():g}] holds "
                         f"{m.sum()} checkpoints; need >= 3 (raise K or n_checkpoints)")
    x = episodes[m]
    a, b = loglog_slope(x, curves[:, m].mean(axis=0))
    if curves.shape[0] >= 2 and np.isfinite(a):
        boots = bootstrap([curves], lambda c: loglog_slope(x, c[:, m].mean(axis=0))[0], rng, n_boot)
        lo, hi = percentile_ci(boots, level)
    else:
        lo = hi = a
    return {"exponent": a, "exponent_lo": float(lo), "exponent_hi": float(hi), "log_intercept": b,
            "window_lo": float(x.min()), "window_hi": float(x.max()), "n_seeds": int(curves.shape[0])}


def fit_ratio_exponent(episodes: np.ndarray, num: np.ndarray, den: np.ndarray, rng: np.random.Generator,
                       decades: float = 2.0, n_boot: int = 1000, level: float = LEVEL) -> dict:
    """Slope of log(mean num / mean den) on log K over the fit window, CI from resampling the
    seeds of num and den independently (same dict keys as :func:`fit_k_exponent`).

    num: float64[n1, C], den: float64[n2, C] per-seed cumulative regret at ``episodes`` int64[C].
    A ratio "bounded as K grows" has slope ~ 0 (privrl.results.verdicts.score_ratio_bounded).
    """
    episodes = np.asarray(episodes, dtype=np.float64)
    num, den = np.atleast_2d(num), np.atleast_2d(den)
    m = window_mask(episodes, decades)
    x = episodes[m]

    def slope(a, b):
        return loglog_slope(x, np.maximum(a[:, m].mean(axis=0), TINY) / np.maximum(b[:, m].mean(axis=0), TINY))

    s, c = slope(num, den)
    boots = bootstrap([num, den], lambda a, b: slope(a, b)[0], rng, n_boot)
    lo, hi = percentile_ci(boots, level)
    return {"exponent": s, "exponent_lo": float(lo), "exponent_hi": float(hi), "log_intercept": c,
            "window_lo": float(x.min()), "window_hi": float(x.max()), "n_seeds": int(min(num.shape[0], den.shape[0]))}
