"""Claim-plan rules of Lu et al. 2026's analyses: the K each registered paper claim needs, as its analysis
reads the regime (:mod:`privrl.papers.planned`, :mod:`privrl.plan.claims`)."""
from __future__ import annotations


from privrl.papers.planned import NO_K, ExperimentCells, PlannedClaim


def rlsvi_privacy(x: ExperimentCells) -> list[PlannedClaim]:
    """The analysis's checks (three per RLSVI instance, Remark 2 once); "RLSVI no larger than UCBVI"
    and the matched-eps orders are context (Lu et al. compare RLSVI with no other agent)."""
    envs_ = sorted({c.env for c in x.cells if c.agent == "rlsvi"})
    return [x.claim(f"{name}_{env}", "check", [], NO_K) for env in envs_
            for name in ("cor14_equals_thm13_min", "library_not_looser", "eps_linear_in_K")] + (
        [x.claim("remark2_rewards_only", "check", [], NO_K)] if envs_ else [])


def lu2026_fixed_eps(x: ExperimentCells) -> list[PlannedClaim]:  # the orders against other agents are context
    return [x.claim(f"rlsvi_sqrtK_{c.env}", "rate window", [c], x.window(c))
            for c in x.private("rlsvi") if float(c.params.get("beta_scale", 1.0)) == 1.0]


def dimensions(x) -> list:
    """Dimension slopes (privrl.papers.dimensions) are context rows only: no paper claim to plan."""
    return []


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"rlsvi_privacy": rlsvi_privacy, "lu2026_fixed_eps": lu2026_fixed_eps, "lu2026_dimensions": dimensions}
