"""The agent-facing privatizer interface (all five kinds), from Python and from numba kernels."""
import math

import numpy as np
import pytest
from numba import njit

from privrl.mechanisms import (
    KIND_CODES,
    describe_privatizer,
    make_privatizer,
    privatizer_cumulative,
    privatizer_last,
    privatizer_new,
    privatizer_release,
    privatizer_release_batch,
    privatizer_release_sums,
)
from privrl.mechanisms.tree import tree_levels, tree_run

N = 64


def _stream(rng, K, n=N):
    return (rng.random((K, n)) < 0.3).astype(np.float64)


def test_codes_and_common_structure():
    assert KIND_CODES == {"none": 0, "central-tree": 1, "local-laplace": 2, "shuffle-bitsum": 3, "shuffle-rr": 4}
    for kind in KIND_CODES:
        f, i, p = make_privatizer(kind, N, 100, 0.5, beta=0.05)
        assert f.dtype == np.float64 and f.ndim == 2 and f.shape[1] == N
        assert i.dtype == np.int64 and i.shape == (8,) and p.dtype == np.float64 and p.shape == (8,)
        assert describe_privatizer((f, i, p))["kind"] == kind
    with pytest.raises(ValueError):
        make_privatizer("laplace", N, 10, 1.0)
    with pytest.raises(ValueError):
        make_privatizer("shuffle-bitsum", N, 10, 1.0)  # needs beta


def test_none_is_exact_and_code_is_checked():
    rng = np.random.default_rng(0)
    X = _stream(rng, 20)
    st = make_privatizer("none", N, 20, float("inf"))
    out = np.empty(N)
    for k in range(20):
        privatizer_release(0, st, X[k], rng, out)
    np.testing.assert_array_equal(out, X.sum(0))
    with pytest.raises(ValueError):
        privatizer_release(1, st, X[0], rng, out)


def test_central_tree_equals_the_binary_mechanism():
    X = _stream(np.random.default_rng(1), 50)
    st = make_privatizer("central-tree", N, 50, 0.7, sensitivity=2.0)
    out = np.empty(N)
    rng = np.random.default_rng(5)
    outs = []
    for k in range(50):
        privatizer_release(1, st, X[k], rng, out)
        outs.append(out.copy())
    ref = np.empty((50, N))
    tree_run(X, tree_levels(50), tree_levels(50) * 2.0 / 0.7, np.random.default_rng(5), ref)
    np.testing.assert_array_equal(np.array(outs), ref)
    last = np.empty(N)
    privatizer_last(st, last)
    np.testing.assert_allclose(last, ref[-1] - ref[-2])
    with pytest.raises(ValueError):  # horizon: 50 -> L = 6 -> at most 63 releases
        for _ in range(14):
            privatizer_release(1, st, X[0], rng, out)


@pytest.mark.parametrize("kind", ["local-laplace", "shuffle-bitsum", "shuffle-rr"])
def test_unbiased_cumulative_counts(kind):
    # 4000 counters x 30 episodes, same increment per counter; mean error within 5 sd (false-alarm < 1e-6)
    rng = np.random.default_rng(2)
    n, K = 4000, 30
    st = make_privatizer(kind, n, K, 1.0, beta=0.1, bits_per_entry=2, sensitivity=2.0)
    x = np.tile([0.0, 1.0, 2.0 if kind != "shuffle-bitsum" else 1.0, 1.0], n // 4)  # one user holds one bit
    out = np.empty(n)
    for _ in range(K):
        privatizer_release(KIND_CODES[kind], st, x, rng, out)
    err = out - K * x
    assert abs(err.mean()) < 5 * err.std() / math.sqrt(n)
    cum = np.empty(n)
    privatizer_cumulative(st, cum)
    np.testing.assert_array_equal(cum, out)


@pytest.mark.parametrize("kind", ["central-tree", "local-laplace", "shuffle-bitsum", "shuffle-rr"])
@pytest.mark.parametrize("bad", [2.0, np.nan, -1.0])
def test_release_refuses_values_outside_the_per_user_domain(kind, bad):
    """A count above one user's bound (a reward of 2 where a user adds at most 1, two ones from one
    user in the bit-sum), negative or NaN is refused by every counting kind."""
    st = make_privatizer(kind, 3, 4, 1.0, beta=0.1, bits_per_entry=1)
    with pytest.raises(ValueError, match="domain|bit counts|integer|outside"):
        privatizer_release(KIND_CODES[kind], st, np.array([0.0, 1.0, bad]), np.random.default_rng(0), np.empty(3))


@pytest.mark.parametrize("eps", [math.inf, math.nan, 1e300, 1e-300, 5e-324, 0.0, -1.0])
@pytest.mark.parametrize("kind", ["central-tree", "local-laplace", "shuffle-bitsum", "shuffle-rr"])
def test_door_refuses_epsilon_outside_its_range(kind, eps):
    with pytest.raises(ValueError, match="epsilon"):
        make_privatizer(kind, 2, 4, eps, beta=0.1)
    with pytest.raises(ValueError, match="epsilon"):  # the njit door itself, as the agents call it
        privatizer_new(np.int64(KIND_CODES[kind]), np.int64(2), np.int64(4), eps, 1.0, 0.1, np.int64(1))


@pytest.mark.parametrize("kind", list(KIND_CODES))
def test_batch_release_counts_users_and_is_unbiased(kind):
    rng = np.random.default_rng(3)
    n, m = 3000, 40
    st = make_privatizer(kind, n, 10, 1.0, beta=0.1)
    X = (rng.random((m, n)) < 0.5).astype(np.float64)
    out, last = np.empty(n), np.empty(n)
    privatizer_release_batch(KIND_CODES[kind], st, X, rng, out)
    privatizer_last(st, last)
    np.testing.assert_array_equal(out, last)  # first release: cumulative == batch
    err = out - X.sum(0)
    sd = max(err.std(), 1e-12)
    assert abs(err.mean()) < 5 * sd / math.sqrt(n)
    d = describe_privatizer(st)
    assert d["users"] == m and d["releases"] == 1


@njit(cache=True)
def _agent_like_kernel(code, n, K, eps, rng):
    """What an agent kernel does: build the state in numba, release once per episode."""
    state = privatizer_new(code, n, K, eps, 1.0, 0.1, 1)
    x = np.zeros(n)
    out = np.zeros(n)
    for k in range(K):
        for c in range(n):
            x[c] = 1.0 if rng.random() < 0.2 else 0.0
        privatizer_release(code, state, x, rng, out)
    return out


def test_callable_from_numba_kernels():
    for code in KIND_CODES.values():
        out = _agent_like_kernel(code, 32, 20, 1.0, np.random.default_rng(4))
        assert out.shape == (32,) and np.isfinite(out).all()
    a = _agent_like_kernel(1, 8, 5, 1.0, np.random.default_rng(9))
    b = _agent_like_kernel(1, 8, 5, 1.0, np.random.default_rng(9))
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["none", "central-tree", "shuffle-bitsum", "shuffle-rr"])
def test_release_sums_equals_batch_exactly(kind):
    """For kinds that only use column sums, the same rng gives bit-identical outputs."""
    X = (np.random.default_rng(6).random((7, 50)) < 0.5).astype(np.float64)
    outs = []
    for how in ("batch", "sums"):
        st = make_privatizer(kind, 50, 10, 1.0, beta=0.1)
        out = np.empty(50)
        rng = np.random.default_rng(8)
        for _ in range(3):
            if how == "batch":
                privatizer_release_batch(KIND_CODES[kind], st, X, rng, out)
            else:
                privatizer_release_sums(KIND_CODES[kind], st, X.sum(0), 7, rng, out)
        outs.append(out.copy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_local_laplace_sums_variance():
    # m users' Laplace vectors: variance m * 2 b^2 per counter; 4-sigma band (false-alarm < 1e-4)
    rng = np.random.default_rng(9)
    n, m, eps = 20_000, 5, 2.0
    st = make_privatizer("local-laplace", n, 1, eps)
    out = np.empty(n)
    privatizer_release_sums(2, st, np.zeros(n), m, rng, out)
    assert abs(out.var() / (m * 2 / eps**2) - 1) < 4 * np.sqrt(5.0 / n)
