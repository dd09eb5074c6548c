"""Adding an agent the README's way -- one module plus config -- edits nothing else: on a copy of
the repository with a copy of UCBVI registered as ``ucbvi-copy``, the registry-wide tests pass
(the new agent's contract; its digests and throughput are reported unrecorded, not failed), its
check-agent passes, and a design naming it plans."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.repo_copy import copy_tracked

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
# the registry-wide tests that are not parametrized by agent (each iterates the whole registry)
REGISTRY_WIDE = ("test_every_agent_registers_a_rule", "test_every_agent_parameter_has_a_domain",
                 "test_committed_table_covers_every_agent_of_the_shipped_designs",
                 "test_run_help_lists_defaults_and_choices", "test_no_module_import_cycle_anywhere",
                 "test_agents_import_only_the_door")
DESIGN = """\
results_dir: results/copy
figures_dir: results/copy/figures
experiments:
  mine:
    paper: cross_paper
    episodes: 2000
    seeds: 2
    envs:
      riverswim: {name: riverswim, params: {S: 2, H: 3}}
    cells:
      - {agent: ucbvi, label: "UCBVI"}
      - {agent: ucbvi-copy, label: "my agent"}
"""


@pytest.fixture(scope="module")
def repo_with_a_new_agent(tmp_path_factory):
    copy = copy_tracked(tmp_path_factory.mktemp("repo"))
    module = (ROOT / "src/privrl/agents/ucbvi.py").read_text()
    assert module.count('name="ucbvi"') == 1
    (copy / "src/privrl/agents/ucbvi_copy.py").write_text(module.replace('name="ucbvi"', 'name="ucbvi-copy"'))
    (copy / "mine.yaml").write_text(DESIGN)
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "PRIVRL_CACHE": str(tmp_path_factory.mktemp("numba"))}
    return copy, env


def _run(args, copy, env, timeout=900):
    return subprocess.run(args, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_the_registry_wide_tests_pass_with_a_copy_of_ucbvi(repo_with_a_new_agent):
    copy, env = repo_with_a_new_agent
    expr = " or ".join(("ucbvi-copy",) + REGISTRY_WIDE)
    out = _run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-m", "not slow",
                "-k", expr, "tests"], copy, env)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", out.stdout).group(1))
    assert passed >= len(REGISTRY_WIDE) + 1, out.stdout[-2000:]  # + the new agent's contract
    assert "no recorded digests (privrl check-agent ucbvi-copy --record-digests)" in out.stdout


@pytest.mark.slow
def test_check_agent_passes_and_a_design_naming_it_plans(repo_with_a_new_agent):
    copy, env = repo_with_a_new_agent
    cli = [sys.executable, "-c", "import sys; from privrl.cli.main import main; sys.exit(main(sys.argv[1:]))"]
    out = _run(cli + ["check-agent", "ucbvi-copy", "--no-audit", "--episodes", "40"], copy, env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "the agent contract holds" in out.stdout and "WARN" in out.stdout  # digests and throughput unrecorded
    plan = _run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", "mine.yaml"], copy, env)
    assert plan.returncode == 0, plan.stdout[-2000:] + plan.stderr[-2000:]
    assert "ucbvi-copy" in plan.stdout + plan.stderr
