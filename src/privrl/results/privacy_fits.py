"""Privacy-cost exponents: D(K, eps) = R(K, eps) - R(K, non-private) ~ C K^b eps^-c.

Pure functions of per-seed regret curves (no I/O). Data shapes:

* ``episodes`` int64[C] -- the common checkpoints (cumulative regret stored at each);
* ``private`` mapping eps -> float64[n_eps_seeds, C] -- cumulative regret per seed of the
  private cells of one agent (one cell per eps);
* ``baseline`` float64[n0, C] -- the same agent with its noise switched off (the
  non-private counterpart), or any non-private reference.

Estimator. On the fit window (checkpoints in the last ``decades`` decades of K, as
:func:`privrl.results.fits.window_mask`), ``D(K, eps) = mean_seeds R_eps(K) - mean_seeds R_0(K)``;
points with ``D <= 0`` have no logarithm and are dropped (their fraction is reported:
a large fraction means the privacy cost is within the seed noise). Joint OLS
``log D = log C + b log K - c log eps`` over all remaining (K, eps) points; per-eps slopes
``b_eps`` (log D on log K) and the slope at the last checkpoint ``c_K`` (-log D on log eps)
are reported alongside. CIs: percentile bootstrap resampling seeds independently within
every cell (private cells and the baseline), refitting on each resample.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from privrl.results.fits import window_mask
from privrl.results.stats import LEVEL, bootstrap, percentile_ci
from privrl.results.eps_verdicts import EpsCell
from privrl.results.verdicts import Regime


def privacy_cost_points(episodes: np.ndarray, private_means: Mapping[float, np.ndarray],
                        baseline_mean: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(log K, log eps, log D) of the window points with D > 0, and the number dropped."""
    lk, le, ld = [], [], []
    dropped = 0
    logk = np.log(np.asarray(episodes, dtype=np.float64)[mask])
    for eps, mean in private_means.items():
        d = np.asarray(mean)[mask] - np.asarray(baseline_mean)[mask]
        ok = d > 0
        dropped += int((~ok).sum())
        lk.append(logk[ok])
        le.append(np.full(int(ok.sum()), np.log(eps)))
        ld.append(np.log(d[ok]))
    return np.concatenate(lk), np.concatenate(le), np.concatenate(ld), dropped


def ols_bc(logk: np.ndarray, loge: np.ndarray, logd: np.ndarray) -> tuple[float, float, float]:
    """(b, c, log C) of ``logd = logC + b logk - c loge``; nan when under-determined (fewer
    than 3 points or a single K); with a single eps only b is fitted (c = nan)."""
    if logd.size < 3 or np.unique(logk).size < 2:
        return float("nan"), float("nan"), float("nan")
    if np.unique(loge).size < 2:  # one eps: b alone (c is not identified)
        b, a = np.polyfit(logk, logd, 1)
        return float(b), float("nan"), float(a)
    X = np.column_stack([np.ones_like(logk), logk, -loge])
    coef, *_ = np.linalg.lstsq(X, logd, rcond=None)
    return float(coef[1]), float(coef[2]), float(coef[0])


def slope(x: np.ndarray, y: np.ndarray) -> float:
    """OLS slope of y on x; nan with fewer than 2 distinct x."""
    if x.size < 2 or np.unique(x).size < 2:
        return float("nan")
    return float(np.polyfit(x, y, 1)[0])


def _estimates(episodes, private_means, baseline_mean, mask) -> dict:
    lk, le, ld, dropped = privacy_cost_points(episodes, private_means, baseline_mean, mask)
    b, c, logc = ols_bc(lk, le, ld)
    per_eps = {}
    for eps in private_means:
        sel = le == np.log(eps)
        per_eps[eps] = slope(lk[sel], ld[sel])
    # c at the last checkpoint: -slope of log D(K, eps) on log eps
    dK = {eps: float(np.asarray(m)[-1] - np.asarray(baseline_mean)[-1]) for eps, m in private_means.items()}
    pos = [(np.log(e), np.log(d)) for e, d in dK.items() if d > 0]
    c_last = -slope(np.array([p[0] for p in pos]), np.array([p[1] for p in pos])) if len(pos) >= 2 else float("nan")
    return {"b": b, "c": c, "log_C": logc, "n_points": int(ld.size), "n_dropped": dropped,
            "b_per_eps": per_eps, "c_at_K": c_last, "D_at_K": dK}


def fit_privacy_cost(episodes: np.ndarray, private: Mapping[float, np.ndarray], baseline: np.ndarray,
                     rng: np.random.Generator, decades: float = 2.0, *, n_boot: int,
                     level: float = LEVEL) -> dict:
    """Exponents (b, c) of D(K, eps) ~ C K^b eps^-c with seed-bootstrap CIs (module docstring).

    Returns a flat dict: b, b_lo, b_hi, c, c_lo, c_hi, log_C, c_at_K (+ CI), n_points,
    n_dropped, frac_dropped, window_lo, window_hi, n_eps, and ``b_eps`` (dict eps -> (b, lo, hi)),
    ``D_at_K`` (dict eps -> D at the last checkpoint) and ``D_at_K_ci`` (dict eps -> (D, lo, hi)).
    """
    episodes = np.asarray(episodes)
    if not private:
        raise ValueError("fit_privacy_cost: no private cells")
    eps_list = sorted(private)
    curves = {e: np.atleast_2d(np.asarray(private[e], dtype=np.float64)) for e in eps_list}
    base = np.atleast_2d(np.asarray(baseline, dtype=np.float64))
    for e, cv in curves.items():
        if cv.shape[1] != episodes.size:
            raise ValueError(f"eps={e}: {cv.shape[1]} checkpoints, expected {episodes.size}")
    if base.shape[1] != episodes.size:
        raise ValueError("baseline checkpoints do not match")
    mask = window_mask(episodes.astype(np.float64), decades)
    point = _estimates(episodes, {e: cv.mean(axis=0) for e, cv in curves.items()}, base.mean(axis=0), mask)

    def replicate(*resampled) -> list[float]:  # b, c, c_at_K, then b per eps, then D at K per eps
        est = _estimates(episodes, {e: r.mean(axis=0) for e, r in zip(eps_list, resampled)},
                         resampled[-1].mean(axis=0), mask)
        return ([est["b"], est["c"], est["c_at_K"]] + [est["b_per_eps"][e] for e in eps_list]
                + [est["D_at_K"][e] for e in eps_list])

    boots = bootstrap([curves[e] for e in eps_list] + [base], replicate, rng, n_boot)
    # an estimate left undefined on most resamples has no CI (nan)
    lo, hi = percentile_ci(boots, level, min_valid=max(10, n_boot // 10))
    out = {"b": point["b"], "c": point["c"], "log_C": point["log_C"], "c_at_K": point["c_at_K"],
           "n_points": point["n_points"], "n_dropped": point["n_dropped"],
           "frac_dropped": point["n_dropped"] / max(point["n_points"] + point["n_dropped"], 1),
           "window_lo": float(episodes[mask].min()), "window_hi": float(episodes[mask].max()),
           "n_eps": len(eps_list), "D_at_K": point["D_at_K"]}
    for j, key in enumerate(("b", "c", "c_at_K")):
        out[f"{key}_lo"], out[f"{key}_hi"] = float(lo[j]), float(hi[j])
    out["b_eps"] = {e: (point["b_per_eps"][e], float(lo[3 + j]), float(hi[3 + j])) for j, e in enumerate(eps_list)}
    n = len(eps_list)
    out["D_at_K_ci"] = {e: (point["D_at_K"][e], float(lo[3 + n + j]), float(hi[3 + n + j])) for j, e in enumerate(eps_list)}
    return out


def eps_cells(fit: dict, regimes: Mapping[float, Regime]) -> list[EpsCell]:
    """The per-eps cells of a :func:`fit_privacy_cost` result, for
    :func:`privrl.results.eps_verdicts.score_eps_dependence` (``regimes``: eps -> that cell's Regime)."""
    return [EpsCell(e, *fit["b_eps"][e], *fit["D_at_K_ci"][e], regimes[e]) for e in sorted(fit["b_eps"])]
