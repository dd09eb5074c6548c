"""privrl.plan.cost's model: terms by kind of agent, per-episode cost from two instance sizes, variants
(noise-off twins, aggregate simulation) priced from their own rows, unmeasured agents planned."""
import warnings

import numpy as np
import pandas as pd
import pytest

from privrl.plan import cost


def _rows(agent, variant, env, S, A, H, t_of_K, Ks):
    return [{"agent": agent, "variant": variant, "env": env, "S": S, "A": A, "H": H, "K": K,
             "episodes_per_s": K / t_of_K(K), "cpu": "test", "date": "2000-01-01"} for K in Ks]


def test_n_stages_is_the_stage_schedule_length():
    from privrl.agents.sdp_pe import stage_schedule

    for K in (2, 3, 7, 100, 12345, 10**6, 10**12):
        assert cost.n_stages(K) == stage_schedule(np.int64(K)).shape[0]


def test_per_episode_cost_is_fixed_plus_per_size_from_two_sizes():
    # t = (1e-7 + 1e-9 size) K + 0.01: sizes 24 (riverswim S=2 H=3) and 1440 (S=6 H=20)
    def t(size):
        return lambda K: (1e-7 + 1e-9 * size) * K + 0.01
    table = pd.DataFrame(_rows("ucbvi", "", "riverswim", 2, 2, 3, t(24), [10**4, 10**5])
                         + _rows("ucbvi", "", "riverswim", 6, 2, 20, t(1440), [10**4, 10**5]))
    est, m, _ = cost.seed_seconds(table, "ucbvi", "riverswim", 4, 2, 10, 10**5)   # size 320, unmeasured
    assert (m.S, m.H) == (6, 20)                                                  # nearest in |log size|
    assert est == pytest.approx((1e-7 + 1e-9 * 320) * 1e5 + 0.01 * 320 / 1440, rel=1e-6)  # set-up scaled by size
    exact, _, scale = cost.seed_seconds(table, "ucbvi", "riverswim", 6, 2, 20, 10**5)
    assert exact == pytest.approx(t(1440)(10**5)) and scale == pytest.approx(1.0)


def test_policy_elimination_and_aggregate_terms():
    def staged(K):
        return 2e-7 * K + 0.003 * cost.n_stages(K)

    def blocks(K):
        return 0.001 + 0.0002 * cost.n_stages(K)
    table = pd.DataFrame(_rows("sdp-pe", "", "garnet", 2, 2, 3, staged, [10**4, 10**5])
                         + _rows("sdp-pe", "aggregate", "garnet", 2, 2, 3, blocks, [10**8, 10**10, 10**12]))
    assert cost.fit_terms(table[table.variant == ""], ("K", "B")) == pytest.approx({"K": 2e-7, "B": 0.003})
    for K in (10**6, 10**7):  # K grows ~10x, the stage term only by ~log
        assert cost.seed_seconds(table, "sdp-pe", "garnet", 2, 2, 3, K)[0] == pytest.approx(staged(K), rel=1e-6)
    agg = cost.seed_seconds(table, "sdp-pe", "garnet", 2, 2, 3, 10**11, cost.variant_of({}, "aggregate"))[0]
    assert agg == pytest.approx(blocks(10**11), rel=1e-6)


def test_noise_off_twin_priced_from_its_own_rows_and_unmeasured_agents_planned():
    table = pd.DataFrame(_rows("pucb", "", "riverswim", 2, 2, 3, lambda K: 1e-6 * K, [10**4, 10**5])
                         + _rows("pucb", "noise-off", "riverswim", 2, 2, 3, lambda K: 3e-7 * K, [10**4, 10**5]))
    assert cost.variant_of({"noise": 0, "epsilon": 1.0}) == "noise-off" and cost.variant_of({"epsilon": 1}) == ""
    twin = cost.seed_seconds(table, "pucb", "riverswim", 2, 2, 3, 10**5, "noise-off")[0]
    assert twin == pytest.approx(0.03)
    with pytest.warns(UserWarning, match="'dp-ucbvi-jdp' has no row.*priced as 'pucb'"):  # same privatizer/model
        assert cost.seed_seconds(table, "dp-ucbvi-jdp", "riverswim", 2, 2, 3, 10**5)[0] == pytest.approx(0.1)
    config = {"experiments": {"x": {"envs": {"r": {"name": "riverswim", "params": {"S": 2, "H": 3}}},
                                    "cells": [{"agent": "rlsvi"}], "episodes": 1000, "seeds": 1}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = cost.estimate_cost(config, table)
    assert len(df) == 1 and df.est_cpu_s.item() > 0 and any("'rlsvi' has no row" in str(w.message) for w in caught)
