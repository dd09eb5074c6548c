"""Coverage of the confidence widths used by the optimistic private agents, against the real privatizers.

* LDP-OBI's c_{k,i} and the local/central E of the private UCBVI family:
  ``mechanisms.bounds.laplace_sum_bound`` (derivation in docs/decisions/agents.md, O5; mechanisms D11b);
* Shuffled-OBI's c_{k,i}: Garcelon note Eq. 7-8 as printed, applied at delta/2 per tail;
* private-ucbvi-sdp's E/4: Bernstein on the summed bit-sum noise (doubling batches).
Each is checked as a frequency of violation <= delta (+ 3 binomial standard errors).
"""
import math

import numpy as np
import pytest

from privrl.mechanisms.bounds import binomial_sum_bound, laplace_sum_bound, rr_count_width, rr_reward_width
from privrl.mechanisms import privatizer as PV
from privrl.mechanisms.bitsum import bitsum_noise_law
from privrl.mechanisms.rr import rr_p_from_epsilon, unary_count
from privrl.mechanisms.tree import tree_levels


def _ok(viol, n, delta):
    return viol / n <= delta + 3.0 * math.sqrt(delta * (1 - delta) / n)


@pytest.mark.parametrize("n", [1, 3, 30, 300])
@pytest.mark.parametrize("delta", [0.1, 0.01])
def test_laplace_sum_bound_coverage_and_tightness(n, delta):
    rng = np.random.default_rng(n)
    b = 2.0
    sums = rng.laplace(0.0, b, size=(40_000, n)).sum(axis=1)
    bound = laplace_sum_bound(n, b, delta)
    assert _ok((np.abs(sums) > bound).sum(), sums.size, delta)
    # not absurdly loose: within 3x of the empirical (1 - delta) quantile
    assert bound < 3.0 * np.quantile(np.abs(sums), 1 - delta)


def _chernoff_min(n, A):
    """min over v of (A - n ln(1 - v)) / sqrt(v) (b = 1), by bisection on its stationarity condition
    2 n v/(1 - v) + n ln(1 - v) = A written with log1p (no precision lost for small v)."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        v = 0.5 * (lo + hi)
        if 2.0 * n * v / (1.0 - v) + n * math.log1p(-v) > A:
            hi = v
        else:
            lo = v
    v = 0.5 * (lo + hi)
    return (A - n * math.log1p(-v)) / math.sqrt(v)


@pytest.mark.parametrize("A", [math.log(2 / 0.05), math.log(2 / (0.05 / 6e6)), math.log(2 / 1e-30)])
def test_laplace_sum_bound_is_the_chernoff_minimum_and_never_below_it(A):
    """At every n the bound is the Chernoff bound minimised over v to within 1e-13 relative, and never below
    the minimum by more than rounding (a bound below it would not be a Chernoff bound at any v): on both
    sides of the switch from Newton's method to the minimiser's series (a = A / n = SERIES_MAX_A) and
    far out (n = 1e12, where ln(1 - v) computed as log(1 - v) lost ~1e-5 relative)."""
    from privrl.mechanisms.bounds import SERIES_MAX_A, laplace_sum_bound_ln

    ns = np.unique(np.concatenate([np.logspace(0, 12, 400), A / SERIES_MAX_A * np.array([0.999, 1.0, 1.001])]))
    for n in ns:
        ref = _chernoff_min(float(n), A)
        got = laplace_sum_bound_ln(float(n), 1.0, A)
        assert -1e-14 <= (got - ref) / ref <= 1e-13, (n, A, got, ref)


def test_laplace_sum_bound_coverage_on_its_series_branch():
    """n past 100 ln(2/d) (the minimiser's series): the bound still covers, and is tight."""
    from privrl.mechanisms.bounds import SERIES_MAX_A

    n, delta, b = 5000, 0.1, 2.0
    assert math.log(2 / delta) / n <= SERIES_MAX_A
    rng = np.random.default_rng(5)  # a sum of n Laplace(b) is b (G1 - G2), G1, G2 ~ Gamma(n, 1) independent
    sums = b * (rng.gamma(n, 1.0, 40_000) - rng.gamma(n, 1.0, 40_000))
    bound = laplace_sum_bound(n, b, delta)
    assert _ok((np.abs(sums) > bound).sum(), sums.size, delta)
    assert bound < 1.5 * np.quantile(np.abs(sums), 1 - delta)


def test_ldp_obi_widths_cover_the_local_laplace_privatizer():
    """c for k users = laplace_sum_bound(k, (6H-2)/eps, delta) holds per counter of the real privatizer."""
    H, eps, delta, n, k = 4, 1.0, 0.05, 4000, 50
    st = PV.make_privatizer("local-laplace", n, k, eps, sensitivity=6 * H - 2)
    rng = np.random.default_rng(0)
    truth = np.zeros(n)
    out = np.zeros(n)
    for _ in range(k):
        x = rng.integers(0, 3, n).astype(float)
        truth += x
        PV.privatizer_release(PV.LOCAL_LAPLACE, st, x, rng, out)
    c = laplace_sum_bound(k, (6 * H - 2) / eps, delta)
    assert _ok((np.abs(out - truth) > c).sum(), n, delta)


def test_tree_error_level_covers_the_central_privatizer():
    """private-ucbvi-jdp: |release - truth| <= E/4 = laplace_sum_bound(L, L/eps', delta) at every t."""
    T, eps_p, delta, n = 200, 0.5, 0.05, 500
    L = tree_levels(T)
    st = PV.make_privatizer("central-tree", n, T, eps_p)
    rng = np.random.default_rng(1)
    truth, out = np.zeros(n), np.zeros(n)
    viol = 0
    bound = laplace_sum_bound(L, L / eps_p, delta)
    for _ in range(T):
        x = (rng.random(n) < 0.3).astype(float)
        truth += x
        PV.privatizer_release(PV.CENTRAL_TREE, st, x, rng, out)
        viol += (np.abs(out - truth) > bound).sum()
    assert _ok(viol, n * T, delta)


@pytest.mark.parametrize("eps0", [1.0, 8.0])
def test_shuffled_obi_eq7_eq8_cover_the_shuffle_rr_privatizer(eps0):
    H, m, k, n, delta = 3, 1, 200, 3000, 0.05
    eps = eps0 / ((4 + 2 * m) * H)
    p = rr_p_from_epsilon(eps)
    rng = np.random.default_rng(2)
    sx = PV.make_privatizer("shuffle-rr", n, k, eps, bits_per_entry=H)
    sr = PV.make_privatizer("shuffle-rr", n, k, eps, bits_per_entry=m * H)
    tx, tr, ox, orr = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    ones = np.zeros(n * H)
    for _ in range(k):
        x = rng.integers(0, H + 1, n).astype(float)  # visits of each counter's pair in one episode
        rew = rng.random((n, H)) * (np.arange(H)[None, :] < x[:, None])  # a reward in [0, 1] per visit
        tx += x
        tr += rew.sum(axis=1)
        unary_count(rew.ravel(), m, rng, ones)  # Eq. 5 unary code of each reward: number of ones
        PV.privatizer_release(PV.SHUFFLE_RR, sx, x, rng, ox)
        ones_c = ones.reshape(n, H).sum(axis=1)
        PV.privatizer_release(PV.SHUFFLE_RR, sr, ones_c, rng, orr)
    c2 = rr_count_width(k * H, p, delta / 2)
    c1 = rr_reward_width(k + 1.0, H, m, p, delta / 2)
    assert _ok((np.abs(ox - tx) > c2).sum(), n, delta)
    assert _ok((np.abs(orr / m - tr) > c1).sum(), n, delta)


def test_bitsum_adapter_equals_privatizer_release_batch():
    rng_x = np.random.default_rng(3)
    X = (rng_x.random((37, 50)) < 0.4).astype(float)
    s1 = PV.make_privatizer("shuffle-bitsum", 50, 10, 0.3, beta=0.05)
    s2 = PV.make_privatizer("shuffle-bitsum", 50, 10, 0.3, beta=0.05)
    o1, o2 = np.zeros(50), np.zeros(50)
    PV.privatizer_release_batch(PV.SHUFFLE_BITSUM, s1, X, np.random.default_rng(9), o1)
    PV.privatizer_release_sums(PV.SHUFFLE_BITSUM, s2, X.sum(axis=0), 37, np.random.default_rng(9), o2)
    np.testing.assert_array_equal(o1, o2)
    for a, b in zip(s1, s2):
        np.testing.assert_array_equal(a, b)


def test_sdp_error_level_covers_doubling_batches():
    eps_p, beta, delta, n = 0.5, 0.05, 0.05, 3000
    st = PV.make_privatizer("shuffle-bitsum", n, 20, eps_p, beta=beta)
    tau = st[2][PV.F_TAU]
    rng = np.random.default_rng(4)
    truth, out = np.zeros(n), np.zeros(n)
    var, viol, cnt = 0.0, 0, 0
    for users in (1, 1, 2, 4, 8, 16, 32, 64, 128):
        colsum = rng.binomial(users, 0.3, n).astype(float)
        truth += colsum
        PV.privatizer_release_sums(PV.SHUFFLE_BITSUM, st, colsum, users, rng, out)
        nb, q, _ = bitsum_noise_law(users, tau)
        var += nb * q * (1 - q)
        viol += (np.abs(out - truth) > binomial_sum_bound(var, delta)).sum()
        cnt += n
    assert _ok(viol, cnt, delta)
