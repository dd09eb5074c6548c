"""The paper registry: records of the papers, and a new paper's table and theorem check reach the
analysis registry and the workflow's target lists by writing one module and registering it."""
import os
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml

from privrl.design import experiments
from privrl.plan.workflow import WorkflowPlan

from privrl.papers import registry

ROOT = Path(__file__).resolve().parents[2]
PAPERS_DIR = Path(os.environ.get("PRIVRL_PAPERS", ROOT.parent / "shared" / "papers"))  # the papers' texts

TOY = textwrap.dedent('''
    import pandas as pd

    from privrl.papers.analysis import AnalysisResult
    from privrl.papers.registry import Paper, TheoremCheck


    def toy_table(ctx):
        return AnalysisResult(table=pd.DataFrame({"x": [1]}), markdown="# toy\\n")


    def check_toy(rng, n: int = 3):
        return pd.DataFrame({"n": [n], "holds": [True]})


    PAPER = Paper(key="toy2030", title="A Toy Paper", authors=("A. Author",), year=2030, venue="nowhere",
                  link="", file="",
                  analyses={"toy_table": toy_table},
                  theorem_checks=(TheoremCheck(name="toy_check", statement="toy holds", source="Toy Thm 1",
                                               run=check_toy, figure=lambda df, path: None,
                                               measured=lambda df: f"n = {df.n.iloc[0]}",
                                               sizes={"n": {"type": "integer", "minimum": 1}}),),
    )
''')


@pytest.fixture
def toy_paper(tmp_path, monkeypatch):
    pkg = tmp_path / "toy_papers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "toy2030.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "PAPER_MODULES", list(registry.PAPER_MODULES))
    registry.register("toy_papers.toy2030")
    yield
    registry._loaded.clear()
    sys.modules.pop("toy_papers.toy2030", None)
    sys.modules.pop("toy_papers", None)


def test_every_paper_has_a_record_and_its_text():
    papers = registry.papers()
    assert list(papers) == ["vietri2020", "garcelon2021", "bai_sdp_pe", "lu2026", "cross_paper"]
    for key, p in papers.items():
        assert p.key == key and p.title
        if key != "cross_paper":
            assert p.authors and p.file
            if PAPERS_DIR.exists():
                assert (PAPERS_DIR / p.file).exists(), p.file
    assert {"garcelon_table1", "bai_table1", "rlsvi_privacy", "privacy_cost", "vietri2020_pac", "vietri2020_thm4",
            "vietri2020_lower_bound", "garcelon2021_thm6", "bai_sdp_pe_error_level", "bai_sdp_pe_thm11",
            "bai_sdp_pe_scaling", "lu2026_fixed_eps", "cross_model_coverage"} <= set(registry.analyses())


def test_toy_paper_reaches_the_registry_and_the_workflow(toy_paper):
    assert "toy2030" in registry.papers()
    assert registry.analysis("toy_table")(None).markdown == "# toy\n"
    config = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    config["experiments"]["ucbvi_baseline"]["analyses"] = ["toy_table"]
    config["mechanisms"]["checks"]["toy_check"] = {"n": 5}
    plan = WorkflowPlan(config, ROOT)  # what workflow/rules/common.smk hands the rules
    assert ("ucbvi_baseline", "toy_table") in plan.analysis_targets
    assert "toy_check" in plan.theorem_checks and plan.check_sizes["toy_check"] == {"n": 5}
    check = registry.theorem_checks()["toy_check"]
    table = registry.theorem_check_claims({"toy_check": check.run(None, n=5)}, {})
    assert [(c.paper, c.verdict, c.measured) for c in table] == [("toy2030", "reproduced", "n = 5")]


def test_config_names_and_sizes_are_validated():
    config = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    bad_name = {**config, "mechanisms": {"checks": {"no_such_check": {}}}}
    with pytest.raises(ValueError, match="unknown theorem checks"):
        registry.check_sizes(bad_name)
    bad_size = {**config, "mechanisms": {"checks": {"binary_mechanism": {"T_grid": [64], "typo": 1}}}}
    with pytest.raises(ValueError, match="mechanisms.checks.binary_mechanism"):
        registry.check_sizes(bad_size)
    bad_analysis = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    bad_analysis["experiments"]["ucbvi_baseline"]["analyses"] = ["no_such_table"]
    with pytest.raises(ValueError, match="unknown analysis"):
        registry.analysis_targets(bad_analysis)
    assert registry.theorem_check_claims({}, {}) == []


def test_experiment_figures_are_filed_by_paper():
    """{figures_dir}/{paper}/{experiment}/: the experiment's paper key, else its analyses' paper,
    else cross_paper; a theorem check under its paper's mechanisms/ folder."""
    assert registry.experiment_paper("e", {"analyses": ["garcelon_table1"]}) == "garcelon2021"
    assert registry.experiment_paper("e", {"analyses": ["garcelon_table1", "bai_table1"]}) == registry.CROSS_PAPER
    assert registry.experiment_paper("e", {}) == registry.CROSS_PAPER
    assert registry.experiment_paper("e", {"paper": "lu2026", "analyses": ["bai_table1"]}) == "lu2026"
    with pytest.raises(ValueError, match="experiments.e.paper: unknown paper 'lu2062'"):
        registry.experiment_paper("e", {"paper": "lu2062"})
    assert registry.check_paper("binary_mechanism") == "vietri2020"
    default = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for name, spec in default["experiments"].items():  # every shipped experiment names its paper
        assert spec["paper"] in set(registry.papers()) | {registry.CROSS_PAPER}, name
