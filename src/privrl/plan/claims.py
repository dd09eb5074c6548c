"""Claim plan: before any run, each claim a design registers, with the K its regime needs and the K
it runs (``python -m privrl.plan.claims --configfile config/paper.yaml``).

The K needed is the verdict code's, evaluated from the agents' registered crossover formulas
(:meth:`privrl.agents.AgentSpec.crossover`, uniform visitation, the cell's own parameters) on the
cell's instance, with the registration rule of the analysis that scores the claim
(docs/decisions/claims.md, "Paper scale (config/paper.yaml) and the claim plan"):

* a rate on one cell (``rate_upper`` claims, Table rows, Thm 4 / Thm 11 sqrt K rows):
  :meth:`privrl.results.verdicts.Regime.k_needed` of a window of the experiment's ``fit_decades``
  (Vietri Thm 3's mistake rate: the verdicts' default two decades), i.e.
  ``regime_factor x crossover x 10^decades`` (:func:`privrl.papers.designs.window_k`);
* a privacy-cost exponent b (D ~ K^b): the first eps cell's window; an eps exponent: the second's
  (``score_eps_dependence``);
* an order or a point regime (cross-model orders, Garcelon's JDP vs LDP, Bai et al.'s error
  level): ``regime_factor x`` the largest crossover of its cells (error level: of the two
  smallest), and for the JDP-vs-LDP orders the K from which the table's forms dominate; Bai's
  shuffle << local: the shuffle cell's crossover (its first elimination) and the K from which
  Eq. (29) dominates, as ``score_order`` is given it;
* an explicit bound (Vietri Thm 3 / Thm 4 with constants, Bai Thm 6's Eq. (29) at every size):
  the K from which it is below the trivial one (``first_k``); checks and Prop. 5 rows need no K;
* the minimax rate (hard family): 10 x (regime_factor x the largest gap's crossover), never when
  the smallest gap's crossover is below that; Vietri Thm 6's privacy term on one instance: the K at
  which SAH ln K / eps exceeds the linear phase's regret (crossover x largest policy gap).

Each claim is declared once: an analysis declares its rows (id, cells, K needed by its verdict's own
rule, scope) from the run infos alone, names the rows it scores by that declaration, and its rule here
is the declaration run on the design's cells (:func:`privrl.papers.planned.declared`; each paper's
``plan.py`` maps its analyses to their declarations, gathered by
:func:`privrl.papers.registry.claim_rules`); an analysis without a rule is reported, its claims not
counted; docs/decisions/claims.md, "Each claim declared once".

Which rows are paper claims and which are context is decided by the analyses' own functions,
called here rather than copied: :func:`privrl.papers.table_orders.dominance` (Garcelon Table 1's and
the cross-model JDP-vs-LDP orders), Eq. (29) (:func:`privrl.papers.bai_sdp_pe.eq29.eq29_bound`: Bai
Table I's shuffle << local where the local sum is >= MARGIN x the shuffle one; Thm 6's
below-Eq. (29) rows, K needed where the bound stops being vacuous), Prop. 5's hypothesis
(:func:`privrl.mechanisms.accounting.garcelon_prop5_condition`) and
:func:`privrl.papers.designs.window_k`. Every theorem check the design names (``mechanisms.checks``) and each
privacy audit it names is one row that needs no K.

Context rows (``scope: context``) are listed (``--all``), not counted: they are not the papers' claims.
The declarations give each row's scope, every row above eps 10 is context as in the ledger
(:func:`privrl.results.claims.eps_scope`), the config's claims carry the config's scope, and the
statements no row checks (:mod:`privrl.papers.unchecked`) are listed as the ledger lists them. Shapes: one :class:`PlannedClaim` per registered claim;
:func:`plan` returns a list, :func:`summary` the counts of the paper claims.
"""
from __future__ import annotations

import argparse
import sys
import math
from typing import Mapping


from privrl.design import experiments
from privrl.agents.registry import agent_crossover
from privrl.papers.planned import NO_K, ExperimentCells, PlannedClaim
from privrl.results.claims import instance_name
from privrl.results.verdicts import THRESHOLDS
from privrl.rl import envs

__all__ = ["NO_K", "PlannedClaim", "plan", "report", "summary"]

# the audits' claim rows of every design (privrl.papers.cross_paper.privacy_audit_claim / agent_audit_claim)
AUDIT_CLAIMS = ("privacy_audit", "agent_audit")


# ---------------------------------------------------------------- the plan of a design
def _experiment(config: Mapping, name: str, mdps: dict) -> ExperimentCells:
    cells = experiments.expand_cells(config, name)
    inst, mdp, cross = {}, {}, {}
    for env in (config["experiments"][name].get("envs") or {}):
        ename, params = experiments.env_spec(config, name, env)
        key = (ename, tuple(sorted(params.items())))
        if key not in mdps:
            mdps[key] = envs.make(ename, **params)
        mdp[env] = mdps[key]
        inst[env] = instance_name(ename, params)
    for c in cells:
        cross[c.setting] = agent_crossover(c.agent, c.params, mdp[c.env])
    return ExperimentCells(name, config["experiments"][name], cells, cross, inst, mdp)


#: a config claim's check type -> (K needed, largest K in regime) of its cell (ExperimentCells, Cell):
#: a rate claim needs its window past the crossover; "still exploring" holds only in the linear phase,
#: up to the crossover, so no larger K reaches it
CONFIG_CHECK_REGIME = {
    "exponent_below": lambda x, c: (x.window(c), math.inf),
    "exponent_above": lambda x, c: (x.window(c), math.inf),
    "rate_upper": lambda x, c: (x.window(c), math.inf),
    "exploring": lambda x, c: (NO_K, x.cross[c.setting]),
}


def config_claims(x: ExperimentCells, config: Mapping) -> list[PlannedClaim]:
    """The design's own claims (``claims:`` of the config: declared there once) on one cell, each in the
    regime of its check type (:data:`CONFIG_CHECK_REGIME`), with the scope the config gives it."""
    out = []
    for spec in experiments.resolve_claims(config, x.name):
        check = spec["check"]
        if "cell" not in check:
            continue
        c = next(c for c in x.cells if c.env == check["env"] and c.cell == check["cell"])
        need, k_max = CONFIG_CHECK_REGIME[check["type"]](x, c)
        out.append(x.claim(spec["id"], f"config {check['type']}", [c], need, k_max,
                           spec.get("scope", "paper_claim")))
    return out


def unchecked_rows(papers: set[str]) -> list[PlannedClaim]:
    """The statements of ``papers`` no row checks (:data:`privrl.papers.unchecked.UNCHECKED`), context rows
    with no experiment as the ledger lists them (one whose item a row checks is left out there: the plan
    knows ids, not items, and lists every one)."""
    from privrl.papers.unchecked import unchecked_claims

    return [PlannedClaim("", c.claim_id, "not checkable here (context)", c.source, {}, NO_K, 0.0, scope="context")
            for c in unchecked_claims(papers)]


def plan(config: Mapping) -> tuple[list[PlannedClaim], list[str]]:
    """(every paper claim the resolved design registers, with K needed and K run; the analyses no
    rule plans, whose claims are therefore not counted)."""
    from privrl.papers import registry as papers  # each theorem check the design names: one row, no K

    out, unplanned, mdps, rules = [], [], {}, papers.claim_rules()
    named = experiments.named_checks(config)  # the theorem checks and audits the design names
    out += [PlannedClaim("mechanisms", name, f"theorem check ({c.kind})", c.source, {}, NO_K, 0.0)
            for name, c in papers.theorem_checks().items() if name in named]
    out += [PlannedClaim("mechanisms", name, "privacy audit", "every mechanism / agent", {}, NO_K, 0.0)
            for name, asked in zip(AUDIT_CLAIMS, (experiments.names_mechanism_audit(config),
                                                  experiments.audited_agents(config))) if asked]
    for name, exp in (config.get("experiments") or {}).items():
        if not exp:
            continue
        x = _experiment(config, name, mdps)
        out += config_claims(x, config)
        for analysis in exp.get("analyses") or []:
            if analysis in rules:
                out += rules[analysis](x)
            else:
                unplanned.append(f"{name}: {analysis}")
    known = papers.papers()
    cited = {k for k, p in known.items() if any(a in p.analyses for e in (config.get("experiments") or {}).values()
                                                 if e for a in e.get("analyses") or [])
             or any(c.name in named for c in p.theorem_checks)}
    out += unchecked_rows(cited)
    return out, unplanned


def summary(claims: list[PlannedClaim], with_no_k: bool = True) -> dict[str, float]:
    """Counts of the paper claims (context rows left out): registered, in regime, out of reach (K needed >
    1e11 or never), fraction in regime (``with_no_k=False``: rows needing no K, checks and Prop. 5, left out
    of both counts)."""
    rows = [c for c in claims if c.scope == "paper_claim" and (with_no_k or c.k_needed != NO_K)]
    n_in = sum(c.in_regime for c in rows)
    return {"registered": len(rows), "in_regime": n_in, "out_of_reach": sum(c.out_of_reach for c in rows),
            "fraction": n_in / len(rows) if rows else math.nan}


def report(config: Mapping, name: str, every: bool = False) -> list[str]:
    """The plan's lines: the claims not in regime (``every``: all), warnings, the counts."""
    claims, unplanned = plan(config)
    lines = [c.text() for c in claims if every or (c.scope == "paper_claim" and not c.in_regime)]
    lines += [f"warning: no claim rule for analysis {u}: its claims are not counted" for u in unplanned]
    s, k = summary(claims), summary(claims, with_no_k=False)
    lines.append(f"{name}: {s['in_regime']} of {s['registered']} planned paper claims in regime at the K run "
                 f"({s['fraction']:.0%}); without the rows that need no K (checks, Prop. 5): {k['in_regime']} of "
                 f"{k['registered']} ({k['fraction']:.0%}); out of reach (K needed > {THRESHOLDS.out_of_reach_k:.0e}): "
                 f"{s['out_of_reach']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m privrl.plan.claims", description=__doc__.split("\n")[0])
    ap.add_argument("--configfile", default="config/config.yaml")
    ap.add_argument("--all", action="store_true", help="print every claim (default: those not in regime)")
    a = ap.parse_args(argv)
    from privrl.plan import validate

    try:  # the door the Snakefile and privrl estimate use
        config = validate.read_design(a.configfile)
    except ValueError as e:
        print(e.report() if isinstance(e, validate.InvalidDesign) else str(e), file=sys.stderr)
        return 2
    print("\n".join(report(config, a.configfile, a.all)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
