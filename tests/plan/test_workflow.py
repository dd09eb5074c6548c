"""The workflow's plan of a config (privrl.plan.workflow): shards, store digests, run records, code
digests; what workflow/rules/common.smk hands the rules."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from privrl.design import experiments
from privrl.runs import run
from privrl.rl import envs
from privrl.plan.workflow import WorkflowPlan, stable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke():
    config = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    config["seeds_per_job"] = 2  # several shards per cell
    return config


@pytest.fixture(scope="module")
def plan(smoke):
    return WorkflowPlan(smoke, ROOT)


def test_shards_cover_every_seed_once_aligned_and_named_by_their_run_key(plan, smoke):
    assert set(plan.cell_shards) == {(c.experiment, c.env, c.cell) for c in plan.cells}
    named = [d for ds in plan.cell_shards.values() for d in ds]
    assert sorted(named) == sorted(plan.shards) and len(set(named)) == len(named)
    for c in plan.cells:
        shards = [plan.shards[d] for d in plan.cell_shards[c.experiment, c.env, c.cell]]
        seeds = [s for sh in shards for s in sh["seeds"]]
        assert seeds == experiments.seeds_of(smoke, c.experiment)  # each once, in seed order
        assert all(s // plan.seeds_per_job == sh["seeds"][0] // plan.seeds_per_job for sh in shards for s in sh["seeds"])
        name, params = experiments.env_spec(smoke, c.experiment, c.env)
        key = run.run_key(c.agent, c.params, envs.make(name, **params), smoke["experiments"][c.experiment]["episodes"],
                          c.experiment, c.setting, plan.n_checkpoints, plan.agent_code(c.agent))
        for d, sh in zip(plan.cell_shards[c.experiment, c.env, c.cell], shards):
            assert sh["key"] == key and d == run.key_digest(key, sh["seeds"]) and sh["env"] == [name, params]


def test_run_records_are_plain_data_naming_the_cell(plan, smoke):
    for e, v in plan.exp_envs:
        records = plan.run_records(e, v)
        assert [r["cell"] for r in records] == [c.cell for c in plan.cells_of(e, v)]
        for r, c in zip(records, plan.cells_of(e, v)):
            assert r == json.loads(json.dumps(r))  # what Snakemake's params trigger can compare
            assert (r["agent"], r["setting"], r["label"], r["code"]) == (c.agent, c.setting, c.label,
                                                                         plan.agent_code(c.agent))
            assert r["seeds"] == experiments.seeds_of(smoke, e) and r["n_checkpoints"] == plan.n_checkpoints


def test_stable_is_key_sorted_plain_data():
    x = stable({"b": (1, np.float64(2.5)), "a": {"d": np.int64(3), "c": None}})
    assert x == {"a": {"c": None, "d": 3}, "b": [1, 2.5]} and list(x) == ["a", "b"] and list(x["a"]) == ["c", "d"]
    assert type(x["a"]["d"]) is int and type(x["b"][1]) is float


def test_code_digests_do_not_depend_on_where_the_workflow_lives(plan, smoke, tmp_path):
    shutil.copytree(ROOT / "workflow/scripts", tmp_path / "workflow/scripts")
    moved = WorkflowPlan(smoke, tmp_path)
    assert moved.code_of("aggregate.py") == plan.code_of("aggregate.py")
    assert moved.mdp_code == plan.mdp_code and moved.agent_code("ucbvi") == plan.agent_code("ucbvi")
    (tmp_path / "workflow/scripts/aggregate.py").write_text("# edited\n")
    assert WorkflowPlan(smoke, tmp_path).code_of("aggregate.py") != plan.code_of("aggregate.py")


def test_shard_runtime_limit_doubles_on_each_retry(plan):
    d = next(iter(plan.shards))
    m1 = plan.shard_minutes(d, 1)
    assert m1 >= 5 and plan.shard_minutes(d, 2) in (2 * m1 - 1, 2 * m1, 2 * m1 + 1)


def test_paths_and_report_categories_follow_the_paper_registry(plan, smoke):
    for e in smoke["experiments"]:
        assert plan.paper_dir(e) == f"{plan.figures_dir}/{plan.paper_of[e]}"
        assert plan.experiment_category(e)
    c = plan.theorem_checks[0]
    assert plan.check_path(c, "png").endswith(f"/mechanisms/{c}.png")
