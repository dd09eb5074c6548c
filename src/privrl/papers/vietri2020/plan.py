"""Claim-plan rules of Vietri et al. 2020's analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl import agents
from privrl.papers.vietri2020.dimensions import ANALYSES as DIMENSIONS
from privrl.papers.planned import ExperimentCells, PlannedClaim, declared
from privrl.papers.vietri2020.bounds import lower_bound_declaration
from privrl.papers.vietri2020.minimax import minimax_declaration
from privrl.results.verdicts import THRESHOLDS, bound_k_needed


def pucb(x: ExperimentCells, thm: str) -> list[PlannedClaim]:
    from privrl.papers.vietri2020 import bounds as vb  # the papers' explicit bounds (App. B.1, B.2)
    from privrl.agents.crossover import max_policy_gap
    from privrl.runs.run import DEFAULT_ALPHAS

    out = []
    for c in x.private("pucb"):
        m, p = x.mdp[c.env], agents.get("pucb").resolve(c.params)
        if thm == "pac":  # one mistake series per gap interval (alpha between two policy gaps)
            for alpha in vb.series_alphas(m, list(x.config.get("alphas", DEFAULT_ALPHAS))):
                B = vb.thm3_explicit_bound(m.S, m.A, m.H, alpha, p["epsilon"], x.K, p.get("beta", 0.05))
                bound_id, rate_id = vb.pac_claim_ids(c.env, c.cell, alpha)  # the analysis's own ids
                out += [x.claim(bound_id, "explicit bound below K", [c], bound_k_needed(lambda k: B, 1.0)),
                        x.claim(rate_id, "rate window (2 decades)", [c], x.window(c, THRESHOLDS.fit_decades))]
        else:
            gap = max_policy_gap(m)
            need = bound_k_needed(lambda k: vb.thm4_explicit_bound(k, m.S, m.A, m.H, p["epsilon"], p["beta"]), gap)
            bound_id, rate_id = vb.thm4_claim_ids(c.env, c.cell)
            out += [x.claim(bound_id, "explicit bound below trivial", [c], need),
                    x.claim(rate_id, "rate window", [c], x.window(c))]
    return out


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"vietri2020_pac": lambda x: pucb(x, "pac"), "vietri2020_thm4": lambda x: pucb(x, "thm4"),
               "vietri2020_minimax": declared(minimax_declaration), "vietri2020_lower_bound": declared(lower_bound_declaration),
               "vietri2020_dimensions": declared(DIMENSIONS["vietri2020_dimensions"].declaration)}
