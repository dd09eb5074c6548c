"""Run files as downstream jobs read them: each checked against its metadata and the config.

A downstream rule (aggregate, fit, analysis) receives, as a Snakemake param, one *run record*
per input run file (the config's view of the cell: ``cell``, ``agent``, ``params``, ``label``,
``tags``, ``experiment``, ``setting``, ``episodes``, ``seeds``, ``n_checkpoints``, ``code``;
built by :meth:`privrl.plan.workflow.WorkflowPlan.run_record`). :func:`load_runs` verifies every file against its
record (:func:`privrl.io.verify_run`) and returns the per-seed tables with the run metadata,
whose ``label`` and ``tags`` are the config's current ones (they name a cell; they do not change
its run, so a label edit reruns the downstream jobs and not the run).

:func:`lost_run_files` finds, at start-up, the run files lost while what was made from them is
still there (a ``run_cell`` job killed mid-write: Snakemake removes its outputs, and a missing
intermediate file is not regenerated while its consumers are up to date).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pandas as pd

from privrl import io
from privrl.rl import engine

EXPECTED_KEYS = ("agent", "params", "episodes", "seeds", "experiment", "setting", "cell", "code")


def expected_of(record: Mapping[str, Any]) -> dict:
    """What :func:`privrl.io.verify_run` checks for a run record: its keys plus the checkpoint
    episodes every seed must hold (``rl.engine.checkpoints(K, n_checkpoints)``)."""
    out = {k: record[k] for k in EXPECTED_KEYS if k in record}
    if "episodes" in record and "n_checkpoints" in record:
        out["checkpoints"] = engine.checkpoints(int(record["episodes"]), int(record["n_checkpoints"])).tolist()
    return out


def load_runs(paths: Iterable[str], records: Sequence[Mapping[str, Any]]) -> list[tuple[pd.DataFrame, dict]]:
    """(per-seed table, metadata) of every run file, in order; raises
    :class:`privrl.io.RunIntegrityError` naming the first file that does not match its record."""
    paths = [str(p) for p in paths]
    if len(paths) != len(records):
        raise ValueError(f"{len(paths)} run files but {len(records)} run records")
    out = []
    for path, rec in zip(paths, records):
        df, info = io.verify_run(path, Path(path).with_suffix(".json"), expected_of(rec))
        info = {**info, "label": rec.get("label", info.get("label")), "tags": dict(rec.get("tags") or {})}
        out.append((df, info))
    return out


def lost_run_files(planned: Iterable[tuple[str, str, Sequence[str]]]) -> list[tuple[str, str]]:
    """(parquet path, problem naming the missing file) of every planned run file (``planned``:
    (cell id, parquet path, its consumers' files: the aggregate and fit of its setting)) whose
    parquet or JSON is missing while a consumer that exists was made from the cell (its ``cell``
    column holds it; a cell new to the config is in none). Cheap at start-up: two stats per cell;
    a consumer is read only for a missing run file."""
    out, cells_in = [], {}
    for cell, parquet, consumers in planned:
        info = str(Path(parquet).with_suffix(".json"))
        missing = [f for f in (str(parquet), info) if not os.path.exists(f)]
        if not missing:
            continue
        for consumer in consumers:
            if consumer not in cells_in:
                cells_in[consumer] = _cells_in(Path(consumer))
            if cell in cells_in[consumer]:
                why = (f"{missing[0]}: missing, although {consumer} was made from cell {cell} "
                       f"(a run_cell job killed mid-write?); regenerate it with: snakemake --forcerun {parquet}")
                out.append((str(parquet), why))
                break
    return out


def _cells_in(consumer: Path) -> set[str]:
    """The cell ids a consumer file (an aggregate parquet, a fits CSV: a ``cell`` column) was made
    from; empty when it is missing or unreadable (then Snakemake's own logic applies)."""
    if not consumer.exists():  # (a fresh design: no reader imported at start-up)
        return set()
    try:
        if consumer.suffix == ".parquet":
            import pyarrow.parquet as pq

            return {str(c) for c in pq.read_table(consumer, columns=["cell"]).column("cell").to_pylist()}
        with open(consumer, newline="") as fh:
            return {row["cell"] for row in csv.DictReader(fh)}
    except Exception:  # noqa: BLE001 (missing, unreadable, no cell column: nothing known to be made from it)
        return set()
