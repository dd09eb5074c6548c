"""Vietri et al. (ICML 2020): PUCB's regret and privacy cost across a nested family (one of S, A, H
growing), beside Thm 4's powers of that dimension and Thm 6's (the lower bound). Analysis
``vietri2020_dimensions``: :func:`privrl.papers.dimensions.analysis` with the table below.

Thm 4 (T = episodes): O~(H^2 sqrt(SAT) + (SAH^3 + S^2AH^3)/eps); the first term dominates at large
T, the second is what the privacy cost D = R - R(noise off) can grow as. Thm 6: Omega(sqrt(HSAT) +
SAH log(T)/eps), over its hard family. Both are worst cases over instances: context rows.
"""
from privrl.papers.dimensions import AgentBound, Cost, DimensionSpec, Power, analysis

THM4_LEADING = Power("H^2 sqrt(SAK)", {"S": 0.5, "A": 0.5, "H": 2.0}, "Thm 4")
THM4_PRIVACY = Power("(SAH^3 + S^2AH^3)/eps", {"S": 2.0, "A": 1.0, "H": 3.0}, "Thm 4")
THM6_LEADING = Power("sqrt(HSAK)", {"S": 0.5, "A": 0.5, "H": 0.5}, "Thm 6")
THM6_PRIVACY = Power("SAH log(K)/eps", {"S": 1.0, "A": 1.0, "H": 1.0}, "Thm 6")

SPEC = DimensionSpec(
    paper="vietri2020", source="Vietri et al. ICML 2020, Thm 4 and Thm 6",
    bounds={"pucb": AgentBound(
        regret=THM4_LEADING, lower=THM6_LEADING,
        costs=(Cost("privacy cost D", "D = R - R(noise off)", "noise", 0.0, THM4_PRIVACY, THM6_PRIVACY,
                     free=("epsilon",)),))})

ANALYSES = {"vietri2020_dimensions": analysis(SPEC, "vietri2020_dimensions",
                                              "Vietri et al. Thm 4 / Thm 6: PUCB across a dimension")}
