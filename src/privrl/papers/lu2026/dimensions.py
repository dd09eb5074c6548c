"""Lu et al. (2026): RLSVI across a nested family (one of S, A, H growing): its regret at K, and
the (eps(delta), delta)-JDP it certifies after K episodes (Cor. 14, computed) beside Lemma 12's
powers (rho = 2AK / (H^2 log 2HSA): A^1, H^-2 up to the log; the paper's remark that a longer
episode gives stronger privacy, as beta_k = S H^3 log(2HSAk)/2 grows). Analysis
``lu2026_dimensions``: :func:`privrl.papers.dimensions.analysis` with the table below.

Lu et al. print no power of S, A or H for RLSVI's regret (Sec. 4 cites Russo 2019 and Osband et
al. 2019 without their factors): the regret rows say "not printed". RLSVI has no noise-off twin
(its noise is its exploration): no privacy-cost row.
"""
from privrl.agents.rlsvi import privacy_table
from privrl.papers.dimensions import AgentBound, DimensionSpec, Extra, Power, analysis

NOT_PRINTED = Power("RLSVI's regret (Sec. 4 cites Russo 2019; factors not printed)", {}, "Sec. 4")
LEMMA12 = Power("rho = 2AK/(H^2 log 2HSA), log dropped", {"A": 1.0, "H": -2.0}, "Lemma 12")
DELTA = 1e-5


def certified_epsilon(info, mdp, K: int) -> float:
    """eps(delta) of Cor. 14 for the cell's K episodes (delta: the cell's, else 1e-5)."""
    p = info["params"]
    return float(privacy_table(float(p.get("delta", DELTA)), int(K), mdp.H, mdp.S, mdp.A,
                               float(p.get("beta_scale", 1.0)))["eps_cor14"])


SPEC = DimensionSpec(
    paper="lu2026", source="Lu, Gajane, Bai & Talebi (2026), Lemma 12, Cor. 14",
    bounds={"rlsvi": AgentBound(regret=NOT_PRINTED)},
    extras=(Extra("certified eps", "ε(δ), δ = $10^{-5}$ (Cor. 14)", ("rlsvi",), certified_epsilon,
                  LEMMA12),))

ANALYSES = {"lu2026_dimensions": analysis(SPEC, "lu2026_dimensions",
                                          "Lu et al.: RLSVI's regret and certified eps across a dimension")}
