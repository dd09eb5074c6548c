"""Claim-plan rules of Bai et al.'s analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

import math

from privrl import agents
from privrl.design import experiments
from privrl.papers.bai_sdp_pe.theorems import scaling_declaration
from privrl.papers.planned import ExperimentCells, PlannedClaim, cell_eps, declared, gamma_need
from privrl.results.verdicts import first_k


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


def _eq29_info(c: experiments.Cell) -> dict:
    return {"agent": c.agent, "params": agents.get(c.agent).resolve(c.params)}


def _eq29_dominance(x: ExperimentCells, shuffle: experiments.Cell, local: experiments.Cell) -> float:
    """First K at which Eq. (29) of the local run is >= MARGIN x the shuffle run's (inf: never), as
    the Table I analysis computes it."""
    from privrl.papers import table_orders
    from privrl.papers.bai_sdp_pe.eq29 import eq29_bound

    m, a, b = x.mdp[shuffle.env], _eq29_info(local), _eq29_info(shuffle)
    return first_k(1.0, lambda k: eq29_bound(a, m, int(k)) / eq29_bound(b, m, int(k)) >= table_orders.MARGIN)


def bai_table1(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    for env in sorted(x.instance):
        for agent in ("dp-ucbvi-jdp", "dp-ucbvi-ldp", "sdp-pe"):
            key = (lambda c: (c.params["C"], c.params["C1"])) if agent == "sdp-pe" else (
                lambda c: (float(c.params.get("bonus_scale", 1.0)),))
            cells = x.private(agent, env)
            for s in sorted({key(c) for c in cells}, reverse=True):
                by_eps = {cell_eps(c): c for c in cells if key(c) == s}
                ref = by_eps[1.0 if 1.0 in by_eps else min(by_eps)]
                tag = f"{agent}_{'_'.join(f'{v:g}' for v in s)}_{env}"
                out.append(x.claim(f"{tag}_sqrtK", "rate window (eps_ref)", [ref], x.window(ref)))
                base = (x.private("pe", env, C=s[0], C1=s[1]) if agent == "sdp-pe" else
                        [c for c in x.cells if c.env == env and c.agent.startswith("dp-ucbvi")
                         and float(c.params.get("noise", 1.0)) == 0.0 and float(c.params.get("bonus_scale", 1.0)) == s[0]])
                if base:
                    needs = [x.window(c) for c in by_eps.values()]
                    out += [x.claim(f"{tag}_b", "privacy cost b: first eps cell", by_eps.values(), min(needs)),
                            x.claim(f"{tag}_gamma", "eps exponent: second eps cell past 10 x crossover", by_eps.values(),
                                    gamma_need(x, by_eps.values()))]
        for sh in x.private("sdp-pe", env):
            p = {k: sh.params[k] for k in ("epsilon", "C", "C1")}
            central, local = x.private("sdp-pe-jdp", env, **p), x.private("sdp-pe-ldp", env, **p)
            tag = f"eps{cell_eps(sh):g}_C{p['C']:g}_{env}"
            if central:
                out.append(x.claim(f"shuffle_matches_central_{tag}", "ratio: shuffle's window", [sh, central[0]], x.window(sh)))
            if local:  # scored where Thm 6's own sum (Eq. 29) puts local >= MARGIN x shuffle, else context
                k_priv = _eq29_dominance(x, sh, local[0])
                if math.isfinite(k_priv):
                    out.append(x.claim(f"shuffle_lt_local_{tag}", "order: shuffle's crossover, Eq. (29) dominant",
                                       [sh, local[0]], max(x.cross[sh.setting], k_priv)))
    return out


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"bai_sdp_pe_error_level": error_level, "bai_sdp_pe_thm11": thm11,
         "bai_sdp_pe_scaling": declared(scaling_declaration),
               "bai_table1": bai_table1}


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
