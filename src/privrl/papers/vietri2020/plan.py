"""Claim-plan rules of Vietri et al. 2020's analyses: each analysis's own declaration run on the design's cells
(:func:`privrl.papers.planned.declared`; :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl.papers.planned import declared
from privrl.papers.vietri2020.bounds import lower_bound_declaration, pac_declaration, thm4_declaration
from privrl.papers.vietri2020.dimensions import ANALYSES as DIMENSIONS
from privrl.papers.vietri2020.minimax import minimax_declaration

#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"vietri2020_pac": declared(pac_declaration), "vietri2020_thm4": declared(thm4_declaration),
         "vietri2020_minimax": declared(minimax_declaration), "vietri2020_lower_bound": declared(lower_bound_declaration),
         "vietri2020_dimensions": declared(DIMENSIONS["vietri2020_dimensions"].declaration)}
