import numpy as np
import pytest

from privrl.rl import envs, mdp


def test_riverswim_dynamics_as_specified():
    m = envs.riverswim(S=6, H=20)
    P = m.P[0]
    assert np.allclose(P[:, 0], np.eye(6)[[0, 0, 1, 2, 3, 4]])  # left: s -> max(s-1, 0)
    assert np.allclose(P[0, 1], [0.4, 0.6, 0, 0, 0, 0])
    assert np.allclose(P[3, 1], [0, 0, 0.05, 0.6, 0.35, 0])
    assert np.allclose(P[5, 1], [0, 0, 0, 0, 0.4, 0.6])
    assert m.R[0, 0, 0] == 0.005 and m.R[0, 5, 1] == 1.0 and np.isclose(m.R.sum(), 20 * 1.005)
    assert m.rho[0] == 1.0 and m.is_stationary


def test_riverswim_values_match_independent_computation():
    """Independent check: V^pi_1 = sum_h rho P_pi^h r_pi via matrix powers for the two
    stationary candidates 'always right' and 'always left'; V* must be the larger here."""
    m = envs.riverswim(S=6, H=20)
    S = 6
    def value(actions):
        Ppi = m.P[0][np.arange(S), actions]
        rpi = m.R[0][np.arange(S), actions]
        d, total = m.rho.copy(), 0.0
        for _ in range(20):
            total += d @ rpi
            d = d @ Ppi
        return total
    right, left = value(np.ones(S, int)), value(np.zeros(S, int))
    assert np.isclose(left, 20 * 0.005)
    assert np.isclose(mdp.expected_return(m, np.ones((20, S), int)), right, atol=1e-12)
    assert np.isclose(mdp.optimal_return(m), 3.3972639591508393, rtol=1e-12)  # regression value
    assert mdp.optimal_return(m) >= right - 1e-12
    # with 20 steps and S = 6 going right is optimal from s0 at the start
    assert mdp.optimal_policy(m)[0, 0] == 1


def test_garnet_deterministic_given_seed():
    a, b, c = envs.garnet(seed=3), envs.garnet(seed=3), envs.garnet(seed=4)
    assert np.array_equal(a.P, b.P) and np.array_equal(a.R, b.R)
    assert not np.array_equal(a.P, c.P)
    assert np.all((a.P[0] > 0).sum(axis=2) == 3)


def test_hard_instance_structure():
    m = envs.hard_instance(n=3, m=2, H=4, gap=0.2, seed=1)
    n, plus, minus = 3, 3, 4
    assert np.allclose(m.rho[:n], 1 / 3)
    assert np.allclose(m.P[:, plus, :, plus], 1) and np.allclose(m.P[:, minus, :, minus], 1)
    arms = m.params["optimal_arms"]
    for s in range(n):
        p = m.P[0, s, :, plus]
        assert np.isclose(p[0], 0.6)
        best = int(np.argmax(p))
        assert best == arms[s]
    # an episode returns H with prob Pr[+], so V = H * Pr[+]
    pi = np.zeros((4, 5), int)
    assert np.isclose(mdp.expected_return(m, pi), 4 * 0.6)


def test_unknown_env_named():
    with pytest.raises(ValueError, match="unknown environment 'nope'"):
        envs.make("nope")
