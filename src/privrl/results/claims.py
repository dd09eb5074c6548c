"""The claims table: one list of :class:`~privrl.results.verdicts.Claim` written to claims.csv,
CLAIMS.md and the report's claims page (the text: :mod:`privrl.results.ledger`).

Every producer builds Claims: the analyses and theorem checks directly, the config's claims
through :func:`score_claims` (``exponent_below`` / ``exponent_above`` / ``rate_upper`` checks scored
by :mod:`privrl.results.verdicts`).
"""
from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path
from typing import Iterable, Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from privrl import io
from privrl.results import ledger
from privrl.results import verdicts as V

CSV_COLUMNS = ["paper", "item", "claim_id", "statement", "kind", "verdict", "measured", "regime", "k_needed",
               "reached_by", "artifact", "experiment", "source", "scope", "instance", "crossovers", "k_run", "controls"]
# columns a table written before they existed may lack: their defaults
OPTIONAL = {"scope": "paper_claim", "instance": "", "crossovers": "", "k_run": None, "controls": ""}
NUMERIC = ("k_needed",)  # float columns (nan stays nan)
SCOPES = V.SCOPES


# ---------------------------------------------------------------- table <-> frame
def claims_frame(claims: Sequence[V.Claim]) -> pd.DataFrame:
    return pd.DataFrame([{c: getattr(cl, c) for c in CSV_COLUMNS} for cl in claims], columns=CSV_COLUMNS)


def claims_from_frame(df: pd.DataFrame) -> list[V.Claim]:
    """Claims from a claims.csv frame (``CSV_COLUMNS``; an ``OPTIONAL`` column may be absent)."""
    df = df.assign(**{c: v for c, v in OPTIONAL.items() if c not in df.columns})
    missing = [c for c in CSV_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"not a claims table: columns {missing} missing")
    out = []
    for r in df.to_dict("records"):
        r = {k: ((OPTIONAL.get(k, "")) if (isinstance(v, float) and math.isnan(v) and k not in NUMERIC) else v)
             for k, v in r.items()}
        r["k_run"] = None if r["k_run"] is None else float(r["k_run"])
        out.append(V.Claim(**{c: r[c] for c in CSV_COLUMNS if c not in NUMERIC},
                           **{c: float(r[c]) for c in NUMERIC}))
    return out


def with_reach(claims: Sequence[V.Claim], designs: Mapping[str, Mapping[str, int]],
               run: Mapping[str, int] | None = None) -> list[V.Claim]:
    """Each "not reached" row with the shipped design that runs its experiment to >= the K it needs
    (``designs``: :func:`privrl.design.experiments.design_episodes`), or why none does; first, another
    row of ``claims`` with the same statement and instance, not "not reached", whose experiment this
    design runs to >= that K (one row rerun at the K another printed: both rows stay, this one says
    where the statement is read). ``run``: {experiment: K} of the design that produced the rows; where it already runs K >= the number needed, what is
    missing is not episodes (e.g. Prop. 5's users k, an elimination): the note says what (the first
    clause of the row's regime text)."""
    run = run or {}
    # the same statement scored elsewhere in this design at a K at or above the one needed (an
    # experiment that reruns one row at the K another printed): that row reaches it here
    elsewhere = {}
    for c in claims:
        if c.verdict != V.NOT_REACHED and run.get(c.experiment):
            elsewhere.setdefault((c.statement, c.instance), []).append(c)
    out = []
    for c in claims:
        if c.verdict == V.NOT_REACHED and not math.isnan(c.k_needed):
            runs = {d: k for d, e in designs.items() for name, k in e.items() if name == c.experiment}
            there = [o for o in elsewhere.get((c.statement, c.instance), []) if run[o.experiment] >= c.k_needed]
            if there:
                note = "; ".join(f"this design's {o.experiment} (K = {run[o.experiment]:.3g}: {o.verdict}, "
                                 f"{o.claim_id})" for o in there)
            elif run.get(c.experiment, 0) >= c.k_needed:
                note = f"not a matter of K (this run: K = {run[c.experiment]:.2g}): {ledger.why(c)}"
            elif math.isinf(c.k_needed):
                note = "no K: the agent's width stays above the gap on this instance (needs another instance)"
            else:
                ok = [f"{d} (K = {k:.2g})" for d, k in runs.items() if k >= c.k_needed]
                note = ok[0] if ok else ("no shipped design: largest K run " + ", ".join(
                    f"{d} {k:.2g}" for d, k in runs.items()) if runs else "no shipped design runs this experiment")
            c = dataclasses.replace(c, reached_by=note)
        out.append(c)
    return out


def crossover_text(crossovers: Mapping[str, float]) -> str:
    """``{agent (or agent with the parameter that tells its cells apart): crossover K}`` as the
    ``crossovers`` column: "pucb: 6.22e+04; ldp-obi: 1.06e+05" (inf: "never"; nan: "unknown")."""
    def k(x: float) -> str:
        return "never" if x == math.inf else ("unknown" if not np.isfinite(x) else f"{x:.3g}")
    return "; ".join(f"{name}: {k(float(x))}" for name, x in crossovers.items())


def _mentions(text: str, agent: str) -> bool:
    """Whether ``text`` (lower case) names ``agent``: its registry name as a word of its own
    ("pe" not inside "sdp-pe"), or "dp-ucbvi (jdp" for "dp-ucbvi-jdp" (the labels' spelling)."""
    names = [agent]
    base, _, suffix = agent.rpartition("-")
    if base and suffix in ("jdp", "ldp", "sdp"):
        names.append(f"{base} ({suffix}")
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in names)


# "eps=100", "eps0 = 10", "epsilon=10", "eps100", "eps0.25"; not the symbol "eps0" of "eps0 K^(1/6)"
_EPS = re.compile(r"(?<![a-z])eps(?:ilon)?(?:0?\s*=\s*|(?!0(?![\d.]))(?=[0-9.]))([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)")


def row_cells(c: V.Claim, cells: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The cells a row is about, among ``cells`` (one env's: ``{agent, params, ...}``, noise-off twins
    left out): the agents its statement or id names (every cell when it names none), narrowed to its
    eps when it names one ("eps=100", "eps0 = 10", "epsilon=10", "eps100") and a cell has it."""
    live = [x for x in cells if float((x.get("params") or {}).get("noise", 1.0)) >= 0.5]
    text = f"{c.statement} {c.claim_id}".lower()
    named = [x for x in live if _mentions(text, x["agent"])] or live
    m = _EPS.search(text)
    if m:
        at = [x for x in named if np.isclose(float((x.get("params") or {}).get("epsilon", np.nan)), float(m.group(1)))]
        named = at or named
    return named


def row_crossovers(c: V.Claim, cells: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The crossovers of the cells a row is about (:func:`row_cells`; ``cells``: ``{agent, params,
    crossover}``). An agent with several distinct crossovers is listed per eps."""
    by: dict[str, dict[float, float]] = {}
    for x in row_cells(c, cells):
        eps = float((x.get("params") or {}).get("epsilon", np.nan))
        by.setdefault(x["agent"], {})[eps] = float(x["crossover"])
    out = {}
    for agent, ks in by.items():
        if len(set(ks.values())) <= 1:
            out[agent] = next(iter(ks.values()))
        else:
            out.update({f"{agent}(eps={e:g})": k for e, k in sorted(ks.items())})
    return out


def with_instance(claims: Sequence[V.Claim], instances: Mapping[str, Mapping[str, str]],
                  run: Mapping[str, int], cells: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]] | None = None
                  ) -> list[V.Claim]:
    """Each row of an experiment with its ``instance`` (``instances``: {experiment: {env key:
    "name(params)"}}; the env key named in the claim id or statement, or the experiment's only env;
    all of them, "; "-joined, when a row names none of several), the K it ran (``k_run``, from
    ``run`` = {experiment: K}) and, unless its producer set them, its agents' ``crossovers``
    (:func:`row_crossovers` over ``cells`` = {experiment: {env key: [{agent, params, crossover}]}},
    :func:`cell_crossovers`)."""
    out = []
    for c in claims:
        envs_ = instances.get(c.experiment) or {}
        named = [k for k in envs_ if k in c.claim_id or k in c.statement]
        keys = [max(named, key=len)] if named else list(envs_)
        if keys:
            K = run.get(c.experiment)
            cross = c.crossovers
            if not cross and cells:
                found: dict[str, float] = {}
                for k in keys:  # several instances: each agent's crossover per instance ("env/agent")
                    got = row_crossovers(c, (cells.get(c.experiment) or {}).get(k, []))
                    found.update({(f"{k}/{a}" if len(keys) > 1 else a): x for a, x in got.items()})
                cross = crossover_text(found)
            c = dataclasses.replace(c, instance=c.instance or "; ".join(envs_[k] for k in keys), crossovers=cross,
                                    k_run=float(K) if K else c.k_run)
        out.append(c)
    return out


def cell_specs(config: Mapping[str, Any]) -> dict[str, dict[str, dict]]:
    """{experiment: {env key: {"env": [name, params], "cells": [{agent, params}]}}} of a resolved
    design (plain data: a rule's param), the input of :func:`cell_crossovers`."""
    from privrl.design import experiments as X

    out: dict[str, dict[str, dict]] = {}
    for cell in X.all_cells(config):
        slot = out.setdefault(cell.experiment, {}).setdefault(
            cell.env, {"env": list(X.env_spec(config, cell.experiment, cell.env)), "cells": []})
        slot["cells"].append({"agent": cell.agent, "params": dict(cell.params)})
    return out


def cell_crossovers(specs: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[str, dict[str, list[dict]]]:
    """{experiment: {env key: [{agent, params, crossover}]}} of :func:`cell_specs`, each crossover
    from the agent's registered rule on the instance (``AgentSpec.crossover``, the papers' widths)."""
    from privrl.agents.registry import agent_crossover
    from privrl.rl import envs

    mdps: dict[str, Any] = {}
    out: dict[str, dict[str, list[dict]]] = {}
    for exp, by_env in specs.items():
        for env_key, spec in by_env.items():
            name, params = spec["env"]
            key = f"{name}{sorted((params or {}).items())}"
            if key not in mdps:
                mdps[key] = envs.make(name, **(params or {}))
            out.setdefault(exp, {})[env_key] = [
                {**x, "crossover": agent_crossover(x["agent"], x["params"], mdps[key])}
                for x in spec["cells"]]
    return out


def instance_name(name: str, params: Mapping[str, Any] | None) -> str:
    """An instance as the claims table names it: "name(k=v, ...)" (the ``instance`` column)."""
    return f"{name}(" + ", ".join(f"{a}={b}" for a, b in (params or {}).items()) + ")"


def instances_of(config: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """{experiment: {env key: "name(k=v, ...)"}} of a resolved design."""
    return {e: {k: instance_name(v["name"], v.get("params")) for k, v in (x.get("envs") or {}).items()}
            for e, x in (config.get("experiments") or {}).items() if x}


CONTEXT_EPS = 10.0  # an agent row measured at a larger eps is context: the papers' privacy terms vanish there


def eps_scope(eps: Iterable[float]) -> str:
    """The scope the eps of an agent row's cells give it: "context" when any exceeds ``CONTEXT_EPS`` (the
    papers' privacy terms vanish there), else "paper_claim". One rule for the ledger (:func:`with_power`) and
    for the analyses' declarations the claim plan runs without data (e.g.
    :func:`privrl.papers.cross_paper.privacy_cost_declaration`)."""
    eps = [float(e) for e in eps]
    return "context" if eps and max(eps) > CONTEXT_EPS else "paper_claim"


def with_power(claims: Sequence[V.Claim], cells: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]],
               th: V.Thresholds = V.THRESHOLDS) -> list[V.Claim]:
    """The papers' agent rows (rows of an experiment in ``cells`` = {experiment: {env: [{agent,
    params}]}}, :func:`cell_crossovers`) read for what they can show:

    * measured at an eps above ``CONTEXT_EPS`` (any cell the row is about): scope "context" (algebra
      checks, kind "check", stay: they hold at any eps);
    * a fixed-gap rate row that agrees (its statement says "converges"): a convergence check,
      kind "check", verdict "checked" -- never a reproduction of an O~(sqrt K) rate;
    * a "reproduced" row whose producer ran no wrong twins: "consistent", the twins its statement
      is about named as not run (:mod:`privrl.results.controls`);
    the statements no row checks are added after it, by the papers' layer
    (:func:`privrl.papers.unchecked.with_unchecked`).
    Mechanism-level rows (theorem checks, audits: no experiment in ``cells``) are left as they are."""
    from privrl.results import controls

    out = []
    for c in claims:
        by_env = cells.get(c.experiment)
        if by_env is None or c.scope != "paper_claim":
            out.append(c)
            continue
        about = [x for env_cells in by_env.values() for x in row_cells(c, env_cells)]
        eps = [float(x["params"]["epsilon"]) for x in about if "epsilon" in (x.get("params") or {})]
        if eps_scope(eps) == "context" and c.kind != "check":  # algebra is checked at any eps
            c = dataclasses.replace(c, scope="context", regime=f"measured at eps up to {max(eps):g} > {CONTEXT_EPS:g}, "
                                                               f"where the papers' privacy terms vanish (context); {c.regime}")
        elif c.kind == "rate" and "converges" in c.statement and c.verdict == V.REPRODUCED:
            c = dataclasses.replace(c, kind="check", verdict=V.CHECKED,
                                    regime=f"checked: converges (one fixed-gap instance: a convergence check, "
                                           f"not an O~(sqrt K) rate); {c.regime}")
        elif c.verdict == V.REPRODUCED and not c.controls:
            kind = "regret_bound" if c.kind == "bound" else "agent_regret"
            score = controls.judge_without_twin(V.Score(c.verdict, c.measured, c.regime, c.k_needed), kind, "")
            c = dataclasses.replace(c, verdict=score.verdict, regime=score.regime, controls=score.controls)
        out.append(c)
    return out


#: verdicts a row can have and still be out of reach: only undecided rows move (a reproduced,
#: contradicted or checked row was decided on the data run, whatever its K needed)
UNDECIDED = (V.NOT_REACHED, V.INCONCLUSIVE)


def with_scope_of_reach(claims: Sequence[V.Claim], th: V.Thresholds = V.THRESHOLDS) -> list[V.Claim]:
    """Undecided paper claims (verdict "not reached" or "inconclusive") whose K needed exceeds
    ``th.out_of_reach_k`` (or is infinite) move to scope "out_of_reach": listed with their K, not
    counted in the scoreboard (no design reaches them). Decisive and checked rows stay counted."""
    return [dataclasses.replace(c, scope="out_of_reach")
            if c.scope == "paper_claim" and c.verdict in UNDECIDED and not math.isnan(c.k_needed)
            and c.k_needed > th.out_of_reach_k else c
            for c in claims]


def write_claims(claims: Sequence[V.Claim], csv_path: str, md_path: str, rst_path: str | None = None) -> None:
    """claims.csv, CLAIMS.md and (``rst_path``) the report's claims page, items canonical
    (:func:`privrl.results.ledger.canonical_item`)."""
    claims = [dataclasses.replace(c, item=ledger.canonical_item(c.paper, c.item)) for c in claims]
    io.write_csv(csv_path, claims_frame(claims))
    io.write_text(md_path, ledger.render_markdown(claims))
    if rst_path is not None:
        io.write_text(rst_path, ledger.render_rst(claims))


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
        from privrl.agents.registry import agent_crossover

        spec = agents.get(row["agent"])
        params = {k[6:]: float(v) for k, v in row.items()
                  if k.startswith("param_") and k[6:] in spec.defaults and np.isfinite(float(v))}
        cross = agent_crossover(row["agent"], params, mdp)
    return V.Regime(cross, float(row["window_lo"]), float(row["window_hi"]),
                    float(row.get("saturated_fraction", float("nan"))))


@dataclasses.dataclass(frozen=True)
class CheckType:
    """A config claim's check type: scores one cell's K-exponent with ``rule`` against the check's
    field ``line_key`` (or the fixed ``line`` if ``line_key`` is None) with ``allowance``."""

    rule: Callable[..., V.Score]
    line_key: str | None
    allowance: float = 0.0
    line: float = float("nan")
    kind: str = "rate"

    @property
    def required(self) -> tuple[str, ...]:
        """The check's fields this type reads (besides the cell: ``cell`` or ``select``)."""
        return ("type", "env") + ((self.line_key,) if self.line_key else ())

    def score(self, fits: pd.DataFrame, check: Mapping[str, Any], mdp: Any = None) -> V.Score:
        f = _fit_row(fits, check)
        claimed = float(check[self.line_key]) if self.line_key else self.line
        return self.rule(V.RateFit.from_row(f), claimed, self.allowance, regime_of_fit(f, mdp))


# check type -> how it is scored; the one table: the scorer, and the fields the config validation
# requires of each type before any job (privrl.plan.validate), come from it
CHECK_TYPES: dict[str, CheckType] = {
    "exponent_below": CheckType(V.score_rate_upper, "threshold"),
    "exponent_above": CheckType(V.score_rate_lower, "threshold"),
    # an O~(K^claimed) upper bound: one-sided, with the hidden-log allowance
    "rate_upper": CheckType(V.score_rate_upper, "claimed", V.THRESHOLDS.log_allowance),
    # still exploring: regret linear in K (exponent >= linear_exponent - log_allowance), on a window
    # inside the linear phase (before the crossover; the claim plan's regime of the same type)
    "exploring": CheckType(lambda fit, line, allowance, regime: V.score_exploring(fit, regime), None,
                           V.THRESHOLDS.log_allowance, V.THRESHOLDS.linear_exponent),
}
# the line fields (each type reads at most one) and what every field a type requires means (a
# refusal of a check without it says so)
LINE_FIELDS = {"threshold": "the K-exponent the fitted exponent is compared with",
               "claimed": "the paper's K-exponent, compared with the log allowance"}
CHECK_FIELDS = {"type": "one of CHECK_TYPES", "env": "the env key of its cell", **LINE_FIELDS}
# check type -> (scorer, kind of claim)
CHECKS: dict[str, tuple[Callable[..., V.Score], str]] = {t: (c.score, c.kind) for t, c in CHECK_TYPES.items()}


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


def run_summary(figures_dir: str) -> list[str]:
    """What a finished workflow prints: where the figures and CLAIMS.md are and the scoreboard's
    counts per paper (read from ``{figures_dir}/claims.csv``; a run that made no claims table says so)."""
    csv = Path(figures_dir, "claims.csv")
    lines = [f"figures: {figures_dir}/ (PNG and PDF, by paper)"]
    if not csv.exists():
        return lines + [f"no claims table yet ({csv} not made by this run)"]
    lines.append(f"ledger: {Path(figures_dir, 'CLAIMS.md')} (full table: {csv})")
    for paper, n in ledger.scoreboard_counts(claims_from_frame(pd.read_csv(csv))).items():
        lines.append(f"  {paper:13s} " + ", ".join(f"{n[v]} {v}" for v in V.VERDICTS if n[v]) + f" ({sum(n.values())})")
    return lines
