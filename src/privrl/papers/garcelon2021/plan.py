"""Claim-plan rules of Garcelon et al. 2021's analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

import math

from privrl.papers.garcelon2021 import table1_declaration
from privrl.papers.garcelon2021.thm6 import thm6_declaration
from privrl.papers.garcelon2021.dimensions import ANALYSES as DIMENSIONS
from privrl.papers.planned import ExperimentCells, PlannedClaim, declared


#: analysis -> its rule (found by privrl.papers.registry.claim_rules): Table 1 and Thm 6 are their analyses'
#: own declarations run on the design's cells
RULES = {"garcelon_table1": declared(table1_declaration), "garcelon2021_thm6": declared(thm6_declaration),
         "garcelon2021_dimensions": declared(DIMENSIONS["garcelon2021_dimensions"].declaration)}


def garcelon_table1_printed(x: ExperimentCells) -> list[PlannedClaim]:
    """The paper-claim orders of Table 1 as printed (context orders left out), K needed as the analysis
    reads it: 10 x the larger crossover and the K from which the printed orders reach the margin."""
    from privrl.papers import printed_tables as PT
    from privrl.papers.cross_paper.cross_model import replacement_epsilon
    from privrl.papers.garcelon2021.printed_table import ORDERS, row_of, rows

    out = []
    for env in sorted(x.mdp):
        by = {}
        for c in x.private(env=env):
            info = {"agent": c.agent, "params": dict(c.params), "tags": dict(c.tags)}
            key = row_of(info)
            if key is not None:
                e0 = float(c.tags.get("eps0", c.params.get("epsilon", math.nan)))
                if e0 <= PT.EPS_MAX + 1e-12:
                    by[(key, e0)] = c
        printed = rows(int(x.mdp[env].H), math.nan)
        for e0 in sorted({e for _, e in by}):
            for o in ORDERS:
                if (o.fast, e0) not in by or (o.slow, e0) not in by:
                    continue
                _, k_form = PT.printed_need(printed[o.fast].form, printed[o.slow].form, e0, x.K)
                rel = [replacement_epsilon(by[(k, e0)].agent, dict(by[(k, e0)].params), x.mdp[env], x.K)
                       for k in (o.fast, o.slow)]
                if PT.order_scope(o, k_form, *rel)[0] != "paper_claim":
                    continue
                cells = [by[(o.fast, e0)], by[(o.slow, e0)]]
                need = PT.order_k_needed(k_form, [x.cross[c.setting] for c in cells])
                out.append(x.claim(f"table1_printed_{o.fast}_below_{o.slow}_{env}_eps{e0:g}".replace(".", "p"),
                                   "order: 10 x max crossover, printed orders apart by the margin", cells, need))
    return out


RULES["garcelon_table1_printed"] = garcelon_table1_printed
