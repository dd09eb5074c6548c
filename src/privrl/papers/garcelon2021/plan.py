"""Claim-plan rules of Garcelon et al. 2021's analyses: each analysis's own declaration run on the design's cells
(:func:`privrl.papers.planned.declared`; :mod:`privrl.plan.claims`)."""
from __future__ import annotations

from privrl.papers.garcelon2021 import table1_declaration
from privrl.papers.garcelon2021.dimensions import ANALYSES as DIMENSIONS
from privrl.papers.garcelon2021.printed_table import printed_declaration
from privrl.papers.garcelon2021.thm6 import thm6_declaration
from privrl.papers.planned import declared

#: analysis -> its rule (found by privrl.papers.registry.claim_rules)
RULES = {"garcelon_table1": declared(table1_declaration), "garcelon2021_thm6": declared(thm6_declaration),
         "garcelon_table1_printed": declared(printed_declaration),
         "garcelon2021_dimensions": declared(DIMENSIONS["garcelon2021_dimensions"].declaration)}
