"""The recovery commands (docs/recovery.md, "Recovery after a killed run", linked from the README)
taken verbatim after a killed smoke run plan only the smoke jobs, and ``privrl run --experiment E
--setting S`` reproduces a pipeline cell bit for bit."""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.workflow_copy import workflow_copy as _copy_workflow

from privrl.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
CELL = "results/smoke/ucbvi_baseline/runs/bandit/ucbvi__bonus_scale=1.parquet"


def _recovery_commands() -> list[str]:
    """The snakemake command lines of the Recovery code block of docs/recovery.md, comments stripped."""
    text = (ROOT / "docs/recovery.md").read_text()
    section = text.split("## Recovery", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\w*\n(.*?)```", section, re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.startswith("snakemake")]


def _snakemake(wd: Path, command: str, *extra: str, **kw) -> subprocess.CompletedProcess:
    args = shlex.split(command)
    assert args[0] == "snakemake"
    return subprocess.run([sys.executable, "-m", "snakemake", *args[1:], *extra], cwd=wd, capture_output=True,
                          text=True, **kw)


@pytest.fixture
def wd(tmp_path_factory):
    """A fresh copy of the workflow per test: a killed run's incomplete marks stay in its own copy."""
    return _copy_workflow(tmp_path_factory.mktemp("recovery"))


@pytest.mark.slow  # a smoke run killed mid-run (~1 min with the default design's dry run)
def test_readme_recovery_after_a_killed_smoke_run_plans_only_the_smoke_jobs(wd):
    unlock, rerun = _recovery_commands()  # as written, run in a copy of the workflow
    assert "--unlock" in unlock and "--rerun-incomplete" in rerun and "--configfile config/smoke.yaml" in rerun
    proc = subprocess.Popen([sys.executable, "-m", "snakemake", "--cores", "1", "--configfile", "config/smoke.yaml"],
                            cwd=wd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and not list((wd / "results").rglob("*.npz")):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its running job, mid-run
    proc.wait()
    assert _snakemake(wd, unlock).returncode == 0
    out = _snakemake(wd, rerun, "-n")
    assert out.returncode == 0, out.stderr[-3000:]
    outputs = [p.strip() for line in out.stdout.splitlines() if line.strip().startswith("output:")
               for p in line.split("output:", 1)[1].split(",")]
    assert outputs and all(p.startswith(("results/smoke/", "results/store/")) for p in outputs), outputs
    # the command without the run's --configfile plans the whole default design: the page must not say that
    default = _snakemake(wd, "snakemake --cores 2 --rerun-incomplete", "-n")
    assert any(line.strip().startswith("output: results/default/") for line in default.stdout.splitlines())


@pytest.mark.slow  # one smoke cell through Snakemake
def test_privrl_run_reproduces_a_smoke_cell_bit_for_bit(wd, tmp_path, capsys):
    out = _snakemake(wd, f"snakemake --cores 1 {CELL} --configfile config/smoke.yaml", timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    mine = tmp_path / "cell.parquet"
    setting = "bandit/ucbvi__bonus_scale=1"
    assert cli.main(["run", "--experiment", "ucbvi_baseline", "--setting", setting, "--config",
                     str(wd / "config/smoke.yaml"), "--out", str(mine), "--progress", "off"]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(mine), pd.read_parquet(wd / CELL), check_exact=True)
    with pytest.raises(SystemExit):  # the cell's own settings, not the ad-hoc options
        cli.build_parser().parse_args(["run", "--experiment", "x", "--setting", "y", "--seeds", "0"])
    assert cli.main(["run", "--experiment", "ucbvi_baseline", "--setting", setting, "--agent", "pucb",
                     "--config", str(wd / "config/smoke.yaml")]) == 2
    assert "--agent" in capsys.readouterr().err
