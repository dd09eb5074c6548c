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

* a data file is named by a digest of its source stamp and key, and holds them beside numba's
  data (:func:`entry`); a load returns the data only if the stored stamp and key are the ones asked
  for. Concurrent writers of one key write the same code to the same name; writers of different
  keys write different names (and even two keys whose reprs coincided could only overwrite each
  other's entry, a recompile, never be loaded as each other);
* the index is updated under an exclusive ``flock`` on ``<index>.lock`` (data first, then the
  index entry that points at it) and read under a shared one, so no entry is lost to a concurrent
  update; a file system without ``flock`` falls back to no lock, which can lose an entry (a
  recompile later) but never misdirect one;
* an entry of numba's counter scheme (written before this module, or by a plain numba), an
  unreadable or truncated data file and a corrupt index are misses: recompiled and re-saved.

privrl installs it wherever it defines cached kernels (:mod:`privrl.rl`, :mod:`privrl.mechanisms`,
and the audit probes' driver cache): the patch is process-wide and only touches numba's cache files.
"""
from __future__ import annotations

import fcntl
import hashlib
from contextlib import contextmanager

from numba.core import caching

_INSTALLED = False
#: numba's own methods (the counter scheme), kept for the test that reproduces the race
NUMBA_SAVE, NUMBA_LOAD = caching.IndexDataCacheFile.save, caching.IndexDataCacheFile.load


#: first element of every data file this module writes: (TAG, source stamp, key, numba's data)
TAG = "privrl-keyed-1"


def data_name(cache_file: caching.IndexDataCacheFile, key) -> str:
    """The data file name of ``key`` in ``cache_file``: ``<base>.k<digest>.nbc``, the digest of the
    repr of (source stamp, key). A name only needs to separate keys in practice: every data file also
    holds its stamp and key, checked on load (:func:`load`), so two keys that shared a name could
    only overwrite each other's entry (a recompile), never be loaded as each other."""
    digest = hashlib.sha256(repr((cache_file._source_stamp, key)).encode()).hexdigest()[:20]
    return f"{cache_file._index_name[:-len('.nbi')]}.k{digest}.nbc"


def entry(cache_file: caching.IndexDataCacheFile, key, data) -> tuple:
    """What a data file holds: (:data:`TAG`, source stamp, key, numba's data)."""
    return TAG, cache_file._source_stamp, key, data


@contextmanager
def index_lock(cache_file: caching.IndexDataCacheFile, exclusive: bool = True):
    """Hold an ``flock`` on ``<index>.lock``, exclusive to update the index, shared to read it (no
    lock where the file system has none, or the cache cannot be written)."""
    try:
        handle = open(cache_file._index_path + ".lock", "a")
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)  # released when the file closes
        except OSError:
            pass
        yield


def _read_index(cache_file: caching.IndexDataCacheFile) -> dict:
    """The index, or {} when it is missing, of another numba or source version, or unreadable."""
    try:
        return cache_file._load_index()
    except Exception:  # noqa: BLE001 (a truncated or corrupt index: as empty, rewritten by the next save)
        return {}


def save(self: caching.IndexDataCacheFile, key, data) -> None:
    """Save the entry of ``key``: its data (with its stamp and key) under its own digest name, then
    the index entry that points at it, under the exclusive lock."""
    name = data_name(self, key)
    with index_lock(self):
        self._save_data(name, entry(self, key, data))
        overloads = _read_index(self)
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)


def load(self: caching.IndexDataCacheFile, key):
    """numba's data of ``key``, or None: absent, named by another scheme, unreadable, or holding
    another stamp or key."""
    with index_lock(self, exclusive=False):
        overloads = _read_index(self)
    name = overloads.get(key)
    if name is None or name != data_name(self, key):
        return None
    try:
        stored = self._load_data(name)
    except Exception:  # noqa: BLE001 (missing, truncated, unpicklable: a miss, recompiled and re-saved)
        return None
    if not (isinstance(stored, tuple) and len(stored) == 4 and stored[0] == TAG
            and stored[1] == self._source_stamp and stored[2] == key):
        return None
    return stored[3]


def install() -> None:
    """Replace :class:`numba.core.caching.IndexDataCacheFile`'s ``save`` and ``load`` (idempotent)."""
    global _INSTALLED
    if not _INSTALLED:
        caching.IndexDataCacheFile.save = save
        caching.IndexDataCacheFile.load = load
        _INSTALLED = True
