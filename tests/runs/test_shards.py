"""Seeds as shards and the content-addressed run store (privrl.runs.run; workflow/rules/runs.smk)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privrl import io
from privrl.runs import run
from privrl.design.experiments import Cell
from privrl.rl import envs, mdp as mdp_io

ROOT = Path(__file__).resolve().parents[2]


def test_seed_shards_are_aligned_and_stable():
    assert run.seed_shards(range(5), 2) == [[0, 1], [2, 3], [4]]
    assert run.seed_shards(range(6), 2)[:2] == run.seed_shards(range(5), 2)[:2]
    assert run.seed_shards(range(3), 10) == [[0, 1, 2]]
    with pytest.raises(ValueError):
        run.seed_shards(range(3), 0)


def _key(agent, params, m, K, setting="riverswim/x"):
    return run.run_key(agent, params, m, K, "shards_test", setting, 100, "code0")


def test_key_digest_changes_with_what_determines_the_run():
    m = envs.make("riverswim", S=3, H=4)
    base = _key("ucbvi", {"bonus_scale": 0.1}, m, 100)
    d = run.key_digest(base, [0, 1])
    assert run.key_digest(_key("ucbvi", {"bonus_scale": 0.1, "delta": 0.05}, m, 100), [0, 1]) == d  # default spelled out
    others = [_key("ucbvi", {"bonus_scale": 0.2}, m, 100), _key("ucbvi", {"bonus_scale": 0.1}, m, 101),
              _key("ucbvi", {"bonus_scale": 0.1}, envs.make("riverswim", S=4, H=4), 100),
              _key("ucbvi", {"bonus_scale": 0.1}, m, 100, setting="riverswim/y"), {**base, "code": "code1"}]
    assert len({run.key_digest(k, [0, 1]) for k in others} | {d, run.key_digest(base, [0])}) == len(others) + 2


@pytest.mark.parametrize("agent,params,K,n_seeds,per_job", [
    ("ucbvi", {"bonus_scale": 0.1}, 60, 5, 2),
    ("ucbvi", {"bonus_scale": 0.1}, 300, 3, 1),
    ("pucb", {"epsilon": 1.0}, 200, 4, 3),
    ("dp-ucbvi-jdp", {"epsilon": 5.0}, 150, 3, 5),
])
def test_sharded_merge_is_bit_identical_to_one_job(tmp_path, agent, params, K, n_seeds, per_job):
    m = envs.make("riverswim", S=3, H=4)
    key = _key(agent, params, m, K)
    whole, _ = run.run(agent, params, m, K, range(n_seeds), "shards_test", "riverswim/x", n_checkpoints=100)
    shard_paths = []
    for i, seeds in enumerate(run.seed_shards(range(n_seeds), per_job)):
        df, info = run.run_shard(key, m, seeds, str(tmp_path / "seeds"))
        p = tmp_path / f"shard{i}.parquet"
        io.write_run(p, p.with_suffix(".json"), df, info)  # as rule run_shard: the JSON records the sha256
        shard_paths.append(str(p))
    mdp_io.save(m, tmp_path / "mdp.npz")
    cell = Cell("shards_test", "riverswim", "x", agent, params, "x", {})
    run.merge_shards(shard_paths, str(tmp_path / "mdp.npz"), cell, tmp_path / "cell.parquet", tmp_path / "cell.json")
    merged = pd.read_parquet(tmp_path / "cell.parquet")
    pd.testing.assert_frame_equal(merged, whole, check_exact=True)
    whole.to_parquet(tmp_path / "whole.parquet", index=False)
    assert (tmp_path / "whole.parquet").read_bytes() == (tmp_path / "cell.parquet").read_bytes()
    info = json.loads((tmp_path / "cell.json").read_text())
    assert info["seeds"] == list(range(n_seeds)) and info["agent"] == agent and info["episodes"] == K
    assert info["params"] == run.get_agent(agent).resolve(params)
    # a grown shard reruns only its new seed; the rows are the same
    grown, ginfo = run.run_shard(key, m, list(range(n_seeds + 1)), str(tmp_path / "seeds"))
    assert ginfo["reused_seeds"] == list(range(n_seeds))
    pd.testing.assert_frame_equal(grown[grown.seed < n_seeds].reset_index(drop=True), whole, check_exact=True)


def _dry_run(workdir: Path, seeds: int, per_job: int, target: str) -> dict[str, int]:
    """Job counts of `snakemake -n` on a one-cell design with ``seeds`` seeds."""
    cfg = {"overlay_of": "config/config.yaml", "results_dir": "res", "figures_dir": "res/figures",
           "store_dir": "store", "seeds_per_job": per_job, "n_checkpoints": 100,
           "experiments": {name: None for name in ("regret_vs_K", "garcelon_table1", "rlsvi_regret",
                                                   "rlsvi_matched")}}
    cfg["experiments"]["ucbvi_constant"] = {"episodes": 60, "seeds": seeds, "cells": [{"agent": "ucbvi"}],
                                            "sweep": {"bonus_scale": [0.1]}, "claims": []}  # RiverSwim S=6 H=20
    (workdir / "c.yaml").write_text(yaml.safe_dump(cfg))
    out = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(workdir),
                          "--configfile", str(workdir / "c.yaml"), "--cores", "1", "-n", target],
                         capture_output=True, text=True, check=True).stdout
    counts, on = {}, False
    for line in out.splitlines():
        if line.startswith("job ") and "count" in line:
            on = True
        elif on and line.strip() and not line.startswith("-"):
            name, _, n = line.split()[0], None, line.split()[-1]
            if name == "total":
                break
            counts[name] = int(n)
    return counts


def test_adding_a_seed_plans_only_the_new_seeds_shard(tmp_path):
    target = "res/ucbvi_constant/runs/riverswim/ucbvi__bonus_scale=0.1.parquet"
    subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "-d", str(tmp_path),
                    "--configfile", str(tmp_path / "c.yaml"), "--cores", "1", target], check=True,
                   capture_output=True) if _dry_run(tmp_path, 4, 2, target) == {"mdp": 1, "run_shard": 2, "run_cell": 1} \
        else pytest.fail("unexpected first plan")
    assert _dry_run(tmp_path, 4, 2, target) == {}
    assert _dry_run(tmp_path, 5, 2, target) == {"run_shard": 1, "run_cell": 1}  # seeds 0-3 kept
    assert _dry_run(tmp_path, 6, 2, target) == {"run_shard": 1, "run_cell": 1}
