"""Fixtures of the runs' tests: a cell's store of shards, merged as rule run_cell merges them."""
import pytest

from privrl import io
from privrl.design.experiments import Cell
from privrl.rl import envs
from privrl.rl import mdp as mdp_io
from privrl.runs import run

SETTING = "riverswim/ucbvi__bonus_scale=0.1"


@pytest.fixture
def cell(tmp_path):
    """A store of two one-seed shards of one cell, merged into a results_dir as rule run_cell does."""
    m = envs.make("riverswim", S=3, H=4)
    key = run.run_key("ucbvi", {"bonus_scale": 0.1}, m, 80, "store_test", SETTING, 100, "code0")
    st = tmp_path / "store"
    shards, digests = [], []
    for seeds in ([0], [1]):
        df, info = run.run_shard(key, m, seeds, str(st / "seeds"))
        d = run.key_digest(key, seeds)
        io.write_run(st / f"{d}.parquet", st / f"{d}.json", df, info)
        shards.append(str(st / f"{d}.parquet"))
        digests.append(d)
    mdp_io.save(m, tmp_path / "mdp.npz")
    out = tmp_path / "res/store_test/runs/riverswim/ucbvi__bonus_scale=0.1.parquet"
    c = Cell("store_test", "riverswim", "ucbvi__bonus_scale=0.1", "ucbvi", {"bonus_scale": 0.1}, "x", {})
    run.merge_shards(shards, str(tmp_path / "mdp.npz"), c, out, out.with_suffix(".json"))
    plan = {("store_test", "riverswim", "ucbvi__bonus_scale=0.1"): digests}
    return {"m": m, "key": key, "store": st, "shards": shards, "digests": digests, "out": out, "plan": plan,
            "cell": c, "mdp": str(tmp_path / "mdp.npz"), "res": tmp_path / "res", "tmp": tmp_path}
