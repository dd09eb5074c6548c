"""Ways a result was lost or replaced without a word, each reproduced and caught:

1. a ``run_cell`` job killed mid-write in a partial rerun: Snakemake removes the failed job's run
   files, and the next ``snakemake`` found nothing to do (the aggregate and the fit made from the
   cell are up to date; a missing intermediate file is not regenerated for them). The start-up scan
   now reports a planned run file that is missing while a consumer made from it exists, and reruns
   it (and, by Snakemake's own logic, what reads it).
2. a store shard rewritten together with its recorded hash (parquet and JSON consistent) was merged
   into a new results_dir, although the store's merge record for that shard list holds another
   content hash for it. The merge now refuses it, naming the file; the start-up scan reports it and
   reruns it, like a shard that does not match its own hash.

3. a per-seed memo edited together with its ``.sha256`` was reused by a shard rerun (a seed's
   regret halved, rc 0, no message). A memo is now reused only when the store's record of a merge
   that read it (``merged/seeds/<memo>.json``, written by the merge after comparing the memo with
   the shard it merged) holds its hash; otherwise the seed is rerun (bit-identical), named in the log.
4. a ``fit`` job killed mid-write in a rerun after a code edit: Snakemake removes the failed job's
   output, and the next ``snakemake`` (or ``--rerun-incomplete``) found nothing to do, so the edit
   never reached CLAIMS.md. 5. a deleted aggregate or MDP was not rebuilt. The start-up scan now
   forces every planned intermediate that is missing while its inputs and a consumer exist
   (privrl.runs.lost.lost_intermediates). 6. an aggregate or fit edited by hand was trusted by its
   mtime: each now has a record of what it was made from and its sha256, and one that differs is
   rebuilt (privrl.runs.intermediates).

The workflow tests run a tiny design (one env, two cells, no mechanism targets) in a copy of the
workflow (tests/workflow_copy.py), as tests/workflow/test_reruns.py does."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.workflow_copy import job_counts, smoke_mechanisms, workflow_copy

from privrl import io
from privrl.results import run_files
from privrl.rl import envs
from privrl.rl import mdp as mdp_io
from privrl.runs import run, store

ROOT = Path(__file__).resolve().parents[2]
SETTING = "riverswim/ucbvi__bonus_scale=0.1"


# --- the store: a shard edited together with its hash ------------------------------------------



def _rewrite_with_its_hash(parquet: Path, edit=None, **to_parquet) -> None:
    """The parquet rewritten (rows edited by ``edit``) and its JSON's sha256 updated to match."""
    info = json.loads(parquet.with_suffix(".json").read_text())
    df = pd.read_parquet(parquet)
    if edit is not None:
        df = edit(df)
    df.to_parquet(parquet, index=False, **to_parquet)
    info[io.HASH_FIELD] = io.sha256_file(parquet)
    parquet.with_suffix(".json").write_text(json.dumps(info))


def _halve_regret(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(cum_regret=df["cum_regret"] / 2)


def _merge_into_new_results_dir(cell) -> Path:
    out = cell["tmp"] / "new_results/store_test/runs/riverswim/ucbvi__bonus_scale=0.1.parquet"
    run.merge_shards(cell["shards"], cell["mdp"], cell["cell"], out, out.with_suffix(".json"))
    return out


def test_shard_edited_with_its_hash_is_refused_by_a_merge_into_a_new_results_dir(cell):
    shard = Path(cell["shards"][1])
    _rewrite_with_its_hash(shard, _halve_regret)
    assert store.corrupt_shards(cell["store"], cell["digests"]) == []  # its own hash matches
    with pytest.raises(io.RunIntegrityError) as e:
        _merge_into_new_results_dir(cell)
    msg = str(e.value)
    assert msg.startswith(f"{shard}: ") and "\n" not in msg and "merge record" in msg and "--forcerun" in msg
    assert not (cell["tmp"] / "new_results").exists()
    # the start-up scan reports it (and the workflow reruns it: test_..._rerun_at_startup below)
    [(path, why)] = store.unrecorded_shards(cell["store"], cell["plan"])
    assert path == str(shard) and why.startswith(f"{shard}: ") and "\n" not in why


def test_shard_of_a_store_written_before_merge_records_held_shard_hashes_is_checked_against_its_memos(cell):
    """A merge record without shard hashes (written by an earlier privrl): the shards are compared
    row for row with their seeds' memos (each checked against its own sha256)."""
    record = store._merged_record(cell["store"], cell["digests"])
    data = json.loads(record.read_text())
    record.write_text(json.dumps({k: v for k, v in data.items() if k != "shard_sha256"}))
    shard = Path(cell["shards"][0])
    _rewrite_with_its_hash(shard, _halve_regret)
    with pytest.raises(io.RunIntegrityError) as e:
        _merge_into_new_results_dir(cell)
    assert str(e.value).startswith(f"{shard}: ") and "memo" in str(e.value) and "\n" not in str(e.value)


def test_shard_rewritten_with_the_same_rows_is_not_refused(cell):
    """A shard rerun whose bytes differ (another parquet writer, say) but whose rows are its seeds'
    memos is the same result: merged, and its new hash recorded."""
    shard = Path(cell["shards"][1])
    _rewrite_with_its_hash(shard, compression="gzip")
    assert store.unrecorded_shards(cell["store"], cell["plan"]) == []
    out = _merge_into_new_results_dir(cell)
    pd.testing.assert_frame_equal(pd.read_parquet(out), pd.read_parquet(cell["out"]), check_exact=True)
    record = json.loads(store._merged_record(cell["store"], cell["digests"]).read_text())
    assert io.sha256_file(shard) in record["shard_sha256"][cell["digests"][1]]


# --- a per-seed memo edited together with its hash ----------------------------------------------

def test_memo_edited_with_its_hash_is_not_reused_the_seed_is_rerun(cell, caplog):
    """The memo of seed 1 halved and its .sha256 rewritten to match: before, a shard rerun reused it
    (regret 238.5 instead of 477.0, no message)."""
    import logging

    memo = cell["store"] / "seeds" / f"{run.key_digest(cell['key'], [1])}.parquet"
    honest = pd.read_parquet(memo)
    forged = _halve_regret(honest)
    forged.to_parquet(memo, index=False)
    store.memo_hash_path(memo).write_text(io.sha256_file(memo) + "\n")  # self-consistent
    with caplog.at_level(logging.WARNING, logger="privrl.runs.store"):
        df, info = run.run_shard(cell["key"], cell["m"], [0, 1], str(cell["store"] / "seeds"))
    assert info["reused_seeds"] == [0]  # seed 0's memo is the one the merge read: reused; seed 1 rerun
    pd.testing.assert_frame_equal(df[df.seed == 1].reset_index(drop=True), honest, check_exact=True)
    [msg] = [r.getMessage() for r in caplog.records if str(memo) in r.getMessage()]
    assert "\n" not in msg and "merge" in msg
    assert pd.read_parquet(memo).equals(honest)  # rewritten by the rerun
    assert store.read_memo(memo) is not None  # and, being what the merge read, reusable again


def test_memo_never_read_by_a_merge_is_not_reused(cell):
    """A memo no merge has read (a store of an earlier version, a shard job whose cell was never
    merged) vouches for nothing: the seed is rerun, and the memo is reusable once a merge reads it."""
    seeds_dir = cell["store"] / "seeds"
    for p in (cell["store"] / store.MERGED_DIR / store.SEEDS_DIR).iterdir():
        p.unlink()
    df, info = run.run_shard(cell["key"], cell["m"], [0, 1], str(seeds_dir))
    assert info["reused_seeds"] == []
    pd.testing.assert_frame_equal(df, pd.read_parquet(cell["out"]), check_exact=True)


# --- a run file lost while its consumers exist ---------------------------------------------------

def test_run_file_missing_while_its_aggregate_holds_it_is_found(cell, tmp_path):
    parquet = cell["out"]
    agg = tmp_path / "res/store_test/aggregate/riverswim.parquet"
    agg.parent.mkdir(parents=True)
    pd.DataFrame({"episode": [1, 80], "mean": [0.0, 1.0], "cell": [cell["cell"].cell] * 2}).to_parquet(agg)
    new = tmp_path / "res/store_test/runs/riverswim/ucbvi__bonus_scale=0.2.parquet"  # a cell added to the config
    planned = [(cell["cell"].cell, str(parquet), [str(agg)]), ("ucbvi__bonus_scale=0.2", str(new), [str(agg)])]
    assert run_files.lost_run_files(planned) == []
    for lost in (parquet.with_suffix(".json"), parquet):
        lost.unlink()
        [(path, why)] = run_files.lost_run_files(planned)
        assert path == str(parquet) and why.startswith(f"{lost}: missing") and str(agg) in why and "\n" not in why
    agg.unlink()  # no consumer made from it: Snakemake plans it as any missing file
    assert run_files.lost_run_files(planned) == []


# --- the workflow ------------------------------------------------------------------------------

SMOKE_MECHANISMS = smoke_mechanisms()
TINY = {
    "results_dir": "results", "figures_dir": "figures", "n_checkpoints": 100, "bootstrap": {"n": 20},
    "mechanisms": SMOKE_MECHANISMS,
    "experiments": {"tiny": {
        "envs": {"chain": {"name": "riverswim", "params": {"S": 4, "H": 5}}},
        "cells": [{"agent": "ucbvi", "label": "UCBVI x{bonus_scale:g}"}],
        "sweep": {"bonus_scale": [1.0, 0.01]},
        "episodes": 300, "seeds": 2,
    }},
}
CELL = "tiny/runs/chain/ucbvi__bonus_scale=1"


def _targets(results_dir: str = "results") -> list[str]:
    """What reads the run files (no mechanism checks or audits: minutes of compiling)."""
    return [f"{results_dir}/tiny/aggregate/chain.parquet", f"{results_dir}/tiny/fits/chain.csv",
            f"{results_dir}/privacy_manifest.csv"]


def _snakemake(wd: Path, *args: str, configfile: str = "design.yaml", env: dict | None = None, targets=None):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(wd / "Snakefile"), "--directory", str(wd),
           *(targets if targets is not None else _targets()), "--configfile", str(wd / configfile), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)


def _planned(wd: Path, **kw) -> dict:
    """rule -> job count of a dry run (empty when nothing is to be done)."""
    out = _snakemake(wd, "-n", **kw)
    assert out.returncode == 0, out.stderr[-3000:]
    return job_counts(out.stdout + out.stderr)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The tiny design (without its mechanism jobs: minutes of compiling) made once: runs, aggregates,
    fits, privacy manifest, figures, fit table and CLAIMS.md."""
    wd = workflow_copy(tmp_path_factory.mktemp("silent_reference"))
    (wd / "design.yaml").write_text(yaml.safe_dump({k: v for k, v in TINY.items() if k != "mechanisms"},
                                                   sort_keys=False))
    out = _snakemake(wd, "--cores", "2", targets=[])
    assert out.returncode == 0, out.stderr[-4000:]
    return wd


@pytest.fixture
def done(reference, tmp_path):
    wd = tmp_path / "wd"
    shutil.copytree(reference, wd, symlinks=True)
    assert _planned(wd) == {}
    return wd


KILL_HOOK = '''import os
if os.environ.get("PRIVRL_TEST_KILL_AT"):  # SIGKILL a job as it writes the named file
    import signal
    from privrl import io
    _write_json = io.write_json
    def write_json(path, obj):
        if str(path).endswith(os.environ["PRIVRL_TEST_KILL_AT"]):
            os.kill(os.getpid(), signal.SIGKILL)
        return _write_json(path, obj)
    io.write_json = write_json
'''


@pytest.mark.slow  # a tiny design run (~30 s) and five dry or partial runs
def test_run_cell_killed_mid_write_in_a_partial_rerun_is_rerun(done, tmp_path):
    parquet = done / "results" / f"{CELL}.parquet"
    original = parquet.read_bytes()
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(KILL_HOOK)
    env = {**os.environ, "PRIVRL_TEST_KILL_AT": f"{CELL}.json"}
    env["PYTHONPATH"] = ":".join(p for p in (str(hook), env.get("PYTHONPATH", "")) if p)
    # a partial rerun of one cell, whose job is killed between its parquet and its JSON
    killed = _snakemake(done, "--cores", "1", "--forcerun", str(parquet.relative_to(done)), env=env)
    assert killed.returncode != 0 and "SIGKILL" in killed.stderr, killed.stderr[-3000:]
    assert not parquet.exists() and not parquet.with_suffix(".json").exists()  # removed by Snakemake
    # the loss: before the fix, "Nothing to be done"; now the cell and what reads it are planned
    assert _planned(done) == {"run_cell": 1, "aggregate": 1, "fit": 1, "privacy_manifest": 1}
    out = _snakemake(done, "--cores", "1")
    assert out.returncode == 0, out.stderr[-3000:]
    warned = [line for line in out.stderr.splitlines() if line.startswith("privrl: ") and "rerun" in line]
    assert len(warned) == 1 and f"results/{CELL}" in warned[0] and "missing" in warned[0], out.stderr[-3000:]
    assert parquet.read_bytes() == original  # the runs are deterministic
    assert _planned(done) == {}


@pytest.mark.slow  # a tiny design run (~30 s), then a second results_dir
def test_shard_edited_with_its_hash_is_rerun_at_startup_for_a_new_results_dir(done):
    cell_file = done / "results" / f"{CELL}.parquet"
    [digest] = json.loads(cell_file.with_suffix(".json").read_text())["shards"]
    shard = done / "results/store" / f"{digest}.parquet"
    original = shard.read_bytes()
    _rewrite_with_its_hash(shard, _halve_regret)
    (done / "second.yaml").write_text(yaml.safe_dump({"overlay_of": "design.yaml", "results_dir": "results2"}))
    out = _snakemake(done, "--cores", "1", configfile="second.yaml", targets=_targets("results2"))
    assert out.returncode == 0, out.stderr[-3000:]
    warned = [line for line in out.stderr.splitlines() if line.startswith(f"privrl: results/store/{digest}.parquet")]
    assert len(warned) == 1 and "merge record" in warned[0] and warned[0].endswith("it will be rerun"), \
        out.stderr[-3000:]
    assert shard.read_bytes() == original  # rerun: the store's own result again
    assert (done / "results2" / f"{CELL}.parquet").read_bytes() == cell_file.read_bytes()


# --- intermediates lost while their consumers exist -----------------------------------------------

def test_lost_intermediate_is_named_only_when_its_inputs_and_a_consumer_exist(tmp_path):
    from privrl.runs import lost

    made, reads, consumer = tmp_path / "fit.csv", tmp_path / "run.parquet", tmp_path / "fits.md"
    planned = [(str(made), [str(reads)], [str(consumer)])]
    assert lost.lost_intermediates(planned) == []  # a clean clone: nothing made yet
    consumer.write_text("x")
    assert lost.lost_intermediates(planned) == []  # its inputs missing too (a committed figure): Snakemake's
    reads.write_text("x")
    [(path, why)] = lost.lost_intermediates(planned)
    assert path == str(made) and why.startswith(f"{made}: missing") and str(consumer) in why and "\n" not in why
    made.write_text("x")
    assert lost.lost_intermediates(planned) == []


def test_mdp_file_that_is_not_the_plans_mdp_is_named(cell):
    from privrl.runs import lost

    planned = {cell["mdp"]: cell["key"]["mdp"]}
    assert lost.changed_mdps(planned) == []
    mdp_io.save(envs.make("riverswim", S=3, H=5), cell["mdp"])  # another MDP under its name
    [(path, why)] = lost.changed_mdps(planned)
    assert path == cell["mdp"] and cell["key"]["mdp"] in why and "\n" not in why
    Path(cell["mdp"]).write_bytes(b"not an npz")
    assert "unreadable" in lost.changed_mdps(planned)[0][1]


def _warned(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("privrl: ") and "rerun" in line]


LOST = {"results/tiny/aggregate/chain.parquet": "aggregate", "results/tiny/mdp/chain.npz": "mdp",
        "results/tiny/fits/chain.csv": "fit"}


@pytest.mark.slow  # a tiny design run (~40 s), a dry run and a rerun
def test_deleted_aggregate_mdp_and_fit_are_rebuilt(done):
    original = {lost: (done / lost).read_bytes() for lost in LOST}
    for lost in LOST:
        (done / lost).unlink()
    out = _snakemake(done, "-n", targets=[])
    assert out.returncode == 0, out.stderr[-3000:]
    planned = job_counts(out.stdout + out.stderr)
    assert all(planned.get(rule) == 1 for rule in LOST.values()), planned  # before: "Nothing to be done"
    warned = _warned(out.stderr)
    assert len(warned) == 3 and all(any(lost in w and "missing" in w for w in warned) for lost in LOST), warned
    run_ = _snakemake(done, "--cores", "1", targets=[])
    assert run_.returncode == 0, run_.stderr[-3000:]
    assert {lost: (done / lost).read_bytes() for lost in LOST} == original
    assert _planned(done, targets=[]) == {}


KILL_CSV_HOOK = KILL_HOOK + '''    _write_csv = io.write_csv
    def write_csv(path, df):
        if str(path).endswith(os.environ["PRIVRL_TEST_KILL_AT"]):
            os.kill(os.getpid(), signal.SIGKILL)
        return _write_csv(path, df)
    io.write_csv = write_csv
'''


@pytest.mark.slow  # a tiny design run (~40 s), a killed rerun, a dry run and a rerun
def test_fit_killed_mid_write_after_a_code_edit_is_rerun_and_reaches_claims(done, tmp_path):
    ledger = done
    fit = ledger / "results/tiny/fits/chain.csv"
    script = ledger / "workflow/scripts/fit.py"  # an edit that changes the fits (a new column)
    script.write_text(script.read_text().replace("rows.append(row)", "rows.append({**row, 'edited': 1})"))
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(KILL_CSV_HOOK)
    env = {**os.environ, "PRIVRL_TEST_KILL_AT": "fits/chain.csv"}
    env["PYTHONPATH"] = ":".join(p for p in (str(hook), env.get("PYTHONPATH", "")) if p)
    killed = _snakemake(ledger, "--cores", "1", env=env, targets=[])
    assert killed.returncode != 0 and not fit.exists(), killed.stderr[-3000:]  # the fit lost with its job
    # before: "Nothing to be done" (with and without --rerun-incomplete); the edit never reached CLAIMS.md
    planned = _planned(ledger, targets=[])
    assert planned.get("fit") == 1 and planned.get("claims") == 1, planned
    out = _snakemake(ledger, "--cores", "1", "--rerun-incomplete", targets=[])
    assert out.returncode == 0, out.stderr[-3000:]
    assert "edited" in pd.read_csv(fit).columns
    assert (ledger / "figures/CLAIMS.md").stat().st_mtime >= fit.stat().st_mtime  # claims remade after it
    assert _planned(ledger, targets=[]) == {}


# --- an aggregate or fit edited by hand ------------------------------------------------------------

@pytest.mark.slow  # the tiny design's run (shared), two dry runs and a rerun of two jobs
def test_edited_aggregate_and_fit_are_rebuilt_not_trusted(done):
    """An aggregate and a fit rewritten by hand (valid files, other numbers): before, Snakemake
    trusted them by their mtime ("Nothing to be done") and the figures and CLAIMS.md read them. Each
    now carries a record of what it was made from and its sha256 (privrl.runs.intermediates): the
    start-up scan names both and reruns them with what reads them."""
    agg, fit = done / "results/tiny/aggregate/chain.parquet", done / "results/tiny/fits/chain.csv"
    original = {p: p.read_bytes() for p in (agg, fit)}
    table = pd.read_parquet(agg)
    table.assign(mean=table["mean"] / 2).to_parquet(agg, index=False)
    fits = pd.read_csv(fit)
    fits.assign(exponent=fits["exponent"] - 0.2).to_csv(fit, index=False)
    out = _snakemake(done, "-n", targets=[])
    assert out.returncode == 0, out.stderr[-3000:]
    planned = job_counts(out.stdout + out.stderr)
    assert planned.get("aggregate") == 1 and planned.get("fit") == 1 and planned.get("claims") == 1, planned
    warned = _warned(out.stderr)
    assert len(warned) == 2 and all(any(f"results/tiny/{p}" in w and "edited" in w for w in warned)
                                    for p in ("aggregate/chain.parquet", "fits/chain.csv")), warned
    run_ = _snakemake(done, "--cores", "1")  # the two tables only (the figures and claims: as planned above)
    assert run_.returncode == 0, run_.stderr[-3000:]
    assert {p: p.read_bytes() for p in (agg, fit)} == original  # rebuilt from the runs
    assert _planned(done) == {}  # their new records vouch for them
