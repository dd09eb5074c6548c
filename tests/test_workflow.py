"""The Snakemake DAG end to end: smoke config in a temp dir, then a no-op rerun; dry run
of the full config. (Whole-DAG timing is measured by the README's smoke command, not here.)"""
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]



def _snakemake(workdir, *args):
    return subprocess.run([*SNAKEMAKE, "--directory", str(workdir), *args], capture_output=True, text=True)


def test_smoke_dag_runs_then_nothing_to_do(tmp_path):
    cfg = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    cfg_path = tmp_path / "smoke.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    first = _snakemake(tmp_path, "--cores", "2", "--configfile", str(cfg_path))
    assert first.returncode == 0, first.stderr[-4000:]
    figs = Path(tmp_path, cfg["figures_dir"])
    claims = (figs / "CLAIMS.md").read_text()
    assert "## Scoreboard" in claims and "| id | item | kind | claim | verdict | K needed |" in claims and "**" in claims
    assert list(figs.rglob("*_regret_vs_K.png"))
    second = _snakemake(tmp_path, "--cores", "2", "--configfile", str(cfg_path))
    assert second.returncode == 0 and "Nothing to be done" in second.stdout + second.stderr


def test_full_config_dry_run_lists_plan(tmp_path):
    out = _snakemake(tmp_path, "-n", "--configfile", str(ROOT / "config/config.yaml"))
    assert out.returncode == 0, out.stderr[-4000:]
    assert "run_cell" in out.stdout and "claims" in out.stdout


def test_invalid_config_rejected_before_any_job(tmp_path):
    cfg = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    cfg["experiments"]["ucbvi_baseline"]["seeds"] = -1
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(cfg))
    out = _snakemake(tmp_path, "--cores", "1", "--configfile", str(p))
    assert out.returncode != 0 and "seeds" in out.stdout + out.stderr
    assert not (tmp_path / cfg["results_dir"]).exists()
