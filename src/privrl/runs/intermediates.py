"""What an aggregate or a fit was made from, recorded next to it: one that does not match its
record is rebuilt, never trusted.

A run file carries the sha256 of its parquet in its JSON (:mod:`privrl.io`), a store shard and a
per-seed memo are vouched for by the store's merge records (:mod:`privrl.runs.store`), and the
theorem checks' and audits' outputs by their provenance sidecars (:mod:`privrl.runs.provenance`).
An aggregate (``<experiment>/aggregate/<env>.parquet``) or a fit (``<experiment>/fits/<env>.csv``)
carried nothing: Snakemake trusts a file by its mtime, so one edited by hand (or copied from
another run) was read by the figures, analyses and CLAIMS.md as if the pipeline had made it.

Each is now written with a *record* (:func:`record_path`: ``<env>.provenance.json`` in the same
folder, a declared output of the job, written atomically after the table) holding

* ``provenance``: what determines the table -- its rule, the digest of its code (script and library
  closure) and of its parameters (:func:`privrl.runs.provenance.provenance`, computed by the
  workflow, ``made_by`` in workflow/rules/common.smk, and handed to the job as a param);
* ``inputs``: the sha256 each run file it read records for its content (its JSON's
  ``results_sha256``), paths relative to the record;
* ``sha256``: the table's own bytes.

The workflow's start-up scan (workflow/rules/integrity.smk) calls :func:`mismatch` for every
planned aggregate and fit that exists: one whose bytes, provenance or inputs differ from its record
is forced to rerun (with what reads it), one line on stderr saying why. A missing record is a
missing output: Snakemake reruns the job itself. The check costs one small JSON read per run file
and the sha256 of each table.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from privrl import io

RECORD_SUFFIX = ".provenance.json"


def record_path(output: str | os.PathLike) -> str:
    """The record of an aggregate or fit file: ``<stem>.provenance.json`` next to it."""
    p = Path(output)
    return str(p.with_name(p.stem + RECORD_SUFFIX))


def _rel(path: str | os.PathLike, record: str | os.PathLike) -> str:
    return os.path.relpath(Path(path).absolute(), Path(record).absolute().parent)


def _recorded_content(run_file: str | os.PathLike) -> str | None:
    """The sha256 a run file's JSON records for its parquet (None when unreadable: the run-file
    scans and Snakemake deal with it)."""
    try:
        info = json.loads(Path(run_file).with_suffix(".json").read_text())
    except (OSError, ValueError):
        return None
    return info.get(io.HASH_FIELD) if isinstance(info, dict) else None


def inputs_of(record: str | os.PathLike, inputs: Iterable[str | os.PathLike]) -> dict[str, str | None]:
    """path relative to ``record`` -> the content sha256 recorded for that run file."""
    return {_rel(f, record): _recorded_content(f) for f in inputs}


def write_record(output: str | os.PathLike, provenance: Mapping[str, Any], inputs: Iterable[str | os.PathLike]) -> str:
    """Write the record of ``output`` (already written): its provenance, its inputs' recorded
    content hashes and its own sha256, atomically. Returns the record's path."""
    record = record_path(output)
    body = {"provenance": dict(provenance), "inputs": inputs_of(record, inputs), "sha256": io.sha256_file(output)}
    io.write_text(record, json.dumps(body, sort_keys=True, indent=1) + "\n")
    return record


def mismatch(output: str | os.PathLike, provenance: Mapping[str, Any], inputs: Iterable[str | os.PathLike]) -> str | None:
    """Why ``output`` is not what ``provenance`` makes from ``inputs`` (one line starting with its
    path), or None when its record vouches for it. None too when the output or its record is
    missing (Snakemake reruns the job for a missing output) or an input's metadata is unreadable
    (the run-file scans report it)."""
    output = str(output)
    record = record_path(output)
    if not os.path.exists(output) or not os.path.exists(record):
        return None
    try:
        data = json.loads(Path(record).read_text())
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict):
        return f"{output}: its record {record} is unreadable"
    held = data.get("provenance") or {}
    changed = [k for k in ("rule", "code", "params") if held.get(k) != provenance.get(k)]
    if changed:
        what = " and ".join({"rule": "rule", "code": "code", "params": "parameters"}[k] for k in changed)
        return f"{output}: its {what} changed since it was made ({record})"
    have = inputs_of(record, inputs)
    if None not in have.values() and have != data.get("inputs"):
        return f"{output}: made from other run files than the current ones ({record})"
    digest = io.sha256_file(output)
    if digest != data.get("sha256"):
        return (f"{output}: content sha256 {digest[:12]} is not the {str(data.get('sha256'))[:12]} "
                f"recorded in {record} (edited?)")
    return None
