"""Binary (tree) mechanism: Vietri et al. App. A Alg. 5 / Thm 12 (standard form, decisions D1)."""
import numpy as np
import pytest

from privrl.mechanisms.bounds import thm12_bound
from privrl.mechanisms.tree import (
    tree_init,
    tree_levels,
    tree_node_scale,
    tree_release_reference,
    tree_run,
    tree_step,
)


@pytest.mark.parametrize("T,L", [(1, 1), (2, 2), (3, 2), (4, 3), (7, 3), (8, 4), (1000, 10), (2**16, 17)])
def test_levels(T, L):
    assert tree_levels(T) == L
    assert tree_node_scale(0.5, T) == L / 0.5


@pytest.mark.parametrize("n,T", [(1, 1), (3, 37), (17, 64), (5, 1000)])
def test_noise_off_gives_exact_prefix_sums(n, T):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(T, n)).astype(np.float64)
    out = np.empty((T, n))
    tree_run(X, tree_levels(T), 0.0, rng, out)
    np.testing.assert_array_equal(out, np.cumsum(X, axis=0))


def test_release_is_exactly_the_noisy_nodes_of_t():
    """Incremental release == top-down sum of the noisy nodes of t's binary expansion, bit for bit."""
    rng = np.random.default_rng(2)
    n, T = 6, 300
    exact, noisy, psum = tree_init(n, T)
    out, ref = np.empty(n), np.empty(n)
    for t in range(1, T + 1):
        x = (rng.random(n) < 0.4).astype(np.float64)
        tree_step(exact, noisy, psum, t, x, 3.7, rng, out)
        tree_release_reference(noisy, t, ref)
        np.testing.assert_array_equal(out, ref)


def test_nodes_hold_dyadic_block_sums():
    rng = np.random.default_rng(3)
    n, T = 4, 100
    X = rng.integers(0, 2, size=(T, n)).astype(np.float64)
    exact, noisy, psum = tree_init(n, T)
    out = np.empty(n)
    for t in range(1, T + 1):
        tree_step(exact, noisy, psum, t, X[t - 1], 0.0, rng, out)
        i = (t & -t).bit_length() - 1
        np.testing.assert_array_equal(exact[i], X[t - 2**i:t].sum(axis=0))


def test_horizon_exceeded_raises():
    rng = np.random.default_rng(0)
    exact, noisy, psum = tree_init(2, 3)  # L = 2 -> t <= 3
    out = np.empty(2)
    for t in (1, 2, 3):
        tree_step(exact, noisy, psum, t, np.ones(2), 1.0, rng, out)
    with pytest.raises(ValueError):
        tree_step(exact, noisy, psum, 4, np.ones(2), 1.0, rng, out)


def test_release_noise_variance_is_popcount_times_laplace_variance():
    # 20000 counters; variance of a Laplace(b) sum over popcount(t) nodes is 2 b^2 popcount(t).
    # 4-sigma band on the sample variance (relative sd ~ sqrt(5/n)): false-alarm rate < 1e-4.
    rng = np.random.default_rng(4)
    n, T, b = 20000, 7, 2.0
    X = np.zeros((T, n))
    out = np.empty((T, n))
    tree_run(X, tree_levels(T), b, rng, out)
    for t in range(1, T + 1):
        v = out[t - 1].var()
        expect = 2 * b * b * bin(t).count("1")
        assert abs(v / expect - 1) < 4 * np.sqrt(5.0 / n)


def test_generator_stream_only():
    """Same seed -> same output; the global numpy RNG is never consulted."""
    X = np.ones((20, 3))
    outs = []
    for _ in range(2):
        np.random.seed(123 + _)
        out = np.empty((20, 3))
        tree_run(X, 5, 1.0, np.random.default_rng(9), out)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_thm12_bound_closed_form():
    assert thm12_bound(1.0, np.exp(-1), 2**16) == pytest.approx(4 * 16**2.5)
    assert thm12_bound(2.0, np.exp(-1), 2**16, "ln") == pytest.approx(2 * np.log(2**16) ** 2.5)
