"""Provenance of committed outputs: a job whose outputs are committed is rerun exactly when what
determines them changed, on a clean clone too.

The theorem checks and the audits read no file: their outputs (``paper_figures/*/mechanisms/``)
are determined by their code and parameters, and are committed. Snakemake's params and code
triggers need its ``.snakemake`` metadata, which a clean clone lacks, and a clone's mtimes are
arbitrary; so on a clean clone those jobs were never rerun, even after a check's code changed.

Each such job now has one input, a *stamp* (``.snakemake/privrl/stamps/``: Snakemake's own state
folder, never committed), written when the Snakefile is parsed (:func:`stamp`) and holding the
job's provenance: its rule, the digest of the code it imports (script and library closure,
privrl.plan.workflow.WorkflowPlan.code_of) and the digest of its parameters. The job writes, next
to its outputs, a *sidecar* (``<figures_dir>/provenance/<rule>.json``, committed with them:
:func:`record`) holding that provenance and the sha256 of every output. At parse time:

* the sidecar holds this provenance and every output has the bytes it records: the stamp is
  dated before the oldest output (and the sidecar), so the job is up to date -- the committed
  outputs are verified, not rerun;
* otherwise (code or parameters changed, an output edited or missing, no sidecar): the stamp is
  dated now, after the outputs, so Snakemake's mtime trigger reruns the job, whose new sidecar
  then matches. One line on stderr says why.

The sidecar's content depends on the code, the parameters and the outputs' bytes only (output
paths relative to the sidecar), so the main command writes it identically wherever it runs.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from privrl import io

STAMP_DIR = ".snakemake/privrl/stamps"  # relative to Snakemake's working directory
SIDECAR_DIR = "provenance"  # under figures_dir


def _canonical(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), default=str)


def provenance(rule: str, code: str, params: Any) -> dict:
    """What determines a job's outputs: its rule, its code digest and the digest of its params."""
    return {"rule": rule, "code": code, "params": hashlib.sha256(_canonical(params).encode()).hexdigest()[:16]}


def sidecar_path(figures_dir: str | os.PathLike, rule: str) -> str:
    return str(Path(figures_dir, SIDECAR_DIR, f"{rule}.json"))


def stamp_path(sidecar: str | os.PathLike) -> str:
    """The stamp of a sidecar, named by the sidecar's path as the design gives it (several designs,
    one folder; not its absolute path: a copied working directory must name the same input)."""
    key = hashlib.sha256(str(sidecar).encode()).hexdigest()[:16]
    return str(Path(STAMP_DIR, f"{Path(sidecar).stem}-{key}.json"))


def _rel(output: str, sidecar: str) -> str:
    return os.path.relpath(Path(output).absolute(), Path(sidecar).absolute().parent)


def _read_sidecar(sidecar: str) -> dict | None:
    try:
        data = json.loads(Path(sidecar).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def mismatch(sidecar: str, prov: Mapping[str, Any], outputs: Iterable[str]) -> str | None:
    """Why the outputs are not what ``prov`` makes (None when the sidecar records ``prov`` and every
    output has the bytes it records). None too when an output is missing: Snakemake runs the job
    for that anyway."""
    outputs = [str(o) for o in outputs]
    if not all(os.path.exists(o) for o in outputs):
        return None
    data = _read_sidecar(sidecar)
    if data is None:
        return f"{sidecar} missing or unreadable (no provenance recorded for its outputs)"
    held = data.get("provenance") or {}
    changed = [k for k in ("rule", "code", "params") if held.get(k) != prov.get(k)]
    if changed:
        what = " and ".join({"rule": "rule", "code": "code", "params": "parameters"}[k] for k in changed)
        return f"its {what} changed since {sidecar} was recorded"
    hashes = data.get("outputs") or {}
    if sorted(hashes) != sorted(_rel(o, sidecar) for o in outputs):
        return f"{sidecar} records other outputs than the rule has"
    for o in outputs:
        if hashes[_rel(o, sidecar)] != io.sha256_file(o):
            return f"{o} is not the output {sidecar} records (edited?)"
    return None


def stamp(sidecar: str, prov: Mapping[str, Any], outputs: Iterable[str], benchmark: str | None = None) -> str | None:
    """Write the job's stamp (its content only when it changed) and date it: before the outputs when
    they are what ``prov`` makes, else now (the job reruns). Returns why it reruns, or None.
    ``benchmark``: the job's benchmark file, which Snakemake dates with its outputs."""
    outputs = [str(o) for o in outputs]
    path = Path(stamp_path(sidecar))
    text = json.dumps(dict(prov), sort_keys=True, indent=1) + "\n"
    try:
        same = path.read_text() == text
    except OSError:
        same = False
    if not same:
        io.write_text(path, text)
    why = mismatch(sidecar, prov, outputs)
    made = [os.stat(p).st_mtime for p in outputs + [sidecar] if os.path.exists(p)]
    if why is None and made and len(made) == len(outputs) + 1:
        if benchmark is not None and os.path.exists(benchmark):
            made.append(os.stat(benchmark).st_mtime)
        before = min(made) - 1.0
        if path.stat().st_mtime > before:
            os.utime(path, (before, before))
    elif made and path.stat().st_mtime <= max(made):
        now = max(time.time(), max(made) + 1.0)
        os.utime(path, (now, now))
    return why


def record(sidecar: str, stamp_file: str, outputs: Iterable[str]) -> None:
    """The sidecar of a job that has written ``outputs``: the provenance its stamp holds and the
    sha256 of every output (paths relative to the sidecar), written atomically."""
    prov = json.loads(Path(stamp_file).read_text())
    hashes = {_rel(str(o), sidecar): io.sha256_file(o) for o in outputs}
    io.write_text(sidecar, json.dumps({"provenance": prov, "outputs": hashes}, sort_keys=True, indent=1) + "\n")
