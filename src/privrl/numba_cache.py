"""numba's on-disk cache made safe for processes that compile at once.

numba saves each compiled overload of a cached function as a data file named by a *counter*
(``<base>.1.nbc``, ``<base>.2.nbc``, ...) and an index mapping the overload's key (signature,
CPU, source stamp) to that name (``numba.core.caching.IndexDataCacheFile.save``). Each file is
written atomically, but the pair is not: two processes compiling *different* overloads of one
function at once both read an index without either, both pick ``.1``, and the index that lands
can point one signature at the other's machine code. Every later process loads it: a wrong
result, a crash, or (what privrl's audit tests met under pytest-xdist: two workers and the
Snakemake jobs of the DAG tests sharing one cache) arrays of the wrong shape. numba/numba#10128
reports the same race for gufuncs; its maintainers proposed a file lock.

:func:`install` replaces the save and load of every index-and-data cache file in this process:

* a data file is named by a digest of its key (``<base>.k<sha256(repr(key))[:20]>.nbc``), so
  a name can only ever hold the code of its own key: concurrent writers of one key write the same
  code to the same name, writers of different keys never share a file;
* the index is read, updated and written under an exclusive ``flock`` on ``<index>.lock`` (data
  first, then the index entry that points at it), so no entry is lost to a concurrent update; a
  file system without ``flock`` falls back to no lock, which can lose an entry (a recompile
  later) but never misdirect one;
* a load takes the entry only if its name is its key's digest (an entry of numba's counter
  scheme, written before this module or by a plain numba, is a miss: recompiled and re-saved);
  an unreadable or truncated data file is a miss too.

privrl installs it wherever it defines cached kernels (:mod:`privrl.rl`, :mod:`privrl.mechanisms`,
and the audit probes' driver cache): the patch is process-wide and only touches numba's cache files.
"""
from __future__ import annotations

import fcntl
import hashlib
import pickle
from contextlib import contextmanager

from numba.core import caching

_INSTALLED = False
#: numba's own methods (the counter scheme), kept for the test that reproduces the race
NUMBA_SAVE, NUMBA_LOAD = caching.IndexDataCacheFile.save, caching.IndexDataCacheFile.load


def data_name(cache_file: caching.IndexDataCacheFile, key) -> str:
    """The data file name of ``key`` in ``cache_file``: ``<base>.k<digest of repr(key)>.nbc``."""
    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:20]
    return f"{cache_file._index_name[:-len('.nbi')]}.k{digest}.nbc"


@contextmanager
def index_lock(cache_file: caching.IndexDataCacheFile):
    """Hold an exclusive ``flock`` on ``<index>.lock`` (no lock where the file system has none)."""
    try:
        handle = open(cache_file._index_path + ".lock", "a")
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        except OSError:
            pass
        yield


def save(self: caching.IndexDataCacheFile, key, data) -> None:
    """Save the entry of ``key``: its data under its own digest name, then the index entry, under the lock."""
    name = data_name(self, key)
    with index_lock(self):
        self._save_data(name, data)
        overloads = self._load_index()
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)


def load(self: caching.IndexDataCacheFile, key):
    """The entry of ``key``, or None: absent, named by another scheme, or unreadable."""
    with index_lock(self):
        try:
            overloads = self._load_index()
        except (EOFError, pickle.UnpicklingError, ValueError):
            return None
    name = overloads.get(key)
    if name is None or name != data_name(self, key):
        return None
    try:
        return self._load_data(name)
    except (OSError, EOFError, pickle.UnpicklingError):
        return None


def install() -> None:
    """Replace :class:`numba.core.caching.IndexDataCacheFile`'s ``save`` and ``load`` (idempotent)."""
    global _INSTALLED
    if not _INSTALLED:
        caching.IndexDataCacheFile.save = save
        caching.IndexDataCacheFile.load = load
        _INSTALLED = True
