"""privrl.plan.cost's model: terms by kind of agent, per-episode cost from two instance sizes, variants
(noise-off twins, matched coverage, aggregate simulation) priced from their own rows, unmeasured agents planned; the
workflow's jobs, the committed throughput table, and the smoke design kept small.

No test here times anything: the cost arithmetic is checked on synthetic throughput tables,
and the estimate of one default-config cell against a CPU time measured once (recorded below).
"""
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privrl.plan import cost
from privrl.runs import throughput
from privrl.design import experiments

ROOT = Path(__file__).resolve().parents[2]


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


def test_matched_coverage_cells_priced_from_their_own_rows():
    # an agent at z > 0 (matched coverage) costs another amount per episode: its cells have their own rows;
    # noise off wins
    table = pd.DataFrame(_rows("ldp-obi", "", "riverswim", 2, 2, 3, lambda K: 3e-7 * K, [10**4, 10**5])
                         + _rows("ldp-obi", "matched-coverage", "riverswim", 2, 2, 3, lambda K: 2e-7 * K, [10**4, 10**5]))
    assert cost.variant_of({"epsilon": 1.0, "z": 3}) == "matched-coverage" == throughput.VARIANT_MATCHED
    assert cost.variant_of({"epsilon": 1.0, "z": 0}) == "" and cost.variant_of({"noise": 0, "z": 3}) == "noise-off"
    assert cost.seed_seconds(table, "ldp-obi", "riverswim", 2, 2, 3, 10**5, "matched-coverage")[0] == pytest.approx(0.02)
    plain = table[table.variant == ""]
    with pytest.warns(UserWarning, match="'ldp-obi' \\(matched-coverage\\) has no row.*priced as 'ldp-obi'"):
        assert cost.seed_seconds(plain, "ldp-obi", "riverswim", 2, 2, 3, 10**5, "matched-coverage")[0] == pytest.approx(0.03)


def test_workflow_estimate_holds_every_job_start_up_and_compilation():
    """The smoke design: 3 run jobs + 19 other jobs (Snakemake's 23 steps less the `all` rule);
    a cold cache adds each agent's compilation once (and the audited agent's probe); the wall on 2 cores is tens of seconds, as
    measured (docs/timings.md: 24-33 s on an idle 2-core machine), not the runs' ~2 s alone."""
    smoke = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    costs = cost.estimate_cost(smoke)
    cold, parts_cold = cost.workflow_jobs(smoke, costs, cold=True)
    warm, parts_warm = cost.workflow_jobs(smoke, costs, cold=False)
    assert cold.size == warm.size == int(costs.jobs.sum()) + 19
    agents, audited = set(costs.agent), experiments.audited_agents(smoke)
    assert audited  # the smoke design audits an agent: its probe compiles cold and loads warm, like the kernels
    audit_cold_minus_warm = sum(cost.COMPILE_CPU_S.get(a, cost.COMPILE_DEFAULT_S)[0]
                                - cost.COMPILE_CPU_S.get(a, cost.COMPILE_DEFAULT_S)[1] for a in audited)
    assert parts_cold["compile"] - parts_warm["compile"] == pytest.approx(
        sum(cost.COMPILE_CPU_S.get(a, cost.COMPILE_DEFAULT_S)[0] for a in agents) + audit_cold_minus_warm)
    assert parts_cold["run"] == pytest.approx(float(costs.est_cpu_s.sum()))
    assert cold.sum() == pytest.approx(sum(parts_cold.values()))
    assert 15 < cost.WORKFLOW_CPU_S + cost.wall_time(warm, 2) < cost.WORKFLOW_CPU_S + cost.wall_time(cold, 2) < 120


# --- cost arithmetic on synthetic tables ---------------------------------------------------------

def _table(rows):
    return pd.DataFrame([{"agent": a, "env": e, "S": S, "A": A, "H": H, "K": K, "episodes_per_s": r,
                          "cpu": "test", "date": "2000-01-01"} for a, e, S, A, H, K, r in rows])


def _design(envs: dict, episodes: int, seeds: int, cells: list) -> dict:
    return {"experiments": {"x": {"envs": envs, "cells": cells, "episodes": episodes, "seeds": seeds}}}


def test_cost_is_overhead_plus_seeds_times_line_times_size_ratio():
    # ucbvi on riverswim S=6 H=20: t(1000) = 1 s, t(2000) = 1.5 s  ->  a = 5e-4 s/episode, b = 0.5 s/seed
    table = _table([("ucbvi", "riverswim", 6, 2, 20, 1000, 1000.0), ("ucbvi", "riverswim", 6, 2, 20, 2000, 2000 / 1.5)])
    config = _design({"small": {"name": "riverswim", "params": {"S": 6, "H": 20}},
                      "big": {"name": "riverswim", "params": {"S": 12, "H": 20}}},
                     episodes=10_000, seeds=3, cells=[{"agent": "ucbvi"}])
    raw = cost.estimate_cost(config, table, overhead_s=2.0, seed_overhead_s=0.0)
    assert list(raw.columns[:len(cost.COST_COLUMNS)]) == list(cost.COST_COLUMNS)
    df = raw.set_index("env")
    per_seed = 5e-4 * 10_000 + 0.5
    assert df.loc["small", "est_cpu_s"] == pytest.approx(2.0 + 3 * per_seed)
    assert df.loc["big", "scale"] == pytest.approx(4.0)  # H S A S: (12*12) / (6*6)
    assert df.loc["big", "est_cpu_s"] == pytest.approx(2.0 + 3 * per_seed * 4.0)
    s = cost.summarize(df.reset_index())
    assert s.loc[0, "cells"] == 2 and s.loc[0, "episodes_x_seeds"] == 60_000
    assert s.loc[0, "est_cpu_s"] == pytest.approx(4.0 + 3 * per_seed * 5.0)


def test_nearest_instance_prefers_exact_then_log_size():
    table = _table([("pucb", "riverswim", 6, 2, 20, 1000, 1.0), ("pucb", "riverswim", 2, 2, 3, 1000, 2.0),
                    ("pucb", "garnet", 3, 2, 4, 1000, 3.0)])
    assert cost.nearest_instance(table, "pucb", "riverswim", 2, 2, 3).episodes_per_s.item() == 2.0
    # garnet S=5 A=2 H=10: size 500; riverswim S=6 H=20 is 1440 (|log| 1.06), garnet S=3 H=4 is 72 (1.94)
    assert cost.nearest_instance(table, "pucb", "garnet", 5, 2, 10).episodes_per_s.item() == 1.0
    with pytest.warns(UserWarning, match="'ucbvi' has no row.*priced as 'pucb'"):  # planned, not refused
        assert cost.nearest_instance(table, "ucbvi", "riverswim", 6, 2, 20).episodes_per_s.item() == 1.0


def test_seed_cost_line_single_point_and_clipping():
    one = _table([("x", "e", 1, 1, 1, 1000, 500.0)])
    assert cost.seed_cost_line(one) == pytest.approx((2e-3, 0.0))
    falling = _table([("x", "e", 1, 1, 1, 1000, 100.0), ("x", "e", 1, 1, 1, 2000, 1000.0)])  # t: 10 s, 2 s
    assert cost.seed_cost_line(falling) == pytest.approx((1e-3, 0.0))
    negative_b = _table([("x", "e", 1, 1, 1, 1000, 1000.0), ("x", "e", 1, 1, 1, 2000, 2000 / 2.5)])  # t: 1, 2.5
    a, b = cost.seed_cost_line(negative_b)
    assert b == 0.0 and a == pytest.approx((1 * 1000 + 2.5 * 2000) / (1000 ** 2 + 2000 ** 2))


def test_wall_time_longest_first_on_least_loaded():
    assert cost.wall_time([3, 3, 2, 2, 2], 2) == pytest.approx(7.0)
    assert cost.wall_time([3, 3, 2, 2, 2], 1) == pytest.approx(12.0)
    assert cost.wall_time([10, 1, 1], 8) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        cost.wall_time([1.0], 0)


# --- the committed table -------------------------------------------------------------------------

def test_committed_table_covers_every_agent_of_the_shipped_designs():
    """The published agents are priced from their own rows; a new agent without rows is priced as
    the nearest measured one with a warning, and check-agent says how to measure it."""
    table = throughput.load_table()
    assert {"agent", "env", "S", "A", "H", "K", "episodes_per_s", "cpu", "date"} <= set(table.columns)
    shipped = {c.agent for design in ("config/config.yaml", "config/paper.yaml")
               for c in experiments.all_cells(experiments.resolve_overlay(
                   yaml.safe_load((ROOT / design).read_text()), ROOT))}
    assert shipped <= set(table.agent), sorted(shipped - set(table.agent))
    assert (table.episodes_per_s > 0).all()


# Measured once (privrl run ... --seeds 4, AMD EPYC, 2026-11-24): regret_vs_K / riverswim /
# pucb__epsilon=1 (K = 1e5): 6.32 CPU s for 4 seeds -> 20 seeds 31.6 s + 1.2 s job overhead.
MEASURED_CELL_CPU_S = 32.8


def test_default_config_cell_estimate_matches_its_measured_cpu_time():
    config = {"experiments": {"regret_vs_K": {"envs": {"riverswim": {"name": "riverswim", "params": {"S": 6, "H": 20}}},
                                              "cells": [{"agent": "pucb"}], "sweep": {"epsilon": [1]},
                                              "episodes": 100000, "seeds": 20}}}  # the cell measured below
    df = cost.estimate_cost(config)
    row = df[(df.env == "riverswim") & (df.cell == "pucb__epsilon=1")]
    assert len(row) == 1
    assert 0.5 < row.est_cpu_s.item() / MEASURED_CELL_CPU_S < 2.0  # generous: another machine's table


def test_estimate_counts_shards_as_jobs():
    """seeds_per_job splits a cell into jobs: each pays the start-up once; the longest job is one shard."""
    from privrl.plan import cost

    cfg = {"experiments": {"e": {"envs": {"riverswim": {"name": "riverswim", "params": {"S": 2, "H": 3}}},
                                 "cells": [{"agent": "ucbvi"}], "episodes": 10000, "seeds": 25}}}
    one = cost.estimate_cost({**cfg, "seeds_per_job": 100}).iloc[0]
    many = cost.estimate_cost({**cfg, "seeds_per_job": 10}).iloc[0]
    assert (one.jobs, many.jobs) == (1, 3)
    assert many.est_cpu_s - one.est_cpu_s == pytest.approx(2 * cost.JOB_OVERHEAD_S)
    assert many.job_cpu_s < one.job_cpu_s and len(cost.job_seconds(cost.estimate_cost(cfg))) == 3


def test_smoke_design_stays_small():
    """Every experiment added to the default must be nulled or shrunk in config/smoke.yaml."""
    import yaml

    from privrl.plan import cost
    from privrl.design import experiments

    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    cfg = experiments.resolve_overlay(yaml.safe_load((root / "config/smoke.yaml").read_text()), root)
    df = cost.estimate_cost(cfg)
    assert (df.episodes * df.seeds).sum() <= 1e5 and df.est_cpu_s.sum() < 120


def test_a_copied_agent_is_priced_as_the_agent_it_copies():
    """A copy of PUCB was priced "as dp-ucbvi-jdp" (the first measured agent with its privatizer and
    model by name) and a copy of SDP-PE as private-ucbvi-sdp: the kernels' code decides first, then
    the cost terms (planning vs policy elimination), then privatizer and model."""
    import dataclasses

    from privrl.agents import REGISTRY, registry

    table = throughput.load_table()
    for source in ("pucb", "sdp-pe", "private-ucbvi-jdp", "ucbvi"):
        registry.register(dataclasses.replace(REGISTRY[source], name=f"{source}-mine"))
        try:
            with pytest.warns(UserWarning, match=f"priced as '{source}' \\(the same kernel code; run bench"):
                assert cost.measured_agent(table, f"{source}-mine") == (source, "")
        finally:
            REGISTRY.pop(f"{source}-mine")


def test_mechanism_jobs_are_priced_from_their_sizes():
    """The reference sizes are the default design's (where their CPU time was measured); a job at
    other sizes costs that time scaled by its work."""
    default = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/config.yaml").read_text()), ROOT)
    mech = default["mechanisms"]
    assert mech["checks"] == cost.CHECK_REFERENCE_SIZES  # re-measure the references when these sizes change
    assert {k: mech["audit"][k] for k in cost.PRIVACY_AUDIT_REFERENCE[1]} == cost.PRIVACY_AUDIT_REFERENCE[1]
    ref = cost.AGENT_AUDIT_REFERENCE[1]
    assert (mech["agent_audit"]["n"], mech["agent_audit"]["n_calibration"], len(mech["agent_audit"]["multipliers"])) \
        == (ref["n"], ref["n_calibration"], ref["multipliers"])
    at_reference = cost.mechanism_seconds(default)
    audited = len(experiments.audited_agents(default))
    # the agent audit: the main table (354 s / 12 agents), its false-alarm seeds and its other sizes, each at the
    # sizes it was measured at; at most twice the main table's
    fa_s, fa = cost.AGENT_AUDIT_FALSE_ALARMS
    assert mech["agent_audit"]["false_alarm_seeds"] == fa["false_alarm_seeds"]
    fl_s, fl = cost.AGENT_AUDIT_FALSE_ALARMS_LOSS  # the repeated privacy-loss row, when the design runs it
    fl_s *= mech["agent_audit"].get("false_alarm_n", 0) / fl["false_alarm_n"]
    extra = fa_s + fl_s + sum(s for s, _, _ in cost.AGENT_AUDIT_SIZES.values())
    assert at_reference == pytest.approx({"theorem_checks": 29.0, "privacy_audit": 3.0,
                                          "agent_audit": (354.0 / 12 + extra) * audited})
    assert at_reference["agent_audit"] <= 2 * 354.0 / 12 * audited
    for x in mech["agent_audit"]["more_sizes"]:
        s, ref, _ = cost.AGENT_AUDIT_SIZES[x.get("instance", "riverswim S=2 H=2")]
        assert (x["n"], x["n_calibration"], len(x["multipliers"]), x.get("users", 4)) == \
            (ref["n"], ref["n_calibration"], ref["multipliers"], ref["users"])
    assert cost.size_work([64, 1024]) == 1088 and cost.size_work([{"S": 2, "A": 3}, {"S": 1, "A": 1}]) == 7
    assert cost.size_work([0.1, 0.5]) == 2 and cost.size_work(1.5) == 1 and cost.size_work(True) == 1
    big = cost.check_seconds("binary_mechanism", {"T_grid": [2 ** 40], "n_trials": 1000})
    assert big == pytest.approx(29.0 / 13 * 2 ** 40 / sum(cost.CHECK_REFERENCE_SIZES["binary_mechanism"]["T_grid"]))
