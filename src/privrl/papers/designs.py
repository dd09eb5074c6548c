"""Design search: the instance on which a claim's regime starts earliest, from its agents' own
crossover formulas (``AgentSpec.crossover``, :mod:`privrl.agents.crossover`), at the papers'
constants and the claim's eps.

A claim about agents ``[(agent, params), ...]`` is in regime on an instance once every one of
its agents is past ``regime_factor`` (10) x its crossover K; a one-decade fit window then needs
``K = 10 x 10 x max crossover`` (two decades: x 100 more). :func:`search` evaluates every
candidate instance (small: S = 1-3, A = 2, H = 1-3, large gaps; :data:`CANDIDATES`) and ranks
them by that K; :func:`design_note` is the text a claim row carries (instance, crossovers, K).

Shapes: a candidate is ``(key, env_name, params)``; :func:`search` returns a DataFrame with one
row per candidate (columns ``key``, ``env``, ``params``, ``crossover_<agent>`` per agent, ``max_crossover``,
``k_needed``), sorted by ``k_needed`` (inf last).
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import pandas as pd

from privrl import agents
from privrl.agents.registry import agent_crossover
from privrl.results.verdicts import THRESHOLDS
from privrl.rl import envs

# small instances with large gaps (docs/decisions/claims.md, "Designs")
CANDIDATES: tuple[tuple[str, str, dict], ...] = (
    *((f"bandit_h{H}_seed{s}", "garnet", {"S": 1, "A": 2, "branching": 1, "H": H, "seed": s})
      for H in (1, 2, 3) for s in (0, 1, 2)),
    *((f"garnet_s2_h{H}_seed{s}", "garnet", {"S": 2, "A": 2, "branching": 2, "H": H, "seed": s})
      for H in (1, 2, 3) for s in (0, 1, 2)),
    *((f"garnet_s3_h{H}_seed1", "garnet", {"S": 3, "A": 2, "branching": 2, "H": H, "seed": 1}) for H in (1, 2)),
    ("riverswim_s2_h2", "riverswim", {"S": 2, "H": 2}),
    ("riverswim_s2_h3", "riverswim", {"S": 2, "H": 3}),
    *((f"hard_n1_h2_gap{g:g}", "hard_instance", {"n": 1, "m": 1, "H": 2, "gap": g}) for g in (0.25, 0.5)),
)


def window_k(crossover: float, decades: float = 1.0, th=THRESHOLDS) -> float:
    """The K a run needs for a fit window of ``decades`` starting at regime_factor x crossover: the rate
    verdicts' own rule (:meth:`privrl.results.verdicts.Regime.k_needed` of such a window); inf when the
    crossover is unknown."""
    from privrl.results.verdicts import Regime

    return Regime(crossover, 1.0, 10.0 ** decades).k_needed(th) if math.isfinite(crossover) else math.inf


def crossovers(cells: Sequence[tuple[str, Mapping[str, float]]], mdp) -> dict[str, float]:
    """{label: crossover K} of each (agent, params) on ``mdp`` (label = agent, or agent@eps)."""
    out = {}
    for agent, params in cells:
        spec = agents.get(agent)
        p = {k: float(v) for k, v in params.items() if k in spec.defaults}
        label = agent + (f"@eps={p['epsilon']:g}" if "epsilon" in p else "")
        # an instance shorter than the agent accepts (AgentSpec.min_horizon) never reaches its regime
        out[label] = math.inf if mdp.H < spec.min_horizon else agent_crossover(agent, p, mdp)
    return out


def search(cells: Sequence[tuple[str, Mapping[str, float]]], candidates: Iterable = CANDIDATES,
           decades: float = 1.0) -> pd.DataFrame:
    """Every candidate instance with its agents' crossovers and the K a ``decades`` window past
    10 x the largest needs; sorted, earliest regime first (inf last)."""
    rows = []
    for key, name, params in candidates:
        mdp = envs.make(name, **params)
        cr = crossovers(cells, mdp)
        worst = max(cr.values()) if cr else math.nan
        worst = math.inf if any(math.isinf(v) for v in cr.values()) else worst
        rows.append({"key": key, "env": name, "params": dict(params),
                     **{f"crossover_{k}": v for k, v in cr.items()},
                     "max_crossover": worst, "k_needed": window_k(worst, decades)})
    df = pd.DataFrame(rows)
    return df.sort_values("k_needed", kind="stable", na_position="last").reset_index(drop=True)


def design_note(instance: str, cross: Mapping[str, float], K: float) -> str:
    """The design text a claim row carries: its instance, its agents' crossovers and the K run."""
    cs = ", ".join(f"{a} {c:.3g}" for a, c in cross.items())
    return f"instance {instance}; crossovers {cs}; K run {K:.3g}"


def bai_valid_c(X: int, A: int, H: int, K: float, n_policies: int, delta: float = 0.05) -> float:
    """Smallest C at which Bai et al. Alg. 1 line 9's statistical term ``2C sqrt(H^5 X^2 A iota / L)``
    is a confidence bound for the value differences it compares (docs/decisions/verdicts.md):
    ``C >= z sqrt(A/2 + 1) / (2 sqrt(H^5 X^2 A iota))``, ``iota = log(2 H A K / delta)``, ``z`` the
    normal quantile at ``1 - delta / (B (n_policies - 1))`` over the B stages of a K-episode run.
    Derived for H = 1 (Bernoulli rewards, one step): refused for H > 1."""
    from statistics import NormalDist

    from privrl.agents.sdp_pe import stage_schedule  # Alg. 1's stages (numba: called with an int)

    if H != 1:
        raise ValueError(f"bai_valid_c: derived for H = 1 only (got H = {H})")
    iota = math.log(2.0 * H * A * K / delta)
    z = NormalDist().inv_cdf(1.0 - delta / (len(stage_schedule(int(K))) * max(n_policies - 1, 1)))
    return z * math.sqrt(A / 2.0 + 1.0) / (2.0 * math.sqrt(H ** 5 * X * X * A * iota))
