"""Seed-level statistics: bootstrap CIs over seeds (rliable style: small pure functions over
one data shape, every resample drawn from the Generator passed in).

Data shape: ``curves`` float64[n_seeds, C] — one row per seed, one column per checkpoint.
"""
from __future__ import annotations

import numpy as np


def bootstrap_indices(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """int64[n_boot, n] seed indices resampled with replacement."""
    return rng.integers(0, n, size=(n_boot, n))


def mean_ci(curves: np.ndarray, rng: np.random.Generator, n_boot: int = 1000,
            level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-column mean and percentile-bootstrap CI over seeds: (mean[C], low[C], high[C])."""
    curves = np.atleast_2d(np.asarray(curves, dtype=np.float64))
    mean = curves.mean(axis=0)
    if curves.shape[0] < 2:
        return mean, mean.copy(), mean.copy()
    idx = bootstrap_indices(curves.shape[0], n_boot, rng)
    boot = curves[idx].mean(axis=1)  # [n_boot, C]
    lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return mean, lo, hi


def seed_matrix(df, value: str = "cum_regret") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pivot long per-seed results into (seeds[n], episodes[C], values[n, C])."""
    wide = df.pivot(index="seed", columns="episode", values=value).sort_index()
    if wide.isna().any().any():
        raise ValueError(f"per-seed results have missing checkpoints for {value!r}")
    return wide.index.to_numpy(), wide.columns.to_numpy(), wide.to_numpy(dtype=np.float64)
