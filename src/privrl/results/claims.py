"""The claims table: one list of :class:`~privrl.results.verdicts.Claim` rendered to
claims.csv and CLAIMS.md (a per-paper scoreboard, the verdict key, one section per paper).

Every producer builds Claims: the analyses and theorem checks directly, the config's claims
through :func:`score_claims` (``exponent_below`` / ``exponent_above`` / ``rate_upper`` checks scored
by :mod:`privrl.results.verdicts`).
"""
from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from privrl import io
from privrl.results import verdicts as V

CSV_COLUMNS = ["paper", "item", "claim_id", "statement", "kind", "verdict", "measured", "regime", "k_needed",
               "reached_by", "artifact", "experiment", "source", "scope"]
SCOPES = ("paper_claim", "context", "out_of_reach")  # scoreboard rows; labelled context; K needed > 1e11 or inf


# ---------------------------------------------------------------- table <-> frame
def claims_frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    return pd.DataFrame([{c: getattr(cl, c) for c in CSV_COLUMNS} for cl in claims], columns=CSV_COLUMNS)


def claims_from_frame(df: pd.DataFrame) -> list[V.Claim]:
    """Claims from a claims.csv frame (``CSV_COLUMNS``)."""
    missing = [c for c in CSV_COLUMNS if c not in df.columns and c != "scope"]  # scope: paper_claim if absent
    if missing:
        raise ValueError(f"not a claims table: columns {missing} missing")
    out = []
    for r in df.to_dict("records"):
        r = {k: ("" if (isinstance(v, float) and math.isnan(v) and k != "k_needed") else v) for k, v in r.items()}
        r["scope"] = r.get("scope") or "paper_claim"
        out.append(V.Claim(**{c: r[c] for c in CSV_COLUMNS if c != "k_needed"}, k_needed=float(r["k_needed"])))
    return out


def with_reach(claims: Sequence[V.Claim], designs: Mapping[str, Mapping[str, int]],
               run: Mapping[str, int] | None = None) -> list[V.Claim]:
    """Each "not reached" row with the shipped design that runs its experiment to >= the K it needs
    (``designs``: :func:`privrl.experiments.design_episodes`), or why none does. ``run``: {experiment:
    K} of the design that produced the rows; where it already runs K >= the number needed, what is
    missing is not episodes (e.g. Prop. 5's users k, an elimination): the regime column says what."""
    out = []
    for c in claims:
        if c.verdict == V.NOT_REACHED and not math.isnan(c.k_needed):
            runs = {d: k for d, e in designs.items() for name, k in e.items() if name == c.experiment}
            if (run or {}).get(c.experiment, 0) >= c.k_needed:
                note = f"not a matter of K (this run: K = {run[c.experiment]:.2g}): see the regime column"
            elif math.isinf(c.k_needed):
                note = "no K: the agent's width stays above the gap on this instance (needs another instance)"
            else:
                ok = [f"{d} (K = {k:.2g})" for d, k in runs.items() if k >= c.k_needed]
                note = ok[0] if ok else ("no shipped design: largest K run " + ", ".join(
                    f"{d} {k:.2g}" for d, k in runs.items()) if runs else "no shipped design runs this experiment")
            c = dataclasses.replace(c, reached_by=note)
        out.append(c)
    return out


def with_instance(claims: Sequence[V.Claim], instances: Mapping[str, Mapping[str, str]],
                  run: Mapping[str, int]) -> list[V.Claim]:
    """Each row of an experiment with its instance and the K it ran appended to its regime text
    (``instances``: {experiment: {env key: "name(params)"}}; the env key named in the claim id or
    statement, or the experiment's only env). The crossovers are in the regime text already."""
    out = []
    for c in claims:
        envs_ = instances.get(c.experiment) or {}
        named = [k for k in envs_ if k in c.claim_id or k in c.statement]
        key = max(named, key=len) if named else (next(iter(envs_)) if len(envs_) == 1 else None)
        if key is not None:
            K = run.get(c.experiment)
            text = f"instance {key} = {envs_[key]}" + (f"; K run {K:.3g}" if K else "")
            c = dataclasses.replace(c, regime="; ".join(t for t in (c.regime, text) if t))
        out.append(c)
    return out


def instances_of(config: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """{experiment: {env key: "name(k=v, ...)"}} of a resolved design."""
    return {e: {k: f"{v['name']}(" + ", ".join(f"{a}={b}" for a, b in (v.get("params") or {}).items()) + ")"
                for k, v in (x.get("envs") or {}).items()}
            for e, x in (config.get("experiments") or {}).items() if x}


def with_scope_of_reach(claims: Sequence[V.Claim], th: V.Thresholds = V.THRESHOLDS) -> list[V.Claim]:
    """Paper claims whose K needed exceeds ``th.out_of_reach_k`` (or is infinite) move to scope
    "out_of_reach": listed with their K, not counted in the scoreboard (no design reaches them)."""
    return [dataclasses.replace(c, scope="out_of_reach")
            if c.scope == "paper_claim" and not math.isnan(c.k_needed) and c.k_needed > th.out_of_reach_k else c
            for c in claims]


def write_claims(claims: Sequence[V.Claim], csv_path: str, md_path: str, extra: Sequence[str] = ()) -> None:
    io.write_csv(csv_path, claims_frame(claims))
    io.write_text(md_path, render_markdown(claims, extra))


# ---------------------------------------------------------------- markdown
def _kneeded(k: float) -> str:
    if not isinstance(k, float) or math.isnan(k):
        return ""
    return f"none <= {V.THRESHOLDS.k_max:.0e} on this instance" if k == math.inf else f"{k:.2g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _papers(claims: Sequence[V.Claim]) -> dict[str, str]:
    """paper id -> citation: the known papers in their order, then any other paper of the claims."""
    return {**V.PAPERS, **{c.paper: c.paper for c in claims if c.paper not in V.PAPERS}}


def scoreboard(claims: Sequence[V.Claim]) -> list[str]:
    """Markdown rows: paper -> item -> counts per verdict."""
    lines = ["| paper | item | " + " | ".join(V.VERDICTS) + " |", "|---|---|" + "---|" * len(V.VERDICTS)]
    for paper in _papers(claims):
        mine = [c for c in claims if c.paper == paper]
        for item in dict.fromkeys(c.item for c in mine):
            n = Counter(c.verdict for c in mine if c.item == item)
            lines.append(f"| [{paper}](#{paper}) | {_cell(item)} | " + " | ".join(str(n.get(v, 0) or "") for v in V.VERDICTS)
                         + " |")
    total = Counter(c.verdict for c in claims)
    lines.append("| **all** | | " + " | ".join(f"**{total.get(v, 0)}**" for v in V.VERDICTS) + " |")
    return lines


def render_markdown(claims: Sequence[V.Claim], extra: Sequence[str] = ()) -> str:
    """CLAIMS.md: scoreboard, verdict key, one anchored section per paper with one short row per
    claim (same order as claims.csv; measurements and regime notes in the CSV)."""
    lines = ["# Claims scored by this pipeline", "",
             "Generated from the fitted results; every verdict is measured by the rules of "
             "`privrl.results.verdicts` (docs: docs/decisions/verdicts.md). Details per row in `claims.csv`.", "",
             "## Scoreboard", ""] + scoreboard(claims) + ["", "## Key", ""]
    lines += [f"* **{v}** -- {V.VERDICT_KEY[v]}" for v in V.VERDICTS]
    for paper, cite in _papers(claims).items():
        mine = [c for c in claims if c.paper == paper]
        if not mine:
            continue
        lines += ["", f'<a id="{paper}"></a>', f"## {paper}: {cite}", "",
                  "| id | item | kind | claim | verdict | K needed | reached by |", "|---|---|---|---|---|---|---|"]
        for c in mine:
            lines.append(f"| `{c.claim_id}` | {_cell(c.item)} | {c.kind} | {_cell(c.statement)} | **{c.verdict}** "
                         f"| {_kneeded(c.k_needed)} | {_cell(c.reached_by)} |")
    for sec in extra:
        lines += ["", sec]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the config's claims
PAPER_OF_SOURCE = [  # first match wins: (pattern in the source, canonical paper id)
    (r"Vietri", "vietri2020"), (r"Garcelon", "garcelon2021"), (r"Lu, Gajane|Lu et al", "lu2026"),
    (r"Bai", "bai_sdp_pe"), (r"", "cross_paper")]
ITEM = re.compile(r"(Thm|Theorem|Table|Prop\.|Cor\.|Lemma|Alg\.|Eq\.|Remark|Sec\.)\s*[\w.\-]+")


def _first(table: list[tuple[str, str]], text: str) -> str:
    return next(v for pat, v in table if re.search(pat, text))


def _fit_row(fits: pd.DataFrame, check: Mapping[str, Any]) -> pd.Series:
    sel = fits[(fits.env == check["env"]) & (fits.cell == check["cell"])]
    if sel.empty:
        raise KeyError(f"claim refers to a missing fit: env={check['env']!r}, cell={check['cell']!r}")
    return sel.iloc[0]


def regime_of_fit(row: Mapping[str, Any], mdp: Any = None) -> V.Regime:
    """The Regime of a fits.csv row: crossover of its agent (``param_*`` columns) on ``mdp``
    (nan without an MDP or an agent column)."""
    cross = float("nan")
    if mdp is not None and "agent" in row:
        from privrl import agents

        spec = agents.get(row["agent"])
        params = {k[6:]: float(v) for k, v in row.items()
                  if k.startswith("param_") and k[6:] in spec.defaults and np.isfinite(float(v))}
        cross = spec.crossover(params, mdp)
    return V.Regime(cross, float(row["window_lo"]), float(row["window_hi"]),
                    float(row.get("saturated_fraction", float("nan"))))


def _exponent_check(rule: Callable[..., V.Score], line_key: str | None = "threshold", allowance: float = 0.0,
                    line: float = float("nan")):
    """A check scoring one cell's K-exponent with ``rule`` against ``check[line_key]`` (or the fixed
    ``line`` if ``line_key`` is None) with ``allowance``."""
    def check(fits: pd.DataFrame, check: Mapping[str, Any], mdp: Any = None) -> V.Score:
        f = _fit_row(fits, check)
        claimed = float(check[line_key]) if line_key else line
        return rule(V.RateFit.from_row(f), claimed, allowance, regime_of_fit(f, mdp))
    return check


# check type -> (scorer, kind of claim)
CHECKS: dict[str, tuple[Callable[..., V.Score], str]] = {
    "exponent_below": (_exponent_check(V.score_rate_upper), "rate"),
    "exponent_above": (_exponent_check(V.score_rate_lower), "rate"),
    # an O~(K^claimed) upper bound: one-sided, with the hidden-log allowance
    "rate_upper": (_exponent_check(V.score_rate_upper, "claimed", V.THRESHOLDS.log_allowance), "rate"),
    # still exploring: regret linear in K (exponent >= linear_exponent - log_allowance)
    "exploring": (_exponent_check(V.score_rate_lower, None, V.THRESHOLDS.log_allowance,
                                  V.THRESHOLDS.linear_exponent), "rate"),
}


def score_claims(experiment: str, claims: list[Mapping[str, Any]], fits: pd.DataFrame, artifact: str,
                 mdps: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The config's claims (``{id, statement, source, check[, paper, item]}``) as a claims.csv frame,
    scored by :mod:`privrl.results.verdicts`; ``mdps`` (env -> MDP) makes the regime known. The paper id
    and item default to what the source names (``PAPER_OF_SOURCE``; baselines: ``cross_paper``)."""
    out = []
    for c in claims:
        check = c["check"]
        score_fn, kind = CHECKS[check["type"]]
        score = score_fn(fits, check, (mdps or {}).get(check["env"]))
        src = str(c.get("source", ""))
        m = ITEM.search(src)
        out.append(dataclasses.replace(V.make_claim(
            c.get("paper") or _first(PAPER_OF_SOURCE, src), c.get("item") or (m.group(0) if m else "-"), str(c["id"]),
            str(c["statement"]), kind, check.get("artifact", artifact), score, experiment, src),
            scope=str(c.get("scope", "paper_claim"))))  # a config claim may be labelled context
    return claims_frame(out)


def claims_markdown(table: pd.DataFrame, extra_sections: list[str] | None = None) -> str:
    """CLAIMS.md from a claims.csv frame (:func:`render_markdown`)."""
    return render_markdown(claims_from_frame(table), extra_sections or [])


def extra_sections(paths) -> list[str]:  # noqa: ANN001
    """Markdown claim sections written by other rules (files named *claims*.md)."""
    return [Path(p).read_text() for p in paths if str(p).endswith(".md") and "claims" in Path(p).name]
