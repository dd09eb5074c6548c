"""The README and the docs stay current: the README's scoreboard is the one of
paper_figures/claims.csv and its figure exists; it states three timings and is short;
config/README.md lists every experiment of the shipped designs; docs/decisions/README.md lists
every decisions file; one default workflow profile, where Snakemake applies it; the recovery
commands are where tests/workflow/test_recovery_readme.py reads them."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import yaml

from privrl.design import experiments
from privrl.papers import registry
from privrl.results import ledger
from privrl.results import verdicts as V
from privrl.results.claims import claims_from_frame

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
DESIGNS = {"default": "config/config.yaml", "paper": "config/paper.yaml", "smoke": "config/smoke.yaml"}


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]


def _table(text: str) -> list[list[str]]:
    """The rows of the first markdown table in ``text`` (header first, separator dropped), bold removed."""
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            if set(line) <= set("|-: "):
                continue
            rows.append([c.strip().replace("**", "") for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows


# ---------------------------------------------------------------- README
def test_readme_is_short():
    assert len(README.splitlines()) < 200


def test_readme_scoreboard_is_the_one_of_claims_csv():
    claims = claims_from_frame(pd.read_csv(ROOT / "paper_figures/claims.csv"))
    counts = ledger.scoreboard_counts(claims)
    header, *rows = _table(_section(README, "What the results say"))
    assert header == ["paper", *V.VERDICTS, "total"]
    shown = {r[0]: [int(x) for x in r[1:]] for r in rows}
    want = {paper: [n.get(v, 0) for v in V.VERDICTS] + [sum(n.values())] for paper, n in counts.items()}
    assert shown == want


def test_readme_figure_is_a_png_of_paper_figures():
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", README)
    assert len(figures) == 1, figures
    assert figures[0].startswith("paper_figures/") and figures[0].endswith(".png")
    assert (ROOT / figures[0]).is_file()


def test_readme_states_three_timings_one_line_each():
    timings = re.findall(r"<!-- timing:(\w+) -->(.*?)<!-- /timing -->", README, re.S)
    assert [k for k, _ in timings] == ["smoke", "default", "paper"]
    assert all(v.strip() and "\n" not in v and "TBD" not in v for _, v in timings)


def test_readme_links_every_docs_page_and_each_exists():
    pages = {str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")}
    named = set(re.findall(r"\b(docs/[\w/]+\.md)\b", README))
    assert pages <= named, f"docs pages the README does not link: {sorted(pages - named)}"
    assert all((ROOT / p).is_file() for p in named), sorted(p for p in named if not (ROOT / p).is_file())


# ---------------------------------------------------------------- config/README.md
def _designs() -> dict[str, dict]:
    out = {}
    for name, path in DESIGNS.items():
        config = yaml.safe_load((ROOT / path).read_text())
        out[name] = experiments.resolve_overlay(config, ROOT) if "overlay_of" in config else config
    return out


def test_config_readme_lists_every_experiment_with_its_paper_and_designs():
    designs = _designs()
    want = {}
    for design, config in designs.items():
        for name, spec in config["experiments"].items():
            want.setdefault(name, (registry.experiment_paper(name, spec), set()))[1].add(design)
    header, *rows = _table(_section((ROOT / "config/README.md").read_text(), "Experiments"))
    assert header[:3] == ["experiment", "paper folder", "designs"]
    shown = {r[0].strip("`"): (r[1], {d.strip() for d in r[2].split(",")}) for r in rows}
    assert shown == want


def test_config_readme_lists_every_design_file():
    text = (ROOT / "config/README.md").read_text()
    for path in (ROOT / "config").glob("*.yaml"):
        assert f"`{path.name}`" in text, path.name


# ---------------------------------------------------------------- docs/decisions/README.md
def test_decisions_readme_lists_every_decisions_file():
    text = (ROOT / "docs/decisions/README.md").read_text()
    linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", text))
    files = {p.name for p in (ROOT / "docs/decisions").glob("*.md")} - {"README.md"}
    assert files == linked, (sorted(files - linked), sorted(linked - files))


# ---------------------------------------------------------------- profiles
def test_one_default_workflow_profile_where_snakemake_applies_it():
    """Snakemake 9 applies profiles/default/ found next to the Snakefile (or in the working
    directory) when no --workflow-profile is given; workflow/profiles/ is searched only for a
    workflow/Snakefile. A profile given by --workflow-profile replaces the default and must repeat
    its rerun policy (no "code" trigger)."""
    assert (ROOT / "Snakefile").is_file() and not (ROOT / "workflow/Snakefile").exists()
    default = yaml.safe_load((ROOT / "profiles/default/config.yaml").read_text())
    assert not (ROOT / "workflow/profiles/default").exists()
    triggers = default["rerun-triggers"]
    assert "code" not in triggers
    for profile in (ROOT / "workflow/profiles").glob("*/config.yaml"):
        assert yaml.safe_load(profile.read_text()).get("rerun-triggers") == triggers, profile


def test_no_page_names_the_removed_profile():
    pages = [ROOT / "README.md", ROOT / "config/README.md", *(ROOT / "docs").rglob("*.md")]
    assert not [p for p in pages if "workflow/profiles/default" in p.read_text()]


# ---------------------------------------------------------------- recovery
def test_recovery_commands_are_where_the_recovery_test_reads_them():
    section = _section((ROOT / "docs/recovery.md").read_text(), "Recovery")
    block = re.search(r"```\w*\n(.*?)```", section, re.S).group(1)
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.startswith("snakemake")]
    assert len(lines) == 2 and "--unlock" in lines[0] and "--rerun-incomplete" in lines[1]
    assert all("--configfile config/smoke.yaml" in line for line in lines)
    assert "docs/recovery.md" in README
