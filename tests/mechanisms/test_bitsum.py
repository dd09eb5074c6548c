"""Shuffle binary summation, Bai et al. App. Alg. 4 / Lemma 42, both regimes."""
import math

import numpy as np
import pytest
from scipy import stats

from privrl.mechanisms.audit import distribution_test
from privrl.mechanisms.bitsum import bitsum_protocol_noise as _bitsum_protocol
from privrl.mechanisms.bounds import bitsum_variance
from privrl.mechanisms.bitsum import (
    LARGE_REGIME,
    SMALL_REGIME,
    bitsum,
    bitsum_analyzer,
    bitsum_local_randomizer,
    bitsum_noise_law,
    bitsum_release,
    bitsum_tau,
)


def test_tau_and_regimes():
    assert bitsum_tau(0.5, 0.01) == pytest.approx(96 * math.log(200) / 0.25)
    tau = 100.0
    assert bitsum_noise_law(100, tau) == (100, 0.5, SMALL_REGIME)      # n <= tau: m = 1
    assert bitsum_noise_law(30, tau) == (4 * 30, 0.5, SMALL_REGIME)    # m = ceil(100/30) = 4
    n_bits, q, regime = bitsum_noise_law(101, tau)
    assert (n_bits, regime) == (101, LARGE_REGIME) and q == pytest.approx(100 / 202)
    assert bitsum_variance(30, tau) == pytest.approx(120 / 4)
    assert bitsum_variance(400, tau) == pytest.approx(400 * (100 / 800) * (1 - 100 / 800))


def test_local_randomizer_and_analyzer_by_hand():
    rng = np.random.default_rng(0)
    y = np.array([1, 0, 1], np.int64)
    z = np.empty(3, np.int64)
    bitsum_local_randomizer(y, 7.0, rng, z)  # small regime, m = 3
    assert ((z - y >= 0) & (z - y <= 3)).all()
    assert bitsum_analyzer(z, 7.0) == pytest.approx(z.sum() - 3 * 3 / 2)
    big = np.zeros(10, np.int64)
    zz = np.empty(10, np.int64)
    bitsum_local_randomizer(big, 4.0, rng, zz)  # large regime: z in {0, 1}
    assert set(np.unique(zz)) <= {0, 1}
    assert bitsum_analyzer(zz, 4.0) == pytest.approx(zz.sum() - 2.0)


@pytest.mark.slow  # > 5 s
@pytest.mark.parametrize("n_users", [3, 200, 2035, 8000])  # tau(0.5, 0.01) ~ 2034.6: both regimes
def test_protocol_and_aggregated_sampler_have_the_exact_law(n_users):
    """Per-user protocol (randomizer -> shuffler -> analyzer) and the aggregated binomial sampler
    both match Q ~ Bin(n_bits, q); distribution_test at level 1e-3 each (fixed seed)."""
    rng = np.random.default_rng(n_users)
    eps, beta, n = 0.5, 0.01, 3000
    tau = bitsum_tau(eps, beta)
    n_bits, q, _ = bitsum_noise_law(n_users, tau)
    lp = stats.binom.logpmf(np.arange(n_bits + 1), n_bits, q)
    y = (np.arange(n_users) % 2).astype(np.int64)
    proto = _bitsum_protocol(y, tau, tau, n, rng)
    ysum = np.full(n, float(y.sum()))
    z = np.empty(n)
    bitsum_release(ysum, n_users, tau, rng, z)
    agg = np.rint(z - ysum + n_bits * q).astype(np.int64)
    assert distribution_test(proto, 0, lp, 1e-3)["passed"]
    assert distribution_test(agg, 0, lp, 1e-3)["passed"]


@pytest.mark.parametrize("ratio", [0.25, 4.0])
def test_unbiased_and_input_independent(ratio):
    # bias z-score within 4.5 (false-alarm < 1e-5) for two very different inputs
    rng = np.random.default_rng(7)
    tau = bitsum_tau(0.3, 0.05)
    n_users = int(ratio * tau)
    n = 50_000
    sd = math.sqrt(bitsum_variance(n_users, tau) / n)
    for s in (0.0, float(n_users)):
        z = np.empty(n)
        bitsum_release(np.full(n, s), n_users, tau, rng, z)
        assert abs(z.mean() - s) < 4.5 * sd


def test_python_convenience():
    v = bitsum(np.ones(50), 0.9, 0.1, np.random.default_rng(1))
    assert isinstance(v, float)
