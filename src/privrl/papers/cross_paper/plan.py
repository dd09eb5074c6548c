"""Claim-plan rules of the cross-paper analyses: each analysis's own declaration run on the design's cells
(:func:`privrl.papers.planned.declared`; :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl.papers.cross_paper import privacy_cost_declaration
from privrl.papers.cross_paper.cross_model import order_declaration
from privrl.papers.cross_paper.separation import separation_declaration
from privrl.papers.planned import ExperimentCells, PlannedClaim, declared


def privacy_surface(x: ExperimentCells) -> list[PlannedClaim]:
    """The surface's trust-model comparisons are context rows (privrl.papers.cross_paper.surface): none is
    planned; its scored rows are the privacy_cost analysis's, planned by its declaration
    (:func:`privrl.papers.cross_paper.privacy_cost_declaration`)."""
    return []


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"privacy_cost": declared(privacy_cost_declaration), "cross_model_coverage": declared(order_declaration),
         "privacy_surface": privacy_surface, "trust_model_separation": declared(separation_declaration)}
