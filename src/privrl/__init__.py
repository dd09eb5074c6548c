"""privrl: reproducibility pipeline for differentially private reinforcement learning.

Importing the package points numba's on-disk cache at a directory keyed by a hash of
the package's numba source files (:data:`NUMBA_SOURCES`). numba only invalidates a cached
function when *its own* file changes, not when a function it calls in another module does;
keying the cache directory by every module that holds njit code (or whose globals njit code
reads) makes a stale kernel impossible, while edits to analysis or figure code keep the
compiled kernels.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


# What a run's output depends on (the rest -- aggregation, fits, analyses, figures, claims --
# only reads run outputs). Used as Snakemake params so that a library edit reruns exactly the
# jobs it can change (workflow/rules/*.smk).
RUN_SOURCES = ("agents/", "mechanisms/", "rl/", "runs/run.py", "runs/state.py", "runs/store.py", "design/experiments.py",
               "design/config_files.py", "io.py", "__init__.py")


def _source_digest(prefixes: tuple[str, ...] | None = None) -> str:
    """sha256 (16 hex) of the package's .py files, or of those whose relative path starts with a prefix."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if prefixes is not None and not rel.startswith(prefixes):
            continue
        h.update(rel.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# Every module with cached @njit code or whose globals cached njit code reads (the agents, the
# mechanisms with their audits, the engine). Keys the numba cache. (The one njit function of
# papers/, the Eq. 8 simulation of garcelon2021, is compiled uncached, so it needs no key.)
NUMBA_SOURCES = ("agents/", "mechanisms/", "rl/")

CODE_SCOPES = {"run": RUN_SOURCES, "all": None}  # scope -> source prefixes (None: every file)


def code_version(scope: str) -> str:
    """Digest of the sources a job of this scope depends on: "run" (MDPs, agent runs) or "all"."""
    return _source_digest(CODE_SCOPES[scope])


def _configure_numba_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ and os.environ.get("PRIVRL_KEEP_NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("PRIVRL_CACHE", Path.home() / ".cache" / "privrl" / "numba"))
    from privrl.digests import numba_cache_key

    cache_dir = base / numba_cache_key(NUMBA_SOURCES)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only home: fall back to numba's default location
        return
    os.environ["NUMBA_CACHE_DIR"] = str(cache_dir)
    import sys

    if "numba" in sys.modules:  # numba read its config already: refresh it
        from numba.core import config as _nb_config

        _nb_config.reload_config()


_configure_numba_cache()


def load(results_dir, figures_dir=None):
    """A finished run's results as tidy pandas frames: ``runs`` (cell x seed x checkpoint), ``aggregate``
    (cell x checkpoint), ``fits`` (one row per cell) and ``claims`` (the ledger), read from the layout of
    docs/outputs.md; :func:`privrl.results.load.load`.

    The package's one reference upward (tests/workflow/test_layers.py: the ground floor imports no
    wing): a convenience entry for users, resolved by name on call, so ``import privrl`` loads
    nothing of the results layer and no module of the package depends on it."""
    import importlib

    return importlib.import_module("privrl.results.load").load(results_dir, figures_dir)
