"""``privrl.load(results_dir)``: a results folder (the layout of docs/outputs.md, written here by the
pipeline's own writers from two real UCBVI seeds) read back as tidy frames."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privrl
from privrl import io
from privrl.results import aggregate
from privrl.rl import envs
from privrl.runs import run as runs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    mdp = envs.riverswim(S=2, H=3)
    df = pd.concat([runs.run_seed("ucbvi", {}, mdp, 300, s) for s in (0, 1)], ignore_index=True)
    run_dir = root / "mine" / "runs" / "river"
    io.write_run(run_dir / "ucbvi.parquet", run_dir / "ucbvi.json", df,
                 runs.run_info("ucbvi", {}, mdp, 300, [0, 1], "mine", "river/ucbvi"))
    rng = np.random.default_rng(0)
    io.write_parquet(root / "mine" / "aggregate" / "river.parquet",
                     aggregate.aggregate_cell(df, rng, 50).assign(cell="ucbvi", label="UCBVI", agent="ucbvi"))
    fit = aggregate.fit_cell(df, rng, 1.0, n_boot=50) | {"env": "river", "cell": "ucbvi", "agent": "ucbvi"}
    io.write_csv(root / "mine" / "fits" / "river.csv", pd.DataFrame([fit]))
    (root / "figures").mkdir()
    shutil.copy(ROOT / "paper_figures" / "claims.csv", root / "figures" / "claims.csv")
    return root, df


def test_load_returns_tidy_frames_of_runs_aggregates_fits_and_claims(results):
    root, df = results
    res = privrl.load(root)
    assert list(res.runs.columns[:4]) == ["experiment", "env", "cell", "agent"]
    assert len(res.runs) == len(df) and set(res.runs.seed) == {0, 1}
    assert (res.runs[["experiment", "env", "cell", "agent"]].drop_duplicates().values.tolist()
            == [["mine", "river", "ucbvi", "ucbvi"]])
    np.testing.assert_array_equal(res.runs.cum_regret.to_numpy(), df.cum_regret.to_numpy())
    per_checkpoint = res.runs.groupby(["experiment", "env", "cell", "episode"]).cum_regret.mean()
    np.testing.assert_allclose(per_checkpoint.to_numpy(), res.aggregate["mean"].to_numpy())  # the same curve
    assert list(res.aggregate.columns[:3]) == ["experiment", "env", "cell"]
    assert len(res.fits) == 1 and {"exponent", "regret_at_K", "K"} <= set(res.fits.columns)
    assert len(res.claims) == len(pd.read_csv(ROOT / "paper_figures" / "claims.csv"))
    assert {"verdict", "paper", "item"} <= set(res.claims.columns)
    assert "4 run rows" not in repr(res) and f"{len(df)} run rows" in repr(res)


def test_load_of_a_partial_or_missing_folder(tmp_path):
    res = privrl.load(tmp_path)  # nothing run yet: empty frames with the columns that place a row
    assert res.runs.empty and list(res.runs.columns) == ["experiment", "env", "cell"] and res.claims.empty
    with pytest.raises(ValueError, match="is not a folder"):
        privrl.load(tmp_path / "nothere")
