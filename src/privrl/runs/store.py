"""The run store trusts no file it did not check: shards, per-seed memos and merged cells.

The store (``store_dir``, README "Results keyed by content") holds three kinds of files, each
checked against a sha256 recorded when privrl wrote it:

* a shard ``<digest>.parquet`` and its ``<digest>.json`` (``results_sha256``, io.write_run):
  at start-up every shard the DAG plans is hashed (:func:`corrupt_shards`); a truncated or edited
  one is reported and rerun by the same invocation (like a corrupt run file of a results_dir),
  and the merge verifies each shard again before reading it (:func:`verified_shard`): a shard
  changed after start-up is refused, naming the file. A shard rewritten together with its JSON
  (so that its own hash matches) is caught against its cell's merge record (below), which holds
  the sha256 of every shard a merge read: one whose hash the record does not hold, and whose rows
  are not its seeds' memos (a rerun writing the same rows in other bytes), is reported at start-up
  and rerun (:func:`unrecorded_shards`), and refused by a merge, naming the file
  (:func:`vouch_for_shards`). A record of an earlier version holds no shard hashes: its shards are
  compared with their memos by the merge only, and their hashes recorded.
* a per-seed memo ``seeds/<digest>.parquet`` and its ``seeds/<digest>.sha256`` (written after
  the parquet, :func:`write_memo`): a memo whose content does not match, or that has no hash (a
  writer killed between the two files, a store of an earlier version), is not used: the seed is
  rerun (bit-identical) and the memo rewritten, with a warning naming the file in the job's log
  (:func:`read_memo`). Memos are a cache, so a rerun, not a refusal. A memo's own ``.sha256``
  cannot prove it (an editor rewrites both), so a memo is reused only when its hash is also in
  ``merged/seeds/<digest>.json``, which a merge writes after comparing the memo row for row with
  the seed's rows in the shard it merged (:func:`vouch_for_memos`): a memo edited with its hash, or
  one no merge has read, is not reused and the seed is rerun, named in the log.
* ``merged/<sha256 of the shard list>.json``: the sha256 of every cell file a merge wrote from
  exactly those shards, and of every shard it read (:func:`record_merge`). A cell file of a
  results_dir whose parquet and JSON were both rewritten (so that its own hash matches) is caught
  against it at start-up (:func:`tampered_cells`): its hash is not one the store recorded for its
  shards, or the shards its metadata or its merge record names are not the ones the config plans.
  It is reported and rerun.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from privrl import io

log = logging.getLogger(__name__)
MEMO_HASH_SUFFIX = ".sha256"
MERGED_DIR = "merged"
SEEDS_DIR = "seeds"  # the per-seed memos (rule run_shard's seed_store)


def key_digest(key: Mapping[str, Any], seeds: Iterable[int]) -> str:
    """sha256 (20 hex) of a run key and a seed list: the store name of those seeds' results."""
    text = json.dumps({**key, "seeds": [int(s) for s in seeds]}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


# --- shards --------------------------------------------------------------------------------

def verified_shard(parquet: str | os.PathLike) -> dict:
    """A shard's run info, after checking its parquet against the sha256 in its JSON; raises
    io.RunIntegrityError naming the file otherwise."""
    return io.read_run_info(parquet, Path(parquet).with_suffix(".json"))


def corrupt_shards(store: str | os.PathLike, digests: Iterable[str]) -> list[tuple[str, str]]:
    """(parquet path, problem) of every shard of ``digests`` present in ``store`` whose content
    no longer matches its recorded sha256 (a shard whose JSON is missing is Snakemake's
    incomplete output, not listed)."""
    out = []
    for d in digests:
        parquet = Path(store, f"{d}.parquet")
        if parquet.exists() and parquet.with_suffix(".json").exists():
            try:
                verified_shard(parquet)
            except io.RunIntegrityError as e:
                out.append((str(parquet), str(e)))
    return out


# --- per-seed memos --------------------------------------------------------------------------

def memo_hash_path(memo: str | os.PathLike) -> Path:
    return Path(memo).with_suffix(MEMO_HASH_SUFFIX)


def write_memo(memo: str | os.PathLike, df) -> None:
    """File one seed's rows (atomically), then their sha256 next to them."""
    io.write_text(memo_hash_path(memo), io.write_parquet(memo, df) + "\n")


def memo_voucher_path(memo: str | os.PathLike) -> Path:
    """The store's record of the content hashes a merge read for one memo:
    ``<store>/merged/seeds/<digest>.json`` (``<store>/seeds/<digest>.parquet`` the memo)."""
    memo = Path(memo)
    return memo.parent.parent / MERGED_DIR / SEEDS_DIR / f"{memo.stem}.json"


def _vouched_memo_hashes(memo: str | os.PathLike) -> list[str]:
    try:
        held = json.loads(memo_voucher_path(memo).read_text())["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [h for h in held if isinstance(h, str)] if isinstance(held, list) else []


def read_memo(memo: str | os.PathLike, vouched: bool = True):
    """One seed's rows from the memo, or None (the seed is to be run) when there is none, it does
    not match its recorded sha256, or (``vouched``) its hash is not one a merge read
    (:func:`memo_voucher_path`): each logged, naming the file."""
    import pandas as pd

    memo = Path(memo)
    if not memo.exists():
        return None
    try:
        want = memo_hash_path(memo).read_text().strip()
    except OSError:
        log.warning("%s: per-seed memo without a recorded sha256: not used, the seed is rerun", memo)
        return None
    have = io.sha256_file(memo)
    if have != want:
        log.warning("%s: per-seed memo content sha256 %s != %s recorded in %s (truncated or edited): "
                    "not used, the seed is rerun", memo, have[:12], want[:12], memo_hash_path(memo))
        return None
    if vouched and have not in _vouched_memo_hashes(memo):
        log.warning("%s: per-seed memo content sha256 %s is not one a merge read (%s; memo and its hash both "
                    "edited, or never merged): not used, the seed is rerun", memo, have[:12],
                    memo_voucher_path(memo))
        return None
    return pd.read_parquet(memo)


def vouch_for_memos(store: str | os.PathLike, infos: list[Mapping[str, Any]], frames: list) -> None:
    """After a merge read these shards (``infos`` their run info, ``frames`` their rows, each shard
    already checked): record, for every seed whose memo matches its own sha256 and holds exactly
    the seed's rows in its shard, the memo's sha256 in :func:`memo_voucher_path`. A memo is reused
    by a shard job only then (:func:`read_memo`)."""
    for info, df in zip(infos, frames):
        key, seeds = info.get("key"), info.get("seeds")
        if not isinstance(key, dict) or not isinstance(seeds, list) or "seed" not in df:
            continue
        for s in seeds:
            memo = Path(store, SEEDS_DIR, f"{key_digest(key, [s])}.parquet")
            want = read_memo(memo, vouched=False)
            if want is None:
                continue
            have = df[df["seed"] == s].reset_index(drop=True)
            if have.shape != want.shape or list(have.columns) != list(want.columns) or not have.equals(want):
                log.warning("%s: per-seed memo rows differ from seed %s's rows in its shard: not vouched for", memo, s)
                continue
            h = memo_hash_path(memo).read_text().strip()
            held = _vouched_memo_hashes(memo)
            if h not in held:
                io.write_json(memo_voucher_path(memo), {"memo": memo.name, "sha256": held + [h]})


# --- merged cells ----------------------------------------------------------------------------

def _merged_record(store: str | os.PathLike, shard_digests: list[str]) -> Path:
    key = hashlib.sha256(json.dumps(list(shard_digests)).encode()).hexdigest()[:20]
    return Path(store, MERGED_DIR, f"{key}.json")


def _recorded(record: Path) -> list[str]:
    try:
        return list(json.loads(record.read_text())["results_sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _held(record: Path) -> dict[str, list[str]] | None:
    """shard digest -> the content sha256s a merge record holds for it (None: no record, or one of
    an earlier version, which holds none)."""
    try:
        held = json.loads(record.read_text())["shard_sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(held, dict):
        return None
    return {str(d): [h for h in v if isinstance(h, str)] for d, v in held.items() if isinstance(v, list)}


def record_merge(store: str | os.PathLike, shard_digests: list[str], results_sha256: str,
                 shard_sha256: Mapping[str, str] | None = None) -> None:
    """Record in the store that a merge of exactly these shards wrote a cell file of this sha256,
    reading shards of these sha256s (digest -> sha256)."""
    record = _merged_record(store, shard_digests)
    known, held = _recorded(record), _held(record) or {}
    grown = {d: list(v) for d, v in held.items()}
    for d, h in (shard_sha256 or {}).items():
        if h not in grown.setdefault(d, []):
            grown[d].append(h)
    if results_sha256 not in known or grown != held:
        io.write_json(record, {"shards": list(shard_digests), "shard_sha256": grown,
                               "results_sha256": known + ([] if results_sha256 in known else [results_sha256])})


def vouch_for_shards(store: str | os.PathLike, shard_paths: list[str], infos: list[Mapping[str, Any]]) -> None:
    """Raise io.RunIntegrityError naming the first shard (each already checked against its own hash,
    ``infos`` its run info) that the store's merge record for these shards does not vouch for
    (:func:`_shard_disagrees`); a shard list never merged has nothing to compare against."""
    digests = [str(i.get("digest")) for i in infos]
    record = _merged_record(store, digests)
    if not record.exists():
        return
    held = _held(record)
    for parquet, info in zip(shard_paths, infos):
        why = _shard_disagrees(Path(parquet), info, store, record,
                               None if held is None else held.get(str(info.get("digest")), []))
        if why is not None:
            raise io.RunIntegrityError(f"{parquet}: {why}; regenerate it with: snakemake --forcerun {parquet}")


def unrecorded_shards(store: str | os.PathLike,
                      cell_shards: Mapping[tuple[str, str, str], list[str]]) -> list[tuple[str, str]]:
    """(parquet path, problem) of every planned shard whose content is not what the merge record of
    its cell's shard list holds for it, nor its seeds' memos in other bytes: a shard rewritten with
    its JSON after a merge read it. At start-up, so cheap: one small JSON per merged cell and per
    shard, the shard's own hash as its JSON records it (a shard that does not match its JSON is
    :func:`corrupt_shards`'), its memos read only when that hash is not the record's. Cells never
    merged, or whose record holds no shard hashes (an earlier version), are the merge's to check."""
    out = []
    for digests in cell_shards.values():
        record = _merged_record(store, list(digests))
        held = _held(record)
        if not held:
            continue
        for d in digests:
            parquet = Path(store, f"{d}.parquet")
            try:
                info = json.loads(parquet.with_suffix(".json").read_text())
            except (OSError, ValueError):
                continue  # not there (Snakemake's to run) or unreadable (corrupt_shards')
            if not isinstance(info, dict) or not parquet.exists():
                continue
            why = _shard_disagrees(parquet, info, store, record, held.get(d, []))
            if why is not None:
                out.append((str(parquet), f"{parquet}: {why}; regenerate it with: snakemake --forcerun {parquet}"))
    return out


def _shard_disagrees(parquet: Path, info: Mapping[str, Any], store, record: Path,
                     held: list[str] | None) -> str | None:
    """Why a merge record does not vouch for a shard whose own hash matches (``held``: the
    sha256s the record holds for it, None for a record of an earlier version), or None. A hash
    the record holds vouches for it; so do rows equal to its seeds' memos (each checked against
    its own sha256): a rerun that wrote the same rows in other bytes."""
    have = info.get(io.HASH_FIELD)
    if held and have in held:
        return None
    rows, compared = _rows_unlike_memos(parquet, info, store)
    if rows is None or not (held or compared):  # same rows; or an earlier record and nothing to compare with
        return None
    if held:
        return (f"content sha256 {str(have)[:12]} is not the {', '.join(h[:12] for h in held)} the store's merge "
                f"record {record} holds for it, and {rows} (shard and metadata both edited?)")
    return f"{rows} (shard and metadata both edited?)"


def _rows_unlike_memos(parquet: Path, info: Mapping[str, Any], store) -> tuple[str | None, bool]:
    """(why a shard's rows are not its seeds' memos in ``store/seeds``, or None if they are;
    whether memos were there to compare with)."""
    import pandas as pd

    key, seeds = info.get("key"), info.get("seeds")
    if not isinstance(key, dict) or not isinstance(seeds, list) or not seeds:
        return "no memo to compare it with (its metadata names no run key and seeds)", False
    try:
        df = pd.read_parquet(parquet)
    except Exception as e:  # noqa: BLE001 (any reader error: not vouched for)
        return f"it is unreadable ({type(e).__name__})", True
    if "seed" not in df or sorted(int(x) for x in df["seed"].unique()) != sorted(int(x) for x in seeds):
        return f"its rows are not of the seeds {seeds} its metadata names", True
    for s in seeds:
        memo = Path(store, SEEDS_DIR, f"{key_digest(key, [s])}.parquet")
        want = read_memo(memo)  # None: absent, or not its recorded sha256 (logged)
        if want is None:
            return f"no memo to compare it with (seed {s}: {memo} missing or not its recorded sha256)", False
        have = df[df["seed"] == s].reset_index(drop=True)
        if have.shape != want.shape or list(have.columns) != list(want.columns) or not have.equals(want):
            return f"its seed {s} rows differ from that seed's memo {memo}", True
    return None, True


def store_of(shard_paths: list[str]) -> Path | None:
    """The store directory of a merge's shards."""
    return Path(shard_paths[0]).parent if shard_paths else None


def tampered_cells(results_dir: str | os.PathLike, store: str | os.PathLike,
                   cell_shards: Mapping[tuple[str, str, str], list[str]]) -> list[tuple[str, str]]:
    """(parquet path, problem) of every cell file ``<results_dir>/<experiment>/runs/<env>/<cell>.parquet``
    of ``cell_shards`` ((experiment, env, cell) -> the shard digests the config plans for it) whose
    own hash matches (else io.corrupt_run_files reports it) but that the store does not vouch for:
    its JSON names no shards, or its sha256 is not one the store recorded for a merge of the shards
    it names.
    A cell without a store record (a store of an earlier version) is compared row for row with
    its shards, when they are all present."""
    out = []
    for (experiment, env, cell), digests in cell_shards.items():
        parquet = Path(results_dir, experiment, "runs", env, f"{cell}.parquet")
        if not parquet.exists() or not parquet.with_suffix(".json").exists():
            continue
        try:
            info = io.read_run_info(parquet, parquet.with_suffix(".json"))
        except io.RunIntegrityError:
            continue  # reported by io.corrupt_run_files
        why = _store_disagrees(parquet, info, store, list(digests))
        if why is not None:
            out.append((str(parquet), f"{parquet}: {why}; regenerate it with: snakemake --forcerun {parquet}"))
    return out


def _record_shards(record: Path) -> list[str] | None:
    """The shard digests a merge record names (None if unreadable)."""
    try:
        shards = json.loads(record.read_text())["shards"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return list(shards) if isinstance(shards, list) else None


def _names(digests: list) -> str:
    return "[" + ", ".join(str(d) for d in digests) + "]"


def _store_disagrees(parquet: Path, info: Mapping[str, Any], store, planned: list[str]) -> str | None:
    """Why the store does not vouch for a cell file whose own hash matches, or None. The shards its
    metadata names and those its merge record names must both be the shards the config plans
    (a cell merged from another shard set -- other seeds, another key -- is rerun, not trusted)."""
    digests = info.get("shards")
    if not (isinstance(digests, list) and digests and all(isinstance(d, str) for d in digests)):
        return f"its metadata names no shards (the config plans {_names(planned)})"
    if digests != planned:
        return f"its metadata names shards {_names(digests)}, not the {_names(planned)} the config plans"
    record = _merged_record(store, planned)
    known = _recorded(record)
    if known:
        named = _record_shards(record)
        if named != planned:
            return (f"the store's merge record {record} names shards {_names(named or [])}, not the "
                    f"{_names(planned)} the config plans")
        if info[io.HASH_FIELD] in known:
            return None
        return (f"content sha256 {info[io.HASH_FIELD][:12]} is not what the store recorded for its shards "
                f"({', '.join(k[:12] for k in known)}; run file and metadata both edited?)")
    shards = [Path(store, f"{d}.parquet") for d in digests]
    if not all(p.exists() for p in shards):  # nothing to compare against: the planned shards are yet to run
        return None
    import pandas as pd

    try:
        want = pd.concat([pd.read_parquet(p) for p in shards], ignore_index=True)
        have = pd.read_parquet(parquet)
    except Exception as e:  # noqa: BLE001 (any reader error: not vouched for)
        return f"unreadable against its shards ({type(e).__name__})"
    if have.shape != want.shape or list(have.columns) != list(want.columns) or not have.equals(want):
        return "rows differ from its shards in the store (run file and metadata both edited?)"
    return None
