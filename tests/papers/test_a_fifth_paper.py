"""A fifth paper is one folder, one registry line and config: on a copy of the repository, a new
package ``papers/paper5`` with one analysis and its claim (``__init__``) and its claim-plan
rule (``plan``) -- and nothing else
edited but the line naming it in ``PAPER_MODULES`` -- is planned by the claim plan and scored into
CLAIMS.md by the workflow."""
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.repo_copy import copy_tracked

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
PAPER5 = '''"""A fifth paper (a test's): one analysis, its claim and its claim-plan rule."""
import pandas as pd

from privrl.papers.analysis import AnalysisResult
from privrl.papers.registry import Paper
from privrl.results import verdicts as V
from privrl.results.claims import claims_frame


def paper5_below_trivial(ctx):
    """Regret at K below the trivial K (a check on the runs: the row is scored from the fits)."""
    f = ctx.fits.iloc[0]
    ok = bool(f["regret_at_K"] <= f["K"])
    claim = V.make_claim("paper5", "Thm 1", f"{ctx.experiment}_below_trivial", "regret at K is below K", "check",
                         ctx.artifact("paper5_below_trivial", "md"),
                         V.score_check(ok, f"regret {f['regret_at_K']:.3g} at K = {f['K']:.3g}"), ctx.experiment,
                         "Fifth et al. 2026, Thm 1")
    table = pd.DataFrame([{"cell": f["cell"], "regret_at_K": f["regret_at_K"], "K": f["K"]}])
    return AnalysisResult(table, "# Paper 5\\n\\n" + table.to_markdown(index=False), None, claims_frame([claim]))


PAPER = Paper(key="paper5", title="A fifth paper", authors=("Fifth",), year=2026, venue="test", link="",
              file="", analyses={"paper5_below_trivial": paper5_below_trivial})
'''
PLAN5 = '''"""The fifth paper's claim-plan rule."""
from privrl.papers.planned import NO_K, ExperimentCells, PlannedClaim


def below_trivial(x: ExperimentCells) -> list[PlannedClaim]:
    return [x.claim("below_trivial", "check", [], NO_K)]


RULES = {"paper5_below_trivial": below_trivial}
'''
DESIGN = """\
results_dir: results/five
figures_dir: results/five/figures
experiments:
  five:
    paper: paper5
    episodes: 300
    seeds: 2
    envs:
      riverswim: {name: riverswim, params: {S: 2, H: 3}}
    cells:
      - {agent: ucbvi, label: UCBVI}
    analyses: [paper5_below_trivial]
"""


@pytest.fixture(scope="module")
def repo_with_a_fifth_paper(tmp_path_factory):
    copy = copy_tracked(tmp_path_factory.mktemp("repo"))
    pkg = copy / "src/privrl/papers/paper5"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(PAPER5)
    (pkg / "plan.py").write_text(PLAN5)
    registry = copy / "src/privrl/papers/registry.py"
    text = registry.read_text()
    line = '    "privrl.papers.cross_paper",\n'
    assert text.count(line) == 1
    registry.write_text(text.replace(line, line + '    "privrl.papers.paper5",\n'))  # the one registry line
    (copy / "five.yaml").write_text(DESIGN)
    env = {**os.environ, "PYTHONPATH": str(copy / "src"), "PRIVRL_CACHE": str(tmp_path_factory.mktemp("numba"))}
    return copy, env


@pytest.mark.slow
def test_a_fifth_paper_is_planned_and_scored(repo_with_a_fifth_paper):
    copy, env = repo_with_a_fifth_paper
    plan = subprocess.run([sys.executable, "-m", "privrl.plan.claims", "--configfile", "five.yaml", "--all"],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert "below_trivial" in plan.stdout and "warning: no claim rule" not in plan.stdout
    assert "1 of 1 planned paper claims in regime" in plan.stdout
    run = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "five.yaml"],
                         cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    claims = pd.read_csv(copy / "results/five/figures/claims.csv")
    row = claims[claims.claim_id == "five_below_trivial"]
    assert len(row) == 1 and row.iloc[0].paper == "paper5" and row.iloc[0].verdict == "checked"
    assert "paper5" in (copy / "results/five/figures/CLAIMS.md").read_text()
