"""Claim-plan rules of the cross-paper analyses: each analysis's own declaration run on the design's cells
(:func:`privrl.papers.planned.declared`; :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl.papers.cross_paper import privacy_cost_declaration, privacy_surface_declaration
from privrl.papers.cross_paper.cross_model import order_declaration
from privrl.papers.cross_paper.separation import separation_declaration
from privrl.papers.planned import declared

#: analysis -> its rule (found by privrl.papers.registry.claim_rules); the privacy surface's rows are its
#: trust-model comparisons, all context (its scored rows are the privacy_cost analysis's)
RULES = {"privacy_cost": declared(privacy_cost_declaration), "cross_model_coverage": declared(order_declaration),
         "privacy_surface": declared(privacy_surface_declaration),
         "trust_model_separation": declared(separation_declaration)}
