"""The ledger's text (CLAIMS.md, the report's rst page, the end-of-run summary): canonical items,
per-paper totals, scopes kept out of the scoreboard, rst that docutils renders without a warning,
and params that read as text in the report."""
from __future__ import annotations

import dataclasses
import html
import io
import math
import pickle
import re

import pandas as pd
import pytest
import yaml
from docutils.core import publish_parts

from privrl.design import experiments
from privrl.results import claims as C
from privrl.results import ledger as L
from privrl.results import report_params as RP
from privrl.results import verdicts as V


@pytest.mark.parametrize("paper, spelled, canonical", [
    ("bai_sdp_pe", "Thm 6", "Thm 6"), ("bai_sdp_pe", "Thm 11", "Thm 11"), ("bai_sdp_pe", "Thm 6 / Thm 11", "Thm 6"),
    ("bai_sdp_pe", "Lemma 10 / Thm 11", "Thm 11"), ("bai_sdp_pe", "Theorem 11", "Thm 11"),
    ("bai_sdp_pe", "Thm. 6", "Thm 6"), ("lu2026", "Thm 13 / Cor. 14 (end-to-end audit, Remark-2 neighbours)", "Cor. 14"),
    ("lu2026", "Sec. 4 (worst-case regret)", "Sec. 4"), ("lu2026", "Corollary 14", "Cor. 14"),
    ("vietri2020", "App. A, Thm 12", "Thm 12"), ("garcelon2021", "Table 1", "Table 1"),
    ("garcelon2021", "Proposition 5", "Prop. 5"),
])
def test_one_item_name_per_theorem(paper, spelled, canonical):
    assert L.canonical_item(paper, spelled) == canonical


def test_aliases_map_onto_fixed_points():
    """An alias's target is itself canonical (no chains), for every paper."""
    for paper, table in L.ITEM_ALIASES.items():
        for target in table.values():
            assert L.canonical_item(paper, target) == target


def _claim(paper, item, cid, verdict=V.REPRODUCED, scope="paper_claim", k=float("nan"), regime="in regime; more"):
    kind = "check" if verdict == V.CHECKED else "rate"
    return V.Claim(paper, item, cid, f"statement {cid}", kind, "a.png", "a = 0.5", verdict, regime, k, scope=scope)


CLAIMS = [_claim("vietri2020", "Thm 4", "v1"), _claim("vietri2020", "Thm 4", "v2", V.NOT_REACHED, k=1e9,
                                                      regime="crossover K = 1e8, window [1, 2]: pre-regime; sat"),
          _claim("vietri2020", "Thm 3", "v3", V.INCONCLUSIVE), _claim("lu2026", "Cor. 14", "l1", V.CHECKED),
          _claim("lu2026", "Sec. 4", "ctx", V.CONTRADICTED, scope="context"),
          _claim("bai_sdp_pe", "Table I", "far", V.NOT_REACHED, scope="out_of_reach", k=3e14)]


def test_scoreboard_counts_only_the_papers_claims_with_per_paper_totals():
    board = L.scoreboard(CLAIMS)
    totals = L.scoreboard_counts(CLAIMS)
    assert totals["vietri2020"] == {V.REPRODUCED: 1, V.NOT_REACHED: 1, V.INCONCLUSIVE: 1}
    assert totals["lu2026"] == {V.CHECKED: 1} and "bai_sdp_pe" not in totals
    assert sum(totals["all"].values()) == 4  # context and out-of-reach rows are not counted
    items = [(p, i) for p, i, _ in board]
    assert items == [("vietri2020", "Thm 4"), ("vietri2020", "Thm 3"), ("vietri2020", ""), ("lu2026", "Cor. 14"),
                     ("lu2026", ""), ("", "")]
    for paper in ("vietri2020", "lu2026"):  # a paper's total is the sum of its items
        rows = [n for p, i, n in board if p == paper and i]
        assert sum(rows, start=type(totals[paper])()) == totals[paper]


def test_markdown_has_no_ids_a_why_column_and_the_scoped_sections():
    md = L.render_markdown(CLAIMS)
    assert not any(c.claim_id in md.replace(f"statement {c.claim_id}", "") for c in CLAIMS)  # ids in claims.csv only
    assert ("| item | kind | claim | instance, K run | verdict | measured | why | controls | K needed | reached by |"
            in md)
    assert "| a = 0.5 | crossover K = 1e8, window [1, 2]: pre-regime |" in md  # measured, then the regime's first note
    assert "| statement v1 |  | **reproduced** |" in md  # no instance, no K run: an empty cell
    assert all(f"* **{t}** -- " in md for t in L.TERMS)  # the jargon in the key
    assert "**Power.** Of 2 paper rows the data agree with, 1 are reproduced" in md  # the power count
    head, tail = md.split("## Context and diagnostics")
    assert "statement ctx" not in head and "statement ctx" in tail.split("## Out of reach")[0]
    context = tail.split("## Out of reach")[0]
    assert "**" not in context and "reproduced" not in context and "consistent" not in context  # a reading, not a verdict
    assert "statement far" in tail.split("## Out of reach")[1] and "K needed 3e+14" in md
    assert "| **all** |  | **1** |  |  | **1** | **1** | **1** | **4** |" in md


def test_why_is_the_whole_first_note_and_measured_the_whole_text():
    """The why cell is the first top-level note, never cut, and a "; " inside parentheses does not
    split it; the measured cell is the whole measurement (it once kept only its first note, which hid
    the only reason of two inconclusive rows: "...; deterministic: every seed gives the same D")."""
    long = _claim("vietri2020", "Thm 4", "x", regime="x" * 500 + "; tail")
    assert L.why(long) == "x" * 500
    nested = dataclasses.replace(long, regime="max 0 (lower bound 0; beta 0.05); quantile 0.2",
                                 measured="b = 0.1 [0, 0.2] (eps 1; eps 2); eps 1: b 0.1")
    assert L.why(nested) == "max 0 (lower bound 0; beta 0.05)"
    assert L.measured_text(nested) == "b = 0.1 [0, 0.2] (eps 1; eps 2); eps 1: b 0.1"
    last = dataclasses.replace(long, verdict=V.INCONCLUSIVE, regime="",
                               measured="gamma = 1.2 [1.2, 1.2] vs <= 1.1; deterministic: every seed gives the same D")
    assert "| gamma = 1.2 [1.2, 1.2] vs <= 1.1; deterministic: every seed gives the same D |" in L.render_markdown([last])
    assert L.why_cell(last) == ""  # no regime: the measurement's first note is not printed twice
    assert L.clauses("a (b; [c; d]); e") == ["a (b; [c; d])", "e"]
    bare = _claim("lu2026", "Cor. 14", "y", V.CHECKED, regime="")
    assert L.why(bare) == "a = 0.5" and L.why_cell(bare) == ""  # no regime: the measurement, not printed twice


@pytest.mark.parametrize("text", ["*bold* and `code` and a_b_ and |sub|", "1. not a list", "- not a bullet",
                                  "#. auto", "(a) enum", "K^0.5 <= 2 [1, 3]: x :role:`y`"])
def test_rst_text_is_literal(text):
    page = "\n".join([".. list-table::", "   :header-rows: 1", "", "   * - h", "   * - " + L.rst_text(text)])
    warnings = io.StringIO()
    body = publish_parts(page, writer="html", settings_overrides={"warning_stream": warnings, "report_level": 1,
                                                                        "halt_level": 5})["body"]
    assert warnings.getvalue() == ""
    cell = body.split("<tbody")[1].split(">", 1)[1]
    assert " ".join(html.unescape(re.sub(r"<[^>]+>", " ", cell)).split()) == " ".join(text.split())


def test_rst_page_renders_every_claim_without_a_warning():
    warnings = io.StringIO()
    body = publish_parts(L.render_rst(CLAIMS), writer="html",
                         settings_overrides={"warning_stream": warnings, "report_level": 1})["body"]
    assert warnings.getvalue() == ""
    assert body.count("<table") == 4  # scoreboard, vietri2020, lu2026, context
    assert all(f"statement {c.claim_id}" in body for c in CLAIMS)


def test_csv_round_trip_keeps_the_scope_and_defaults_it_when_absent(tmp_path):
    C.write_claims(CLAIMS, str(tmp_path / "c.csv"), str(tmp_path / "C.md"), str(tmp_path / "c.rst"))
    df = pd.read_csv(tmp_path / "c.csv")
    assert [c.scope for c in C.claims_from_frame(df)] == [c.scope for c in CLAIMS]
    old = C.claims_from_frame(df.drop(columns="scope"))  # a claims.csv written before the column existed
    assert {c.scope for c in old} == {"paper_claim"}
    with pytest.raises(ValueError, match="scope"):
        _claim("lu2026", "Cor. 14", "z", scope="diagnostic")


def test_write_claims_writes_canonical_items(tmp_path):
    cl = [_claim("bai_sdp_pe", "Lemma 10 / Thm 11", "b1"), _claim("bai_sdp_pe", "Thm 11", "b2")]
    C.write_claims(cl, str(tmp_path / "c.csv"), str(tmp_path / "C.md"))
    assert set(pd.read_csv(tmp_path / "c.csv")["item"]) == {"Thm 11"}
    assert [(p, i) for p, i, _ in L.scoreboard(C.claims_from_frame(pd.read_csv(tmp_path / "c.csv")))] == [
        ("bai_sdp_pe", "Thm 11"), ("bai_sdp_pe", ""), ("", "")]


def test_not_a_matter_of_k_says_what_instead():
    c = dataclasses.replace(_claim("garcelon2021", "Prop. 5", "p", V.NOT_REACHED, k=120.0,
                                   regime="Prop. 5 hypothesis fails at k = 100; x"), experiment="e")
    (out,) = C.with_reach([c], {"config/config.yaml": {"e": 10}}, {"e": 1e6})
    assert out.reached_by == "not a matter of K (this run: K = 1e+06): Prop. 5 hypothesis fails at k = 100"


def test_run_summary_names_the_ledger_and_counts_per_paper(tmp_path):
    assert "no claims table yet" in C.run_summary(str(tmp_path))[-1]
    C.write_claims(CLAIMS, str(tmp_path / "claims.csv"), str(tmp_path / "CLAIMS.md"))
    lines = C.run_summary(str(tmp_path))
    assert any("CLAIMS.md" in ln for ln in lines)
    assert any(ln.split()[0] == "vietri2020" and "1 reproduced, 1 not reached, 1 inconclusive (3)" in ln for ln in lines)
    assert lines[-1].split()[0] == "all" and lines[-1].endswith("(4)")


def test_readable_params_print_as_text_and_stay_the_same_data():
    value = {"b": [1, 2.5], "a": {"x": "y"}, "c": 1e-06}
    param = RP.readable(value)
    assert f"{param}" == "b: [1, 2.5]; a: (x: y); c: 1e-06"
    assert repr(param) == repr(value) and param == value  # Snakemake's params trigger records the repr: no rerun
    assert pickle.loads(pickle.dumps(param)) == value  # the script reads it back
    assert f"{RP.readable([{'a': 1}, 2])}" == "(a: 1); 2" and RP.readable(3) == 3


def test_overlay_drops_the_prose_of_the_experiments_it_edits(tmp_path):
    base = {"experiments": {"a": {"episodes": 1000000, "seeds": 4, "description": "K = 1e6, 4 seeds", "note": "n"},
                            "b": {"episodes": 10, "seeds": 1, "description": "kept"}}}
    (tmp_path / "base.yaml").write_text(yaml.safe_dump(base))
    out = experiments.resolve_overlay({"overlay_of": "base.yaml", "experiments": {"a": {"episodes": 1500}}}, tmp_path)
    assert out["experiments"]["a"] == {"episodes": 1500, "seeds": 4}
    assert out["experiments"]["b"]["description"] == "kept"
    own = experiments.resolve_overlay({"overlay_of": "base.yaml", "experiments": {"a": {"note": "smoke"}}}, tmp_path)
    assert own["experiments"]["a"]["note"] == "smoke" and "description" not in own["experiments"]["a"]
    assert math.isfinite(out["experiments"]["a"]["episodes"])
    for typo in ({"a_": {"episodes": 3}}, {"aa": None}):  # an edit or a removal of a name the base lacks
        with pytest.raises(ValueError, match="not an experiment of base.yaml; did you mean 'a'"):
            experiments.resolve_overlay({"overlay_of": "base.yaml", "experiments": typo}, tmp_path)
