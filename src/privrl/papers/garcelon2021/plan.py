"""Claim-plan rules of Garcelon et al. 2021's analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

import math

from privrl.papers.planned import NO_K, ExperimentCells, PlannedClaim, cell_eps, gamma_need, order_need


def garcelon_table1(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    rows = [c for c in x.private() if "table1" in c.tags]
    for c in rows:
        out.append(x.claim(f"table1_{c.tags['table1']}_{c.env}_eps{cell_eps(c):g}", "rate window", [c], x.window(c)))
    for ldp in (c for c in rows if c.tags["table1"] == "ldp_obi"):
        jdp = [c for c in rows if c.tags["table1"] == "pucb" and c.env == ldp.env and math.isclose(cell_eps(c), cell_eps(ldp) / 2)]
        need = order_need(x, ("garcelon2021", "LDP", "JDP"), cell_eps(ldp), [jdp[0], ldp]) if jdp else None
        if need is not None:  # PUCB at eps0 / 2 is eps0-JDP under replacement (Vietri Claim 1)
            out.append(x.claim(f"table1_jdp_cheaper_{ldp.env}_eps{cell_eps(ldp):g}",
                               "order: 10 x max crossover, privacy term dominant", [jdp[0], ldp], need))
    for c in rows:
        if c.tags["table1"] == "shuffled_tau_k13":
            # the exact amplification of one release is context (amplification_context): not planned
            out.append(x.claim(f"table1_amplification_{c.env}_eps{cell_eps(c):g}_release_sequence",
                               "check (release sequence)", [], NO_K))
    return out


def garcelon2021_thm6(x: ExperimentCells) -> list[PlannedClaim]:
    out, grid = [], [c for c in x.private("shuffled-obi") if c.tags.get("thm6") == "grid"]
    # the exact amplification of tau users vs eps0 is context (amplification_context): not planned
    for (env, scale) in sorted({(c.env, float(c.params.get("bonus_scale", 1.0))) for c in grid}):
        tau0 = [c for c in grid if (c.env, float(c.params.get("bonus_scale", 1.0))) == (env, scale)
                and int(c.params.get("tau", 0)) == 0]
        out.append(x.claim(f"thm6_eps_term_{env}_s{scale:g}", "eps exponent: second eps cell past 10 x crossover",
                           tau0, gamma_need(x, tau0)))
    seen = set()  # the local-eps check and the guarantees do not depend on bonus_scale: once per (env, eps0)
    for c in (c for c in x.private("shuffled-obi") if c.tags.get("thm6") == "k13_local"):
        gid = f"{c.env}_eps0{float(c.tags['eps0']):g}"
        if gid not in seen:
            seen.add(gid)
            out.append(x.claim(f"thm6_k13_local_eps_{gid}", "check", [], NO_K))
            out.append(x.claim(f"thm6_k13_amplification_{gid}_release_sequence", "check (release sequence)", [], NO_K))
        out.append(x.claim(f"thm6_k13_rate_{c.cell}", "rate window", [c], x.window(c)))
    return out


def dimensions(x) -> list:
    """Dimension slopes (privrl.papers.dimensions) are context rows only: no paper claim to plan."""
    return []


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"garcelon_table1": garcelon_table1, "garcelon2021_thm6": garcelon2021_thm6,
         "garcelon2021_dimensions": dimensions}


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
