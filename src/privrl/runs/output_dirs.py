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


def output_dir_errors(config: Mapping[str, Any], cwd: str | Path | None = None) -> list[str]:
    """One line per unsafe or foreign output directory of ``config`` (paths relative to ``cwd``,
    default the working directory, where Snakemake resolves them)."""
    cwd = Path(cwd or os.getcwd()).resolve()
    errs = []
    for key, default in DIR_KEYS.items():
        value = config.get(key, default)
        why = _unsafe(value, cwd)
        if why is not None:
            errs.append(f"{key}: {why}")
        elif key in MARKED_KEYS and isinstance(value, str) and not is_privrl_dir(cwd / value):
            errs.append(f"{key}: {value!r} is a non-empty directory privrl did not create (no {MARKER} marker); "
                        f"choose a new or empty directory, or adopt it with: touch {Path(value) / MARKER}")
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
