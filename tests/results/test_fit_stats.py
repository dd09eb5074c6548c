import numpy as np
import pytest

from privrl.results import fits as fit, stats


def test_fit_recovers_power_law_exponent(rng):
    episodes = np.unique(np.round(np.logspace(0, 5, 150))).astype(int)
    curves = np.array([3.0 * episodes ** 0.5 * np.exp(rng.normal(0, 0.02)) for _ in range(10)])
    out = fit.fit_k_exponent(episodes, curves, np.random.default_rng(0), n_boot=300)
    assert abs(out["exponent"] - 0.5) < 1e-9
    assert out["exponent_lo"] <= 0.5 <= out["exponent_hi"]
    assert out["window_lo"] >= 1000


def test_bootstrap_honours_given_rng():
    curves = np.random.default_rng(1).normal(size=(6, 20)).cumsum(axis=1) + 50
    a = stats.mean_ci(curves, np.random.default_rng(7), 200)
    b = stats.mean_ci(curves, np.random.default_rng(7), 200)
    c = stats.mean_ci(curves, np.random.default_rng(8), 200)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[1], c[1])
    assert np.all(a[1] <= a[0]) and np.all(a[0] <= a[2])


def test_bootstrap_ci_coverage():
    """95% percentile-bootstrap CI of a mean of 30 normals: coverage over 400 fixed-seed
    replications should be ~0.95; we accept [0.90, 0.98] (binomial false-alarm < 1e-3)."""
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(400):
        x = rng.normal(size=(30, 1))
        _, lo, hi = stats.mean_ci(x, rng, 400)
        hits += lo[0] <= 0.0 <= hi[0]
    assert 0.90 <= hits / 400 <= 0.98


def test_fit_window_too_small_is_an_error():
    with pytest.raises(ValueError, match="checkpoints"):
        fit.fit_k_exponent(np.array([1, 2]), np.ones((2, 2)), np.random.default_rng(0), n_boot=10)


def test_one_bootstrap_behind_every_ci():
    """mean_ci over curves is the percentile bootstrap of the seed means; per-seed values give
    floats; ratio and difference resample x then y from the same stream."""
    x = np.random.default_rng(3).normal(10, 1, size=(8, 5))
    m, lo, hi = stats.mean_ci(x, np.random.default_rng(4), 100)
    idx = np.random.default_rng(4).integers(0, 8, size=(100, 8))
    ref = np.quantile(x[idx].mean(axis=1), [0.025, 0.975], axis=0)
    assert np.allclose([lo, hi], ref, rtol=0, atol=1e-12) and np.array_equal(m, x.mean(axis=0))
    m1, lo1, hi1 = stats.mean_ci(x[:, 0], np.random.default_rng(4), 100)
    assert isinstance(lo1, float) and np.isclose(lo1, lo[0]) and np.isclose(hi1, hi[0])
    y = x[:, 1] + 5
    r, rlo, rhi = stats.ratio_ci(x[:, 0], y, np.random.default_rng(5), 200)
    d, dlo, dhi = stats.diff_ci(x[:, 0], y, np.random.default_rng(5), 200)
    assert rlo <= r <= rhi and dlo <= d <= dhi and d < 0 < r
    boots = np.array([[1.0, np.nan]] * 5 + [[2.0, 1.0]] * 5)
    lo2, hi2 = stats.percentile_ci(boots, min_valid=6)
    assert np.isfinite(lo2[0]) and np.isnan(lo2[1]) and np.isnan(hi2[1])
