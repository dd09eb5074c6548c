"""An aggregate or fit carries a record of what it was made from (privrl.runs.intermediates): one
whose bytes, provenance or run files differ from it is named (and, by the workflow's start-up scan,
rebuilt: tests/runs/test_silent_losses.py), never trusted."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from privrl import io
from privrl.runs import intermediates
from privrl.runs.provenance import provenance


def _made(tmp_path: Path):
    runs = []
    for cell in ("a", "b"):
        parquet = tmp_path / "exp/runs/chain" / f"{cell}.parquet"
        parquet.parent.mkdir(parents=True, exist_ok=True)
        io.write_run(parquet, parquet.with_suffix(".json"), pd.DataFrame({"episode": [1, 2], "cum_regret": [0.5, 1.0]}),
                     {"cell": cell, "code": "c0"})
        runs.append(str(parquet))
    fit = tmp_path / "exp/fits/chain.csv"
    fit.parent.mkdir(parents=True)
    io.write_csv(fit, pd.DataFrame({"cell": ["a", "b"], "exponent": [0.5, 0.6]}))
    prov = provenance("fit", "code0", {"n_boot": 20, "decades": 2})
    record = intermediates.write_record(fit, prov, runs)
    return fit, prov, runs, Path(record)


def test_record_sits_next_to_its_table_and_vouches_for_it(tmp_path):
    fit, prov, runs, record = _made(tmp_path)
    assert record == tmp_path / "exp/fits/chain.provenance.json"
    data = json.loads(record.read_text())
    assert data["sha256"] == io.sha256_file(fit) and data["provenance"] == prov
    assert sorted(data["inputs"]) == ["../runs/chain/a.parquet", "../runs/chain/b.parquet"]  # relative: movable
    assert intermediates.mismatch(fit, prov, runs) is None
    assert not any(p.name.endswith(".csv") for p in record.parent.iterdir() if p != fit)  # the loader's glob


def test_edited_table_is_named(tmp_path):
    fit, prov, runs, record = _made(tmp_path)
    fit.write_text(fit.read_text().replace("0.6", "0.3"))  # a hand edit
    why = intermediates.mismatch(fit, prov, runs)
    assert why.startswith(f"{fit}: content sha256") and "edited" in why and "\n" not in why


def test_changed_code_params_or_runs_are_named(tmp_path):
    fit, prov, runs, record = _made(tmp_path)
    assert "code changed" in intermediates.mismatch(fit, {**prov, "code": "code1"}, runs)
    assert "parameters changed" in intermediates.mismatch(fit, provenance("fit", "code0", {"n_boot": 40, "decades": 2}),
                                                          runs)
    # a run file rewritten (with its hash) after the fit was made: the fit is not made from it
    io.write_run(runs[1], Path(runs[1]).with_suffix(".json"), pd.DataFrame({"episode": [1, 2], "cum_regret": [0.5, 2.0]}),
                 {"cell": "b", "code": "c0"})
    assert "other run files" in intermediates.mismatch(fit, prov, runs)
    assert "other run files" in intermediates.mismatch(fit, prov, runs[:1])  # a cell fewer


def test_unreadable_record_is_named_and_missing_ones_left_to_snakemake(tmp_path):
    fit, prov, runs, record = _made(tmp_path)
    record.write_text("{not json")
    assert "unreadable" in intermediates.mismatch(fit, prov, runs)
    record.unlink()  # a declared output of the job: Snakemake reruns it
    assert intermediates.mismatch(fit, prov, runs) is None
    fit.unlink()
    assert intermediates.mismatch(fit, prov, runs) is None
