"""The claims ledger as text: CLAIMS.md and the reStructuredText page of the Snakemake report.

Both show the same thing: a scoreboard (verdict counts per paper and item, with per-paper
totals), the verdict key, and one table per paper with one short row per claim (item, kind,
statement, its instance and the K it ran, verdict, the headline measurement, a one-note *why*,
the controls, the K needed and the design that reaches it; no cell is cut), and the terms a
reader of the papers may not know. Claim ids, the agents' crossovers and the full measurements
stay in claims.csv.

Only the papers' claims (``scope == "paper_claim"``) are counted; ``context`` rows (labelled
context and diagnostics) get their own section and ``out_of_reach`` rows (K needed > 1e11 or
never) a short list with their K, neither counted.

Item names are canonical (:func:`canonical_item`): one name per theorem, table or section of a
paper, whatever spelling a producer used ("Thm 6 / Thm 11" and "Lemma 10 / Thm 11" are rows of
Bai et al.'s Thm 6 and Thm 11); the spelling as produced stays in the ``source`` column.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Sequence

from privrl.results import verdicts as V

# paper -> {item as a producer spells it (parentheses dropped): the canonical item}. The choice
# per spelling: the theorem whose statement the row measures (Bai et al.: Thm 6 is SDP-PE's
# regret bound for any privatizer error, its X/A/H exponents are what the scaling rows test;
# Thm 11 instantiates it under SDP with Lemma 10's privatizer; Lu et al.: Cor. 14 is the
# (eps, delta) of Thm 13 that every row audits or converts).
ITEM_ALIASES: dict[str, dict[str, str]] = {
    "vietri2020": {"App. A, Thm 12": "Thm 12"},
    "bai_sdp_pe": {"Thm 6 / Thm 11": "Thm 6", "Lemma 10 / Thm 11": "Thm 11", "Sec. I, V-B": "Sec. V-B",
                   "Sec. V-A": "Sec. V"},
    "lu2026": {"Lemma 12 / Cor. 14": "Cor. 14", "Thm 13, Cor. 14": "Cor. 14", "Thm 13 / Cor. 14": "Cor. 14",
               "Sec. 4 / Cor. 14": "Sec. 4"},
}
_SPELLINGS = [(re.compile(r"\bTheorem\s*|\bThm\.\s*"), "Thm "), (re.compile(r"\bCorollary\s*|\bCor\s+"), "Cor. "),
              (re.compile(r"\bProposition\s*|\bProp\s+"), "Prop. "), (re.compile(r"\s+"), " ")]


# the words of the ledger's cells a reader of the papers may not know, printed under the verdict key
TERMS = {
    "measured": "the row's headline number: the estimate, its 95% seed-bootstrap interval in brackets, and the "
                "line it is read against (the rest, per cell, in claims.csv); the default design runs 3-4 seeds, "
                "where a percentile bootstrap undercovers: read a CI that clears its line by little as weaker",
    "D(K, eps)": "the privacy cost: the private agent's regret minus that of its noise-off twin (the same algorithm "
                 "on exact counts), same instance, K and seeds",
    "a, b": "the K-exponents of the regret (a) and of D (b): the slope of log regret or log D against log K on the "
            "row's window",
    "gamma, g": "the eps-exponent of D: D ~ g(eps)^gamma across the eps cells (g = power: 1/eps)",
    "two-sided / upper bound": "two-sided where a lower bound in the papers pins the dependence (read on the "
                               "printed range widened by the log allowance on both sides), else one-sided",
    "log allowance": f"{V.THRESHOLDS.log_allowance:g} added to an exponent's line for the papers' polylog factors",
    "crossover": "the K from which the agent's own confidence width, at uniform visitation, is below the "
                 "instance's gap; before it regret is linear whatever the theorem (docs/decisions/verdicts.md)",
    "regime / pre-regime": f"a rate is scored only on a window from {V.THRESHOLDS.regime_factor:g} x the crossover; "
                           "before that it is pre-regime",
    "saturation": "the mean fraction of (h, s, a) whose optimistic value is clipped (of policies still "
                  "active, for elimination) on the window; above "
                  f"{V.THRESHOLDS.saturation_gate:.0%} the agent is still exploring and the row is never 'contradicted'",
    "window": "the K range a rate is fitted on, fixed in the design before the run (its last decade(s) of K)",
    "eps": "the privacy parameter; JDP = joint (central) DP, LDP = local DP, SDP = shuffle DP; 'as run' names "
           "the model a run actually delivers where it differs from the registered one",
    "z, bonus_scale": "an agent's privacy width in standard deviations of its own noise (z, tuned and labelled) and "
                      "the multiple of the paper's statistical width (bonus_scale 1 = the paper's constant); the "
                      "added noise is always exactly at the labelled eps",
    "twins": "non-private (noise off), eps-blind (widths and noise of one fixed eps whatever the label), wrong trust "
             "model (the same algorithm under the other model), over-exploring (widths x10), greedy (no bonus), "
             "linear (a non-learner); docs/decisions/controls.md",
    "K needed / reached by": "the K at which the row's window is in regime (from the crossover formulas, before "
                             "any run), and the shipped design that runs it to that K",
}


def canonical_item(paper: str, item: str) -> str:
    """The one name of a claim's theorem/table: spelling normalised ("Theorem 6" -> "Thm 6"), a
    trailing parenthesis dropped, then the paper's alias (``ITEM_ALIASES``)."""
    text = re.sub(r"\s*\([^()]*\)\s*$", "", str(item)).strip() or str(item).strip() or "-"
    for pat, rep in _SPELLINGS:
        text = pat.sub(rep, text)
    return ITEM_ALIASES.get(paper, {}).get(text.strip(), text.strip())


# a context row's verdict as the context section prints it: never the word of a scored paper claim
# ("reproduced" / "consistent" there would read as a reproduction; the row is not counted)
CONTEXT_READING = {V.REPRODUCED: "agrees", V.CONSISTENT: "agrees", V.CONTRADICTED: "disagrees"}


def context_reading(c: V.Claim) -> str:
    """What a context row's measurement says ("agrees", "disagrees", or its not reached /
    inconclusive / checked verdict)."""
    return CONTEXT_READING.get(c.verdict, c.verdict)


def clauses(text: str) -> list[str]:
    """``text`` split at its top-level "; " (never inside parentheses or brackets): the notes a
    regime or measurement text is made of, each whole."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in "([") - (ch in ")]" and depth > 0)
        if depth == 0 and text.startswith("; ", i):
            out.append(text[start:i])
            start = i + 2
    return [t.strip() for t in out + [text[start:]]]


def _first(text) -> str:
    return clauses(str(text))[0] if isinstance(text, str) and text.strip() else ""


def measured_text(c: V.Claim) -> str:
    """The row's measurement, its ``measured`` text whole: the value, its CI and the line it is read
    against, and every note after them (an inconclusive row's only reason can be its last note; the
    ledger once showed the first note alone and hid it)."""
    return str(c.measured).strip() if isinstance(c.measured, str) else ""


def why(c: V.Claim) -> str:
    """Why the row has its verdict, in one note: the first note of its regime text, whole (else of
    its measurement). The rest of the regime text (the twins, the other cells) is in claims.csv."""
    return _first(c.regime) or measured_text(c)


def why_cell(c: V.Claim) -> str:
    """The ledger's *why* cell: :func:`why`, or empty where it would repeat the measured cell (a row
    without regime text, whose *why* is its measurement's first note)."""
    text = why(c)
    return "" if text in (measured_text(c), _first(c.measured)) else text


def instance_text(c: V.Claim) -> str:
    """The row's instance and the K it ran, compact: "riverswim(S=2, H=3), K 1e+06"; several
    instances are counted ("7 instances", listed in claims.csv); "" for a row with neither."""
    n = len([x for x in str(c.instance).split("; ") if x])
    inst = c.instance if n <= 1 else f"{n} instances"
    k = f"K {c.k_run:.2g}" if c.k_run is not None and math.isfinite(c.k_run) else ""
    return ", ".join(t for t in (inst, k) if t)


def k_needed_text(k: float) -> str:
    if not isinstance(k, float) or math.isnan(k):
        return ""
    return f"none <= {V.THRESHOLDS.k_max:.0e}" if k == math.inf else f"{k:.2g}"


def papers_of(claims: Sequence[V.Claim]) -> dict[str, str]:
    """paper id -> citation: the known papers in their order, then any other paper of the claims."""
    return {**V.PAPERS, **{c.paper: c.paper for c in claims if c.paper not in V.PAPERS}}


def split_scope(claims: Sequence[V.Claim]) -> dict[str, list[V.Claim]]:
    """scope -> its claims, every scope of ``V.SCOPES`` present (maybe empty)."""
    return {s: [c for c in claims if c.scope == s] for s in V.SCOPES}


def scoreboard(claims: Sequence[V.Claim]) -> list[tuple[str, str, Counter]]:
    """(paper, item, verdict counts) of the papers' claims, items in order of appearance; after
    each paper's items its total (item ``""``); last the total of all (paper ``""``)."""
    mine = split_scope(claims)["paper_claim"]
    out = []
    for paper in papers_of(mine):
        rows = [c for c in mine if c.paper == paper]
        if rows:
            out += [(paper, item, Counter(c.verdict for c in rows if c.item == item))
                    for item in dict.fromkeys(c.item for c in rows)]
            out.append((paper, "", Counter(c.verdict for c in rows)))
    return out + [("", "", Counter(c.verdict for c in mine))]


def scoreboard_counts(claims: Sequence[V.Claim]) -> dict[str, Counter]:
    """paper -> verdict counts of its claims (the scoreboard's per-paper totals), then "all"."""
    return {paper or "all": n for paper, item, n in scoreboard(claims) if not item}


def power_line(claims: Sequence[V.Claim]) -> str:
    """The scoreboard's power count: of the papers' decided rows, how many reproduce with every
    relevant wrong twin rejected, how many are consistent without power, how many are checks."""
    mine = [c for c in split_scope(claims)["paper_claim"] if c.verdict in (V.REPRODUCED, V.CONSISTENT, V.CHECKED)]
    n = Counter(c.verdict for c in mine)
    return (f"**Power.** Of {len(mine)} paper rows the data agree with, {n[V.REPRODUCED]} are reproduced "
            f"(every wrong twin their statement is about fails the same check, or a mechanism-level check), "
            f"**{n[V.CONSISTENT]} have no power** against a twin they are about (consistent) and "
            f"{n[V.CHECKED]} are checks (algebra, or convergence on one fixed-gap instance)." + _controls_sentence(claims))


def twin_outcomes(claims: Sequence[V.Claim], control_rows: bool = False) -> dict[tuple[str, bool], Counter]:
    """{(twin name, realised from runs): Counter(outcome)} over the controls cells of the papers' scored
    rows (not the checks: their twins cannot change a verdict) -- or, with ``control_rows``, of the
    project's control rows (``controls.control_row_twins``: the noise-off level rows, context) -- how often
    each wrong twin, through a row's own check, was rejected, passed, undecided or not run. A twin is
    realised from runs when its kind always is (``controls.RUN_TWINS``) or the row is a control row that
    realises it from a control cell (``controls.CONTROL_ROWS``, by the row's declared id: its twin counts as
    a run's even where the design ran no control cell, "not run"); elsewhere (the over-exploring twin read
    from a bound's slack) it is analytic."""
    from privrl.results.controls import CONTROLS, OUTCOMES, RUN_TWINS, control_row_twins

    run_names = {CONTROLS[k].name for k in RUN_TWINS}
    out: dict[tuple[str, bool], Counter] = {}
    for c in claims:
        row_twins = {CONTROLS[k].name for k in control_row_twins(c.claim_id)}
        mine = (bool(row_twins) and c.scope == "context") if control_rows else c.scope == "paper_claim"
        if not mine:
            continue
        if c.verdict == V.CHECKED or c.kind == "check":
            continue
        for part in str(c.controls or "").split("; "):
            what, _, names = part.partition(": ")
            if what in OUTCOMES:
                for name in names.split(", "):
                    key = (name, name in run_names or name in row_twins)
                    out.setdefault(key, Counter())[what] += 1
    return out


def control_outcomes(claims: Sequence[V.Claim]) -> dict[str, Counter]:
    """{twin name: Counter(outcome)}: :func:`twin_outcomes` summed over how each twin was realised."""
    out: dict[str, Counter] = {}
    for (name, _), n in twin_outcomes(claims).items():
        out.setdefault(name, Counter()).update(n)
    return out


def _controls_sentence(claims: Sequence[V.Claim]) -> str:
    """Per twin kind, how many of the scored rows about it reject it, the twins realised from runs apart
    from the analytic or definitional ones (only the first measure a check's power); then, apart, the
    project's control rows (context: no paper states them)."""
    per = twin_outcomes(claims)
    parts = []
    for what, run in (("realised from runs", True), ("analytic or definitional", False)):
        names = sorted(n for n, r in per if r == run)
        if not names:
            continue
        total = Counter()
        for n in names:
            total.update(per[(n, run)])
        each = "; ".join(_twin_text(n, per[(n, run)]) for n in names)
        parts.append(f"{what}, {total['rejects']} of {sum(total.values())} (row, twin) pairs rejected: {each}")
    out = (" Wrong twins through the scored rows' own checks, per twin kind: how many of the rows about it "
           "reject it -- " + "; ".join(parts) + ".") if parts else ""
    own = twin_outcomes(claims, control_rows=True)
    if own:
        out += (" The project's control rows (context, no paper's statement), twins realised from runs: "
                + "; ".join(_twin_text(n, own[(n, r)]) for n, r in sorted(own)) + ".")
    return out


def _twin_text(name: str, n: Counter) -> str:
    rest = ", ".join(f"{n[k]} {word}" for k, word in (("passes", "passing"), ("undecided", "undecided"),
                                                       ("not run", "not run")) if n[k])
    return f"{name} rejected by {n['rejects']} of {sum(n.values())}" + (f" ({rest})" if rest else "")


# ---------------------------------------------------------------- markdown
def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(claims: Sequence[V.Claim]) -> str:
    """CLAIMS.md: scoreboard, verdict key, one anchored section per paper (claims.csv order),
    then the context rows and the claims out of reach."""
    head = "| paper | item | " + " | ".join(V.VERDICTS) + " | total |"
    lines = ["# Claims scored by this pipeline", "",
             "Generated from the fitted results; every verdict is measured by the rules of "
             "`privrl.results.verdicts` (docs/decisions/verdicts.md). Claim ids, measurements and the full "
             "regime notes, each row's instance, its agents' crossovers and the K it ran are in `claims.csv`. The scoreboard counts the papers' claims only.", "",
             "## Scoreboard", "", head, "|---|---|" + "---|" * (len(V.VERDICTS) + 1)]
    for paper, item, n in scoreboard(claims):
        cells = [str(n.get(v, 0) or "") for v in V.VERDICTS] + [str(sum(n.values()))]
        if not paper or not item:  # a total row
            cells = [f"**{x}**" if x else "" for x in cells]
        name = f"[{paper}](#{paper})" if paper else "**all**"
        lines.append(f"| {name} | {_md(item) if item else ('**total**' if paper else '')} | " + " | ".join(cells) + " |")
    lines += ["", power_line(claims)]
    lines += ["", "## Key", ""] + [f"* **{v}** -- {V.VERDICT_KEY[v]}" for v in V.VERDICTS]
    lines += ["* **controls** -- the wrong twins the row's statement is about, run through its own check: "
              "rejected, passing (no power against it) or not run (privrl.results.controls, docs/decisions/controls.md)"]
    lines += [f"* **{t}** -- {text}" for t, text in TERMS.items()]
    scoped = split_scope(claims)
    for paper, cite in papers_of(claims).items():
        mine = [c for c in scoped["paper_claim"] if c.paper == paper]
        if mine:
            lines += ["", f'<a id="{paper}"></a>', f"## {paper}: {cite}", "",
                      "| item | kind | claim | instance, K run | verdict | measured | why | controls | K needed | reached by |",
                      "|---|---|---|---|---|---|---|---|---|---|"]
            lines += [f"| {_md(c.item)} | {c.kind} | {_md(c.statement)} | {_md(instance_text(c))} | **{c.verdict}** "
                      f"| {_md(measured_text(c))} | {_md(why_cell(c))} | {_md(c.controls)} | {k_needed_text(c.k_needed)} "
                      f"| {_md(c.reached_by)} |"
                      for c in mine]
    if scoped["context"]:
        lines += ["", "## Context and diagnostics", "",
                  "Labelled context and diagnostics, not the papers' claims (not counted above).", "",
                  "| paper | item | statement | instance, K run | reading | measured | why |", "|---|---|---|---|---|---|---|"]
        lines += [f"| {c.paper} | {_md(c.item)} | {_md(c.statement)} | {_md(instance_text(c))} | {context_reading(c)} "
                  f"| {_md(measured_text(c))} | {_md(why_cell(c))} |" for c in scoped["context"]]
    if scoped["out_of_reach"]:
        lines += ["", "## Out of reach", "", "Claims whose regime needs K > 1e11 episodes (or no K at all; not counted above):",
                  ""] + [f"* {c.paper}, {_md(c.item)}: {_md(c.statement)} -- K needed {k_needed_text(c.k_needed)}"
                         for c in scoped["out_of_reach"]]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- reStructuredText (the report)
_RST_SPECIAL = re.compile(r"([\\*`_|<>\[\]:])")


def rst_text(text: str) -> str:
    """``text`` as literal rst inline text: markup characters escaped, one line, and a first
    character that could open a list or an enumeration escaped."""
    out = _RST_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    return "\\" + out if out[:1] in set("-+*#(0123456789") else out


def _rst_table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]) -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {' '.join(map(str, widths))}", ""]
    for row in [header, *rows]:
        lines += [f"   {'*' if i == 0 else ' '} - {rst_text(cell) if cell else '..'}" for i, cell in enumerate(row)]
    return lines + [""]


def render_rst(claims: Sequence[V.Claim]) -> str:
    """The report's claims page: the scoreboard and each paper's claims as rst tables (rubrics,
    not section titles: the page is a caption fragment), then the context rows and the claims out
    of reach."""
    lines = [".. rubric:: Scoreboard (the papers' claims)", ""]
    board = [[f"{paper}: {item}" if item else (f"{paper}: total" if paper else "all papers: total"),
              *[str(n.get(v, 0) or "") for v in V.VERDICTS], str(sum(n.values()))] for paper, item, n in scoreboard(claims)]
    lines += _rst_table(["paper: item", *V.VERDICTS, "total"], board, [6] + [2] * (len(V.VERDICTS) + 1))
    lines += [rst_text(power_line(claims).replace("**", "")), ""]
    lines += ["Verdicts: " + "; ".join(f"**{v}**: {rst_text(V.VERDICT_KEY[v])}" for v in V.VERDICTS) + ".", ""]
    lines += ["Terms: " + "; ".join(f"**{rst_text(t)}**: {rst_text(text)}" for t, text in TERMS.items()) + ".", ""]
    scoped = split_scope(claims)
    for paper, cite in papers_of(claims).items():
        mine = [c for c in scoped["paper_claim"] if c.paper == paper]
        if mine:
            lines += [f".. rubric:: {rst_text(f'{paper}: {cite}')}", ""]
            lines += _rst_table(["item", "claim", "instance, K run", "verdict", "measured", "why", "controls", "K needed"],
                                [[c.item, c.statement, instance_text(c), c.verdict, measured_text(c), why_cell(c),
                                  c.controls, k_needed_text(c.k_needed)] for c in mine], [2, 8, 3, 2, 5, 5, 4, 2])
    if scoped["context"]:
        lines += [".. rubric:: Context and diagnostics (not counted)", ""]
        lines += _rst_table(["paper", "item", "statement", "reading", "measured", "why"],
                            [[c.paper, c.item, c.statement, context_reading(c), measured_text(c), why_cell(c)]
                             for c in scoped["context"]], [2, 2, 8, 2, 5, 5])
    if scoped["out_of_reach"]:
        lines += [".. rubric:: Out of reach (K needed > 1e11; not counted)", ""]
        lines += [f"* {rst_text(f'{c.paper}, {c.item}: {c.statement}')} -- K needed {k_needed_text(c.k_needed)}"
                  for c in scoped["out_of_reach"]] + [""]
    return "\n".join(lines)
