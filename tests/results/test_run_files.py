"""Atomic writes (umask permissions, killed-writer temporaries) and run-file integrity: each run
file checked against its metadata (content sha256) and against the config."""
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from privrl import io
from privrl.results.run_files import expected_of, load_runs
from privrl.rl import engine


def _run_frame(seeds=(0, 1), K=300, n=100):
    ck = engine.checkpoints(K, n)
    return pd.concat([pd.DataFrame({"seed": s, "episode": ck, "cum_regret": np.sqrt(ck) * (s + 1),
                                    "cum_aux": 0.0 * ck}) for s in seeds], ignore_index=True)


RECORD = {"cell": "ucbvi__bonus_scale=1", "agent": "ucbvi", "params": {"bonus_scale": 1.0}, "label": "UCBVI",
          "tags": {}, "experiment": "tiny", "setting": "chain/ucbvi__bonus_scale=1", "episodes": 300,
          "seeds": [0, 1], "n_checkpoints": 100}


def _write(tmp_path, df=None, **info):
    p, j = tmp_path / "cell.parquet", tmp_path / "cell.json"
    base = {"agent": "ucbvi", "params": {"bonus_scale": 1.0, "delta": 0.1}, "episodes": 300, "seeds": [0, 1],
            "experiment": "tiny", "setting": RECORD["setting"], "cell": RECORD["cell"], "label": "old label"}
    io.write_run(p, j, _run_frame() if df is None else df, {**base, **info})
    return p, j


def test_outputs_get_the_umask_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        io.write_text(tmp_path / "a.md", "x")
        io.write_parquet(tmp_path / "b.parquet", _run_frame())
    finally:
        os.umask(old)
    assert (tmp_path / "a.md").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "b.parquet").stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.parquet"]  # no temporaries left


def test_killed_writer_leaves_a_temporary_that_cleanup_removes(tmp_path):
    code = ("import os, sys; from privrl import io\n"
            "with io.atomic_path(sys.argv[1]) as t:\n    t.write_text('half'); os._exit(9)\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "sub" / "x.csv")])
    left = list((tmp_path / "sub").iterdir())
    assert len(left) == 1 and left[0].name.startswith(".x.csv.") and io.TEMP_MARK in left[0].name
    with io.atomic_path(tmp_path / "sub" / "live.csv") as live:  # a temp of a live writer (this process)
        (tmp_path / "sub" / "keep.csv").write_text("not a temporary")
        assert io.remove_stale_temps(tmp_path) == left
        assert live.exists() and (tmp_path / "sub" / "keep.csv").exists()
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == ["keep.csv", "live.csv"]


def test_write_run_records_the_content_hash_and_verify_accepts(tmp_path):
    p, j = _write(tmp_path)
    info = json.loads(j.read_text())
    assert info[io.HASH_FIELD] == io.sha256_file(p) and info["code"]
    [(df, got)] = load_runs([p], [{**RECORD, "code": info["code"]}])
    assert len(df) == 2 * len(engine.checkpoints(300, 100))
    assert got["label"] == "UCBVI"  # the config's label, not the one recorded at run time


def test_truncated_run_file_is_refused_and_found(tmp_path):
    p, j = _write(tmp_path)
    st = p.stat()
    p.write_bytes(p.read_bytes()[: st.st_size // 2])
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime kept
    with pytest.raises(io.RunIntegrityError) as e:
        load_runs([p], [RECORD])
    msg = str(e.value)
    assert "\n" not in msg and str(p) in msg and "sha256" in msg and "--forcerun" in msg
    assert [x for x, _ in io.corrupt_run_files(tmp_path)] == [p]


@pytest.mark.parametrize("edit, expect", [
    (lambda df: df[df.seed != 1], "seeds"),                          # a seed dropped
    (lambda df: df.groupby("seed").tail(50), "checkpoints"),         # checkpoints removed
])
def test_consistent_but_wrong_run_file_is_refused(tmp_path, edit, expect):
    """A parquet rewritten with its hash updated still has to match the config."""
    p, j = _write(tmp_path, df=edit(_run_frame()))
    with pytest.raises(io.RunIntegrityError, match=expect) as e:
        load_runs([p], [RECORD])
    assert str(p) in str(e.value) and io.corrupt_run_files(tmp_path) == []


@pytest.mark.parametrize("key, value", [("episodes", 2000), ("seeds", [0, 1, 2]), ("agent", "pucb"),
                                        ("params", {"bonus_scale": 0.5}), ("code", "0123abcd")])
def test_metadata_disagreeing_with_config_is_refused(tmp_path, key, value):
    p, _ = _write(tmp_path)
    with pytest.raises(io.RunIntegrityError, match=key.rstrip("s") if key != "episodes" else "K = 300") as e:
        io.verify_run(p, p.with_suffix(".json"), expected_of({**RECORD, key: value}))
    assert str(e.value).startswith(str(p))


def test_metadata_without_hash_or_unreadable_is_refused(tmp_path):
    p, j = _write(tmp_path)
    info = json.loads(j.read_text())
    del info[io.HASH_FIELD]
    j.write_text(json.dumps(info))
    with pytest.raises(io.RunIntegrityError, match=io.HASH_FIELD):
        load_runs([p], [RECORD])
    j.write_text("{\"agent\": ")
    with pytest.raises(io.RunIntegrityError, match="unreadable metadata"):
        load_runs([p], [RECORD])
    assert [x for x, _ in io.corrupt_run_files(tmp_path)] == [p]
