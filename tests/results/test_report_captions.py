"""What a reader of the report (``snakemake --report``) meets: every analysis figure and theorem
check figure has a caption saying what it plots (not "Figure of <id> on experiment <id>"), each
caption renders as reStructuredText without a warning, and the home page shows the scoreboard."""
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
from docutils.core import publish_parts

from privrl.papers import registry

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "workflow" / "report"


def _html(template: str, **snakemake) -> str:
    """The template rendered as the report does (Jinja, then docutils); a docutils warning fails."""
    text = jinja2.Environment().from_string(template).render(snakemake=SimpleNamespace(**snakemake))
    return publish_parts(text, writer="html", settings_overrides={"halt_level": 2, "report_level": 2})["body"]


def _analysis_caption(analysis: str) -> str:
    config = {"experiments": {"exp": {"episodes": 12000000, "seeds": 10}}}
    return _html((REPORT / "analysis_figure.rst").read_text(), config=config,
                 wildcards=SimpleNamespace(experiment="exp", analysis=analysis))


@pytest.mark.parametrize("analysis", sorted(registry.analyses()))
def test_every_analysis_figure_has_a_caption_of_what_it_plots(analysis):
    entries = re.findall(r'^  "(\w+)":$', (REPORT / "analysis_figure.rst").read_text(), flags=re.M)
    assert analysis in entries, f"workflow/report/analysis_figure.rst: no caption for {analysis}"
    html = _analysis_caption(analysis)
    assert "The figure of the analysis" not in html and "12000000 episodes, 10 seeds" in html
    assert re.search(r"against|across", html), html  # says what is plotted against what


def test_bound_figures_name_the_bound_they_draw():
    for analysis, bound in (("bai_sdp_pe_error_level", "slope 1"), ("bai_sdp_pe_thm11", "sqrt(K)"),
                            ("bai_sdp_pe_scaling", "Eq. (29)"), ("vietri2020_thm4", "explicit bound")):
        assert bound in _analysis_caption(analysis), analysis


@pytest.mark.parametrize("check", sorted(registry.theorem_checks()))
def test_every_theorem_check_figure_has_its_own_caption(check):
    path = REPORT / "checks" / f"{check}.rst"
    assert path.exists(), f"no caption {path.relative_to(ROOT)}"
    html = _html(path.read_text(), params=SimpleNamespace(arguments="n_trials: 20"))
    assert "against" in html or "per " in html, html


def test_home_page_shows_the_scoreboard_only(tmp_path):
    """workflow.rst includes the scoreboard (and the verdict key) of the claims page the claims
    rule writes, not every paper's claims table."""
    from privrl.results import ledger
    from privrl.results import verdicts as V

    claims = [V.make_claim("vietri2020", "Thm 4", f"c{i}", f"statement {i}", "rate", "a.md",
                           V.Score(v, "a = 0.5"), "exp", "Thm 4") for i, v in enumerate(V.VERDICTS[:2])]
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "claims.rst").write_text(ledger.render_rst(claims))
    html = _html((REPORT / "workflow.rst").read_text(),
                 config={"results_dir": str(tmp_path), "figures_dir": "figs", "bootstrap": {"n": 50}})
    assert "Scoreboard" in html and "vietri2020: Thm 4" in html and "Verdicts:" in html
    assert "statement 0" not in html  # the per-paper tables stay on the claims page
