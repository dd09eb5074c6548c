"""The run store trusts no file it did not check: shards, per-seed memos and merged cells.

The store (``store_dir``, README "Results keyed by content") holds three kinds of files, each
checked against a sha256 recorded when privrl wrote it:

* a shard ``<digest>.parquet`` and its ``<digest>.json`` (``results_sha256``, io.write_run):
  at start-up every shard the DAG plans is hashed (:func:`corrupt_shards`); a truncated or edited
  one is reported and rerun by the same invocation (like a corrupt run file of a results_dir),
  and the merge verifies each shard again before reading it (:func:`verified_shard`): a shard
  changed after start-up is refused, naming the file.
* a per-seed memo ``seeds/<digest>.parquet`` and its ``seeds/<digest>.sha256`` (written after
  the parquet, :func:`write_memo`): a memo whose content does not match, or that has no hash (a
  writer killed between the two files, a store of an earlier version), is not used: the seed is
  rerun (bit-identical) and the memo rewritten, with a warning naming the file in the job's log
  (:func:`read_memo`). Memos are a cache, so a rerun, not a refusal.
* ``merged/<sha256 of the shard list>.json``: the sha256 of every cell file a merge wrote from
  exactly those shards (:func:`record_merge`). A cell file of a results_dir whose parquet and
  JSON were both rewritten (so that its own hash matches) is caught against it at start-up
  (:func:`tampered_cells`): its hash is not one the store recorded for its shards, or the shards
  its metadata or its merge record names are not the ones the config plans. It is reported and rerun.
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


def read_memo(memo: str | os.PathLike):
    """One seed's rows from the memo, or None (the seed is to be run) when there is none or it
    does not match its recorded sha256 (logged, naming the file)."""
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
    return pd.read_parquet(memo)


# --- merged cells ----------------------------------------------------------------------------

def _merged_record(store: str | os.PathLike, shard_digests: list[str]) -> Path:
    key = hashlib.sha256(json.dumps(list(shard_digests)).encode()).hexdigest()[:20]
    return Path(store, MERGED_DIR, f"{key}.json")


def _recorded(record: Path) -> list[str]:
    try:
        return list(json.loads(record.read_text())["results_sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return []


def record_merge(store: str | os.PathLike, shard_digests: list[str], results_sha256: str) -> None:
    """Record in the store that a merge of exactly these shards wrote a cell file of this sha256."""
    record = _merged_record(store, shard_digests)
    known = _recorded(record)
    if results_sha256 not in known:
        io.write_json(record, {"shards": list(shard_digests), "results_sha256": known + [results_sha256]})


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
