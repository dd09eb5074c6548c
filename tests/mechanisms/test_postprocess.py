"""Bai et al. Sec. V Eq. 4-5 post-processing, Assumption 4."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from privrl.mechanisms.postprocess import postprocess, postprocess_counts


def _lp_t(v, c, E):
    S = len(v)
    r = E / 4
    cost = np.r_[np.zeros(S), 1.0]
    A, b = [], []
    for i in range(S):
        row = np.zeros(S + 1); row[i], row[S] = 1, -1; A.append(row); b.append(v[i])
        row = np.zeros(S + 1); row[i], row[S] = -1, -1; A.append(row); b.append(-v[i])
    A.append(np.r_[np.ones(S), 0.0]); b.append(c + r)
    A.append(np.r_[-np.ones(S), 0.0]); b.append(-(c - r))
    res = linprog(cost, A_ub=np.array(A), b_ub=np.array(b), bounds=[(0, None)] * (S + 1), method="highs")
    assert res.status == 0
    return res.fun


floats = st.floats(-50, 200, allow_nan=False)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(floats, min_size=1, max_size=8), floats, st.floats(0.1, 100))
def test_eq4_solution_is_feasible_optimal_and_eq5_holds(v, c, E):
    v = np.array(v)
    S = len(v)
    sas, sa, t = postprocess(v, c, E)
    nbar = sas[0] - E / (2 * S)
    tol = 1e-7 * (1 + np.abs(v).max() + abs(c) + E)
    # Eq. 5 structure: sum identity and positivity
    assert sa[0] == pytest.approx(sas[0].sum(), abs=tol)
    assert (sas[0] > 0).all()
    # Eq. 4 feasibility of Nbar at t*
    assert (nbar >= -tol).all()
    assert np.abs(nbar - v).max() <= t[0] + tol
    if c + E / 4 >= 0:  # feasible instance: sum constraint and optimality vs an LP solver
        assert abs(nbar.sum() - c) <= E / 4 + tol
        assert t[0] == pytest.approx(_lp_t(v, c, E), abs=1e-6 * (1 + abs(t[0])))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=6), st.floats(1, 40), st.data())
def test_assumption4_under_the_good_event(N, E, data):
    """If every noisy count is within E/4 of the truth, N~(x,a) >= N(x,a), N~ = sum, N~ > 0 and
    N~(x,a) <= N(x,a) + E (Bai et al. Sec. V, App. IX-B)."""
    N = np.array(N, float)
    noise = np.array([data.draw(st.floats(-E / 4, E / 4)) for _ in range(len(N) + 1)])
    v = N + noise[:-1]
    c = N.sum() + noise[-1]
    sas, sa, _ = postprocess(v, c, E)
    assert sa[0] >= N.sum() - 1e-9
    assert sa[0] <= N.sum() + E + 1e-9
    assert (sas[0] > 0).all()


def test_batch_kernel_matches_rows():
    rng = np.random.default_rng(0)
    m, S = 50, 7
    V = rng.normal(5, 10, size=(m, S))
    C = V.sum(1) + rng.normal(0, 5, size=m)
    out_sas, out_sa, out_t = np.empty((m, S)), np.empty(m), np.empty(m)
    postprocess_counts(V, C, 8.0, out_sas, out_sa, out_t)
    for i in range(m):
        sas, sa, t = postprocess(V[i], C[i], 8.0)
        np.testing.assert_allclose(out_sas[i], sas[0])
        assert out_sa[i] == pytest.approx(sa[0]) and out_t[i] == pytest.approx(t[0])


def test_worked_example():
    sas, sa, t = postprocess(np.array([3.0, -1.0, 0.5]), 1.0, 4.0)
    np.testing.assert_allclose(sas[0], [2 + 2 / 3, 2 / 3, 2 / 3])
    assert sa[0] == pytest.approx(4.0) and t[0] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        postprocess(np.ones(2), 1.0, 0.0)


def _postprocess_row_sorting_copies(v, c, E):
    """The earlier postprocess_row (np.sort into new arrays), kept as the bit-for-bit reference."""
    S = len(v)
    r = 0.25 * E
    c = -r if c + r < 0.0 else c
    t0, sv, lo0 = max(0.0, float(np.max(-v))), 0.0, 0.0
    for x in v:  # sequential sums, as the kernel (numpy's sum is pairwise)
        sv += x
        lo0 += x if x > 0.0 else 0.0
    t_hi = (c - r - sv) / S
    C = c + r
    if lo0 <= C:
        t_lo = 0.0
    else:
        u, P, t_lo = -np.sort(-v), 0.0, None
        for k in range(1, S + 1):
            P += u[k - 1]
            t = (P - C) / k
            if t >= (u[k] if k < S else -np.inf):
                t_lo = t
                break
        t_lo = (P - C) / S if t_lo is None else t_lo
    t = max(t0, t_hi, t_lo)
    li = np.maximum(0.0, v - t)
    lsum, usum, base = 0.0, 0.0, 0.0
    for i in range(S):
        lsum += li[i]
        usum += v[i] + t
        base += max(v[i], 0.0)
    b = np.sort(li - v)
    target = min(max(base, max(c - r, lsum)), min(c + r, usum))
    D, lam = target - lsum, b[0]
    if D > 0.0:
        B = 0.0
        for k in range(1, S + 1):
            B += b[k - 1]
            lam = (D + B) / k
            if k == S or lam <= b[k]:
                break
    out = np.array([min(max(v[i] - t, 0.0, v[i] + lam), v[i] + t) for i in range(S)])
    total = 0.0
    for x in out:
        total += x
    return out + E / (2.0 * S), total + 0.5 * E, t


@pytest.mark.parametrize("S", [1, 2, 6, 15, 16, 20])
def test_postprocess_row_in_place_sorts_match_sorting_copies(S):
    """postprocess_row sorts in its output buffer (no allocation); same floats as sorting copies."""
    from privrl.mechanisms.postprocess import postprocess_row
    rng = np.random.default_rng(S)
    out = np.empty(S)
    for _ in range(300):
        v = np.round(rng.normal(rng.uniform(-5, 30), 8, S), int(rng.integers(0, 3)))
        c, E = float(np.round(v.sum() + rng.normal(0, 10))), float(rng.uniform(0.5, 60))
        tot, t = postprocess_row(v, c, E, out)
        ref, rtot, rt = _postprocess_row_sorting_copies(v, c, E)
        assert np.array_equal(out, ref) and tot == rtot and t == rt
