"""Bai et al. Thm 6 as an explicit number: the sum of Lemma 25's proof, Eq. (29), for one run.

Lemma 25 (the restated Thm 6) bounds the regret by

    4H + sum_{b=2}^{B} 8 C L_b (sqrt(H^5 X^2 A iota / L_{b-1}) + E_{b-1} X^3 A^2 H^5 iota / L_{b-1})

(Eq. 29; stage b plays 2 L_b episodes, each policy still active at most 4C(...)-suboptimal by
Lemma 24), with iota = log(2HAK/delta) and C the constant of Alg. 1's elimination threshold,
which the paper leaves unspecified. Everything in it is known for a run: the stage lengths
(:func:`privrl.agents.sdp_pe.stage_schedule`), the E of each stage's fine batch as the kernel
computes it (:func:`privrl.agents.pe_privacy.error_level`) and the C it ran. This is what the
dimension dependence X^3 A^2 H^5 of Thm 6 can be tested against on fixed instances: an upper
bound's dimension factor is a worst case over instances, and on a fixed-gap instance past its
crossover the regret is instance-dependent (O(log K)/gap), so the slope of log R across sizes
says nothing about the exponent (docs/decisions/claims.md, "Bai et al. Thm 6 across X, A, H").

Above the bound is "inconclusive", never "contradicted": the bound holds on Lemma 22's event,
which needs C at least the universal constant the paper does not give; at a smaller C the event
can fail (and pi* be eliminated) without the theorem being wrong.
"""
from __future__ import annotations

import math

from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.agents.pe_privacy import error_level
from privrl.agents.sdp_pe import PRESETS, stage_schedule
from privrl.results import verdicts as V


def eq29_bound(info: dict, mdp, K: int) -> float:
    """Eq. (29) for a K-episode run of the SDP-PE / PE cell ``info`` (its agent and parameters)
    on ``mdp``: stages from ``stage_schedule(K)``, L_b = half of stage b's episodes, E_b of stage
    b's fine batch (n_rel releases as the kernel counts them)."""
    p, code = info["params"], PRESETS[info["agent"]][2]
    H, X, A = int(mdp.H), int(mdp.S), int(mdp.A)
    sched = stage_schedule(int(K))
    iota = math.log(2.0 * H * A * K / p["delta"])
    n_rel = 2.0 * sched.shape[0] * H * X * A * X
    eps_c = per_counter_epsilon(p.get("epsilon", 1.0), H)
    L = [0.5 * float(c + f) for c, f in sched]
    E = [error_level(code, eps_c, p.get("beta", 0.5), int(f), p["delta"], n_rel) for _, f in sched]
    total = 4.0 * H
    for b in range(1, len(L)):
        total += 8.0 * p["C"] * L[b] * (math.sqrt(H**5 * X * X * A * iota / L[b - 1])
                                         + E[b - 1] * X**3 * A * A * H**5 * iota / L[b - 1])
    return total


def score_below_eq29(measured: tuple[float, float, float], info: dict, mdp, K: float, trivial_per_episode: float
                     ) -> V.Score:
    """Regret at K (mean, lo, hi) of the run ``info`` against its Eq. (29):
    :func:`~privrl.results.verdicts.score_bound` (vacuous while the bound is above
    ``K x trivial_per_episode``: "not reached" with the K from which it is not), except that a
    regret above it is "inconclusive" (the run's C may be below Lemma 22's unspecified constant)."""
    s = V.score_bound(measured, lambda k: eq29_bound(info, mdp, int(k)), K, trivial_per_episode)
    if s.verdict == V.CONTRADICTED:
        return V.Score(V.INCONCLUSIVE, s.measured, f"above Eq. (29) at C = {info['params']['C']:g}: not a violation, "
                       "Lemma 22's event needs C at least the universal constant the paper leaves unspecified")
    return s
