"""Claim-plan rules of Vietri et al. 2020's analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations

import math

from privrl import agents
from privrl.papers.planned import ExperimentCells, PlannedClaim, cell_eps
from privrl.results.verdicts import THRESHOLDS, first_k


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
                out += [x.claim(bound_id, "explicit bound below K", [c], first_k(1.0, lambda k: B < k)),
                        x.claim(rate_id, "rate window (2 decades)", [c], x.window(c, THRESHOLDS.fit_decades))]
        else:
            gap = max_policy_gap(m)
            need = first_k(1.0, lambda k: vb.thm4_explicit_bound(k, m.S, m.A, m.H, p["epsilon"], p["beta"]) < k * gap)
            bound_id, rate_id = vb.thm4_claim_ids(c.env, c.cell)
            out += [x.claim(bound_id, "explicit bound below trivial", [c], need),
                    x.claim(rate_id, "rate window", [c], x.window(c))]
    return out


def minimax(x: ExperimentCells) -> list[PlannedClaim]:
    out, groups = [], {}
    for c in x.private():
        if "gap" in x.mdp[c.env].params:
            groups.setdefault((c.agent, cell_eps(c)), []).append(c)
    for (agent, eps), cells in sorted(groups.items()):
        cross = {float(x.mdp[c.env].params["gap"]): x.cross[c.setting] for c in cells}
        lo = THRESHOLDS.regime_factor * cross[max(cross)]
        need = 10.0 * lo if cross[min(cross)] >= 10.0 * lo else math.inf  # a decade of window inside the grid
        out += [x.claim(f"minimax_{kind}_{agent}_eps{eps:g}", "minimax: a decade past 10 x the largest gap's crossover",
                        cells, need) for kind in ("upper", "lower")]
    return out


def lower_bound(x: ExperimentCells) -> list[PlannedClaim]:
    """Thm 6's privacy term SAH ln K / eps at constant 1 is informative once it exceeds the regret of
    the linear phase, crossover x max policy gap (``score_lower_bound``)."""
    from privrl.agents.crossover import max_policy_gap

    out = []
    for c in x.private("pucb"):
        m, cr = x.mdp[c.env], x.cross[c.setting]
        accrued = cr * max_policy_gap(m)
        need = first_k(1.0, lambda k: m.S * m.A * m.H * math.log(k) / cell_eps(c) >= accrued)
        out.append(x.claim(f"lower_bound_{c.env}_{c.cell}", "privacy term past the linear phase", [c], need))
    return out


def dimensions(x) -> list:
    """Dimension slopes (privrl.papers.dimensions) are context rows only: no paper claim to plan."""
    return []


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"vietri2020_pac": lambda x: pucb(x, "pac"), "vietri2020_thm4": lambda x: pucb(x, "thm4"),
               "vietri2020_minimax": minimax, "vietri2020_lower_bound": lower_bound,
               "vietri2020_dimensions": dimensions}
