"""Privacy-cost fits (privrl.results.privacy_fits) on synthetic per-seed curves."""

import numpy as np
import pytest

from privrl.rl import engine
from privrl.results.privacy_fits import fit_privacy_cost, ols_bc

EPS = [0.5, 1.0, 2.0, 5.0]


def _synthetic(b, c, n_seeds=12, noise=0.002, seed=0, C=500.0):
    """Per-seed curves: baseline ~ 3 sqrt(K) and private = baseline + C K^b eps^-c, with
    multiplicative per-seed noise on each component."""
    rng = np.random.default_rng(seed)
    ep = engine.checkpoints(100_000, 120)
    base = 3.0 * np.sqrt(ep)[None, :] * (1 + noise * rng.standard_normal((n_seeds, 1)))
    priv = {e: 3.0 * np.sqrt(ep)[None, :] * (1 + noise * rng.standard_normal((n_seeds, 1)))
            + C * ep[None, :] ** b * e ** -c * (1 + noise * rng.standard_normal((n_seeds, 1))) for e in EPS}
    return ep, priv, base


@pytest.mark.parametrize("b,c", [(0.0, 1.0), (0.5, 1.0), (0.3, 2.0)])
def test_fit_recovers_b_and_c(b, c):
    ep, priv, base = _synthetic(b, c)
    f = fit_privacy_cost(ep, priv, base, np.random.default_rng(1), n_boot=300)
    assert f["b"] == pytest.approx(b, abs=0.05) and f["c"] == pytest.approx(c, abs=0.1)
    assert f["b_lo"] <= f["b"] <= f["b_hi"] and f["c_lo"] <= f["c"] <= f["c_hi"]
    assert f["n_dropped"] == 0 and f["n_eps"] == 4
    for e, (be, lo, hi) in f["b_eps"].items():
        assert be == pytest.approx(b, abs=0.08)
    assert f["c_at_K"] == pytest.approx(c, abs=0.1)


def test_fit_drops_nonpositive_cost_and_is_undefined_without_signal():
    ep, priv, base = _synthetic(0.5, 1.0)
    flat = np.tile(base[:1], (4, 1))  # identical seeds: D = 0 everywhere, also in every resample
    f = fit_privacy_cost(ep, {e: flat.copy() for e in EPS}, flat, np.random.default_rng(1), n_boot=50)
    assert f["n_points"] == 0 and np.isnan(f["b"]) and np.isnan(f["b_lo"])
    one = fit_privacy_cost(ep, {1.0: priv[1.0]}, base, np.random.default_rng(1), n_boot=50)
    assert np.isnan(one["c"]) and one["b"] == pytest.approx(0.5, abs=0.05)  # one eps: b only
    assert np.isnan(ols_bc(np.array([1.0, 2.0]), np.array([0.0, 1.0]), np.array([0.0, 1.0]))[0])
