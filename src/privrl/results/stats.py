"""Seed-level statistics: the one percentile bootstrap over seeds used by every CI of privrl
(rliable style: small pure functions, every resample drawn from the Generator passed in).

The number of resamples ``n_boot`` is always passed in: its only source is the config's
``bootstrap.n`` (the workflow hands it to aggregates, fits and analyses alike).

Data shapes: a *sample* is an array whose axis 0 is the seed, e.g. per-seed values
float64[n_seeds] or per-seed curves float64[n_seeds, C] (one column per checkpoint).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

LEVEL = 0.95


def bootstrap_indices(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """int64[n_boot, n] seed indices resampled with replacement."""
    return rng.integers(0, n, size=(n_boot, n))


def percentile_ci(boots: np.ndarray, level: float = LEVEL, min_valid: int = 1) -> tuple:
    """Percentile interval of bootstrap replicates ``boots`` float64[n_boot, ...] along axis 0.

    NaN replicates (an estimate undefined on that resample) are ignored; where fewer than
    ``min_valid`` replicates are left the interval is (nan, nan). Returns (low, high) of shape
    ``boots.shape[1:]`` (floats for 1-D ``boots``).
    """
    boots = np.asarray(boots, dtype=np.float64)
    q = [(1 - level) / 2, (1 + level) / 2]
    if not np.isnan(boots).any() and boots.shape[0] >= min_valid:
        lo, hi = np.quantile(boots, q, axis=0)
    else:
        flat = boots.reshape(boots.shape[0], -1)
        lo, hi = np.full(flat.shape[1], np.nan), np.full(flat.shape[1], np.nan)
        for j in range(flat.shape[1]):
            v = flat[~np.isnan(flat[:, j]), j]
            if v.size >= max(min_valid, 1):
                lo[j], hi[j] = np.quantile(v, q)
        lo, hi = lo.reshape(boots.shape[1:]), hi.reshape(boots.shape[1:])
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def bootstrap(samples: Sequence[np.ndarray], statistic: Callable, rng: np.random.Generator, n_boot: int,
              batched: bool = False) -> np.ndarray:
    """Bootstrap replicates of ``statistic(*samples)``, every sample's seeds resampled independently.

    Indices are drawn sample by sample, in order (``bootstrap_indices`` per sample). With
    ``batched`` the statistic receives the resampled arrays with a leading resample axis
    (``sample[idx]``: [n_boot, n_i, ...]) and returns [n_boot, ...]; otherwise it is called
    once per resample on [n_i, ...] arrays and must return a float or a 1-D array.
    Returns float64[n_boot, ...].
    """
    samples = [np.asarray(s, dtype=np.float64) for s in samples]
    idx = [bootstrap_indices(s.shape[0], n_boot, rng) for s in samples]
    if batched:
        return np.asarray(statistic(*[s[i] for s, i in zip(samples, idx)]), dtype=np.float64)
    return np.array([statistic(*[s[i[b]] for s, i in zip(samples, idx)]) for b in range(n_boot)],
                    dtype=np.float64)


def _mean_over_seeds(resampled: np.ndarray) -> np.ndarray:
    return resampled.mean(axis=1)


def mean_ci(x: np.ndarray, rng: np.random.Generator, n_boot: int, level: float = LEVEL) -> tuple:
    """Mean over seeds and its percentile-bootstrap CI: x float64[n_seeds] -> (mean, low, high)
    floats; x float64[n_seeds, C] -> (mean[C], low[C], high[C]). One seed: the CI is the mean."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=0)
    if x.shape[0] < 2:
        return (float(mean),) * 3 if x.ndim == 1 else (mean, mean.copy(), mean.copy())
    lo, hi = percentile_ci(bootstrap([x], _mean_over_seeds, rng, n_boot, batched=True), level)
    return (float(mean) if x.ndim == 1 else mean), lo, hi


def ratio_ci(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, n_boot: int,
             level: float = LEVEL) -> tuple[float, float, float]:
    """mean(x) / mean(y) of two independent per-seed samples float64[n_x], float64[n_y], with a
    CI from independent seed resamples of x and y (nan point estimate when mean(y) = 0)."""
    def ratio(bx, by):
        with np.errstate(divide="ignore", invalid="ignore"):
            return bx.mean(axis=1) / by.mean(axis=1)

    x, y = np.asarray(x, float), np.asarray(y, float)
    lo, hi = percentile_ci(bootstrap([x, y], ratio, rng, n_boot, batched=True), level)
    return (float(x.mean() / y.mean()) if y.mean() != 0 else float("nan")), lo, hi


def diff_ci(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, n_boot: int,
            level: float = LEVEL) -> tuple[float, float, float]:
    """mean(x) - mean(y) of two independent per-seed samples, with a CI from independent resamples."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    lo, hi = percentile_ci(bootstrap([x, y], lambda bx, by: bx.mean(axis=1) - by.mean(axis=1), rng, n_boot,
                                     batched=True), level)
    return float(x.mean() - y.mean()), lo, hi


def probability_of_improvement(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, n_boot: int,
                               level: float = LEVEL) -> tuple[float, float, float]:
    """P(X < Y) + P(X = Y) / 2 of two independent per-seed samples float64[n_x], float64[n_y] of a
    cost (regret: lower is better), i.e. the Mann-Whitney U / (n_x n_y) of rliable's probability of
    improvement read for costs, with a CI from independent seed resamples of x and y.
    Returns (estimate, low, high); 0.5 = no evidence either way."""
    def p_better(bx, by):  # [n_boot, n_x], [n_boot, n_y] -> [n_boot]
        a, b = bx[:, :, None], by[:, None, :]
        return ((a < b).mean(axis=(1, 2)) + 0.5 * (a == b).mean(axis=(1, 2)))

    x, y = np.asarray(x, float), np.asarray(y, float)
    point = float(p_better(x[None], y[None])[0])
    lo, hi = percentile_ci(bootstrap([x, y], p_better, rng, n_boot, batched=True), level)
    return point, lo, hi


def improvement_p_value(x: np.ndarray, y: np.ndarray) -> float:
    """One-sided Mann-Whitney p-value of "x is lower than y" (exact for small samples): the
    percentile CI of :func:`probability_of_improvement` is zero-width under complete separation
    (2 seeds each give (1, 1, 1)), so a reading of "better" also needs this p below 0.05."""
    from scipy.stats import mannwhitneyu

    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size == 0 or y.size == 0 or (np.all(x == x[0]) and np.all(y == y[0]) and x[0] == y[0]):
        return 1.0
    return float(mannwhitneyu(x, y, alternative="less").pvalue)


def seed_matrix(df, value: str = "cum_regret") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pivot long per-seed results into (seeds[n], episodes[C], values[n, C])."""
    wide = df.pivot(index="seed", columns="episode", values=value).sort_index()
    if wide.isna().any().any():
        raise ValueError(f"per-seed results have missing checkpoints for {value!r}")
    return wide.index.to_numpy(), wide.columns.to_numpy(), wide.to_numpy(dtype=np.float64)
