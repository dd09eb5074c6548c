"""The run store trusts no file it did not check (privrl.runs.store): a tampered or truncated shard is
found at start-up and refused by the merge, naming it; a tampered per-seed memo is not used (the
seed is rerun, bit-identical); a cell file whose parquet and JSON hash were both rewritten is
caught against the store; only privrl's own temporaries are ever deleted."""
from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from privrl import io
from privrl.runs import run
from privrl.runs import store

SETTING = "riverswim/ucbvi__bonus_scale=0.1"




def _halve_regret(parquet: Path) -> None:
    df = pd.read_parquet(parquet)
    df["cum_regret"] = df["cum_regret"] / 2  # a halved regret (2012 instead of 4025), self-consistent but not the store's
    df.to_parquet(parquet, index=False)


def test_untouched_store_passes(cell):
    assert store.corrupt_shards(cell["store"], cell["digests"]) == []
    assert store.tampered_cells(cell["res"], cell["store"], cell["plan"]) == []


@pytest.mark.parametrize("damage", ["tampered", "truncated"])
def test_damaged_shard_found_at_startup_and_refused_by_the_merge(cell, tmp_path, damage):
    shard = Path(cell["shards"][1])
    if damage == "tampered":
        _halve_regret(shard)
    else:
        shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    [(path, why)] = store.corrupt_shards(cell["store"], cell["digests"])
    assert path == str(shard) and "\n" not in why and "sha256" in why
    out = tmp_path / "other_results/cell.parquet"  # another results_dir merging the store's shards
    with pytest.raises(io.RunIntegrityError) as e:
        run.merge_shards(cell["shards"], cell["mdp"], cell["cell"], out, out.with_suffix(".json"))
    assert str(e.value).startswith(str(shard)) and "\n" not in str(e.value)
    assert not out.exists()


def test_tampered_memo_is_not_used_the_seed_is_rerun(cell, caplog):
    """Design: a memo is a cache, so a mismatch reruns the seed (bit-identical), naming the file."""
    memo = cell["store"] / "seeds" / f"{run.key_digest(cell['key'], [1])}.parquet"
    assert store.memo_hash_path(memo).read_text().strip() == io.sha256_file(memo)
    honest = pd.read_parquet(memo)
    _halve_regret(memo)
    with caplog.at_level(logging.WARNING, logger="privrl.runs.store"):
        df, info = run.run_shard(cell["key"], cell["m"], [0, 1], str(cell["store"] / "seeds"))
    assert info["reused_seeds"] == [0]  # seed 1 rerun
    assert [r.getMessage() for r in caplog.records if str(memo) in r.getMessage() and "sha256" in r.getMessage()]
    pd.testing.assert_frame_equal(df[df.seed == 1].reset_index(drop=True), honest, check_exact=True)
    assert io.sha256_file(memo) == store.memo_hash_path(memo).read_text().strip()  # rewritten, with its hash


def test_memo_without_a_hash_is_not_trusted(cell):
    memo = cell["store"] / "seeds" / f"{run.key_digest(cell['key'], [0])}.parquet"
    store.memo_hash_path(memo).unlink()  # a writer killed between the two files, or an old store
    assert store.read_memo(memo) is None


@pytest.mark.parametrize("with_record", [True, False])
def test_run_file_and_its_hash_both_rewritten_is_caught_against_the_store(cell, with_record):
    out = cell["out"]
    if not with_record:  # a store written before merges were recorded: compared row for row
        for p in (cell["store"] / store.MERGED_DIR).iterdir():
            if p.is_file():  # (merged/seeds/: the memos' records)
                p.unlink()
    info = json.loads(out.with_suffix(".json").read_text())
    df = pd.read_parquet(out)
    df["cum_regret"] = df["cum_regret"] / 2
    io.write_run(out, out.with_suffix(".json"), df, info)  # consistent: its own hash matches
    assert io.corrupt_run_files(cell["res"]) == []
    [(path, why)] = store.tampered_cells(cell["res"], cell["store"], cell["plan"])
    assert path == str(out) and why.startswith(str(out)) and "\n" not in why


def test_only_privrls_own_temporaries_are_deleted(tmp_path):
    code = ("import os, sys; from privrl import io\n"
            "with io.atomic_path(sys.argv[1]) as t:\n    t.write_text('half'); os._exit(9)\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "x.parquet")], check=False)
    [killed] = [p for p in tmp_path.iterdir()]
    host = io._host()
    # foreign files in the temporary-file pattern (a dead pid, a random 8- or 16-hex token): not privrl's
    foreign = [tmp_path / f".y.parquet.{host}.999999999.deadbeef{io.TEMP_MARK}.parquet",
               tmp_path / f".y.parquet.{host}.999999999.deadbeefdeadbeef{io.TEMP_MARK}.parquet"]
    for f in foreign:
        f.write_text("someone else's")
    assert io.remove_stale_temps(tmp_path) == [killed]
    assert all(f.exists() for f in foreign)


def test_run_file_naming_shards_the_store_lacks_is_caught(cell):
    out = cell["out"]
    info = json.loads(out.with_suffix(".json").read_text())
    df = pd.read_parquet(out)
    df["cum_regret"] = df["cum_regret"] / 2
    io.write_run(out, out.with_suffix(".json"), df, {**info, "shards": ["0" * 20]})
    [(path, why)] = store.tampered_cells(cell["res"], cell["store"], cell["plan"])
    assert path == str(out) and "0" * 20 in why


def test_cell_merged_from_another_shard_set_is_caught(cell):
    """A cell file merged (and recorded) from shards other than the planned ones -- here seed 0's
    shard alone, vouched for by its own merge record -- is not the planned cell: rerun."""
    out = cell["out"]
    run.merge_shards(cell["shards"][:1], cell["mdp"], cell["cell"], out, out.with_suffix(".json"))
    assert store._recorded(store._merged_record(cell["store"], cell["digests"][:1]))  # the store vouches for it
    [(path, why)] = store.tampered_cells(cell["res"], cell["store"], cell["plan"])
    assert path == str(out) and "not the" in why and "config plans" in why and "\n" not in why


def test_merge_record_naming_other_shards_is_caught(cell):
    """A merge record filed under the planned shards' key but naming another shard set vouches for nothing."""
    record = store._merged_record(cell["store"], cell["digests"])
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "shards": [cell["digests"][0]]}))
    [(path, why)] = store.tampered_cells(cell["res"], cell["store"], cell["plan"])
    assert path == str(cell["out"]) and "merge record" in why and "\n" not in why
