"""The runner: K episodes of one agent on one MDP for each seed, exact regret recorded.

Per seed it stores, at >= 100 log-spaced checkpoints and at K, the cumulative expected
regret sum_k (V*_1 - V^{pi_k}_1) (exact, by policy evaluation — Vietri et al. Def. 2),
the cumulative agent diagnostic ``aux`` (fraction of (h, s, a) whose optimistic value is
clipped, i.e. whose bonus saturates) and, for each alpha in a grid, the number of
episodes with gap > alpha (PAC mistakes, Vietri et al. Def. 1 / Thm 3).
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from privrl.rl import engine, seeding
from privrl.agents import get as get_agent
from privrl.rl.mdp import TabularMDP

DEFAULT_ALPHAS = (0.01, 0.03, 0.1, 0.3, 1.0)
RESULT_COLUMNS = ("seed", "episode", "cum_regret", "cum_aux")


def run_seed(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seed: int,
             experiment: str = "adhoc", setting: str = "default", alphas: Iterable[float] = DEFAULT_ALPHAS,
             n_checkpoints: int = 120, env: tuple | None = None) -> pd.DataFrame:
    """One seed of one cell: a long DataFrame with one row per checkpoint."""
    spec = get_agent(agent)
    pv = spec.param_vector(params)
    env = env if env is not None else engine.env_arrays(mdp)
    rec = engine.new_recorder(int(episodes), np.asarray(tuple(alphas)), n_checkpoints)
    rng = seeding.generator(experiment, setting, seed)
    spec.kernel(env, pv, int(episodes), rng, rec)
    ckpts, alph, cum, aux, mist, _, cursor = rec
    if cursor[0] != ckpts.size:
        raise RuntimeError(f"agent {agent!r} recorded {cursor[0]} of {ckpts.size} checkpoints")
    df = pd.DataFrame({"seed": np.full(ckpts.size, seed, np.int64), "episode": ckpts, "cum_regret": cum,
                       "cum_aux": aux})
    for j, a in enumerate(alph):
        df[f"mistakes_{a:g}"] = mist[:, j]
    return df


def run(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seeds: Iterable[int],
        experiment: str = "adhoc", setting: str = "default", alphas: Iterable[float] = DEFAULT_ALPHAS,
        n_checkpoints: int = 120, on_seed: Callable[[int, int, float], None] | None = None
        ) -> tuple[pd.DataFrame, dict]:
    """All seeds of one cell (sequentially, one process). Returns (results, run info).

    ``on_seed(done, total, elapsed_s)``, if given, is called after each seed (progress display).
    """
    env = engine.env_arrays(mdp)
    seeds = [int(s) for s in seeds]
    t0 = time.perf_counter()
    frames = []
    for s in seeds:
        frames.append(run_seed(agent, params, mdp, episodes, s, experiment, setting, alphas, n_checkpoints, env))
        if on_seed is not None:
            on_seed(len(frames), len(seeds), time.perf_counter() - t0)
    elapsed = time.perf_counter() - t0
    spec = get_agent(agent)
    info = {
        "agent": agent, "params": spec.resolve(params), "privacy_model": spec.privacy_model,
        "reference": spec.reference, "reconstruction": spec.reconstruction, "env": mdp.name,
        "env_params": mdp.params, "episodes": int(episodes), "seeds": seeds, "experiment": experiment,
        "setting": setting, "seconds": elapsed,
        "guarantees": [g.__dict__ for g in spec.guarantees(spec.resolve(params), mdp, int(episodes))]
        if spec.guarantees else [],
    }
    return pd.concat(frames, ignore_index=True), info
