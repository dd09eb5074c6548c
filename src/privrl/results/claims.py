"""The claims table: one list of :class:`~privrl.results.verdicts.Claim` rendered to
claims.csv and CLAIMS.md (a per-paper scoreboard, the verdict key, one section per paper).

Compatibility (until every analysis builds Claims): :func:`score_claims` scores the config's
``exponent_below`` / ``exponent_above`` checks with the verdict rules of
:mod:`privrl.results.verdicts` and returns the legacy columns; :func:`claims_markdown`
renders a legacy table (or a Claim frame) through the same renderer.
"""
from __future__ import annotations

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
               "artifact", "experiment", "source"]
LEGACY_COLUMNS = ["experiment", "id", "statement", "source", "artifact", "measured", "verdict"]


# ---------------------------------------------------------------- table <-> frame
def claims_frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    return pd.DataFrame([{c: getattr(cl, c) for c in CSV_COLUMNS} for cl in claims], columns=CSV_COLUMNS)


def claims_from_frame(df: pd.DataFrame) -> list[V.Claim]:
    """Claims from a claims.csv frame, or from legacy rows (:func:`from_legacy`)."""
    if "claim_id" not in df.columns:
        return from_legacy(df)
    new = df.claim_id.notna()
    if not new.all():  # legacy rows concatenated with Claim rows: each through its own reader, order kept
        out = []
        for is_new, part in df.groupby((new != new.shift()).cumsum(), sort=True):
            part = part.dropna(axis=1, how="all") if not new.loc[part.index[0]] else part
            out += claims_from_frame(part[[c for c in CSV_COLUMNS if c in part]] if new.loc[part.index[0]]
                                     else part[[c for c in LEGACY_COLUMNS if c in part]])
        return out
    out = []
    for r in df.to_dict("records"):
        r = {k: ("" if (isinstance(v, float) and math.isnan(v) and k != "k_needed") else v) for k, v in r.items()}
        out.append(V.Claim(**{c: r[c] for c in CSV_COLUMNS if c != "k_needed"}, k_needed=float(r["k_needed"])))
    return out


def write_claims(claims: Sequence[V.Claim], csv_path: str, md_path: str, extra: Sequence[str] = ()) -> None:
    io.write_csv(csv_path, claims_frame(claims))
    io.write_text(md_path, render_markdown(claims, extra))


# ---------------------------------------------------------------- markdown
def _kneeded(k: float) -> str:
    return "" if not isinstance(k, float) or math.isnan(k) else ("never (> 1e15)" if k == math.inf else f"{k:.2g}")


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
                  "| id | item | kind | claim | verdict | K needed |", "|---|---|---|---|---|---|"]
        for c in mine:
            lines.append(f"| `{c.claim_id}` | {_cell(c.item)} | {c.kind} | {_cell(c.statement)} | **{c.verdict}** "
                         f"| {_kneeded(c.k_needed)} |")
    for sec in extra:
        lines += ["", sec]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- legacy rows
PAPER_OF_SOURCE = [  # first match wins: (pattern in source / statement, canonical paper id)
    (r"Vietri", "vietri2020"), (r"Garcelon", "garcelon2021"), (r"Lu, Gajane|Lu et al", "lu2026"),
    (r"Bai", "bai_sdp_pe"), (r"", "cross_paper")]
ITEM = re.compile(r"(Thm|Theorem|Table|Prop\.|Cor\.|Lemma|Alg\.|Eq\.|Remark|Sec\.)\s*[\w.\-]+")
KIND_OF_STATEMENT = [  # (pattern, kind)
    (r"equals|never looser|carry the note|upper-bounds|within the Eq|unbiased|exceeds its claimed|"
     r"prefix error below|grows linearly in K", "check"),
    (r"K-exponent|K\^b|eps\^-c|O~\(sqrt K\)|exploring\) phase", "rate"),
    (r"<=|<<|costs less|no larger|amplifies", "order"),
    (r"below the Table", "bound"),
    (r"", "rate")]
LEGACY_VERDICT = {"reproduced": V.REPRODUCED, "not reproduced": V.INCONCLUSIVE, "inconclusive": V.INCONCLUSIVE}
LEGACY_NOTE = "legacy row (not built as a Claim: paper, item and kind inferred from its text)"
O_TILDE_NOTE = "O~ expression: constants and log factors hidden, not a number to compare with"


def _first(table: list[tuple[str, str]], text: str) -> str:
    return next(v for pat, v in table if re.search(pat, text))


def from_legacy(df: pd.DataFrame) -> list[V.Claim]:
    """Claims from legacy rows (``LEGACY_COLUMNS``): paper and item from the source text, kind
    from the statement, "not reproduced" read as inconclusive (those rules ignored the regime),
    checks marked "checked"; every row carries ``LEGACY_NOTE``."""
    out = []
    for r in df.to_dict("records"):
        src, stmt = str(r.get("source", "")), str(r["statement"])
        kind = _first(KIND_OF_STATEMENT, stmt)
        verdict = LEGACY_VERDICT.get(r["verdict"], r["verdict"])
        note = LEGACY_NOTE
        if kind == "check":
            verdict = {V.REPRODUCED: V.CHECKED}.get(verdict, verdict)
        elif kind == "bound":
            verdict, note = V.INCONCLUSIVE, f"{LEGACY_NOTE}; {O_TILDE_NOTE}"
        m = ITEM.search(src)
        out.append(V.Claim(_first(PAPER_OF_SOURCE, src), m.group(0) if m else src or "-",
                           str(r["id"]), stmt, kind, str(r["artifact"]), str(r["measured"]), verdict,
                           note + (f" (was: {r['verdict']})" if r["verdict"] != verdict else ""),
                           experiment=str(r.get("experiment", "")), source=src))
    return out


# ---------------------------------------------------------------- compatibility with the config checks
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


def _exponent_check(rule: Callable[..., V.Score], line_key: str = "threshold", allowance: float = 0.0):
    """A check scoring one cell's K-exponent with ``rule`` against ``check[line_key]`` + ``allowance``."""
    def check(fits: pd.DataFrame, check: Mapping[str, Any], mdp: Any = None) -> tuple[str, str]:
        f = _fit_row(fits, check)
        s = rule(V.RateFit.from_row(f), float(check[line_key]), allowance, regime_of_fit(f, mdp))
        return f"{s.measured}; {s.regime}" + (f"; K needed {s.k_needed:.3g}" if np.isfinite(s.k_needed) else ""), s.verdict
    return check


CHECKS: dict[str, Callable[..., tuple[str, str]]] = {
    "exponent_below": _exponent_check(V.score_rate_upper),
    "exponent_above": _exponent_check(V.score_rate_lower),
    # an O~(K^claimed) upper bound: one-sided, with the hidden-log allowance
    "rate_upper": _exponent_check(V.score_rate_upper, "claimed", V.THRESHOLDS.log_allowance),
}


def score_claims(experiment: str, claims: list[Mapping[str, Any]], fits: pd.DataFrame, artifact: str,
                 mdps: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Legacy-column rows of the config's claims (``{id, statement, source, check}``), scored
    by :mod:`privrl.results.verdicts`; ``mdps`` (env -> MDP) makes the regime known."""
    rows = []
    for c in claims:
        check = c["check"]
        mdp = (mdps or {}).get(check["env"])
        measured, verdict = CHECKS[check["type"]](fits, check, mdp)
        rows.append({"experiment": experiment, "id": c["id"], "statement": c["statement"], "source": c["source"],
                     "artifact": check.get("artifact", artifact), "measured": measured, "verdict": verdict})
    return pd.DataFrame(rows, columns=LEGACY_COLUMNS)


def claims_markdown(table: pd.DataFrame, extra_sections: list[str] | None = None) -> str:
    """CLAIMS.md from a legacy table or a claims.csv frame (:func:`render_markdown`)."""
    return render_markdown(claims_from_frame(table), extra_sections or [])


def extra_sections(paths) -> list[str]:  # noqa: ANN001
    """Markdown claim sections written by other rules (files named *claims*.md)."""
    return [Path(p).read_text() for p in paths if str(p).endswith(".md") and "claims" in Path(p).name]
