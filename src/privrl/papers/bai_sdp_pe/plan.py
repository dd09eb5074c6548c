"""Claim-plan rules of Bai et al.'s analyses: each analysis's own declaration run on the design's cells
(:func:`privrl.papers.planned.declared`; :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl.papers.bai_sdp_pe import table1_declaration
from privrl.papers.bai_sdp_pe.printed_table import printed_declaration
from privrl.papers.bai_sdp_pe.theorems import error_level_declaration, scaling_declaration, thm11_declaration
from privrl.papers.planned import declared

#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"bai_sdp_pe_error_level": declared(error_level_declaration), "bai_sdp_pe_thm11": declared(thm11_declaration),
         "bai_sdp_pe_scaling": declared(scaling_declaration), "bai_table1": declared(table1_declaration),
         "bai_table1_printed": declared(printed_declaration)}
