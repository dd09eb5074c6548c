"""Committed outputs without file inputs (the theorem checks and audits) are rerun exactly when what
determines them changed, on a clean clone too (privrl.runs.provenance).

Before, a clean clone's `snakemake` planned no theorem-check job even after a check's code was
edited (Snakemake's params/code triggers need .snakemake metadata; a clone's mtimes are arbitrary).
The workflow test runs one cheap check (Lu et al. Lemma 11's algebra) in a copy of the workflow,
then removes .snakemake and scrambles the mtimes (a clean clone), and edits the code, the
parameters and an output in turn."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.workflow_copy import job_counts, workflow_copy

from privrl.runs import provenance

ROOT = Path(__file__).resolve().parents[2]


# --- the stamp and the sidecar -------------------------------------------------------------------

def _made(tmp_path: Path, prov: dict) -> tuple[str, list[str]]:
    outs = [str(tmp_path / "figs/p/mechanisms/x.csv"), str(tmp_path / "figs/p/mechanisms/x.png")]
    for i, o in enumerate(outs):
        Path(o).parent.mkdir(parents=True, exist_ok=True)
        Path(o).write_text(f"output {i}\n")
    sidecar = str(tmp_path / "figs/provenance/theorem_checks.json")
    stamp = tmp_path / "stamp.json"
    stamp.write_text(json.dumps(prov))
    provenance.record(sidecar, str(stamp), outs)
    return sidecar, outs


def test_sidecar_is_location_independent(tmp_path):
    prov = provenance.provenance("theorem_checks", "abc", {"arguments": {"x": [1, 2]}, "seed": 3})
    sidecar, _ = _made(tmp_path / "a", prov)
    other, _ = _made(tmp_path / "elsewhere/b", prov)
    assert Path(sidecar).read_bytes() == Path(other).read_bytes()
    assert json.loads(Path(sidecar).read_text())["outputs"] == {
        "../p/mechanisms/x.csv": provenance.io.sha256_file(_made(tmp_path / "c", prov)[1][0]),
        "../p/mechanisms/x.png": provenance.io.sha256_file(_made(tmp_path / "c", prov)[1][1])}


@pytest.mark.parametrize("change", ["none", "code", "params", "output", "sidecar"])
def test_stamp_is_dated_before_matching_outputs_and_after_others(tmp_path, monkeypatch, change):
    monkeypatch.chdir(tmp_path)
    prov = provenance.provenance("theorem_checks", "abc", {"seed": 3})
    sidecar, outs = _made(tmp_path, prov)
    for p in outs + [sidecar]:  # a clone's arbitrary mtimes
        t = 1_700_000_000 + random.randint(0, 10_000)
        os.utime(p, (t, t))
    if change == "code":
        prov = provenance.provenance("theorem_checks", "abd", {"seed": 3})
    elif change == "params":
        prov = provenance.provenance("theorem_checks", "abc", {"seed": 4})
    elif change == "output":
        Path(outs[1]).write_text("edited\n")
    elif change == "sidecar":
        Path(sidecar).unlink()
    why = provenance.stamp(sidecar, prov, outs)
    stamp = Path(provenance.stamp_path(sidecar)).stat().st_mtime
    made = [os.stat(p).st_mtime for p in outs + [sidecar] if os.path.exists(p)]
    if change == "none":
        assert why is None and stamp < min(made)
    else:
        assert why is not None and "\n" not in why and stamp > max(made)
        assert {"code": "code", "params": "parameters", "output": outs[1], "sidecar": "missing"}[change] in why
    assert provenance.stamp(sidecar, prov, outs) == why  # the same verdict again


# --- the workflow on a clean clone ---------------------------------------------------------------

DESIGN = {
    "results_dir": "results", "figures_dir": "figures", "n_checkpoints": 100, "bootstrap": {"n": 20},
    "mechanisms": {"seed": 3, "checks": {"lu_lemma11": {"grid": [{"S": 2, "A": 2, "H": 3}]}}},
    "experiments": {"tiny": {
        "envs": {"chain": {"name": "riverswim", "params": {"S": 4, "H": 5}}},
        "cells": [{"agent": "ucbvi", "params": {"bonus_scale": 1.0}, "label": "UCBVI"}],
        "episodes": 300, "seeds": 2,
    }},
}
OUTPUTS = [f"figures/lu2026/mechanisms/lu_lemma11.{x}" for x in ("csv", "png", "pdf")]
SIDECAR = "figures/provenance/theorem_checks.json"


def _snakemake(wd: Path, *args: str):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(wd / "Snakefile"), "--directory", str(wd),
           *OUTPUTS, SIDECAR, "--configfile", str(wd / "design.yaml"), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def _planned(wd: Path) -> tuple[dict, list[str]]:
    out = _snakemake(wd, "-n")
    assert out.returncode == 0, out.stderr[-3000:]
    return job_counts(out.stdout + out.stderr), [line for line in out.stderr.splitlines() if line.startswith("privrl: ")]


def _clean_clone(wd: Path) -> None:
    """What a clone has: no .snakemake, every file's mtime arbitrary."""
    shutil.rmtree(wd / ".snakemake", ignore_errors=True)
    rng = random.Random(0)
    for p in wd.rglob("*"):
        if p.is_file():
            t = 1_700_000_000 + rng.randint(0, 10_000_000)
            os.utime(p, (t, t))


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    wd = workflow_copy(tmp_path_factory.mktemp("provenance"))
    (wd / "design.yaml").write_text(yaml.safe_dump(DESIGN, sort_keys=False))
    out = _snakemake(wd, "--cores", "1")
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


@pytest.fixture
def clone(checked, tmp_path):
    wd = tmp_path / "wd"
    shutil.copytree(checked, wd, symlinks=True)
    _clean_clone(wd)
    return wd


@pytest.mark.slow  # one theorem-check job (~15 s), then dry runs
def test_clean_clone_verifies_committed_outputs_and_reruns_an_edited_check(clone):
    assert _planned(clone) == ({}, [])  # the outputs match their provenance: verified, not rerun
    script = clone / "workflow/scripts/theorem_checks.py"  # the check's code (its digest: script + library)
    script.write_text(script.read_text() + "# an edit\n")
    planned, said = _planned(clone)
    assert planned.get("theorem_checks") == 1, planned  # before: 0 on a clean clone
    assert len(said) == 1 and "theorem_checks" in said[0] and "code changed" in said[0]
    before = {o: (clone / o).read_bytes() for o in OUTPUTS}
    out = _snakemake(clone, "--cores", "1")
    assert out.returncode == 0, out.stderr[-3000:]
    assert {o: (clone / o).read_bytes() for o in OUTPUTS} == before  # the same check: the same bytes
    _clean_clone(clone)
    assert _planned(clone) == ({}, [])  # its new sidecar vouches for them


@pytest.mark.slow  # one theorem-check job (~15 s), then dry runs
@pytest.mark.parametrize("change", ["params", "output", "sidecar"])
def test_clean_clone_reruns_a_check_whose_params_or_outputs_changed(clone, change):
    if change == "params":
        design = yaml.safe_load((clone / "design.yaml").read_text())
        design["mechanisms"]["checks"]["lu_lemma11"]["grid"].append({"S": 1, "A": 2, "H": 1})
        (clone / "design.yaml").write_text(yaml.safe_dump(design, sort_keys=False))
    elif change == "output":
        with open(clone / OUTPUTS[0], "a") as fh:
            fh.write("0,0\n")
    else:
        (clone / SIDECAR).unlink()
    planned, said = _planned(clone)
    assert planned.get("theorem_checks") == 1, planned
    if change != "sidecar":  # a missing output is Snakemake's own reason
        assert len(said) == 1 and {"params": "parameters", "output": OUTPUTS[0]}[change] in said[0]
