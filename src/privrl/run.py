"""The runner: K episodes of one agent on one MDP for each seed, exact regret recorded.

Per seed it stores, at >= 100 log-spaced checkpoints and at K, the cumulative expected
regret sum_k (V*_1 - V^{pi_k}_1) (exact, by policy evaluation — Vietri et al. Def. 2),
the cumulative agent diagnostic ``aux`` (fraction of (h, s, a) whose optimistic value is
clipped, i.e. whose bonus saturates) and, for each alpha in a grid, the number of
episodes with gap > alpha (PAC mistakes, Vietri et al. Def. 1 / Thm 3).
"""
from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from privrl.rl import engine, seeding
from privrl.agents import get as get_agent
from privrl.rl.mdp import TabularMDP

DEFAULT_ALPHAS = (0.01, 0.03, 0.1, 0.3, 1.0)
KEY_FIELDS = ("agent", "params", "mdp", "episodes", "experiment", "setting", "n_checkpoints", "alphas", "code")
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
    info = run_info(agent, params, mdp, episodes, seeds, experiment, setting)
    info["seconds"] = time.perf_counter() - t0
    return pd.concat(frames, ignore_index=True), info


def run_info(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seeds: list[int],
             experiment: str, setting: str) -> dict:
    """The run info filed next to a run's results: agent, resolved params, guarantees, K, seeds."""
    spec = get_agent(agent)
    return {
        "agent": agent, "params": spec.resolve(params), "privacy_model": spec.privacy_model,
        "reference": spec.reference, "reconstruction": spec.reconstruction, "env": mdp.name,
        "env_params": mdp.params, "episodes": int(episodes), "seeds": seeds, "experiment": experiment,
        "setting": setting,
        "guarantees": [g.__dict__ for g in spec.guarantees(spec.resolve(params), mdp, int(episodes))]
        if spec.guarantees else [],
    }


# --- results keyed by content -------------------------------------------------------------
# A run's result is a function of the agent and its resolved parameters, the MDP's arrays, K,
# the seed stream (experiment, setting, seed: privrl.rl.seeding), the checkpoint grid and the
# code of the kernels; the store (workflow/rules/runs.smk) files a result under the digest of
# exactly these, so any config or workflow that asks for the same run finds it.


def mdp_digest(mdp: TabularMDP) -> str:
    """sha256 (16 hex) of the MDP's content: P[H, S, A, S], R[H, S, A], rho[S], reward noise."""
    h = hashlib.sha256()
    for a in (mdp.P, mdp.R, mdp.rho):
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    h.update(mdp.reward_noise.encode())
    return h.hexdigest()[:16]


def run_key(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, experiment: str,
            setting: str, n_checkpoints: int, code: str, alphas: Iterable[float] = DEFAULT_ALPHAS) -> dict:
    """What determines one seed's result of a cell, but the seed (KEY_FIELDS; JSON-able, canonical)."""
    return {"agent": agent, "params": get_agent(agent).resolve(params), "mdp": mdp_digest(mdp),
            "episodes": int(episodes), "experiment": experiment, "setting": setting,
            "n_checkpoints": int(n_checkpoints), "alphas": [float(a) for a in alphas], "code": code}


def key_digest(key: Mapping[str, Any], seeds: Iterable[int]) -> str:
    """sha256 (20 hex) of a run key and a seed list: the store name of those seeds' results."""
    text = json.dumps({**key, "seeds": [int(s) for s in seeds]}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def seed_shards(seeds: Iterable[int], per_job: int) -> list[list[int]]:
    """Seeds split into jobs of ``per_job``, aligned on multiples of ``per_job`` (seed s is in shard
    s // per_job whatever the number of seeds, so adding seeds leaves the full shards unchanged)."""
    if per_job < 1:
        raise ValueError(f"seeds_per_job must be >= 1; got {per_job}")
    shards: dict[int, list[int]] = {}
    for s in sorted(int(x) for x in seeds):
        shards.setdefault(s // per_job, []).append(s)
    return list(shards.values())


def run_shard(key: Mapping[str, Any], mdp: TabularMDP, seeds: Iterable[int], seed_store: str | None = None,
              on_seed: Callable[[int, int, float], None] | None = None) -> tuple[pd.DataFrame, dict]:
    """The seeds of one shard of a run key: the same rows, in seed order, as :func:`run` over them.

    ``seed_store``: a directory of per-seed results filed by ``key_digest(key, [seed])``; a seed
    found there is read, not rerun, and a seed run is filed there (atomically), so a shard that
    grows by a seed reruns only the new seed.
    """
    from pathlib import Path

    from privrl import io

    if mdp_digest(mdp) != key["mdp"]:
        raise ValueError(f"MDP content {mdp_digest(mdp)} differs from the run key's {key['mdp']}")
    seeds = [int(s) for s in seeds]
    env = engine.env_arrays(mdp)
    t0 = time.perf_counter()
    frames, reused = [], []
    for s in seeds:
        memo = Path(seed_store, f"{key_digest(key, [s])}.parquet") if seed_store else None
        if memo is not None and memo.exists():
            frames.append(pd.read_parquet(memo))
            reused.append(s)
        else:
            frames.append(run_seed(key["agent"], key["params"], mdp, key["episodes"], s, key["experiment"],
                                   key["setting"], key["alphas"], key["n_checkpoints"], env))
            if memo is not None:
                io.write_parquet(memo, frames[-1])
        if on_seed is not None:
            on_seed(len(frames), len(seeds), time.perf_counter() - t0)
    info = run_info(key["agent"], key["params"], mdp, key["episodes"], seeds, key["experiment"], key["setting"])
    info.update(seconds=time.perf_counter() - t0, reused_seeds=reused, key=dict(key), digest=key_digest(key, seeds))
    return pd.concat(frames, ignore_index=True), info


def merge_shards(shard_paths: Iterable[str], mdp_path: str, cell: Any, out_results: str, out_info: str) -> None:
    """One cell's files from its shards (in seed order): the results, bit-identical to running all
    seeds in one job (each seed's rows depend on that seed only), and the run info of the cell
    (agent, params, K, seeds, guarantees, label, tags; seconds summed over the shards)."""
    from pathlib import Path

    from privrl import io
    from privrl.rl import mdp as mdp_io

    frames, infos = [], []
    for p in shard_paths:
        frames.append(pd.read_parquet(p))
        infos.append(json.loads(Path(p).with_suffix(".json").read_text()))
    if infos and mdp_digest(mdp_io.load(mdp_path)) != infos[0]["key"]["mdp"]:
        raise ValueError(f"{mdp_path}: MDP content differs from the one the shards ran on")
    info = {k: v for k, v in infos[0].items() if k not in ("reused_seeds", "digest", "key")}
    info.update(seeds=[s for i in infos for s in i["seeds"]], seconds=sum(i["seconds"] for i in infos),
                shards=[i["digest"] for i in infos], cell=cell.cell, label=cell.label, tags=dict(cell.tags))
    df = pd.concat(frames, ignore_index=True)
    io.write_run(out_results, out_info, df, info)  # the JSON records the parquet's sha256


def agent_digest(agent: str) -> str:
    """What one agent's runs depend on: its module, the runner and the environments, closed."""
    from privrl.digests import RUN_MODULES, digest

    return digest([get_agent(agent).kernel.__module__, *RUN_MODULES])
