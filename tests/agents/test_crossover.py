"""Crossover K of every agent from its own width formula (privrl.agents.crossover)."""
import math

import numpy as np
import pytest

from privrl.agents import REGISTRY
from privrl.agents import crossover as cx
from privrl.rl import envs
from privrl.rl.mdp import TabularMDP


def test_first_step_gap_and_max_policy_gap_by_hand():
    # H = 1, one state, rewards 0.9 / 0.5 / 0.2 (deterministic): gap 0.4, widest gap 0.7
    P = np.ones((1, 1, 3, 1))
    R = np.array([[[0.9, 0.5, 0.2]]])
    mdp = TabularMDP(P, R, np.ones(1), reward_noise="deterministic")
    assert cx.first_step_gap(mdp) == pytest.approx(0.4)
    assert cx.max_policy_gap(mdp) == pytest.approx(0.7)


def test_every_agent_registers_a_rule():
    assert all(spec.crossover_rule is not None for spec in REGISTRY.values())


def test_pucb_table1_cell_is_before_its_crossover():
    """Garcelon Table 1 instance, PUCB eps0=1, bonus 0.1: psi~ = 1.15 per step at K = 1e6 (far
    above gap/H), so the K-exponent there measures exploration."""
    mdp = envs.riverswim(S=2, H=3)
    spec = REGISTRY["pucb"]
    p = spec.resolve({"epsilon": 1.0, "bonus_scale": 0.1})
    assert spec.crossover_rule.width(p, mdp, 1e6) == pytest.approx(1.15, abs=0.01)
    K = spec.crossover(p, mdp)
    assert K > 1e6
    assert spec.crossover_rule.width(p, mdp, K) <= cx.per_step_gap(mdp) < spec.crossover_rule.width(p, mdp, K / 2)


def test_crossover_decreases_with_eps_and_bonus_scale():
    mdp = envs.riverswim(S=2, H=3)
    for name in ("pucb", "ldp-obi", "private-ucbvi-jdp", "shuffled-obi"):
        spec = REGISTRY[name]
        assert spec.crossover({"epsilon": 10.0}, mdp) < spec.crossover({"epsilon": 1.0}, mdp)
        assert spec.crossover({"epsilon": 1.0, "bonus_scale": 0.1}, mdp) < spec.crossover({"epsilon": 1.0}, mdp)


def test_sdp_pe_crossover_is_first_elimination():
    mdp = envs.garnet(S=3, A=2, branching=2, H=4, seed=1)
    spec = REGISTRY["sdp-pe"]
    K = spec.crossover({"epsilon": 10.0}, mdp)
    assert math.isfinite(K)
    assert spec.crossover_rule.width(spec.resolve({"epsilon": 10.0}), mdp, K) <= cx.max_policy_gap(mdp)
    assert spec.crossover({"epsilon": 10.0, "C": 1e-4, "C1": 6e-4}, mdp) < K


def test_smallest_K_edges():
    assert cx.smallest_K(lambda K: 1.0 / math.sqrt(K), 1e-3) == pytest.approx(1e6, rel=2e-3)
    assert cx.smallest_K(lambda K: 1.0, 0.5) == math.inf
    assert math.isnan(cx.smallest_K(lambda K: 1.0, float("nan")))
