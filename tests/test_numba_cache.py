"""numba's on-disk cache under processes that save at once (privrl.numba_cache).

Two processes saving *different* overloads of one cached function interleave their steps: read the
index, write the index, write the data. Under numba's counter scheme an interleaving exists in which
the index points one key at the other key's code (reproduced here with numba's own methods, step by
step); under privrl's digest-named scheme no interleaving of the same steps can: a load returns the
key's own data or nothing (a recompile), never another key's."""
from __future__ import annotations

import itertools
import multiprocessing
import textwrap

from numba.core import caching

from privrl import numba_cache

KEY_A, KEY_B = ("(int64,)", "cpu-a"), ("(float64,)", "cpu-a")


def cache_file(path) -> caching.IndexDataCacheFile:
    path.mkdir(parents=True, exist_ok=True)
    return caching.IndexDataCacheFile(cache_path=str(path), filename_base="kernel-42.py.f", source_stamp="stamp")


def numba_steps(f, key, data):
    """numba's save, step by step: read the index, take the first free counter name, write the index,
    write the data (numba.core.caching.IndexDataCacheFile.save)."""
    seen = {}

    def read():
        seen.update(f._load_index())

    def write_index():
        existing = set(seen.values())
        name = next(f._data_name(i) for i in itertools.count(1) if f._data_name(i) not in existing)
        seen[key] = name
        f._save_index(seen)

    def write_data():
        f._save_data(seen[key], data)
    return [read, write_index, write_data]


def privrl_steps(f, key, data):
    """privrl's save without its lock (a file system with no flock): write the data under the key's
    digest name, read the index, write the index with the entry added."""
    seen = {}
    name = numba_cache.data_name(f, key)

    def write_data():
        f._save_data(name, numba_cache.entry(f, key, data))

    def read():
        seen.update(f._load_index())

    def write_index():
        seen[key] = name
        f._save_index(seen)
    return [write_data, read, write_index]


def interleavings(n: int):
    """Every order of two processes' n steps each (sequences of 0 / 1 naming whose step runs)."""
    for picks in itertools.combinations(range(2 * n), n):
        yield [0 if i in picks else 1 for i in range(2 * n)]


def run_interleaving(tmp_path, steps_of, order, load):
    f_a, f_b = cache_file(tmp_path), cache_file(tmp_path)  # two processes, one cache directory
    steps = [iter(steps_of(f_a, KEY_A, "code of A")), iter(steps_of(f_b, KEY_B, "code of B"))]
    for who in order:
        next(steps[who])()
    reader = cache_file(tmp_path)
    return load(reader, KEY_A), load(reader, KEY_B)


def test_numba_counter_scheme_can_point_a_key_at_another_keys_code(tmp_path):
    misdirected = []
    for i, order in enumerate(interleavings(3)):
        got = run_interleaving(tmp_path / str(i), numba_steps, order, numba_cache.NUMBA_LOAD)
        if got[0] == "code of B" or got[1] == "code of A":
            misdirected.append(order)
    assert misdirected, "the race this module exists for should be reproducible with numba's own scheme"


def test_digest_names_never_misdirect_under_any_interleaving(tmp_path):
    for i, order in enumerate(interleavings(3)):
        a, b = run_interleaving(tmp_path / str(i), privrl_steps, order, numba_cache.load)
        assert a in ("code of A", None) and b in ("code of B", None), order


def test_locked_saves_keep_both_entries(tmp_path):
    numba_cache.save(cache_file(tmp_path), KEY_A, "code of A")
    numba_cache.save(cache_file(tmp_path), KEY_B, "code of B")
    reader = cache_file(tmp_path)
    assert (numba_cache.load(reader, KEY_A), numba_cache.load(reader, KEY_B)) == ("code of A", "code of B")


def test_a_data_file_holding_another_key_or_stamp_is_a_miss(tmp_path):
    f = cache_file(tmp_path)
    numba_cache.save(f, KEY_A, "code of A")
    # as if two keys had shared a name: B's entry in A's file
    f._save_data(numba_cache.data_name(f, KEY_A), numba_cache.entry(f, KEY_B, "code of B"))
    assert numba_cache.load(cache_file(tmp_path), KEY_A) is None
    other = caching.IndexDataCacheFile(cache_path=str(tmp_path), filename_base="kernel-42.py.f", source_stamp="edited")
    f._save_data(numba_cache.data_name(f, KEY_A), numba_cache.entry(other, KEY_A, "code of the old source"))
    assert numba_cache.load(cache_file(tmp_path), KEY_A) is None


def test_a_corrupt_index_is_rewritten_by_the_next_save(tmp_path):
    f = cache_file(tmp_path)
    (tmp_path / "kernel-42.py.f.nbi").write_bytes(b"\x80\x04garbage")
    assert numba_cache.load(f, KEY_A) is None
    numba_cache.save(f, KEY_A, "code of A")
    assert numba_cache.load(cache_file(tmp_path), KEY_A) == "code of A"


def test_an_entry_of_the_counter_scheme_or_a_truncated_file_is_a_miss(tmp_path):
    numba_cache.NUMBA_SAVE(cache_file(tmp_path), KEY_A, "code of A")  # written by a plain numba
    assert numba_cache.load(cache_file(tmp_path), KEY_A) is None
    f = cache_file(tmp_path / "t")
    numba_cache.save(f, KEY_B, "code of B")
    (tmp_path / "t" / numba_cache.data_name(f, KEY_B)).write_bytes(b"\x80\x04")  # cut mid-write
    assert numba_cache.load(cache_file(tmp_path / "t"), KEY_B) is None


def test_installed_in_every_process_that_imports_the_kernels():
    import privrl.rl.engine  # noqa: F401

    assert caching.IndexDataCacheFile.save is numba_cache.save
    assert caching.IndexDataCacheFile.load is numba_cache.load


KERNEL = textwrap.dedent("""\
    from numba import njit

    @njit(cache=True)
    def twice(x):
        return x + x
""")


def _compile(module_dir, cache_dir, value, queue):
    import os
    import sys

    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    os.environ["PRIVRL_KEEP_NUMBA_CACHE_DIR"] = "1"  # privrl keeps this cache directory
    sys.path.insert(0, module_dir)
    from numba.core import config

    config.reload_config()
    import privrl.rl  # noqa: F401  (installs privrl.numba_cache)
    import racekernel

    result = racekernel.twice(value)
    queue.put((repr(result), sum(racekernel.twice.stats.cache_hits.values())))


def _run(ctx, queue, *args):
    procs = [ctx.Process(target=_compile, args=(*a, queue)) for a in args]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        if p.is_alive():
            p.terminate()
    return sorted(queue.get(timeout=5) for _ in procs)


def test_processes_compiling_two_signatures_at_once_load_their_own(tmp_path):
    """Two processes compile int and float overloads of one cached function at once; two more load them."""
    (tmp_path / "racekernel.py").write_text(KERNEL)
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    where = (str(tmp_path), str(tmp_path / "cache"))
    assert [r for r, _ in _run(ctx, queue, (*where, 3), (*where, 1.5))] == ["3.0", "6"]
    assert _run(ctx, queue, (*where, 2)) == [("4", 1)]  # loaded from the cache (one hit), its own code
    assert _run(ctx, queue, (*where, 2.25)) == [("4.5", 1)]
