"""Aggregation of per-seed results into per-cell curves and fits (pure DataFrame functions).

Input shape: the runner's long table (seed, episode, cum_regret, cum_aux, mistakes_*),
one per cell. Output: one row per (cell, checkpoint) with mean and 95% bootstrap CI, and
one fit row per cell.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from privrl.results.fits import fit_k_exponent, window_mask
from privrl.results.stats import mean_ci, seed_matrix


def aggregate_cell(df: pd.DataFrame, rng: np.random.Generator, n_boot: int) -> pd.DataFrame:
    """Mean and 95% CI of cumulative regret (and mean diagnostics) per checkpoint."""
    _, episodes, R = seed_matrix(df, "cum_regret")
    mean, lo, hi = mean_ci(R, rng, n_boot)
    _, _, aux = seed_matrix(df, "cum_aux")
    out = pd.DataFrame({"episode": episodes, "mean": mean, "ci_low": lo, "ci_high": hi,
                        "aux_mean": aux.mean(axis=0), "n_seeds": R.shape[0]})
    for col in [c for c in df.columns if c.startswith("mistakes_")]:
        _, _, M = seed_matrix(df, col)
        out[col] = M.mean(axis=0)
    return out


def fit_cell(df: pd.DataFrame, rng: np.random.Generator, decades: float = 2.0, *, n_boot: int) -> dict:
    """K-exponent fit plus the bonus-saturation fraction inside the fit window."""
    _, episodes, R = seed_matrix(df, "cum_regret")
    row = fit_k_exponent(episodes, R, rng, decades=decades, n_boot=n_boot)
    _, _, aux = seed_matrix(df, "cum_aux")
    m = window_mask(episodes.astype(float), decades)
    e_lo, e_hi = episodes[m][0], episodes[-1]
    a_lo = aux[:, m][:, 0].mean()
    row["saturated_fraction"] = float((aux[:, -1].mean() - a_lo) / max(e_hi - e_lo, 1))
    row["regret_at_K"] = float(R[:, -1].mean())
    row["K"] = int(episodes[-1])
    return row

