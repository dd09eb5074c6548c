"""Scoring helpers (privrl.papers.scoring): the slope fit recovers an exponent."""

import numpy as np

from privrl.papers.scoring import slope_fit


def test_slope_fit_recovers_an_exponent():
    rng = np.random.default_rng(1)
    x = [1.0, 2.0, 4.0, 8.0]
    samples = [xi**1.5 * (1 + 0.01 * rng.standard_normal(20)) for xi in x]
    f = slope_fit(x, samples, rng, 300)
    assert f.lo < 1.5 < f.hi and f.hi - f.lo < 0.05
