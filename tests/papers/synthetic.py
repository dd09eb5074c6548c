"""Synthetic runs for the papers' analyses: per-seed regret curves written as parquet, their fits and
aggregates, in an AnalysisContext (no agent runs). Shared by the per-paper claim tests."""

import numpy as np
import pandas as pd

from privrl.papers.analysis import AnalysisContext
from privrl.results import aggregate
from privrl.rl import engine, seeding

EP = np.unique(np.round(np.geomspace(10, 2_000_000, 40))).astype(np.int64)
GARNET = {"name": "garnet", "params": {"S": 2, "A": 2, "branching": 2, "H": 1, "seed": 1}}
SDP = {"epsilon": 1.0, "beta": 1e-5, "delta": 0.05, "C": 1e-4, "C1": 6e-4, "max_policies": 65536.0}
RS = {"name": "riverswim", "params": {"S": 2, "H": 3}}


def run_context(tmp_path, cells, config=None, env=GARNET, experiment="exp"):
    """cells: list of (agent, params, regret(ep) -> float64[C] per seed list, active fraction at K)."""
    infos, paths, fits, aggs = [], {}, [], []
    rng = np.random.default_rng(0)
    for j, (agent, params, curve, active) in enumerate(cells):
        cell = f"{agent}_{j}"
        rows = []
        for seed in range(6):
            R = curve(EP.astype(float)) * (1 + 0.01 * rng.standard_normal())
            aux = np.where(EP >= EP[-2], active, 1.0) * EP
            rows.append(pd.DataFrame({"seed": seed, "episode": EP, "cum_regret": R, "cum_aux": aux}))
        p = tmp_path / f"{cell}.parquet"
        pd.concat(rows).to_parquet(p)
        paths[("g", cell)] = str(p)
        infos.append({"agent": agent, "params": params, "cell": cell, "env_key": "g", "episodes": int(EP[-1]),
                      "reconstruction": False, "guarantees": [], "tags": {}, "label": cell})
        mean = curve(EP.astype(float))
        m = EP >= EP[-1] / 10
        a = np.polyfit(np.log(EP[m]), np.log(mean[m]), 1)[0]
        fits.append({"env": "g", "cell": cell, "agent": agent, "exponent": a, "exponent_lo": a - 0.02, "exponent_hi": a + 0.02,
                     "window_lo": float(EP[m][0]), "window_hi": float(EP[-1]), "n_seeds": 6,
                     "saturated_fraction": active})
        aggs.append(pd.DataFrame({"env": "g", "cell": cell, "episode": EP, "mean": mean, "ci_low": mean,
                                  "ci_high": mean}))
    cfg = {"envs": {"g": env}, "fit_decades": 1, **(config or {})}
    return AnalysisContext(experiment, cfg, pd.DataFrame(fits), pd.concat(aggs), infos, paths, str(tmp_path), 200)


def tagged_context(tmp_path, cells, env_specs):
    """cells: (agent, params, regret(ep) float64[n], env key, tags); 4 seeds within 1 % of each other."""
    infos, paths, fits, aggs = [], {}, [], []
    for j, (agent, params, curve, env, tags) in enumerate(cells):
        cell = f"{agent}_{j}"
        R = curve(EP.astype(float))
        active = float(tags.get("active_at_K", 0.0))  # fraction of policies active (1: nothing eliminated)
        rows = [pd.DataFrame({"seed": s, "episode": EP, "cum_regret": R * (1 + 0.01 * (s - 1.5)),
                              "cum_aux": active * EP}) for s in range(4)]
        p = tmp_path / f"{cell}.parquet"
        pd.concat(rows).to_parquet(p)
        paths[(env, cell)] = str(p)
        infos.append({"agent": agent, "params": params, "cell": cell, "env_key": env, "episodes": int(EP[-1]),
                      "reconstruction": False, "guarantees": [], "tags": tags, "label": cell})
        fits.append({"env": env, "cell": cell, "agent": agent, "exponent": 0.3, "exponent_lo": 0.28,
                     "exponent_hi": 0.32, "window_lo": float(EP[-1]) / 10, "window_hi": float(EP[-1]), "n_seeds": 4,
                     "saturated_fraction": 0.0, "K": int(EP[-1])})
        aggs.append(pd.DataFrame({"env": env, "cell": cell, "episode": EP, "mean": R, "ci_low": R, "ci_high": R}))
    return AnalysisContext("exp", {"envs": env_specs, "fit_decades": 1}, pd.DataFrame(fits), pd.concat(aggs), infos,
                           paths, str(tmp_path), 50)


def long_frame(curves, seeds_offset=0):
    ep = engine.checkpoints(100_000, 120)
    rows = []
    for i, cur in enumerate(curves):
        rows.append(pd.DataFrame({"seed": i + seeds_offset, "episode": ep, "cum_regret": cur,
                                  "cum_aux": 0.1 * ep}))
    return pd.concat(rows, ignore_index=True)


def privacy_context(tmp_path, cells):
    """cells: list of (cell, agent, params, tags, curves[n, C], guarantees)."""
    infos, paths, fits, aggs = [], {}, [], []
    for cell, agent, params, tags, curves, guar in cells:
        df = long_frame(curves)
        p = tmp_path / f"{cell}.parquet"
        df.to_parquet(p)
        paths[("riverswim", cell)] = str(p)
        from privrl.agents import get

        spec = get(agent)
        model = spec.privacy_model
        infos.append({"agent": agent, "params": params, "privacy_model": model, "reconstruction": spec.reconstruction,
                      "env_key": "riverswim", "cell": cell, "label": cell, "tags": tags, "guarantees": guar,
                      "episodes": 100_000})
        row = aggregate.fit_cell(df, seeding.generator("t", cell, 0), n_boot=50)
        row.update(env="riverswim", cell=cell, label=cell, agent=agent, privacy_model=model)
        fits.append(row)
        aggs.append(aggregate.aggregate_cell(df, seeding.generator("t", cell, 1), 50).assign(env="riverswim", cell=cell))
    return AnalysisContext("exp", {"fit_decades": 2, "envs": {"riverswim": {"name": "riverswim", "params": {"S": 2, "H": 3}}}}, pd.DataFrame(fits), pd.concat(aggs, ignore_index=True),
                           infos, paths, str(tmp_path), 50)
