"""Run files as downstream jobs read them: each checked against its metadata and the config.

A downstream rule (aggregate, fit, analysis) receives, as a Snakemake param, one *run record*
per input run file (the config's view of the cell: ``cell``, ``agent``, ``params``, ``label``,
``tags``, ``experiment``, ``setting``, ``episodes``, ``seeds``, ``n_checkpoints``, ``code``;
built by :meth:`privrl.plan.workflow.WorkflowPlan.run_record`). :func:`load_runs` verifies every file against its
record (:func:`privrl.io.verify_run`) and returns the per-seed tables with the run metadata,
whose ``label`` and ``tags`` are the config's current ones (they name a cell; they do not change
its run, so a label edit reruns the downstream jobs and not the run).
"""
from __future__ import annotations

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
