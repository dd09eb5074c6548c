"""A design runs the theorem checks and audits it names (``mechanisms``: checks / audit /
agent_audit), the agent audit of the private agents it runs: a two-cell user config plans no
audit or theorem-check job, and the estimate prices none."""
import subprocess
import sys
from pathlib import Path

import yaml

from privrl.design import experiments
from privrl.plan import cost
from privrl.plan.workflow import WorkflowPlan
from privrl.runs import throughput

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
MECHANISM_RULES = ("theorem_checks", "privacy_audit", "agent_audit", "theorem_claims")


def _two_cells(tmp_path, mechanisms=None):
    cfg = {"results_dir": str(tmp_path / "r"), "figures_dir": str(tmp_path / "r/figures"),
           "store_dir": str(tmp_path / "store"),
           "experiments": {"mine": {"paper": "cross_paper", "episodes": 2000, "seeds": 2,
                                    "envs": {"riverswim": {"name": "riverswim", "params": {"S": 2, "H": 3}}},
                                    "cells": [{"agent": "ucbvi", "params": {"bonus_scale": 1.0}},
                                              {"agent": "pucb", "params": {"epsilon": 1.0}}]}}}
    if mechanisms is not None:
        cfg["mechanisms"] = mechanisms
    return cfg


def test_a_design_without_mechanisms_plans_no_check_or_audit(tmp_path):
    plan = WorkflowPlan(_two_cells(tmp_path), ROOT)
    assert plan.theorem_checks == [] and not plan.mechanism_audit and plan.audited_agents == ()
    assert not plan.mechanism_claims


def test_the_agent_audit_covers_the_private_agents_the_design_runs(tmp_path):
    cfg = _two_cells(tmp_path, {"agent_audit": {"n": 1000}, "checks": {"binary_mechanism": {"T_grid": [64]}}})
    plan = WorkflowPlan(cfg, ROOT)
    assert plan.audited_agents == ("pucb",)  # ucbvi is not private
    assert plan.theorem_checks == ["binary_mechanism"] and not plan.mechanism_audit and plan.mechanism_claims
    assert plan.agent_audit_sizes()["agents"] == ["pucb"]
    listed = _two_cells(tmp_path, {"agent_audit": {"agents": ["ldp-obi"]}})
    assert experiments.audited_agents(listed) == ("ldp-obi",)


def test_the_estimate_prices_only_the_named_jobs(tmp_path):
    table = throughput.load_table()
    bare = _two_cells(tmp_path)
    costs = cost.estimate_cost(bare, table)
    jobs, parts = cost.workflow_jobs(bare, costs, cold=True)
    named = _two_cells(tmp_path, {"audit": {}, "agent_audit": {}})
    jobs2, parts2 = cost.workflow_jobs(named, cost.estimate_cost(named, table), cold=True)
    assert len(jobs2) == len(jobs) + 3  # privacy_audit, agent_audit, theorem_claims
    assert parts2["compile"] > parts["compile"]  # the audited agent's probe, compiled on the cold cache


def test_snakemake_plans_no_mechanism_job_for_a_two_cell_config(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(_two_cells(tmp_path)))
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    stats = out.stdout.split("Job stats:")[1]
    assert "run_shard" in stats and "claims" in stats
    assert not [r for r in MECHANISM_RULES if f"\n{r} " in stats], stats


def test_an_audited_agent_must_be_a_registered_private_agent(tmp_path):
    from privrl.plan.validate import config_errors

    errs = config_errors(_two_cells(tmp_path, {"agent_audit": {"agents": ["pucbb", "ucbvi", "pucb"]}}))
    assert errs[0].startswith("mechanisms.agent_audit.agents: unknown agent 'pucbb'; did you mean 'pucb'?")
    assert errs[1] == "mechanisms.agent_audit.agents: 'ucbvi' is not private (privacy model 'none'): nothing to audit"
    assert len(errs) == 2
