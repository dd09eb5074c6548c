"""Per-seed diagnostic of an elimination agent (SDP-PE / PE, Bai et al. Alg. 1 line 9): did the
seed eliminate every optimal policy (lose pi*)?

Read from what a run records (per-seed cumulative pseudo-regret at checkpoints; the runner scores
each episode exactly, ``engine.policy_gap`` = rho . (V*_1 - V^pi_1)), never from the agent:

* once every optimal policy is eliminated, every later episode plays a suboptimal policy, so its
  regret is at least the instance's smallest positive policy gap ``g_min``
  (:func:`smallest_policy_gap`); the regret then grows linearly at slope >= g_min for ever
  (nothing re-activates a policy);
* a seed is flagged when its mean per-episode regret over the last decade of checkpoints
  (:func:`late_regret_rate`, ``(R(K) - R(K0)) / (K - K0)``, K0 the first checkpoint >= K / 10)
  is at least ``THRESHOLDS.lost_optimum_fraction`` (0.5) x g_min: a seed that lost pi* before
  ~0.55 K is flagged, and a seed that kept pi* is flagged only if it still pays half the
  smallest gap per episode over a whole decade (then its regret is linear at K anyway and no
  rate claim is about it);
* a seed that has eliminated nothing (its recorded active fraction, ``cum_aux`` of SDP-PE, is 1
  over the last checkpoint interval) is still exploring, not lost: never flagged.

:func:`guard` turns a score computed on cells that lost pi* into "inconclusive" with a note
naming them (docs/decisions/verdicts.md, "Lost optimal policy").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from privrl.results import verdicts as V
from privrl.rl.mdp import TabularMDP, expected_return, optimal_return
from privrl.rl.policies import enumerate_policies

MAX_ENUMERATED = 2**16  # policies enumerated for g_min (the SDP-PE presets' own max_policies)


def smallest_policy_gap(mdp: TabularMDP) -> float:
    """Smallest positive ``rho . (V*_1 - V^pi_1)`` over the A^(S H) deterministic policies (the
    runner's per-episode regret of a suboptimal policy); nan if every policy is optimal."""
    n = mdp.A ** (mdp.S * mdp.H)
    if n > MAX_ENUMERATED:
        raise ValueError(f"smallest_policy_gap: {n} policies > {MAX_ENUMERATED}; instance too large to enumerate")
    v_star = optimal_return(mdp)
    gaps = np.array([v_star - expected_return(mdp, pi) for pi in enumerate_policies(mdp.H, mdp.S, mdp.A)])
    pos = gaps[gaps > 1e-12]  # crossover.GAP_TOL: smaller differences are ties
    return float(pos.min()) if pos.size else float("nan")


def late_regret_rate(episodes: np.ndarray, cum_regret: np.ndarray) -> np.ndarray:
    """float64[n]: per seed, mean regret per episode over the last decade of checkpoints.

    ``episodes`` int[C] (increasing), ``cum_regret`` float[n, C]. nan if fewer than two checkpoints.
    """
    ep = np.asarray(episodes, dtype=np.float64)
    R = np.atleast_2d(np.asarray(cum_regret, dtype=np.float64))
    if R.shape[1] != ep.size:
        raise ValueError(f"late_regret_rate: cum_regret has {R.shape[1]} checkpoints, episodes {ep.size}")
    if ep.size < 2:
        return np.full(R.shape[0], np.nan)
    j = min(int(np.searchsorted(ep, ep[-1] / 10.0)), ep.size - 2)
    return (R[:, -1] - R[:, j]) / (ep[-1] - ep[j])


@dataclass(frozen=True)
class LostOptimum:
    """Per-cell count of seeds that lost pi*: ``n_lost`` of ``n_seeds`` (late rates vs g_min)."""

    n_lost: int
    n_seeds: int
    gap: float
    rates: tuple[float, ...]

    @property
    def any(self) -> bool:
        return self.n_lost > 0

    def fraction(self) -> str:
        return f"{self.n_lost}/{self.n_seeds}"


def active_at_end(episodes: np.ndarray, cum_aux: np.ndarray) -> np.ndarray:
    """float64[n]: per seed, the mean recorded active fraction over the last checkpoint interval
    (SDP-PE's ``aux``; 1.0 with a single checkpoint)."""
    ep = np.asarray(episodes, dtype=np.float64)
    aux = np.atleast_2d(np.asarray(cum_aux, dtype=np.float64))
    if ep.size < 2:
        return np.ones(aux.shape[0])
    return (aux[:, -1] - aux[:, -2]) / (ep[-1] - ep[-2])


def lost_optimum(episodes: np.ndarray, cum_regret: np.ndarray, gap: float, active: np.ndarray | None = None,
                 th: V.Thresholds = V.THRESHOLDS) -> LostOptimum:
    """Seeds whose last-decade regret rate is >= ``lost_optimum_fraction`` x ``gap`` (g_min) and
    that have eliminated a policy (``active`` float[n] < 1, :func:`active_at_end`; None: not
    checked). No positive gap (every policy optimal): nothing can be lost."""
    rates = late_regret_rate(episodes, cum_regret)
    if not (np.isfinite(gap) and gap > 0):
        return LostOptimum(0, rates.size, gap, tuple(map(float, rates)))
    lost = np.isfinite(rates) & (rates >= th.lost_optimum_fraction * gap)
    if active is not None:
        lost &= np.asarray(active, dtype=np.float64) < 1.0 - 1e-12
    return LostOptimum(int(lost.sum()), int(rates.size), float(gap), tuple(map(float, rates)))


def lost_note(who: str, lo: LostOptimum, C: float, private: bool) -> str:
    """'PE baseline eliminated pi* on 2/6 seeds: threshold at the scaled C = 0.0001 below its
    statistical error' (the threshold of Alg. 1 line 9 is the only way PE drops pi*)."""
    err = "statistical + privacy error" if private else "statistical error"
    scaled = "scaled " if C != 1.0 else ""
    return f"{who} eliminated pi* on {lo.fraction()} seeds: threshold at the {scaled}C = {C:g} below its {err}"


def guard(score: V.Score, notes: Sequence[str]) -> V.Score:
    """A score read on cells (or a baseline) that lost pi* on some seeds: "inconclusive" whatever
    it was (a "not reached" too: at a fixed C the threshold and the estimation error both shrink
    as L^-1/2, so a longer run does not stop the loss); the note names the cells and keeps the
    verdict the data would otherwise get. No notes: the score unchanged."""
    if not notes or score.verdict == V.CHECKED:
        return score
    return V.Score(V.INCONCLUSIVE, score.measured,
                   "; ".join(notes) + f" (regret linear at K on those seeds; unguarded verdict: {score.verdict}); "
                   + score.regime)
