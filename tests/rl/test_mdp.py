import itertools

import numpy as np
import pytest

from privrl.rl import mdp
from privrl.rl.mdp import TabularMDP


def random_mdp(rng, H=3, S=3, A=2):
    P = rng.dirichlet(np.ones(S), size=(H, S, A))
    R = rng.uniform(size=(H, S, A))
    rho = rng.dirichlet(np.ones(S))
    return TabularMDP(P, R, rho)


def good_arrays(H=2, S=3, A=2):
    P = np.full((H, S, A, S), 1.0 / S)
    return P, np.full((H, S, A), 0.5), np.full(S, 1.0 / S)


@pytest.mark.parametrize("mutate, match", [
    (lambda P, R, rho: (P[:, :, :, :2], R, rho), r"shape \[H, S, A, S\]"),
    (lambda P, R, rho: (P, R[:, :, :1], rho), r"R must have shape"),
    (lambda P, R, rho: (P, R, rho[:2]), r"rho must have shape"),
    (lambda P, R, rho: (_set(P, (1, 2, 0, 1), np.nan), R, rho), r"P\[h=1, s=2, a=0, s'=1\] is not finite"),
    (lambda P, R, rho: (_set(P, (0, 1, 1, 0), -0.1), R, rho), r"P\[h=0, s=1, a=1, s'=0\] = -0.1 is negative"),
    (lambda P, R, rho: (_set(P, (1, 0, 1, 2), 0.5), R, rho), r"row P\[h=1, s=0, a=1, :\] sums to"),
    (lambda P, R, rho: (P, _set(R, (0, 2, 1), 1.5), rho), r"R\[h=0, s=2, a=1\] = 1.5 is not in \[0, 1\]"),
    (lambda P, R, rho: (P, _set(R, (1, 1, 0), -0.2), rho), r"R\[h=1, s=1, a=0\]"),
    (lambda P, R, rho: (P, R, _set(rho, (1,), -0.5)), r"rho\[s=1\]"),
    (lambda P, R, rho: (P, R, rho * 0.5), r"rho sums to"),
])
def test_validation_names_the_offending_place(mutate, match):
    P, R, rho = mutate(*good_arrays())
    with pytest.raises(ValueError, match=match):
        TabularMDP(P, R, rho)


def _set(arr, idx, value):
    arr = arr.copy()
    arr[idx] = value
    return arr


def test_row_tolerance_is_1e_9():
    P, R, rho = good_arrays()
    P = P.copy()
    P[0, 0, 0, 0] += 5e-10
    TabularMDP(P, R, rho)  # within tolerance
    P[0, 0, 0, 0] += 1e-8
    with pytest.raises(ValueError, match=r"h=0, s=0, a=0"):
        TabularMDP(P, R, rho)


def test_bad_reward_noise_rejected():
    with pytest.raises(ValueError, match="reward_noise"):
        TabularMDP(*good_arrays(), reward_noise="gaussian")


def test_arrays_are_read_only():
    m = TabularMDP(*good_arrays())
    with pytest.raises(ValueError):
        m.P[0, 0, 0, 0] = 1.0


@pytest.mark.parametrize("trial", range(5))
def test_planning_matches_brute_force(trial):
    rng = np.random.default_rng(trial)
    m = random_mdp(rng, H=3, S=2, A=2)
    # all A^(H*S) deterministic policies
    returns = []
    for flat in itertools.product(range(m.A), repeat=m.H * m.S):
        pi = np.array(flat).reshape(m.H, m.S)
        returns.append(mdp.expected_return(m, pi))
    assert np.isclose(max(returns), mdp.optimal_return(m), rtol=0, atol=1e-12)
    Q, V = mdp.optimal_values(m)
    # V* dominates every policy state-wise
    for flat in itertools.product(range(m.A), repeat=m.H * m.S):
        Vpi = mdp.policy_values(m, np.array(flat).reshape(m.H, m.S))
        assert np.all(Vpi <= V + 1e-12)
    assert np.isclose(mdp.expected_return(m, mdp.optimal_policy(m)), mdp.optimal_return(m))


def test_policy_value_matches_monte_carlo(rng):
    m = random_mdp(rng, H=4, S=3, A=2)
    pi = rng.integers(0, 2, size=(4, 3))
    n = 40000
    total = 0.0
    s = rng.choice(3, size=n, p=m.rho)
    for h in range(4):
        a = pi[h, s]
        total += m.R[h, s, a].sum()
        u = rng.random(n)[:, None]
        s = (u > np.cumsum(m.P[h, s, a], axis=1)).sum(axis=1)
    # 5-sigma band (returns are in [0, 4]): false-alarm rate < 1e-6
    assert abs(total / n - mdp.expected_return(m, pi)) < 5 * 4 / np.sqrt(n)


def test_policy_shape_checked(rng):
    m = random_mdp(rng)
    with pytest.raises(ValueError, match="shape"):
        mdp.policy_values(m, np.zeros((2, 2), int))
    with pytest.raises(ValueError, match="actions"):
        mdp.policy_values(m, np.full((3, 3), 5))


def test_save_load_roundtrip(tmp_path, rng):
    m = TabularMDP(*good_arrays(), name="x", params={"a": 1, "b": [1, 2]}, reward_noise="deterministic")
    mdp.save(m, tmp_path / "m.npz")
    m2 = mdp.load(tmp_path / "m.npz")
    assert m2.name == "x" and m2.params == {"a": 1, "b": [1, 2]} and m2.reward_noise == "deterministic"
    assert np.array_equal(m.P, m2.P) and np.array_equal(m.R, m2.R) and np.array_equal(m.rho, m2.rho)
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]  # no temp file left behind
