"""Bai et al.'s Table I ("Results Comparison") as data: each row's algorithm, privacy model, printed
bound and its value, and the privacy-cost exponents its bound implies; shared by the ``bai_table1``
analysis and the printed-table analysis (:mod:`privrl.papers.bai_sdp_pe.printed_table`)."""
from __future__ import annotations

import math

from privrl.papers.analysis import AnalysisContext
from privrl.papers.common import curves
from privrl.results import verdicts as V

ROWS = {  # agent: (algorithm, model, bound text, bound(X, A, H, K, eps), (b claimed, gamma range))
    "dp-ucbvi-jdp": ("DP-UCBVI (Qiao & Wang 2023; reconstruction)", "eps-JDP", "O~(sqrt(XAH^3K) + X^2AH^3/eps)",
                     lambda X, A, H, K, e: math.sqrt(X * A * H**3 * K) + X**2 * A * H**3 / e,
                     (V.THRESHOLDS.additive_exponent, (1.0, 1.0))),
    "dp-ucbvi-ldp": ("DP-UCBVI (Qiao & Wang 2023; reconstruction)", "eps-LDP",
                     "O~(sqrt(XAH^3K) + X^2AH^3 sqrt(K)/eps)",
                     lambda X, A, H, K, e: math.sqrt(X * A * H**3 * K) + X**2 * A * H**3 * math.sqrt(K) / e,
                     (V.THRESHOLDS.sqrt_k_exponent, (1.0, 2.0))),
    "sdp-pe": ("SDP-PE (Bai et al. Alg. 1-3; 'PBPE' in Table I)", "(eps, beta)-SDP",
               "O~(sqrt(X^2AH^5K) + X^3A^2H^6/eps)",
               lambda X, A, H, K, e: math.sqrt(X**2 * A * H**5 * K) + X**3 * A**2 * H**6 / e,
               (V.THRESHOLDS.additive_exponent, (1.0, 1.0))),
}

def final_aux(ctx: AnalysisContext, env: str, cell: str) -> float:
    """Per-episode aux (e.g. the fraction of policies still active) over the last checkpoint interval, mean over seeds."""
    ep, aux = curves(ctx, env, cell, "cum_aux")
    if ep.size < 2:
        return float(aux[:, -1].mean() / ep[-1])
    return float(((aux[:, -1] - aux[:, -2]) / (ep[-1] - ep[-2])).mean())
