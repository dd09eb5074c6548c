"""The directories privrl writes into: refused when unsafe, marked as privrl's when used.

``results_dir``, ``store_dir`` and ``figures_dir`` are refused before any job (one line naming
the key) when empty, when they resolve to the file-system root, to the user's home, or to the
working directory or one of its ancestors (outputs mixed with the sources, or planned under
``/``), or that cannot be resolved (a symlink loop; a symlink to the working directory or above
resolves there and is refused as such). ``results_dir`` and ``store_dir`` are also refused when they are non-empty directories
privrl did not create: privrl marks a directory it writes into with :data:`MARKER` (a small
text file, written at the start of a run, :func:`claim`), and deletes files only there and only
files it made (io.remove_stale_temps). A directory filled by an earlier privrl version has no
marker: ``touch <dir>/.privrl`` adopts it. A directory holding only privrl directories is privrl's
(the default ``results/`` around ``results/smoke`` and ``results/store``). ``figures_dir`` is not marker-checked (the shipped
``paper_figures/`` is a committed folder).

A directory key whose path is (or passes through) something other than a directory says what
it is (``results_dir: 'notes.txt' is a regular file, not a directory``). ``store_dir`` must be
neither ``results_dir`` nor above it: the store's rules (``<store>/<digest>.parquet``) would
also match the results' files (Snakemake's AmbiguousRuleException). The store may sit inside
``results_dir`` (the default ``results/store``), but then no experiment may be named after its
folder there (``results/store`` and an experiment ``store``: the same clash).

The paths are the config's after :func:`privrl.design.config_files.expand_path` (``~`` and
environment variables), which the door (privrl.plan.validate) applies first.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

MARKER = ".privrl"
MARKER_TEXT = "This directory was created by privrl (results or run store); see README.md.\n"
DIR_KEYS = {"results_dir": "results", "store_dir": "results/store", "figures_dir": "results/figures"}
MARKED_KEYS = ("results_dir", "store_dir")


def is_privrl_dir(path: str | Path, _above: frozenset = frozenset()) -> bool:
    """True if ``path`` is missing, empty, marked as privrl's, or holds only such directories (the
    default ``results/`` holding a smoke run's ``results/smoke`` and the store ``results/store``).
    A directory reached again below itself (a symlink to itself or to a directory above it) is
    not privrl's: the walk never follows a loop."""
    p = Path(path)
    if not p.exists():
        return True
    if not p.is_dir():
        return False
    if (p / MARKER).is_file():
        return True
    try:
        real = p.resolve(strict=True)
    except (OSError, RuntimeError):  # a symlink loop (RuntimeError before Python 3.13)
        return False
    if real in _above:
        return False
    return all(q.is_dir() and is_privrl_dir(q, _above | {real}) for q in p.iterdir())


def _unsafe(value: Any, cwd: Path) -> str | None:
    """Why an output directory path is unsafe, or None."""
    if not isinstance(value, str):
        return None  # the schema names the type
    if not value.strip():
        return "empty path (outputs would be planned under the file-system root or the working directory)"
    try:
        p = (cwd / value).resolve()
    except (OSError, RuntimeError) as e:  # a symlink loop (RuntimeError before Python 3.13, OSError ELOOP after)
        return f"{value!r} cannot be resolved: a symlink loop ({str(e).splitlines()[0] if str(e) else type(e).__name__})"
    if p == Path(p.anchor):
        return f"{value!r} resolves to the file-system root {p}"
    if p == Path.home().resolve():
        return f"{value!r} resolves to the home directory {p}"
    if p == cwd or p in cwd.parents:
        return f"{value!r} resolves to {p}, the working directory or one above it; name a subdirectory"
    return None


def _not_a_directory(value: str, cwd: Path) -> str | None:
    """What the path ``value`` is, or passes through, if that is not a directory (None: a
    directory, or missing below an existing directory: privrl creates it)."""
    from privrl.design.config_files import DIRECTORY, MISSING, file_kind

    p = cwd / value
    for q in [p, *p.parents]:
        kind = file_kind(q)
        if kind == MISSING:
            continue
        if kind == DIRECTORY:
            return None
        if q == p:
            return f"{value!r} is {kind}, not a directory"
        return f"{value!r} passes through {str(q.relative_to(cwd) if q.is_relative_to(cwd) else q)!r}, which is {kind}"
    return None


def _overlap_errors(config: Mapping[str, Any], cwd: Path) -> list[str]:
    """store_dir equal to results_dir or above it; an experiment named after the store's folder
    inside results_dir (module docstring)."""
    results = (cwd / config.get("results_dir", DIR_KEYS["results_dir"])).resolve()
    store_value = config.get("store_dir", DIR_KEYS["store_dir"])
    store = (cwd / store_value).resolve()
    if store == results:
        return [f"store_dir: {store_value!r} is results_dir itself; the run store needs its own directory "
                f"(its <digest>.parquet files would clash with the results' files), e.g. {store_value.rstrip('/')}/store"]
    if store in results.parents:
        return [f"results_dir: {config.get('results_dir')!r} is inside store_dir {store_value!r}; the store's "
                "<digest>.parquet files would clash with the results' files: put results_dir outside the store"]
    if results in store.parents:
        folder = store.relative_to(results).parts[0]
        if folder in (config.get("experiments") or {}):
            return [f"experiments.{folder}: named after store_dir's folder inside results_dir ({store_value!r}): "
                    "its files would clash with the store's; rename the experiment or move the store"]
    return []


def output_dir_errors(config: Mapping[str, Any], cwd: str | Path | None = None) -> list[str]:
    """One line per unsafe or foreign output directory of ``config`` (paths relative to ``cwd``,
    default the working directory, where Snakemake resolves them)."""
    cwd = Path(cwd or os.getcwd()).resolve()
    errs = []
    for key, default in DIR_KEYS.items():
        value = config.get(key, default)
        why = _unsafe(value, cwd)
        if why is None and isinstance(value, str):
            why = _not_a_directory(value, cwd)
        if why is not None:
            errs.append(f"{key}: {why}")
        elif key in MARKED_KEYS and isinstance(value, str) and not is_privrl_dir(cwd / value):
            errs.append(f"{key}: {value!r} is a non-empty directory privrl did not create (no {MARKER} marker); "
                        f"choose a new or empty directory, or adopt it with: touch {Path(value) / MARKER}")
    if not errs and all(isinstance(config.get(k, DIR_KEYS[k]), str) for k in MARKED_KEYS):
        errs = _overlap_errors(config, cwd)
    return errs


def claim(config: Mapping[str, Any]) -> list[Path]:
    """Create ``results_dir`` and ``store_dir`` if needed and mark them as privrl's (after
    :func:`output_dir_errors` accepted them). Returns the markers written."""
    out = []
    for key in MARKED_KEYS:
        d = Path(config.get(key, DIR_KEYS[key]))
        marker = d / MARKER
        if not marker.is_file():
            from privrl import io

            io.write_text(marker, MARKER_TEXT)
            out.append(marker)
    return out
