"""Claim-plan rules of Bai et al.'s analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

import math

from privrl.papers.bai_sdp_pe import table1_declaration
from privrl.papers.bai_sdp_pe.theorems import scaling_declaration
from privrl.papers.planned import ExperimentCells, PlannedClaim, cell_eps, declared, gamma_need


def _id(x: ExperimentCells, cid: str) -> str:
    from privrl.papers.bai_sdp_pe.theorems import claim_id  # the analyses' own ids

    return claim_id(x.name, cid)


def error_level(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    for env in sorted(x.instance):
        priv = sorted((c for c in x.private(env=env) if c.agent in ("sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp")),
                      key=lambda c: x.cross[c.setting])
        out.append(x.claim(_id(x, f"error_level_{env}"), "point: 10 x the two smallest crossovers", priv[:2], x.point(priv[:2])))
    return out


def thm11(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    for env in sorted(x.instance):
        inside = [c for c in x.private("sdp-pe", env) if cell_eps(c) < 1.0]
        needs = [x.window(c) for c in inside]
        out += [x.claim(_id(x, f"sqrtK_eps{cell_eps(c):g}_{env}"), "rate window", [c], n) for c, n in zip(inside, needs)]
        if inside and x.private("pe", env):
            out += [x.claim(_id(x, f"additive_b_{env}"), "privacy cost b: first eps cell", inside, min(needs)),
                    x.claim(_id(x, f"eps_dependence_{env}"), "eps exponent: second eps cell past 10 x crossover", inside,
                            gamma_need(x, inside))]
    return out


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"bai_sdp_pe_error_level": error_level, "bai_sdp_pe_thm11": thm11,
         "bai_sdp_pe_scaling": declared(scaling_declaration),
               "bai_table1": declared(table1_declaration)}


def bai_table1_printed(x: ExperimentCells) -> list[PlannedClaim]:
    """The paper-claim orders of Table I as printed (context orders left out), K needed as the analysis
    reads it: 10 x the larger crossover and the K from which the printed bounds reach the margin."""
    import math

    from privrl.papers import printed_tables as PT
    from privrl.papers.cross_paper.cross_model import replacement_epsilon
    from privrl.papers.bai_sdp_pe.printed_table import ORDERS, PRINTED, rows

    out = []
    for env in sorted(x.mdp):
        m = x.mdp[env]
        printed = rows(int(m.S), int(m.A), int(m.H))
        by = {}
        for c in x.private(env=env):
            if c.agent in PRINTED and (c.agent != "sdp-pe" or (math.isclose(float(c.params.get("C", 0)), 1.0)
                                                             and math.isclose(float(c.params.get("C1", 0)), 6.0))):
                e = float(c.params.get("epsilon", math.nan))
                if e <= PT.EPS_MAX + 1e-12:
                    by[(c.agent, e)] = c
        for e in sorted({e for _, e in by}):
            for o in ORDERS:
                if (o.fast, e) not in by or (o.slow, e) not in by:
                    continue
                _, k_form = PT.printed_need(printed[o.fast].form, printed[o.slow].form, e, x.K)
                rel = [replacement_epsilon(by[(k, e)].agent, dict(by[(k, e)].params), m, x.K) for k in (o.fast, o.slow)]
                if PT.order_scope(o, k_form, *rel)[0] != "paper_claim":
                    continue
                cells = [by[(o.fast, e)], by[(o.slow, e)]]
                need = PT.order_k_needed(k_form, [x.cross[c.setting] for c in cells])
                out.append(x.claim(f"tableI_printed_{o.fast}_below_{o.slow}_{env}_eps{e:g}".replace(".", "p"),
                                   "order: 10 x max crossover, printed bounds apart by the margin", cells, need))
    return out


RULES["bai_table1_printed"] = bai_table1_printed
