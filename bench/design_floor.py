"""A design's CPU time if every private agent ran at its floor: what no bit-identical engine can beat.

    python bench/design_floor.py [--configfile config/paper.yaml] [--K 20000]

privrl.plan.cost prices each cell of a design from the measured throughput table. This script prices
the same cells (the same episodes, seeds, jobs and per-job start-up) with each episode-by-episode cell's
per-episode time replaced by a floor, measured on the cell's own instance:

    floor = UCBVI's episode on the instance + the cell's noise draws per episode x ns per draw

* UCBVI's episode: the non-private optimistic agent of the lean engine (docs/decisions/performance.md),
  its planner and evaluation inlined, measured here at ``--K-ucbvi`` episodes (CPU time, fastest of
  ``--rounds``). Every optimistic private agent plans, plays and scores an episode too; taking UCBVI's
  cost for that part credits each private agent with a non-private part as cheap as UCBVI's.
* noise draws per episode: the PCG64 words one seed of the cell consumes over those of its noise-off
  twin (``noise = 0``), at ``--K`` episodes, divided by the words per draw of its noise kind
  (bench/agent_throughput.py's draw loops, which also give ns per draw): the fresh noise the agent's
  mechanism must draw, drawn at the sampler's speed and nothing else.

Cells simulated in aggregate (the policy-elimination agents, private-ucbvi-sdp's batches) and non-private
cells keep their modelled cost. The script prints, per experiment, the modelled CPU time (the table) and
the floor, and the totals: a target below the floor total needs a different noise stream (fewer or
cheaper draws) or fewer episodes, not a faster engine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from privrl.agents import REGISTRY
from privrl.design import experiments
from privrl.design.config_files import load_yaml
from privrl.plan import cost
from privrl.rl import engine, envs, seeding

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_throughput import draw_costs, noise_kind, pcg_distance  # noqa: E402


def words_per_episode(agent: str, params: dict, env: tuple, K: int) -> float:
    """PCG64 words one seed of ``agent`` at ``params`` consumes per episode over ``K`` episodes."""
    spec = REGISTRY[agent]
    pv = spec.param_vector(params)
    rng = seeding.generator("bench", "floor", 0)
    before = rng.bit_generator.state
    Kn = np.int64(K)
    spec.run_episodes(env, pv, Kn, np.int64(0), Kn, rng, engine.new_recorder(K, np.array([0.1])),
                      spec.init_state(env, pv, Kn))
    return pcg_distance(before, rng.bit_generator.state) / K


def ucbvi_seconds_per_episode(env: tuple, K: int, rounds: int) -> float:
    """CPU seconds per episode of UCBVI (its defaults) on ``env`` at ``K`` episodes, fastest round."""
    spec = REGISTRY["ucbvi"]
    pv = spec.param_vector({})
    best = np.inf
    for r in range(rounds + 1):
        Kn = np.int64(K if r else 50)  # round 0 compiles
        rec, st = engine.new_recorder(int(Kn), np.array([0.1])), spec.init_state(env, pv, Kn)
        t0 = time.process_time()
        spec.run_episodes(env, pv, Kn, np.int64(0), Kn, seeding.generator("bench", "floor-ucbvi", r), rec, st)
        if r:
            best = min(best, (time.process_time() - t0) / K)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configfile", default="config/paper.yaml")
    ap.add_argument("--K", type=int, default=20_000, help="episodes of the words-per-episode runs")
    ap.add_argument("--K-ucbvi", type=int, default=1_000_000, help="episodes of UCBVI's timed runs")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    config = experiments.resolve_overlay(load_yaml(args.configfile), ".", args.configfile)
    priced = cost.estimate_cost(config)
    draws = draw_costs()
    cells = {(c.experiment, c.env, c.cell): c for c in experiments.all_cells(config)}
    envs_made: dict = {}
    ucbvi_s: dict = {}
    words: dict = {}
    floor_s = []
    for row in priced.itertuples():
        c = cells[row.experiment, row.env, row.cell]
        spec = REGISTRY[c.agent]
        kind = noise_kind(c.agent)
        per_seed_model = row.episodes / row.episodes_per_s  # the model's seconds per seed (overhead included)
        job_part = row.est_cpu_s - row.seeds * per_seed_model
        if c.simulation != "episode" or kind is None or "noise" not in spec.defaults:
            floor_s.append(row.est_cpu_s)
            continue
        key = (row.experiment, row.env)
        if key not in envs_made:
            name, params = experiments.env_spec(config, row.experiment, row.env)
            envs_made[key] = engine.env_arrays(envs.make(name, **(params or {})))
            ucbvi_s[key] = ucbvi_seconds_per_episode(envs_made[key], args.K_ucbvi, args.rounds)
        env = envs_made[key]
        params = dict(c.params)
        wk = (key, c.agent, tuple(sorted(params.items())))
        if wk not in words:
            on = words_per_episode(c.agent, params, env, args.K)
            off = words_per_episode(c.agent, {**params, "noise": 0.0}, env, args.K)
            words[wk] = max(on - off, 0.0)
        ns_draw, words_per_draw = draws[kind]
        per_episode = ucbvi_s[key] + words[wk] / words_per_draw * ns_draw * 1e-9
        floor_s.append(job_part + row.seeds * (row.episodes * per_episode + cost.SEED_OVERHEAD_S))
    priced["floor_cpu_s"] = floor_s
    by = priced.groupby("experiment", sort=False)[["est_cpu_s", "floor_cpu_s"]].sum() / 3600
    print(f"# {args.configfile}: CPU hours, modelled (privrl estimate's table) and at the floor "
          f"(UCBVI's episode + the noise draws); draws: "
          + ", ".join(f"{k} {v[0]:.1f} ns ({v[1]:.2f} words)" for k, v in draws.items()))
    print(f"{'experiment':34s} {'modelled':>9s} {'floor':>9s} {'ratio':>6s}")
    for exp, r in by.iterrows():
        print(f"{exp:34s} {r.est_cpu_s:9.2f} {r.floor_cpu_s:9.2f} {r.est_cpu_s / max(r.floor_cpu_s, 1e-12):6.2f}")
    tot = by.sum()
    print(f"{'runs, total':34s} {tot.est_cpu_s:9.2f} {tot.floor_cpu_s:9.2f} {tot.est_cpu_s / tot.floor_cpu_s:6.2f}")


if __name__ == "__main__":
    main()
