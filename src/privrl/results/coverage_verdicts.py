"""One-sided test of a measured failure rate against a paper's stated failure probability.

A coverage statement ("with probability at least 1 - p the event holds") is contradicted only
when the data exclude it: the one-sided ``1 - alpha`` Clopper-Pearson *lower* bound of the failure
rate (``n_fail`` of ``n`` independent seeds) lies above ``p``. The window (``alpha`` = 0.05 and the
number of seeds) is fixed in the config before the run; a rate at or under ``p`` always passes.
"""
from __future__ import annotations

from scipy import stats

ALPHA = 0.05


def failure_rate_lower(n_fail: int, n: int, alpha: float = ALPHA) -> float:
    """One-sided ``1 - alpha`` Clopper-Pearson lower bound of a binomial rate ``n_fail / n``."""
    if n <= 0:
        raise ValueError("failure_rate_lower: no trials")
    return 0.0 if n_fail <= 0 else float(stats.beta.ppf(alpha, n_fail, n - n_fail + 1))


def within_stated(n_fail: int, n: int, stated: float, alpha: float = ALPHA) -> bool:
    """False only if the failure rate is significantly above ``stated`` (one-sided, level alpha)."""
    return failure_rate_lower(int(n_fail), int(n), alpha) <= stated
