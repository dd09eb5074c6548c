"""The Snakemake DAG end to end: smoke config in a temp dir, then a no-op rerun and the
captioned report; dry run of the full config. (Whole-DAG timing is measured by the README's smoke command, not here.)"""
import html
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]



def _snakemake(workdir, *args):
    return subprocess.run([*SNAKEMAKE, "--directory", str(workdir), *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """The smoke config run once in a temp dir: (workdir, config path, config, first result)."""
    workdir = tmp_path_factory.mktemp("smoke")
    cfg = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    cfg_path = workdir / "smoke.yaml"
    cfg_path.write_text(yaml.safe_dump(cfg))
    first = _snakemake(workdir, "--cores", "2", "--configfile", str(cfg_path))
    return workdir, cfg_path, cfg, first


@pytest.mark.slow
def test_smoke_dag_runs_then_nothing_to_do(smoke_run):
    workdir, cfg_path, cfg, first = smoke_run
    assert first.returncode == 0, first.stderr[-4000:]
    figs = Path(workdir, cfg["figures_dir"])
    claims = (figs / "CLAIMS.md").read_text()
    assert "## Scoreboard" in claims and "| item | kind | claim | instance, K run | verdict | measured | why | controls | K needed | reached by |" in claims
    assert "privrl: done." in first.stdout + first.stderr and "CLAIMS.md" in first.stdout + first.stderr  # onsuccess
    for png in figs.rglob("*_regret_*.png"):
        assert png.with_suffix(".pdf").exists(), png
    assert list(figs.rglob("*_regret_vs_K.png")) and list(figs.rglob("*_regret_rate.png"))
    from privrl.results import figure_check

    assert figure_check.figure_problems(figs) == []  # readable in a 3.3 in column, <= 8 lines, legends outside
    # filed by paper: {figures_dir}/{paper}/{experiment}/ and {paper}/mechanisms/
    assert (figs / "vietri2020/vietri2020_pac/vietri2020_pac.png").exists()
    assert (figs / "vietri2020/mechanisms/binary_mechanism.png").exists()
    assert (figs / "cross_paper/mechanisms/agent_audit.md").exists()
    assert "vietri2020/vietri2020_pac/" in (figs / "claims.csv").read_text()
    second = _snakemake(workdir, "--cores", "2", "--configfile", str(cfg_path))
    assert second.returncode == 0 and "Nothing to be done" in second.stdout + second.stderr


# one entry of the report's embedded results table: file name, labels, size, caption, mime type
_REPORT_ENTRY = re.compile(r'"filename": "([^"]+)", "labels": [^}]*\}, "size": "[^"]*", '
                           r'"caption": "((?:[^"\\]|\\.)*)", "mime_type": "([^"]+)"')


@pytest.mark.slow
def test_report_holds_every_figure_with_a_caption_grouped_by_paper(smoke_run):
    workdir, cfg_path, cfg, first = smoke_run
    assert first.returncode == 0, first.stderr[-4000:]
    out = _snakemake(workdir, "--configfile", str(cfg_path), "--report", "report.zip",
                     "--report-stylesheet", str(ROOT / "workflow/report/report.css"))
    assert out.returncode == 0, out.stderr[-4000:]
    with zipfile.ZipFile(workdir / "report.zip") as z:
        html = z.read("report/report.html").decode()
        packed = {Path(n).name for n in z.namelist() if n.endswith(".png")}
    entries = _REPORT_ENTRY.findall(html)
    figures = sorted(p.name for p in Path(workdir, cfg["figures_dir"]).rglob("*.png"))
    captioned = sorted(name for name, caption, mime in entries if mime == "image/png" and caption.strip())
    assert len(captioned) == len(figures) and set(captioned) == set(figures) <= packed
    for category in ("Garcelon et al. 2021", "Lu et al. 2026", "Claims"):
        assert f'"{category}": {{' in html


def _page_text(fragment: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


@pytest.mark.slow
def test_report_page_shows_the_claims_tables_and_the_designs_sizes(smoke_run):
    """report.html is one page whose results (captions as HTML) are embedded as JSON: the CLAIMS.md
    entry's caption holds the scoreboard and every claim as HTML tables, params read as text, and
    a caption of the overlay gives the overlay's sizes."""
    workdir, cfg_path, cfg, first = smoke_run
    assert first.returncode == 0, first.stderr[-4000:]
    out = _snakemake(workdir, "--configfile", str(cfg_path), "--report", "report.html",
                     "--report-stylesheet", str(ROOT / "workflow/report/report.css"))
    assert out.returncode == 0, out.stderr[-4000:]
    page = (workdir / "report.html").read_text()
    # the layout (workflow/report/report.css, passed as --report-stylesheet): the page starts at the top
    assert "justify-content: safe center" in page and "#app .h-screen.items-center.justify-center" in page
    entries = {name: json.loads(f'"{caption}"') for name, caption, mime in _REPORT_ENTRY.findall(page)}
    caption = entries["CLAIMS.md"]
    assert caption.count("<table") >= 2 and "Scoreboard" in caption and "<th class=\"head\">why</th>" in caption
    text = _page_text(caption)
    claims = pd.read_csv(Path(workdir, cfg["figures_dir"], "claims.csv"))
    for row in claims.itertuples():
        assert " ".join(row.statement.split()) in text, row.statement
    params = re.findall(r'"params": "((?:[^"\\]|\\.)*)"', page)
    assert params and not [p for p in params if re.search(r"[{[][\\]?['\"]", p)]  # no Python repr in the info pane
    caption = entries["bandit_regret_vs_K.png"]  # an experiment the smoke overlay resizes (two share the name)
    sizes = [f"{e['episodes']} episodes, {e['seeds']} seeds" for n, e in cfg["experiments"].items()
             if n in ("ucbvi_baseline", "vietri2020_pac")]
    assert any(s in caption for s in sizes) and "10 seeds" not in caption and "1e7" not in caption


@pytest.mark.slow  # > 5 s: the full design's DAG
def test_full_config_dry_run_lists_plan(tmp_path):
    out = _snakemake(tmp_path, "-n", "--configfile", str(ROOT / "config/config.yaml"))
    assert out.returncode == 0, out.stderr[-4000:]
    assert "run_cell" in out.stdout and "claims" in out.stdout


def test_invalid_config_rejected_before_any_job(tmp_path):
    cfg = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    cfg["experiments"]["ucbvi_baseline"]["seeds"] = -1
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(cfg))
    out = _snakemake(tmp_path, "--cores", "1", "--configfile", str(p))
    assert out.returncode != 0 and "seeds" in out.stdout + out.stderr
    assert not (tmp_path / cfg["results_dir"]).exists()
