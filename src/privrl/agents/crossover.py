"""Crossover K of an agent: when its own width formula falls below what the instance needs.

A rate claim (regret O~(sqrt K), privacy cost ~ K^b) describes an agent that has stopped
exploring: its confidence width (or perturbation, or elimination threshold) is below the
instance's gap. Before that K the regret grows linearly whatever the theorem says
(docs/decisions/verdicts.md, "Regime rule"). This module computes that K from the agent's
*own* formula with the constants its kernel uses (the njit helpers are imported, never
retyped), under **uniform visitation**: after K episodes every (h, s, a) has been visited
``n = K / (S A)`` times (per-layer statistics) or ``K H / (S A)`` times (stationary
statistics, OBI). Uniform visitation is the pessimistic reading for the pairs an optimistic
agent rarely visits and optimistic for none: a pre-registered, formula-only regime line.

Targets (pure functions of the MDP arrays, exact evaluation by :func:`privrl.rl.mdp.policy_values`):

* :func:`first_step_gap` -- ``min_{s: rho(s) > 0}`` of ``V*_1(s) - V^{pi'}_1(s)`` where pi'
  plays the best suboptimal first action at s and pi* afterwards; an optimistic agent's
  per-step width must fall below ``gap / H`` (H widths add up along a trajectory);
* :func:`max_policy_gap` -- ``rho . (V*_1 - V^{worst}_1)``: an elimination method (SDP-PE,
  Bai et al. Alg. 1 line 9) can drop its first policy once its threshold is below this.

Every agent module registers a :class:`CrossoverRule` on its AgentSpec (``crossover_rule``);
:func:`smallest_K` is the shared search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from privrl.rl.mdp import TabularMDP, optimal_policy, optimal_values, policy_values, worst_policy  # noqa: F401 (re-export)

K_MAX = 1e15          # beyond this the crossover is reported as inf ("never" at any runnable K)
GRID_PER_DECADE = 8   # geometric scan before the bisection
GAP_TOL = 1e-12       # value differences below this are ties, not gaps


def first_step_gap(mdp: TabularMDP) -> float:
    """Smallest positive first-step value gap over initial states (module docstring); nan if
    every first action is optimal at every initial state (no gap to resolve)."""
    pi_star = optimal_policy(mdp)
    v_star = policy_values(mdp, pi_star)[0]
    best = math.inf
    for s in np.flatnonzero(mdp.rho > 0):
        for a in range(mdp.A):
            if a == pi_star[0, s]:
                continue
            pi = pi_star.copy()
            pi[0, s] = a
            g = v_star[s] - policy_values(mdp, pi)[0, s]
            if g > GAP_TOL:
                best = min(best, g)
    return best if math.isfinite(best) else float("nan")


def max_policy_gap(mdp: TabularMDP) -> float:
    """``rho . (V*_1 - V^worst_1)``: the largest value gap between two policies."""
    _, V = optimal_values(mdp)
    return float(mdp.rho @ (V[0] - policy_values(mdp, worst_policy(mdp))[0]))


def uniform_visits(K: float, mdp: TabularMDP, stationary: bool = False) -> float:
    """Visits of one (h, s, a) (or one (s, a) summed over h if ``stationary``) after K episodes."""
    return K * (mdp.H if stationary else 1) / (mdp.S * mdp.A)


def smallest_K(width: Callable[[float], float], target: float, k_max: float = K_MAX) -> float:
    """Smallest K in [1, k_max] with ``width(K) <= target``: geometric scan, then bisection on
    the first bracketing interval (widths decrease in K once counts dominate). inf if none,
    nan if the target is undefined."""
    if not np.isfinite(target) or target <= 0:
        return float("nan")
    grid = np.unique(np.round(np.geomspace(1.0, k_max, int(GRID_PER_DECADE * math.log10(k_max)) + 1)))
    prev = None
    for K in grid:
        if width(float(K)) <= target:
            if prev is None:
                return float(K)
            lo, hi = prev, float(K)
            while hi - lo > max(1.0, 1e-3 * lo):
                mid = math.sqrt(lo * hi)
                if width(mid) <= target:
                    hi = mid
                else:
                    lo = mid
            return float(math.ceil(hi))
        prev = float(K)
    return math.inf


@dataclass(frozen=True)
class CrossoverRule:
    """The width an agent compares with the instance, from its own formula.

    ``width(params, mdp, K)``: per-step confidence width (or perturbation sd, or elimination
    threshold) after K episodes of a K-episode run under uniform visitation; ``target(mdp)``:
    what it must fall below; ``formula``: the paper's expression, quoted in regime notes.
    """

    width: Callable[[Mapping[str, float], TabularMDP, float], float]
    target: Callable[[TabularMDP], float]
    formula: str

    def crossover(self, params: Mapping[str, float], mdp: TabularMDP, k_max: float = K_MAX) -> float:
        """K at which ``width`` first falls below ``target`` (inf: never before k_max)."""
        return smallest_K(lambda K: self.width(params, mdp, K), self.target(mdp), k_max)


def per_step_gap(mdp: TabularMDP) -> float:
    """The optimistic agents' target: first-step gap / H."""
    return first_step_gap(mdp) / mdp.H


def optimism_rule(width: Callable[[Mapping[str, float], TabularMDP, float], float], formula: str) -> CrossoverRule:
    """A rule comparing a per-step width with first-step gap / H."""
    return CrossoverRule(width, per_step_gap, formula)
