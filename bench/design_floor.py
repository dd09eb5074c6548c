"""A design's CPU time at a reference floor: each private cell's non-private work as cheap as the cheaper
of UCBVI's lean episode and its own noise-off twin, plus its noise draws at the sampler's speed.

    python bench/design_floor.py [--configfile config/paper.yaml] [--K 200000] [--K-time 300000]

privrl.plan.cost prices each cell of a design from the measured throughput table. This script prices
the same cells (the same episodes, seeds and run jobs: ``jobs x JOB_OVERHEAD_S`` of start-up each) with
the per-seed time of each private cell simulated episode by episode replaced by ``K x floor``, measured
on the cell's own instance (the per-seed set-up of the model's ``t(K) = a K + b`` dropped):

    floor = min(UCBVI's episode, the cell's noise-off twin's episode) + noise draws per episode x ns per draw

* the non-private part: UCBVI (the lean engine's non-private optimistic agent: planner and evaluation
  inlined, docs/decisions/performance.md) and the cell's own agent at ``noise = 0`` (a batched agent such
  as private-ucbvi-sdp plans only when a batch closes, below UCBVI's per-episode planning), each timed
  at ``--K-time`` episodes, fastest of ``--rounds`` (CPU time);
* noise draws per episode: the PCG64 words one seed of the cell consumes over those of its noise-off twin,
  at ``min(cell K, --K)`` episodes (a batched agent's draws per episode fall with K: measuring at a smaller
  K overstates them), divided by the words per draw of its noise kind; ns per draw from
  bench/agent_throughput.py's draw loops (numba's ``rng.random()`` call; fastest of ``--rounds``).

Assumptions, so this is a reference price, not a proof: the non-private part could in principle be cheaper
than privrl's UCBVI, and a sampler could draw the same stream faster (an inlined PCG64 step: 2.8x on a bare
uniform loop, 1.1x in the Laplace sampler; docs/decisions/performance.md). The ``draws free`` column drops
the draws altogether: every private cell at its non-private part alone. Cells simulated in aggregate
(policy elimination), non-private cells and private agents without a ``noise`` switch or a known draw kind
keep their modelled cost (the last ones listed in a note). Printed per experiment: the modelled CPU time
(the throughput table, whose CPU is printed beside this machine's), the floor and the draws-free price.
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
from agent_throughput import cpu_model, draw_costs, noise_kind, pcg_distance  # noqa: E402


def _run(agent: str, params: dict, env: tuple, K: int, rng) -> None:
    spec = REGISTRY[agent]
    pv = spec.param_vector(params)
    Kn = np.int64(K)
    spec.run_episodes(env, pv, Kn, np.int64(0), Kn, rng, engine.new_recorder(K, np.array([0.1])),
                      spec.init_state(env, pv, Kn))


def words_per_episode(agent: str, params: dict, env: tuple, K: int) -> float:
    """PCG64 words one seed of ``agent`` at ``params`` consumes per episode over ``K`` episodes."""
    rng = seeding.generator("bench", "floor", 0)
    before = rng.bit_generator.state
    _run(agent, params, env, K, rng)
    return pcg_distance(before, rng.bit_generator.state) / K


def seconds_per_episode(agent: str, params: dict, env: tuple, K: int, rounds: int) -> float:
    """CPU seconds per episode of ``agent`` at ``params`` on ``env`` over ``K`` episodes, fastest round
    (compiled first)."""
    _run(agent, params, env, 50, seeding.generator("bench", "floor-time", 999))
    best = np.inf
    for r in range(rounds):
        rng = seeding.generator("bench", "floor-time", r)
        t0 = time.process_time()
        _run(agent, params, env, K, rng)
        best = min(best, (time.process_time() - t0) / K)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configfile", default="config/paper.yaml")
    ap.add_argument("--K", type=int, default=200_000, help="largest K of the words-per-episode runs")
    ap.add_argument("--K-time", type=int, default=300_000, help="episodes of each timed run")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    config = experiments.resolve_overlay(load_yaml(args.configfile), ".", args.configfile)
    priced = cost.estimate_cost(config)
    table = cost.load_table()
    runs = [draw_costs() for _ in range(args.rounds)]
    draws = {k: min(run[k] for run in runs) for k in runs[0]}  # each kind's fastest round
    cells = {(c.experiment, c.env, c.cell): c for c in experiments.all_cells(config)}
    made: dict = {}
    timed: dict = {}
    words: dict = {}
    floor_s, free_s, kept = [], [], set()
    for row in priced.itertuples():
        c = cells[row.experiment, row.env, row.cell]
        spec = REGISTRY[c.agent]
        kind = noise_kind(c.agent)
        if c.simulation != "episode" or spec.privacy_model == "none":
            floor_s.append(row.est_cpu_s)
            free_s.append(row.est_cpu_s)
            continue
        if kind is None or "noise" not in spec.defaults:
            kept.add(c.agent)
            floor_s.append(row.est_cpu_s)
            free_s.append(row.est_cpu_s)
            continue
        name, params = experiments.env_spec(config, row.experiment, row.env)
        ekey = (name, tuple(sorted(params.items())))
        if ekey not in made:
            made[ekey] = engine.env_arrays(envs.make(name, **params))
        env = made[ekey]
        p = dict(c.params)
        off = {**p, "noise": 0.0}
        for key, agent, q in (((ekey, "ucbvi"), "ucbvi", {}), ((ekey, c.agent, tuple(sorted(off.items()))), c.agent, off)):
            if key not in timed:
                timed[key] = seconds_per_episode(agent, q, env, args.K_time, args.rounds)
        plain = min(timed[ekey, "ucbvi"], timed[ekey, c.agent, tuple(sorted(off.items()))])
        Kw = int(min(row.episodes, args.K))
        wkey = (ekey, c.agent, tuple(sorted(p.items())), Kw)
        if wkey not in words:
            words[wkey] = max(words_per_episode(c.agent, p, env, Kw) - words_per_episode(c.agent, off, env, Kw), 0.0)
        ns_draw, words_per_draw = draws[kind]
        job_part = row.jobs * cost.JOB_OVERHEAD_S  # the model's start-up per run job, as in est_cpu_s
        floor_s.append(job_part + row.seeds * row.episodes * (plain + words[wkey] / words_per_draw * ns_draw * 1e-9))
        free_s.append(job_part + row.seeds * row.episodes * plain)
    priced["floor_cpu_s"], priced["free_cpu_s"] = floor_s, free_s
    by = priced.groupby("experiment", sort=False)[["est_cpu_s", "floor_cpu_s", "free_cpu_s"]].sum() / 3600
    print(f"# {args.configfile}: run jobs' CPU hours -- modelled (privrl.plan.cost, table measured on "
          f"{', '.join(sorted(set(table['cpu'])))}), at the floor and draws free, timed on {cpu_model()}; "
          "draws: " + ", ".join(f"{k} {v[0]:.1f} ns ({v[1]:.2f} words)" for k, v in draws.items()))
    print(f"{'experiment':34s} {'modelled':>9s} {'floor':>9s} {'x floor':>8s} {'draws free':>11s}")
    for exp, r in by.iterrows():
        print(f"{exp:34s} {r.est_cpu_s:9.2f} {r.floor_cpu_s:9.2f} {r.est_cpu_s / max(r.floor_cpu_s, 1e-12):8.2f} "
              f"{r.free_cpu_s:11.2f}")
    tot = by.sum()
    print(f"{'runs, total':34s} {tot.est_cpu_s:9.2f} {tot.floor_cpu_s:9.2f} {tot.est_cpu_s / tot.floor_cpu_s:8.2f} "
          f"{tot.free_cpu_s:11.2f}")
    if kept:
        print(f"note: kept at their modelled cost (no noise switch or no known draw kind): {sorted(kept)}")


if __name__ == "__main__":
    main()
