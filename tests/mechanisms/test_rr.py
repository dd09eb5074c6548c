"""R_p, M_sh encodings, shuffler and analyzer (Garcelon et al. Alg. 1-3, Eq. 4-6)."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from privrl.mechanisms.exact_epsilon import rr_sum_logpmf
from privrl.mechanisms.audit import distribution_test
from privrl.mechanisms.bounds import garcelon_eq7_bound, garcelon_eq8_bound
from privrl.mechanisms.rr import (
    msh_randomize,
    onehot_encode,
    rr_analyzer,
    rr_debias,
    rr_epsilon_from_p,
    rr_p_from_epsilon,
    rr_randomize_bits,
    rr_sum_counts,
    shuffle_rows,
    unary_count,
    unary_encode,
)


def test_p_and_epsilon_are_inverse():
    for eps in (0.01, 0.5, 2.0):
        p = rr_p_from_epsilon(eps)
        assert p == pytest.approx(2 / (math.exp(eps) + 1))
        assert rr_epsilon_from_p(p) == pytest.approx(eps)


def test_rr_bit_law():
    # P(out=1 | x) = x (1 - p/2) + (1 - x) p/2; 4.5-sigma bands (false-alarm < 1e-5)
    rng = np.random.default_rng(1)
    p, n = 0.3, 200_000
    out = np.empty(n)
    for x, q in ((1.0, 1 - p / 2), (0.0, p / 2)):
        rr_randomize_bits(np.full(n, x), p, rng, out)
        assert abs(out.mean() - q) < 4.5 * math.sqrt(q * (1 - q) / n)


@pytest.mark.parametrize("nbits,ones", [(5, 2), (12, 0), (40, 13), (1000, 400)])
def test_aggregated_rr_sum_equals_per_bit_law(nbits, ones):
    """Aggregated sampler (per-bit or two binomials) and Alg. 2 bit by bit both match the exact law
    Bin(c, 1-p/2) + Bin(nbits-c, p/2): distribution_test at level 1e-3 each."""
    rng = np.random.default_rng(nbits)
    p, n = 0.4, 4000
    agg = np.empty(n)
    rr_sum_counts(np.full(n, float(ones)), nbits, p, rng, agg)
    x = np.zeros(nbits)
    x[:ones] = 1
    bits = np.empty(nbits)
    lit = np.empty(n)
    for i in range(n):
        rr_randomize_bits(x, p, rng, bits)
        lit[i] = bits.sum()
    off, lp = rr_sum_logpmf(nbits, ones, p)
    assert distribution_test(agg.astype(int), off, lp, 1e-3)["passed"]
    assert distribution_test(lit.astype(int), off, lp, 1e-3)["passed"]
    # two-sample check between the samplers too
    assert stats.ks_2samp(agg, lit).pvalue > 1e-3 or stats.mannwhitneyu(agg, lit).pvalue > 1e-3


def test_rr_sum_counts_rejects_out_of_range():
    with pytest.raises(ValueError):
        rr_sum_counts(np.array([5.0]), 3, 0.5, np.random.default_rng(0), np.empty(1))


def test_debias_is_unbiased():
    # mean of debiased counts over 100k counters within 4.5 sd of the truth (false-alarm < 1e-5)
    rng = np.random.default_rng(2)
    p, nbits, c, n = 0.6, 50, 17, 100_000
    s = np.empty(n)
    rr_sum_counts(np.full(n, float(c)), nbits, p, rng, s)
    rr_debias(s, nbits, p, s)
    sd = math.sqrt(nbits * (p / 2) * (1 - p / 2)) / (1 - p)
    assert abs(s.mean() - c) < 4.5 * sd / math.sqrt(n)


def test_unary_encoding_eq5():
    rng = np.random.default_rng(3)
    m = 4
    bits = np.empty(m, np.int64)
    for r, lo, hi in ((0.0, 0, 0), (1.0, 4, 4), (0.5, 2, 2), (0.6, 2, 3)):
        for _ in range(20):
            unary_encode(r, m, rng, bits)
            assert lo <= bits.sum() <= hi
            k = bits.sum()
            assert (bits[:k] == 1).all() and (bits[k:] == 0).all()  # unary
    # mean number of ones = m r, and unary_count has the same law (2-sample chi-square-free: means + support)
    n = 100_000
    r = np.full(n, 0.37)
    cnt = np.empty(n)
    unary_count(r, m, rng, cnt)
    assert set(np.unique(cnt)) == {1.0, 2.0}
    assert abs(cnt.mean() - m * 0.37) < 4.5 * 0.5 / math.sqrt(n)
    lit = np.array([(unary_encode(0.37, m, rng, bits), bits.sum())[1] for _ in range(20000)])
    assert abs(lit.mean() - m * 0.37) < 4.5 * 0.5 / math.sqrt(20000)


def test_onehot_and_msh_shapes():
    rng = np.random.default_rng(4)
    x = np.empty(6, np.int64)
    onehot_encode(np.array([0, 5]), x)
    assert x.tolist() == [1, 0, 0, 0, 0, 1]
    xq, yq, bq = msh_randomize(np.array([0, 5]), 6, np.array([3]), 9, np.array([0, 5]), np.array([1.0, 0.0]),
                               3, 6, 0.0, rng)  # p = 0: no randomization
    assert xq.tolist() == [1, 0, 0, 0, 0, 1]
    assert yq.sum() == 1 and yq[3] == 1
    assert bq.shape == (6, 3) and bq[0].tolist() == [1, 1, 1] and bq.sum() == 3
    xq, yq, bq = msh_randomize(np.array([0]), 6, np.array([3]), 9, np.array([0]), np.array([1.0]), 3, 6, 1.0, rng)
    assert set(np.unique(np.concatenate([xq, yq, bq.ravel()]))) <= {0, 1}


def test_shuffler_is_uniform():
    # all 6 permutations of 3 rows equally likely: chi-square, false-alarm 1e-3
    rng = np.random.default_rng(5)
    perms = list(itertools.permutations(range(3)))
    counts = dict.fromkeys(perms, 0)
    for _ in range(12_000):
        m = np.arange(3.0).reshape(3, 1)
        shuffle_rows(m, rng)
        counts[tuple(int(v) for v in m[:, 0])] += 1
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_analyzer_debiases_column_sums():
    p = 0.5
    msgs = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 1.0]])
    out = np.empty(2)
    rr_analyzer(msgs, 1, p, out)
    np.testing.assert_allclose(out, (msgs.sum(0) - 4 * p / 2) / (1 - p))


def test_eq7_eq8_closed_forms():
    L = math.log(1 / 0.1)
    assert garcelon_eq7_bound(100, 0.5, 0.1) == pytest.approx(2 * L / 1.5 + math.sqrt(100 * 0.5 * 0.75 * L) / 0.5)
    v = garcelon_eq8_bound(10, 3, 2, 0.5, 0.1)
    assert v == pytest.approx(math.sqrt(60 * math.log(20)) / 2 + math.sqrt(30 * 2 * 0.5 * 0.75 * L) / 1.0 + 2 * L / 1.5)


def test_rr_sum_counts_is_rng_binomial_bit_for_bit():
    """The tabled Bin(nbits, p/2) of entries without ones draws the same uniforms and values as
    numba's ``rng.binomial`` (inversion branch; BTPE and degenerate p fall through to it)."""
    from numba import njit

    @njit
    def two_binomials(ones, nbits, p, rng, out):
        for i in range(ones.shape[0]):
            c = int(ones[i])
            out[i] = rng.binomial(c, 1.0 - 0.5 * p) + rng.binomial(nbits - c, 0.5 * p)

    for nbits in (13, 19, 20, 40, 100, 1000):
        for p in (0.996, 0.5, 0.1, 0.01, 0.9999, 1.0, 0.0):
            ones = np.zeros(300)
            ones[::7] = 3.0
            got, ref = np.empty(300), np.empty(300)
            r1, r2 = np.random.default_rng(nbits), np.random.default_rng(nbits)
            rr_sum_counts(ones, nbits, p, r1, got)
            two_binomials(ones, nbits, p, r2, ref)
            assert np.array_equal(got, ref), (nbits, p)
            assert r1.bit_generator.state == r2.bit_generator.state
