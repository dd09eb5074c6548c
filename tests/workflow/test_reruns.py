"""Reruns, integrity and recovery of the Snakemake workflow on a tiny design in a temp copy of
the workflow: a job reruns when what determines its output changes (a claim's threshold, a
cell's label) and not on a script's mtime; a corrupt run file is regenerated, and so is a run
file whose hash was rewritten with it (caught against the store); after SIGKILL of snakemake, the
recovery commands (docs/recovery.md) give byte-identical outputs; a design without claims and mechanisms runs."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.workflow_copy import job_counts, smoke_mechanisms, workflow_copy as _workflow_copy

from privrl import io

ROOT = Path(__file__).resolve().parents[2]
SMOKE_MECHANISMS = smoke_mechanisms()
TINY = {
    "results_dir": "results", "figures_dir": "figures", "n_checkpoints": 100, "bootstrap": {"n": 20},
    "mechanisms": SMOKE_MECHANISMS,
    "experiments": {"tiny": {
        "envs": {"chain": {"name": "riverswim", "params": {"S": 4, "H": 5}},
                 "garnet": {"name": "garnet", "params": {"S": 4, "A": 2, "branching": 2, "H": 5, "seed": 1}}},
        "cells": [{"agent": "ucbvi", "label": "UCBVI x{bonus_scale:g}"}],
        "sweep": {"bonus_scale": [1.0, 0.01]},
        "episodes": 300, "seeds": 2,
        "claims": [{"id": "tiny_sublinear", "statement": "UCBVI is sublinear on the chain", "source": "Azar et al. 2017",
                    "check": {"type": "exponent_below", "env": "chain", "select": {"bonus_scale": 0.01},
                              "threshold": 0.75}}],
    }},
}


def _config(dest: Path, cfg: dict) -> Path:
    p = dest / "design.yaml"
    p.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return p


def _snakemake(wd: Path, *args, cores="2", env=None, configfile="design.yaml"):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(wd / "Snakefile"), "--directory", str(wd), "--cores", cores,
           "--configfile", str(wd / configfile), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def _planned(wd: Path, env=None, configfile="design.yaml") -> dict:
    """rule -> job count of a dry run (empty when nothing is to be done)."""
    out = _snakemake(wd, "-n", env=env, configfile=configfile)
    assert out.returncode == 0, out.stderr[-3000:]
    return job_counts(out.stdout + out.stderr)


def _outputs(wd: Path) -> dict:
    """Bytes of every per-seed run parquet, aggregate parquet and CSV (run JSONs hold wall times)."""
    files = [p for p in wd.rglob("*") if p.is_file() and p.suffix in (".parquet", ".csv")
             and ".snakemake" not in p.parts and "benchmarks" not in p.parts]
    return {str(p.relative_to(wd)): p.read_bytes() for p in files}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tiny design run once, uninterrupted."""
    wd = _workflow_copy(tmp_path_factory.mktemp("reference"))
    _config(wd, TINY)
    out = _snakemake(wd)
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


@pytest.fixture
def done(reference, tmp_path):
    """A finished copy of the reference run (metadata included) to change things in."""
    wd = tmp_path / "wd"
    shutil.copytree(reference, wd, symlinks=True)
    assert _planned(wd) == {}
    return wd


def test_claim_threshold_change_reruns_only_the_claims(done):
    cfg = yaml.safe_load((done / "design.yaml").read_text())
    cfg["experiments"]["tiny"]["claims"][0]["check"]["threshold"] = 0.2
    _config(done, cfg)
    assert _planned(done) == {"claims": 1, "all": 1}
    assert _snakemake(done).returncode == 0
    assert "0.2" in (done / "figures/claims.csv").read_text() or "**" in (done / "figures/CLAIMS.md").read_text()
    assert _planned(done) == {}


def test_label_change_reruns_that_cells_downstream_not_its_run(done):
    cfg = yaml.safe_load((done / "design.yaml").read_text())
    cfg["experiments"]["tiny"]["cells"][0]["label"] = "renamed x{bonus_scale:g}"
    _config(done, cfg)
    plan = _planned(done)
    assert "run_cell" not in plan and "mdp" not in plan
    assert plan["aggregate"] == 2 and plan["fit"] == 2 and plan["claims"] == 1
    assert _snakemake(done).returncode == 0
    assert set(pd.read_csv(done / "results/tiny/fits/chain.csv").label) == {"renamed x1", "renamed x0.01"}


def test_touching_a_script_reruns_nothing(done):
    for script in (done / "workflow/scripts").iterdir():
        script.touch()
    assert _planned(done) == {}


def test_editing_a_script_reruns_its_jobs(done):
    with open(done / "workflow/scripts/fit_table.py", "a") as fh:
        fh.write("# an edit\n")
    assert _planned(done) == {"fit_table": 2, "all": 1}


NEW_AGENT = '''"""A user's new agent: UCBVI's kernel under another name (registered like any agent module)."""
from dataclasses import replace

from privrl.agents import ucbvi
from privrl.agents.registry import register

SPEC = register(replace(ucbvi.SPEC, name="ucbvi-user-copy", description="a new agent"))
'''


def test_new_agent_module_reruns_no_existing_job(done):
    """A user adds src/privrl/agents/<new>.py (the package loads every module of agents/): the
    finished design plans zero jobs, as every job's code digest covers only the code it imports."""
    src = done / "src"
    shutil.copytree(ROOT / "src/privrl", src / "privrl", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(src)}
    assert _planned(done, env) == {}  # the copied library is the same code
    (src / "privrl/agents/user_agent.py").write_text(NEW_AGENT)
    listed = subprocess.run([sys.executable, "-c", "import privrl, privrl.agents as a; print(privrl.__file__, sorted(a.REGISTRY))"],
                            capture_output=True, text=True, env=env)
    assert str(src) in listed.stdout and "ucbvi-user-copy" in listed.stdout, listed.stderr[-2000:]
    assert _planned(done, env) == {}


def test_truncated_run_file_is_regenerated(done):
    p = done / "results/tiny/runs/chain/ucbvi__bonus_scale=0.01.parquet"
    original, st = p.read_bytes(), p.stat()
    p.write_bytes(original[: len(original) // 2])
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime kept: invisible to Snakemake's own triggers
    plan = _planned(done)
    assert plan["run_cell"] == 1 and plan["aggregate"] == 1 and "mdp" not in plan
    out = _snakemake(done)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"privrl: {p.relative_to(done)}: content sha256" in out.stderr and "it will be rerun" in out.stderr
    assert p.read_bytes() == original  # regenerated (the runs are deterministic)
    assert _planned(done) == {}


def test_run_file_and_its_hash_both_rewritten_is_caught_against_the_store(done):
    """A consistent run file (its hash updated) with a seed dropped: the store did not write it
    (privrl.runs.store), so it is reported and regenerated. (Without the store's record, aggregation
    refuses it naming the file: tests/results/test_run_files.py.)"""
    p = done / "results/tiny/runs/garnet/ucbvi__bonus_scale=1.parquet"
    import json

    original = p.read_bytes()
    info = json.loads(p.with_suffix(".json").read_text())
    df = pd.read_parquet(p)
    io.write_run(p, p.with_suffix(".json"), df[df.seed == 0], {**info, "seeds": [0]})
    out = _snakemake(done, "--cores", "1")
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"privrl: {p.relative_to(done)}: content sha256" in out.stderr and "not what the store recorded" in out.stderr
    assert p.read_bytes() == original


@pytest.mark.slow
def test_sigkill_then_recovery_commands_give_identical_outputs(reference, tmp_path):
    wd = _workflow_copy(tmp_path)
    _config(wd, TINY)
    cmd = [sys.executable, "-m", "snakemake", "-s", str(wd / "Snakefile"), "--directory", str(wd), "--cores", "1",
           "--configfile", str(wd / "design.yaml")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    runs = wd / "results/tiny/runs"
    deadline = time.time() + 300
    while time.time() < deadline and len(list(runs.rglob("*.json"))) < 2:
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and its running job, mid-run
    proc.wait()
    assert not (wd / "figures/CLAIMS.md").exists()
    # the recovery commands of docs/recovery.md
    locked = _snakemake(wd, "-n")
    assert _snakemake(wd, "--unlock").returncode == 0
    out = _snakemake(wd, "--rerun-incomplete")
    assert out.returncode == 0, (locked.stderr[-1000:], out.stderr[-3000:])
    assert _outputs(wd) == _outputs(reference)
    assert not [p for p in wd.rglob(f".*{io.TEMP_MARK}*")]


@pytest.mark.slow  # ~20 s CPU: two UCBVI cells and the downstream jobs
def test_design_without_claims_or_mechanisms_runs(tmp_path):
    """A new user's first design: two cells, no claims, no mechanisms block, no bootstrap or dirs.
    It is accepted and runs as written: only what it asks for (no theorem check, no audit -- a
    design names those in ``mechanisms``); an overlay that names checks and an audit plans them."""
    wd = _workflow_copy(tmp_path)
    _config(wd, {"experiments": {"first": {
        "envs": {"chain": {"name": "riverswim", "params": {"S": 4, "H": 5}}},
        "cells": [{"agent": "ucbvi"}, {"agent": "ucbvi", "params": {"bonus_scale": 0.01}}],
        "episodes": 200, "seeds": 2}}})
    planned = _planned(wd)
    assert not {"theorem_checks", "privacy_audit", "agent_audit", "theorem_claims"} & set(planned), planned
    assert {"run_shard", "claims", "all"} <= set(planned), planned
    small = {**SMOKE_MECHANISMS, "agent_audit": {"n": 1000, "agents": ["pucb"], "variants": ["noise"]}}
    (wd / "small_checks.yaml").write_text(yaml.safe_dump({"overlay_of": "design.yaml", "mechanisms": small}))
    named = _planned(wd, configfile="small_checks.yaml")
    assert {"theorem_checks", "privacy_audit", "agent_audit", "theorem_claims"} <= set(named), named
    out = _snakemake(wd)
    assert out.returncode == 0, out.stderr[-4000:]
    fits = pd.read_csv(wd / "results/first/fits/chain.csv")
    assert len(fits) == 2
    assert (wd / "results/figures/CLAIMS.md").exists() and (wd / "results/figures/cross_paper/first/chain_regret_vs_K.png").exists()
    assert (wd / "results/figures/CLAIMS.md").stat().st_mode & 0o044  # readable by group and others (umask)
