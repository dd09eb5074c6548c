"""Claim-plan rules of Lu et al. 2026's analyses: each analysis's own declaration run on the design's cells
(:func:`privrl.papers.planned.declared`; :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl.papers.lu2026 import privacy_declaration
from privrl.papers.lu2026.comparisons import fixed_eps_declaration
from privrl.papers.lu2026.dimensions import ANALYSES as DIMENSIONS
from privrl.papers.planned import declared


#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"rlsvi_privacy": declared(privacy_declaration), "lu2026_fixed_eps": declared(fixed_eps_declaration),
         "lu2026_dimensions": declared(DIMENSIONS["lu2026_dimensions"].declaration)}
