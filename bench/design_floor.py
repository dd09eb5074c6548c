"""A design's CPU time at a reference floor: each private cell's non-private work as cheap as the cheapest
of UCBVI's episode (privrl's or the lean UCBVI kernel's) and its own noise-off twin, plus its noise draws at
the sampler's speed; and at its agents' lean kernels.

    python bench/design_floor.py [--configfile config/paper.yaml] [--K 200000] [--K-time 300000] [--no-lean]

privrl.plan.cost prices each cell of a design from the measured throughput table. This script prices
the same cells (the same episodes, seeds and run jobs: ``jobs x JOB_OVERHEAD_S`` of start-up each) with
the per-seed time of each private cell simulated episode by episode replaced by ``K x floor``, measured
on the cell's own instance (the per-seed set-up of the model's ``t(K) = a K + b`` dropped):

    floor = min(UCBVI's episode, lean UCBVI's, the cell's noise-off twin's) + noise draws per episode x ns per draw

* the non-private part: privrl's UCBVI (the lean engine's non-private optimistic agent: planner and
  evaluation inlined, docs/decisions/performance.md), the lean UCBVI kernel of bench/lean_kernel.py
  (UCBVI-Hoeffding without privrl's recorder, evaluation cache or resumable state) and the cell's
  own agent at ``noise = 0`` (a batched agent such as private-ucbvi-sdp plans only when a batch closes,
  below UCBVI's per-episode planning), each timed at ``--K-time`` episodes, fastest of ``--rounds`` (CPU
  time);
* noise draws per episode: the PCG64 words one seed of the cell consumes over those of its noise-off twin,
  at ``min(cell K, --K)`` episodes (a batched agent's draws per episode fall with K: measuring at a smaller
  K overstates them), divided by the words per draw of its noise kind; ns per draw from
  bench/agent_throughput.py's draw loops (numba's ``rng.random()`` call; fastest of ``--rounds``).

Assumptions, so this is a reference price, not a proof: the non-private part could in principle be cheaper
than the lean UCBVI kernel, and a sampler could draw the same stream faster (an inlined PCG64 step: 2.8x on a bare
uniform loop, 1.1x in the Laplace sampler; docs/decisions/performance.md). The ``draws free`` column drops
the draws altogether: every private cell at its non-private part alone. Cells simulated in aggregate
(policy elimination), non-private cells and private agents without a ``noise`` switch or a known draw kind
keep their modelled cost (the last ones listed in a note).

The ``lean`` column prices the design at what each algorithm's own arithmetic costs when written for speed:
every cell whose agent has a lean kernel in bench/ (PUCB, DP-UCBVI and Private-UCBVI JDP / LDP, LDP-OBI and
Shuffled-OBI at noise on and z = 0; one njit function per agent, equal to privrl bit for bit) that implements the cell's parameters is
priced at its modelled cost (start-up excluded) x (the lean kernel's time / privrl's) on the cell's instance
and parameters, both timed at ``--K-time`` episodes (not at the cell's K: the tree agents' episode grows with
log K, in both), fastest of ``--rounds`` interleaved rounds, after checking at 2e4 episodes that the two regrets are
equal; every other cell keeps its modelled cost (``covered``: the modelled hours the lean kernels price).
Where the floor credits each private agent with a non-private part as cheap as UCBVI's, the lean price keeps
each algorithm's own planner (Bernstein bonuses and post-processing, OBI's widths, PrivQ), so ``x lean`` is
privrl's engine overhead and lean over floor what the algorithms' own arithmetic costs beyond UCBVI's
planning.

The ``at targets`` column prices the design with the noise-on rows of the throughput table (plain and matched
coverage) of every agent of :data:`UCBVI_RATIO_TARGETS` (PUCB 3, DP-UCBVI and Private-UCBVI JDP / LDP 4, LDP-OBI
and Shuffled-OBI 4) replaced by UCBVI's row of the same instance and K over the agent's target, every other row
as measured; no timing. It is an engine exactly at the targets on every instance and K, slower than today's where
an agent beats its target. ``capped`` is each cell at the cheaper of its modelled and its at-targets price: today's
engine with every cell above its target brought down to it, i.e. what meeting the targets leaves. The targets were
set on two instances at K = 1e6 (the H = 1 bandit, RiverSwim S=2 H=2); applying them to every instance and K is an
extrapolation.

Printed per experiment: the modelled CPU time (the throughput table, whose CPU is printed beside this
machine's), the lean-kernel price, the floor and the draws-free price, then the range of privrl / lean
kernel over the timed cells and its three smallest and largest.
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
from privrl.runs import throughput

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_throughput import LEAN, cpu_model, draw_costs, noise_kind, pcg_distance  # noqa: E402
import lean_kernel  # noqa: E402


#: the engine's per-agent targets: an agent's episode in UCBVI episodes on the same instance (set on the H = 1 bandit
#: and RiverSwim S=2 H=2 at K = 1e6; docs/decisions/performance.md, "The private agents at the speed limit")
UCBVI_RATIO_TARGETS = {"pucb": 3.0, "dp-ucbvi-jdp": 4.0, "dp-ucbvi-ldp": 4.0, "private-ucbvi-jdp": 4.0,
                       "private-ucbvi-ldp": 4.0, "ldp-obi": 4.0, "shuffled-obi": 4.0}


def table_at_targets(table):
    """The throughput table with the noise-on rows (plain, matched coverage) of every agent of
    :data:`UCBVI_RATIO_TARGETS` at UCBVI's rate of the same (env, S, A, H, K) over the agent's target. Rows without a
    UCBVI row of their instance and K stay as measured."""
    out = throughput.with_variant(table).copy()
    plain = out[(out.agent == "ucbvi") & (out.variant == "")]
    ucbvi = plain.set_index(["env", "S", "A", "H", "K"])["episodes_per_s"]
    on = out.agent.isin(list(UCBVI_RATIO_TARGETS)) & out.variant.isin(["", throughput.VARIANT_MATCHED])
    for i in out.index[on]:
        r = out.loc[i]
        key = (r.env, r.S, r.A, r.H, r.K)
        if key in ucbvi.index:
            out.loc[i, "episodes_per_s"] = ucbvi[key] / UCBVI_RATIO_TARGETS[r.agent]
    return out


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


def fastest_per_episode(run, K: int, rounds: int) -> float:
    """CPU seconds per episode of ``run(K, rng)`` over ``K`` episodes, fastest of ``rounds`` (compiled first)."""
    run(50, seeding.generator("bench", "floor-time", 999))
    best = np.inf
    for r in range(rounds):
        rng = seeding.generator("bench", "floor-time", r)
        t0 = time.process_time()
        run(K, rng)
        best = min(best, (time.process_time() - t0) / K)
    return best


def seconds_per_episode(agent: str, params: dict, env: tuple, K: int, rounds: int) -> float:
    """CPU seconds per episode of ``agent`` at ``params`` on ``env`` over ``K`` episodes, fastest round."""
    return fastest_per_episode(lambda K, rng: _run(agent, params, env, K, rng), K, rounds)


def lean_ucbvi_seconds_per_episode(env: tuple, K: int, rounds: int) -> float:
    """CPU seconds per episode of the lean UCBVI kernel (bench/lean_kernel.py: UCBVI-Hoeffding with none of
    privrl's recorder, evaluation cache or resumable state) on ``env`` over ``K`` episodes, fastest round."""
    args = lean_kernel.lean_args(env)
    return fastest_per_episode(lambda K, rng: lean_kernel.lean_ucbvi(*args[:-1], np.int64(K), 0.05, 1.0, args[-1], rng),
                               K, rounds)


def lean_ratio(agent: str, params: dict, mdp, env: tuple, K: int, K_check: int, rounds: int) -> float:
    """privrl's episode over its lean kernel's for ``agent`` at ``params`` on ``mdp``: CPU time of ``K`` episodes,
    fastest of ``rounds`` interleaved rounds (both compiled first), after checking at ``K_check`` episodes that
    the two regrets are equal (a lean kernel that drifted from privrl would price something else)."""
    from privrl.runs import run
    fn = LEAN[agent][0]
    p = {**REGISTRY[agent].defaults, **params}
    got = fn(env, K_check, seeding.generator("adhoc", "default", 0), p)
    want = run.run_seed(agent, params, mdp, K_check, 0)["cum_regret"].iloc[-1]
    if got != want:
        raise AssertionError(f"lean {agent} at {params}: regret {got!r} != privrl's {want!r}")
    best = {"lean": np.inf, "privrl": np.inf}
    for r in range(rounds):
        t0 = time.process_time()
        fn(env, K, seeding.generator("bench", "lean-time", r), p)
        t1 = time.process_time()
        _run(agent, params, env, K, seeding.generator("bench", "lean-time", r))
        best["lean"], best["privrl"] = min(best["lean"], t1 - t0), min(best["privrl"], time.process_time() - t1)
    return best["privrl"] / best["lean"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configfile", default="config/paper.yaml")
    ap.add_argument("--K", type=int, default=200_000, help="largest K of the words-per-episode runs")
    ap.add_argument("--K-time", type=int, default=300_000, help="episodes of each timed run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-lean", action="store_true", help="skip the lean column (its timings take ~4.5 of the ~6.5 min on config/paper.yaml)")
    args = ap.parse_args()
    config = experiments.resolve_overlay(load_yaml(args.configfile), ".", args.configfile)
    table = cost.load_table()
    priced = cost.estimate_cost(config, table=table)
    priced["target_cpu_s"] = cost.estimate_cost(config, table=table_at_targets(table)).est_cpu_s.to_numpy()
    priced["capped_cpu_s"] = np.minimum(priced.est_cpu_s, priced.target_cpu_s)  # each cell at the cheaper of the two
    runs = [draw_costs() for _ in range(args.rounds)]
    draws = {k: min(run[k] for run in runs) for k in runs[0]}  # each kind's fastest round
    cells = {(c.experiment, c.env, c.cell): c for c in experiments.all_cells(config)}
    made: dict = {}
    timed: dict = {}
    words: dict = {}
    ratios: dict = {}
    floor_s, free_s, lean_s, covered, kept = [], [], [], [], set()
    for row in priced.itertuples():
        c = cells[row.experiment, row.env, row.cell]
        spec = REGISTRY[c.agent]
        kind = noise_kind(c.agent)
        if c.simulation != "episode" or spec.privacy_model == "none":
            floor_s.append(row.est_cpu_s)
            free_s.append(row.est_cpu_s)
            lean_s.append(row.est_cpu_s)
            covered.append(False)
            continue
        name, params = experiments.env_spec(config, row.experiment, row.env)
        ekey = (name, tuple(sorted(params.items())))
        if ekey not in made:
            mdp = envs.make(name, **params)
            made[ekey] = (mdp, engine.env_arrays(mdp))
        mdp, env = made[ekey]
        p = dict(c.params)
        lean = not args.no_lean and c.agent in LEAN and LEAN[c.agent][1]({**spec.defaults, **p})
        if lean:
            rkey = (ekey, c.agent, tuple(sorted(p.items())))
            if rkey not in ratios:
                ratios[rkey] = lean_ratio(c.agent, p, mdp, env, args.K_time, 20_000, args.rounds)
        job_part = row.jobs * cost.JOB_OVERHEAD_S  # the model's start-up per run job, as in est_cpu_s (kept whole below)
        lean_s.append(job_part + (row.est_cpu_s - job_part) / ratios[rkey] if lean else row.est_cpu_s)
        covered.append(bool(lean))
        if kind is None or "noise" not in spec.defaults:
            kept.add(c.agent)
            floor_s.append(row.est_cpu_s)
            free_s.append(row.est_cpu_s)
            continue
        off = {**p, "noise": 0.0}
        for key, agent, q in (((ekey, "ucbvi"), "ucbvi", {}), ((ekey, c.agent, tuple(sorted(off.items()))), c.agent, off)):
            if key not in timed:
                timed[key] = seconds_per_episode(agent, q, env, args.K_time, args.rounds)
        if (ekey, "lean-ucbvi") not in timed:
            timed[ekey, "lean-ucbvi"] = lean_ucbvi_seconds_per_episode(env, args.K_time, args.rounds)
        plain = min(timed[ekey, "ucbvi"], timed[ekey, "lean-ucbvi"], timed[ekey, c.agent, tuple(sorted(off.items()))])
        Kw = int(min(row.episodes, args.K))
        wkey = (ekey, c.agent, tuple(sorted(p.items())), Kw)
        if wkey not in words:
            words[wkey] = max(words_per_episode(c.agent, p, env, Kw) - words_per_episode(c.agent, off, env, Kw), 0.0)
        ns_draw, words_per_draw = draws[kind]
        floor_s.append(job_part + row.seeds * row.episodes * (plain + words[wkey] / words_per_draw * ns_draw * 1e-9))
        free_s.append(job_part + row.seeds * row.episodes * plain)
    priced["floor_cpu_s"], priced["free_cpu_s"], priced["lean_cpu_s"] = floor_s, free_s, lean_s
    priced["lean_covered_s"] = np.where(covered, priced.est_cpu_s, 0.0)
    by = priced.groupby("experiment", sort=False)[["est_cpu_s", "lean_cpu_s", "floor_cpu_s", "free_cpu_s",
                                                   "lean_covered_s", "target_cpu_s", "capped_cpu_s"]].sum() / 3600
    print(f"# {args.configfile}: run jobs' CPU hours -- modelled (privrl.plan.cost, table measured on "
          f"{', '.join(sorted(set(table['cpu'])))}); at the lean kernels (the cells of {sorted(LEAN)} a lean kernel "
          f"implements, priced at modelled x lean / privrl timed in one run: 'covered' is their modelled share); at "
          f"the floor and draws free; at the per-agent targets {UCBVI_RATIO_TARGETS} x UCBVI "
          "(exactly, and each cell capped at them); "
          f"timed on {cpu_model()}; "
          "draws: " + ", ".join(f"{k} {v[0]:.1f} ns ({v[1]:.2f} words)" for k, v in draws.items()))
    print(f"{'experiment':34s} {'modelled':>9s} {'covered':>8s} {'lean':>9s} {'x lean':>7s} {'floor':>9s} {'x floor':>8s} "
          f"{'draws free':>11s} {'at targets':>11s} {'capped':>9s}")

    def line(name, r):
        print(f"{name:34s} {r.est_cpu_s:9.2f} {r.lean_covered_s:8.2f} {r.lean_cpu_s:9.2f} "
              f"{r.est_cpu_s / max(r.lean_cpu_s, 1e-12):7.2f} {r.floor_cpu_s:9.2f} "
              f"{r.est_cpu_s / max(r.floor_cpu_s, 1e-12):8.2f} {r.free_cpu_s:11.2f} {r.target_cpu_s:11.2f} "
              f"{r.capped_cpu_s:9.2f}")
    for exp, r in by.iterrows():
        line(exp, r)
    line("runs, total", by.sum())
    if ratios:
        rs = np.array(list(ratios.values()))
        print(f"privrl / lean kernel over the {len(rs)} (instance, agent, parameters) timed: {rs.min():.2f}-{rs.max():.2f}x "
              f"(median {np.median(rs):.2f}x); every lean regret equal to privrl's")
        ends = sorted(ratios.items(), key=lambda kv: kv[1])
        for (ekey, agent, p), r in (ends if len(ends) <= 6 else ends[:3] + ends[-3:]):
            print(f"  {r:.2f}x  {agent} {dict(p)} on {ekey[0]} {dict(ekey[1])}")
    if kept:
        print(f"note: kept at their modelled cost (no noise switch or no known draw kind): {sorted(kept)}")


if __name__ == "__main__":
    main()
