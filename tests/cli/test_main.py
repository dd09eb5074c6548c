"""The ``privrl`` command (privrl.cli.main): help, one-line user errors, integers in scientific
notation, progress, --out, estimate. (The cost arithmetic behind ``estimate``: tests/plan/test_cost.py.)"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privrl.cli import main as cli
from privrl.design import experiments
from privrl.agents import REGISTRY
from privrl.rl import envs

ROOT = Path(__file__).resolve().parents[2]


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


def test_agents_lists_each_agents_own_description(capsys):
    """A copied agent showed its source's ``reference`` (the paper), so the copy and the original read
    the same; the listing shows each agent's description."""
    import dataclasses

    from privrl.agents import registry

    spec = dataclasses.replace(REGISTRY["ucbvi"], name="ucbvi-mine", description="my UCBVI with a wider bonus")
    registry.register(spec)
    try:
        assert cli.main(["agents"]) == 0
        lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    finally:
        REGISTRY.pop("ucbvi-mine")
    assert lines["ucbvi-mine"].endswith("-- my UCBVI with a wider bonus")
    assert lines["ucbvi"].endswith(f"-- {REGISTRY['ucbvi'].description}")


def test_estimate_tells_a_design_in_the_linear_phase_the_K_it_needs(capsys, monkeypatch, tmp_path):
    """A user's own design whose cells never leave the linear phase (K below every cell's crossover)
    was priced and planned without a word: estimate says so, with the K its cells need."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text(
        "results_dir: results/mine\nfigures_dir: results/mine/figures\nexperiments:\n  mine:\n    episodes: 1000\n"
        "    seeds: 2\n    envs: {r: {name: riverswim, params: {S: 2, H: 3}}}\n"
        "    cells: [{agent: ucbvi}, {agent: pucb, params: {epsilon: 1}}]\n")
    assert cli.main(["estimate", "--configfile", "mine.yaml"]) == 0
    notes = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("note: ")]
    crossover = {c: REGISTRY[a].crossover(p, envs.riverswim(S=2, H=3)) for c, a, p in
                 (("r/ucbvi", "ucbvi", {}), ("r/pucb__epsilon=1", "pucb", {"epsilon": 1.0}))}
    lo, hi = sorted(crossover.items(), key=lambda kv: kv[1])
    assert notes == [f"note: experiments.mine: all cells stay in the linear phase at K = 1e+03 (regret ~K: the agent's "
                     f"width is still above the instance's gap); to leave it they need K from {lo[1]:.2g} ({lo[0]}) "
                     f"to {hi[1]:.2g} ({hi[0]})"]
    # a design that runs past every crossover has no note
    text = (tmp_path / "mine.yaml").read_text().replace("episodes: 1000", f"episodes: {int(hi[1] * 2)}")
    (tmp_path / "mine.yaml").write_text(text)
    assert cli.main(["estimate", "--configfile", "mine.yaml"]) == 0
    assert "note: " not in capsys.readouterr().out
