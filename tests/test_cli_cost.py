"""The ``privrl`` command (help, one-line user errors, --out, estimate) and the cost model.

No test here times anything: the cost arithmetic is checked on synthetic throughput tables,
and the estimate of one default-config cell against a CPU time measured once (recorded below).
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privrl.cli import main as cli
from privrl.plan import cost
from privrl.runs import throughput
from privrl.design import experiments
from privrl.agents import REGISTRY

ROOT = Path(__file__).resolve().parents[1]


def _fails(capsys, argv: list[str]) -> str:
    """Run the CLI expecting a user error: exit status 2, one line on stderr, no traceback."""
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err.strip()


RUN = ["run", "--env", "riverswim", "--agent", "ucbvi", "--episodes", "5", "--seeds", "1"]


@pytest.mark.parametrize("extra, expected", [
    (["--param", "bonus_scale=abc"], "--param bonus_scale: 'abc' is not a number"),
    (["--param", "bonus_scale=-1"], "--param bonus_scale: -1 is not a finite number >= 0"),
    (["--param", "epsilon=1"], "--param epsilon: agent 'ucbvi' has no such parameter"),
    (["--param", "bonus_scale"], "--param: expected NAME=VALUE"),
    (["--env-param", "S=abc"], "--env-param S: 'abc' is not an integer"),
    (["--env-param", "Q=3"], "--env-param Q: environment 'riverswim' has no such parameter"),
    (["--env-param", "S=1"], "--env-param: riverswim needs S >= 2"),
    (["--seeds", "0"], "argument --seeds: must be a positive integer, got 0"),
    (["--episodes", "x"], "argument --episodes: 'x' is not an integer"),
    (["--agent", "nope"], "argument --agent: unknown agent 'nope'"),
    (["--agent", "ucbv"], "argument --agent: unknown agent 'ucbv'; did you mean 'ucbvi'?"),
    (["--env", "riverswin"], "argument --env: unknown environment 'riverswin'; did you mean 'riverswim'?"),
    (["--episodes", "1e5.5"], "argument --episodes: '1e5.5' is not an integer"),
    (["--episodes", "1.5"], "argument --episodes: '1.5' is not an integer"),
    (["--out", "x.csv"], "--out: 'x.csv' must end in .parquet"),
])
def test_run_user_errors_are_one_line_naming_the_parameter(capsys, extra, expected):
    assert expected in _fails(capsys, RUN + extra)


@pytest.mark.parametrize("text, value", [("100000", 100000), ("1e5", 100000), ("1.5e3", 1500), ("2E2", 200)])
def test_integers_may_be_written_in_scientific_notation(text, value):
    assert cli.exact_int(text) == value


@pytest.mark.parametrize("text", ["1e5.5", "1.5", "1e400", "nan", "x"])
def test_non_integers_are_refused(text):
    with pytest.raises(ValueError):
        cli.exact_int(text)


def test_progress_within_a_seed_on_a_terminal_and_in_a_log():
    """A terminal gets one line rewritten in place; a log a line at most every PROGRESS_LINE_S s."""
    import io

    def drive(tty: bool) -> cli.Progress:
        now = [0.0]
        p = cli.Progress(2, tty, io.StringIO(), clock=lambda: now[0])
        for k in (1000, 5000, 9000):
            now[0] += 4.0
            p.on_chunk(k, 10000)
        p.on_seed(1, 2, now[0])
        p.on_chunk(10000, 10000)  # a seed's last chunk: its "done" line follows
        p.on_seed(2, 2, now[0])
        return p

    tty, log = drive(True), drive(False)
    out = tty.stream.getvalue()
    assert out.count("\r") == 5 and out.count("\n") == 1 and "seed 1/2  episode 5,000/10,000" in out
    lines = log.stream.getvalue().splitlines()
    assert "\r" not in log.stream.getvalue() and "episode 9,000/10,000" in lines[0] and len(lines) == 3


def test_run_with_progress_gives_the_same_results_as_without(tmp_path, capsys):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    argv = ["run", "--env", "riverswim", "--agent", "ucbvi", "--episodes", "3e3", "--seeds", "2"]
    assert cli.main(argv + ["--out", str(a), "--progress", "off"]) == 0
    assert cli.main(argv + ["--out", str(b), "--progress", "on"]) == 0  # ~2 s chunks: same results
    pd.testing.assert_frame_equal(pd.read_parquet(a), pd.read_parquet(b))


def test_config_validation_suggests_the_closest_agent_and_environment():
    import copy

    from privrl.plan import validate

    smoke = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    bad = copy.deepcopy(smoke)
    bad["experiments"]["ucbvi_baseline"]["cells"][0]["agent"] = "ucbv"
    bad["experiments"]["ucbvi_baseline"]["envs"]["bandit"]["name"] = "riverswin"
    errs = "\n".join(validate.experiment_errors(bad, "ucbvi_baseline"))
    assert "unknown environment 'riverswin'; did you mean 'riverswim'?" in errs
    bad["experiments"]["ucbvi_baseline"]["envs"]["bandit"]["name"] = "garnet"
    assert "unknown agent 'ucbv'; did you mean 'ucbvi'?" in "\n".join(validate.experiment_errors(bad, "ucbvi_baseline"))


def test_estimate_missing_configfile_is_one_line(capsys):
    assert "--configfile: cannot read" in _fails(capsys, ["estimate", "--configfile", "no/such.yaml"])


def test_run_help_lists_defaults_and_choices(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["run", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "(default: 10000)" in out and "(default: 5)" in out
    assert all(name in out for name in REGISTRY) and "riverswim" in out and "garnet" in out


def test_run_out_writes_results_and_info(tmp_path, capsys):
    out = tmp_path / "sub" / "ucbvi.parquet"
    assert cli.main(RUN + ["--param", "bonus_scale=0.1", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no progress when stderr is not a terminal
    df = pd.read_parquet(out)
    info = json.loads(out.with_suffix(".json").read_text())
    assert set(df.seed) == {0} and df.episode.max() == 5
    assert info["agent"] == "ucbvi" and info["params"]["bonus_scale"] == 0.1 and info["episodes"] == 5
    assert [p.name for p in out.parent.iterdir()] and not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_run_progress_on_prints_each_seed(capsys):
    assert cli.main(RUN[:-1] + ["2", "--progress", "on"]) == 0
    err = capsys.readouterr().err
    assert "seed 1/2" in err and "seed 2/2" in err


def test_estimate_prints_every_experiment_of_the_resolved_overlay(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["estimate", "--configfile", "config/smoke.yaml", "--cores", "2"]) == 0
    out = capsys.readouterr().out
    smoke = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    for name in smoke["experiments"]:
        assert name in out
    assert "rates" not in out  # removed by the overlay
    assert "CPU-hours" in out and "on 2 cores" in out and f"{len(experiments.all_cells(smoke))} cells in" in out


def test_workflow_estimate_holds_every_job_start_up_and_compilation():
    """The smoke design: 3 run jobs + 19 other jobs (Snakemake's 23 steps less the `all` rule);
    a cold cache adds each agent's compilation once; the wall on 2 cores is tens of seconds, as
    measured (README: 24-33 s on an idle 2-core machine), not the runs' ~2 s alone."""
    smoke = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    costs = cost.estimate_cost(smoke)
    cold, parts_cold = cost.workflow_jobs(smoke, costs, cold=True)
    warm, parts_warm = cost.workflow_jobs(smoke, costs, cold=False)
    assert cold.size == warm.size == int(costs.jobs.sum()) + 19
    agents = set(costs.agent)
    assert parts_cold["compile"] - parts_warm["compile"] == pytest.approx(
        sum(cost.COMPILE_CPU_S.get(a, cost.COMPILE_DEFAULT_S)[0] for a in agents))
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

def test_committed_table_covers_every_agent():
    table = throughput.load_table()
    assert {"agent", "env", "S", "A", "H", "K", "episodes_per_s", "cpu", "date"} <= set(table.columns)
    assert set(REGISTRY) <= set(table.agent)
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
