"""privrl: reproducibility pipeline for differentially private reinforcement learning.

Importing the package points numba's on-disk cache at a directory keyed by a hash of
the package's own source files. numba only invalidates a cached function when *its own*
file changes, not when a function it calls in another module does; keying the cache
directory by the whole package's source makes a stale kernel impossible.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _source_digest() -> str:
    h = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _configure_numba_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ and os.environ.get("PRIVRL_KEEP_NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("PRIVRL_CACHE", Path.home() / ".cache" / "privrl" / "numba"))
    cache_dir = base / _source_digest()
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
