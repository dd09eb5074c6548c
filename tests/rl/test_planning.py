"""The one backward induction (privrl.rl.planning) against a hand-solved MDP, and the rule
that no other module writes its own loop over the horizon in reverse."""
from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import privrl
from privrl.rl import mdp as mdp_mod
from privrl.rl import planning

# Two states, two actions, H = 2, the same layer twice:
#   s0 a0: r 0.2, stay in s0          s0 a1: r 0.0, to s0 or s1 with probability 1/2
#   s1 a0: r 1.0, stay in s1          s1 a1: r 0.5, to s0
# By hand: V_1 = [0.2, 1] (pi_1 = [0, 0]); Q_0(s0) = [0.4, 0.6], Q_0(s1) = [2, 0.7],
# V_0 = [0.6, 2] (pi_0 = [1, 0]); from s0 the optimal return is 0.6, "always a0" returns 0.4.
P1 = np.array([[[1.0, 0.0], [0.5, 0.5]], [[0.0, 1.0], [1.0, 0.0]]])
R1 = np.array([[0.2, 0.0], [1.0, 0.5]])
H, S, A = 2, 2, 2
P = np.stack([P1, P1])
R = np.stack([R1, R1])
RHO = np.array([1.0, 0.0])
V_STAR = np.array([[0.6, 2.0], [0.2, 1.0], [0.0, 0.0]])
PI_STAR = np.array([[1, 0], [0, 0]])

# a reverse loop over the horizon: an h-named variable over a descending or reversed range, a
# descending range starting from H, or a while loop stepping h down
REVERSE_LOOP = re.compile(r"for\s+h\w*\s+in\s+(reversed\(|range\([^\n]*,\s*-\s*1\s*\))"
                          r"|range\(\s*H\b[^\n]*,\s*-\s*1\s*\)|reversed\(\s*range\(\s*H\b|\bh\w*\s*-=\s*1")


def test_no_backward_induction_outside_planning():
    root = pathlib.Path(privrl.__file__).parent
    planning_file = root / "rl" / "planning.py"
    assert REVERSE_LOOP.search(planning_file.read_text())  # the pattern finds the real ones
    offenders = [f"{f.relative_to(root)}:{i}: {line.strip()}" for f in sorted(root.rglob("*.py")) if f != planning_file
                 for i, line in enumerate(f.read_text().splitlines(), 1) if REVERSE_LOOP.search(line)]
    assert not offenders, "backward induction belongs in rl/planning.py (call its layers):\n" + "\n".join(offenders)


def test_exact_variants_hand_solved():
    m = mdp_mod.TabularMDP(P, R, RHO, reward_noise="deterministic")
    Q, V = mdp_mod.optimal_values(m)
    np.testing.assert_allclose(V, V_STAR, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(Q.argmax(axis=2), PI_STAR)
    assert mdp_mod.optimal_return(m) == pytest.approx(0.6, abs=1e-15)
    np.testing.assert_allclose(mdp_mod.policy_values(m, np.zeros((H, S), int)), [[0.4, 2.0], [0.2, 1.0], [0, 0]],
                               rtol=0, atol=1e-15)
    Vb = np.full((H + 1, S), np.nan)
    assert planning.policy_start_value(P, R, RHO, PI_STAR, Vb) == pytest.approx(0.6, abs=1e-15)
    np.testing.assert_allclose(Vb, V_STAR, rtol=0, atol=1e-15)
    assert planning.policy_start_value(P, R, RHO, np.zeros((H, S), np.int64), Vb) == pytest.approx(0.4, abs=1e-15)
    # an extra absorbing state without an action (SDP-PE's x-dagger) has value 0
    Pe = np.zeros((H, S + 1, A, S + 1))
    Pe[:, :S, :, :S] = P
    Pe[:, S, :, S] = 1.0
    Re = np.zeros((H, S + 1, A))
    Re[:, :S] = R
    Ve = np.full((H + 1, S + 1), np.nan)
    assert planning.policy_start_value(Pe, Re, np.array([0.0, 0.0, 1.0]), PI_STAR.astype(np.int8), Ve) == 0.0
    np.testing.assert_allclose(Ve[:, :S], V_STAR, rtol=0, atol=1e-15)


def test_perturbed_plan_without_noise_is_value_iteration():
    pi, V, Q = np.zeros((H, S), np.int64), np.zeros((H + 1, S)), np.zeros((H, S, A))
    planning.perturbed_plan(R, P, np.zeros((H, S, A)), pi, V, Q)
    np.testing.assert_array_equal(pi, PI_STAR)
    np.testing.assert_allclose(V, V_STAR, rtol=0, atol=1e-15)
    np.testing.assert_allclose(Q[0], [[0.4, 0.6], [2.0, 0.7]], rtol=0, atol=1e-15)


def optimistic_inputs():
    """q_base = R + 0.5, one unvisited pair (h=0, s1, a1). By hand (caps 1 at h=1, 2 at h=0):
    h=1: s0 Q = [0.7, 0.5] -> a0, V 0.7; s1 Q = [1.5, 1.0] both clipped to 1, tie -> smaller
    count (a1), V 1. h=0: s0 Q = [0.7 + 0.7, 0.5 + 0.35 + 0.5] = [1.4, 1.35] -> a0; s1 Q =
    [1.5 + 1 -> 2, inf -> 2], equal counts -> lower index a0. 4 of 8 pairs clipped."""
    q_base = R + 0.5
    q_base[0, 1, 1] = np.inf
    n_sa = np.ones((H, S, A))
    n_sa[1, 1] = [3.0, 2.0]
    return q_base, n_sa


def test_optimistic_plan_hand_solved():
    q_base, n_sa = optimistic_inputs()
    pi, V = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
    assert planning.optimistic_plan(P, q_base, n_sa, pi, V) == 0.5
    np.testing.assert_array_equal(pi, [[0, 0], [0, 1]])
    np.testing.assert_allclose(V, [[1.4, 2.0], [0.7, 1.0], [0.0, 0.0]], rtol=0, atol=1e-15)


def test_bernstein_and_stationary_variants_agree_with_the_optimistic_one():
    q_base, n_sa = optimistic_inputs()
    pi, V = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
    assert planning.bernstein_plan(P, q_base, np.zeros((H, S, A)), n_sa, pi, V) == 0.5
    np.testing.assert_array_equal(pi, [[0, 0], [0, 1]])
    np.testing.assert_allclose(V, [[1.4, 2.0], [0.7, 1.0], [0.0, 0.0]], rtol=0, atol=1e-15)
    # stationary (OBI): Q_h = r_plus + (H - h) bp + p . V_{h+1}; bp = 0 -> the layer-free optimistic plan
    q1 = R1 + 0.5
    n1 = np.array([[1.0, 1.0], [3.0, 2.0]])
    pi_s, V_s = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
    assert planning.stationary_plan(P1, q1, np.zeros((S, A)), n1, pi_s, V_s) == 3 / 8
    pi_o, V_o = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
    planning.optimistic_plan(P, np.stack([q1, q1]), np.stack([n1, n1]), pi_o, V_o)
    np.testing.assert_array_equal(pi_s, pi_o)
    np.testing.assert_allclose(V_s, V_o, rtol=0, atol=1e-15)
    # an infinite bonus saturates every pair at its cap
    pi_s[:] = -1
    assert planning.stationary_plan(P1, q1, np.full((S, A), np.inf), n1, pi_s, V_s) == 1.0
    np.testing.assert_array_equal(V_s, [[2.0, 2.0], [1.0, 1.0], [0.0, 0.0]])
    np.testing.assert_array_equal(pi_s, [[0, 1], [0, 1]])  # least visited, then lowest index


def test_privq_on_exact_counts_without_error_is_capped_value_iteration():
    """PUCB's PrivQ with E = 0 and scale 0: Q = (sum r + sum_s' V m) / n, capped at H = 2."""
    n = 10.0
    HSA = H * S * A
    c = np.concatenate([(n * R).ravel(), np.full(HSA, n), (n * P).ravel()])
    pi, V = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
    assert planning.privq_plan(c, H, S, A, 0.0, 1.0, 0.0, pi, V) == 1 / 8  # Q_0(s1, a0) = 2 = H
    np.testing.assert_array_equal(pi, PI_STAR)
    np.testing.assert_allclose(V, V_STAR, rtol=0, atol=1e-15)


def test_numpy_backward_induction_order():
    seen = []
    V = planning.backward_induction(3, 1, lambda h, v: (seen.append(h), v + 1.0)[1])
    assert seen == [2, 1, 0]
    np.testing.assert_array_equal(V[:, 0], [3.0, 2.0, 1.0, 0.0])
