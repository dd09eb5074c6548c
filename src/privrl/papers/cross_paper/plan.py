"""Claim-plan rules of the cross-paper analyses's analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

import dataclasses
import math

from privrl import agents
from privrl.papers.cross_paper.cross_model import order_declaration
from privrl.papers.cross_paper.separation import separation_declaration
from privrl.papers.planned import ExperimentCells, PlannedClaim, cell_eps, declared, gamma_need, order_need, second_eps_need


def privacy_cost(x: ExperimentCells) -> list[PlannedClaim]:
    """The analysis's own declaration (:func:`privrl.papers.cross_paper.privacy_cost_declaration`: ids and
    scopes as the ledger files them) run on the design's cells, with each row's K needed."""
    out, groups = [], {}
    from privrl.papers.cross_paper import (BASELINE_AGENT, FIXED, eps_exponent_test, noise_off_declaration,
                                           privacy_cost_declaration)

    for c in x.cells:  # resolved params, as the analysis reads them (a private cell's noise is its default 1)
        p = agents.get(c.agent).resolve(c.params)
        if "epsilon" in p and ("noise" in p or c.agent in BASELINE_AGENT):
            items = tuple(sorted((k, v) for k, v in p.items() if k not in FIXED))  # the analysis's group key
            groups.setdefault((c.env, c.agent, items), []).append(c)
    for (env, agent, items), cells in sorted(groups.items(), key=lambda kv: repr(kv[0])):
        rest = {k: v for k, v in items}
        priv = [c for c in cells if float(c.params.get("noise", 1.0)) > 0.5]
        has_base = len(priv) < len(cells) or any(
            b.agent == BASELINE_AGENT.get(agent) and b.env == env
            and all(math.isclose(float(rest.get(k, math.nan)), float(v)) for k, v in b.params.items())
            for b in x.cells)
        if not has_base or not priv:
            continue
        needs = [x.window(c) for c in priv]
        eps = [cell_eps(c) for c in priv]
        (b_id, scope), (eps_id, _) = privacy_cost_declaration(x.name, env, agent, items, eps)
        if eps_exponent_test(agent, agents.get(agent).privacy_model, eps)[1]:
            eps_claim = x.claim(eps_id, "eps exponent, two-sided: 4 eps cells over a decade past 10 x crossover",
                                priv, gamma_need(x, priv, two_sided=True), scope=scope)
        else:
            eps_claim = x.claim(eps_id, "eps exponent: second eps cell past 10 x crossover", priv,
                                gamma_need(x, priv), scope=scope)
        out += [x.claim(b_id, "privacy cost b: first eps cell", priv, min(needs), scope=scope), eps_claim]
        off = noise_off_declaration(x.name, env, agent, items, x.mdp.get(env))
        if off is not None:  # the noise-off level row (one-state, one-step instances): the project's control check
            off_id, off_scope, off_need, off_cross = off
            row = x.claim(off_id, "noise-off level: 10 x noise-off crossover", priv, off_need, scope=off_scope)
            out.append(dataclasses.replace(row, crossovers={f"{agent} noise off": off_cross}))
    return out


def privacy_surface(x: ExperimentCells) -> list[PlannedClaim]:
    """The surface's trust-model comparisons are context rows (privrl.papers.cross_paper.surface): none is
    planned; its scored rows are the privacy_cost analysis's, planned by :func:`privacy_cost`."""
    return []


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"privacy_cost": privacy_cost, "cross_model_coverage": declared(order_declaration), "privacy_surface": privacy_surface,
         "trust_model_separation": declared(separation_declaration)}
