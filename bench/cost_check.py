"""The cost model's check: 14 cells, each one seed's estimated CPU time over its measured one.

    python bench/cost_check.py [--rounds 3] [--table src/privrl/throughput.csv]

privrl.plan.cost prices a seed from the measured throughput table (bench/agent_throughput.py):
per-episode cost fixed + per-(S^2 A H), per-seed set-up, policy-elimination stages, aggregate
simulation blocks, noise-off twins as their own agent. These 14 cells cover every kind of
term: measured and unmeasured instances (riverswim S=4 H=10 and garnet S=5 A=3 H=10 are in no
table), noise-off twins, the policy-elimination agents episode by episode and in aggregate
simulation, every privatizer. Each cell runs one seed (privrl.runs.run.run_seed: the job's own path,
recorder and DataFrame included, job start-up excluded) for about ``--min-cpu`` CPU seconds,
``--rounds`` rounds interleaved over the cells (a slow spell of the shared machine then hits
one round of every cell); the median round is compared with the estimate. Target: every cell
within 30 % of its measured CPU time (0.7 <= estimate / measured <= 1.3). The load average at start and end is printed:
measurements on a loaded machine are noisy.
"""
from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from privrl.plan import cost
from privrl.runs import throughput
from privrl.runs import run
from privrl.rl import envs

RS2 = ("riverswim", {"S": 2, "H": 3})
RS4 = ("riverswim", {"S": 4, "H": 10})
RS6 = ("riverswim", {"S": 6, "H": 20})
G_B1 = ("garnet", {"S": 2, "A": 2, "branching": 2, "H": 1, "seed": 1})
G_B3 = ("garnet", {"S": 2, "A": 2, "branching": 2, "H": 3, "seed": 1})
G_T1 = ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1})
G_BIG = ("garnet", {"S": 5, "A": 3, "branching": 3, "H": 10, "seed": 1})
OFF = {"noise": 0.0}
CELLS = [  # (agent, params, env, K, simulation)
    ("ucbvi", {}, RS2, 300_000, "episode"),
    ("ucbvi", {}, RS4, 100_000, "episode"),
    ("pucb", {"epsilon": 1.0}, RS6, 20_000, "episode"),
    ("pucb", OFF, RS2, 200_000, "episode"),
    ("dp-ucbvi-jdp", {"epsilon": 1.0}, G_BIG, 10_000, "episode"),
    ("dp-ucbvi-ldp", OFF, RS6, 30_000, "episode"),
    ("private-ucbvi-sdp", {"epsilon": 1.0}, RS4, 300_000, "episode"),
    ("rlsvi", {}, RS2, 200_000, "episode"),
    ("shuffled-obi", {"epsilon": 1.0}, RS2, 100_000, "episode"),
    ("ldp-obi", OFF, G_T1, 100_000, "episode"),
    ("sdp-pe", {"epsilon": 1.0}, G_B1, 1_000_000, "episode"),
    ("pe", {}, G_B3, 300_000, "episode"),
    ("sdp-pe-ldp", {"epsilon": 1.0}, G_B3, 10**12, "aggregate"),
    ("sdp-pe-jdp", {"epsilon": 1.0}, G_T1, 10**11, "aggregate"),
]
TOLERANCE = 0.30


def label(agent, params, env, K, sim) -> str:
    p = ",".join(f"{k}={v:g}" for k, v in params.items())
    e = f"{env[0]} " + " ".join(f"{k}={v}" for k, v in env[1].items() if k not in ("seed", "branching"))
    return f"{agent}{'(' + p + ')' if p else ''}{' [aggregate]' if sim == 'aggregate' else ''} on {e}, K={K:.0e}"


def measure_once(agent, params, mdp, K, sim, min_cpu, seed) -> float:
    """CPU s of one seed (mean over as many seeds as fit in ``min_cpu``)."""
    t0, n = time.process_time(), 0
    while True:
        run.run_seed(agent, params, mdp, K, seed + n, experiment="cost-check", simulation=sim)
        n += 1
        dt = time.process_time() - t0
        if dt >= min_cpu:
            return dt / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--min-cpu", type=float, default=0.5, help="CPU s per cell and round (at least one seed)")
    ap.add_argument("--table", default=str(throughput.TABLE))
    args = ap.parse_args()
    table = throughput.load_table(args.table)
    mdps = [envs.make(env[0], **env[1]) for _, _, env, _, _ in CELLS]
    load0 = os.getloadavg()
    for (agent, params, _env, _K, sim), mdp in zip(CELLS, mdps):  # compile / load the numba cache
        run.run_seed(agent, params, mdp, 100, 0, experiment="cost-check", simulation=sim)
    times = np.zeros((args.rounds, len(CELLS)))
    for r in range(args.rounds):
        for i, ((agent, params, _env, K, sim), mdp) in enumerate(zip(CELLS, mdps)):
            times[r, i] = measure_once(agent, params, mdp, K, sim, args.min_cpu, 1000 * r)
    load1 = os.getloadavg()
    print(f"# table {args.table} (CPU {', '.join(sorted(set(table.cpu.astype(str))))}); load average "
          f"{load0[0]:.1f} at start, {load1[0]:.1f} at end (2 cores); median of {args.rounds} interleaved rounds")
    print(f"{'cell':62s} {'measured s':>11s} {'estimate s':>11s} {'est/meas':>8s} {'spread':>7s}  priced from")
    misses = 0
    for i, (agent, params, env, K, sim) in enumerate(CELLS):
        S, A, H = mdps[i].S, mdps[i].A, mdps[i].H
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est, m, _ = cost.seed_seconds(table, agent, env[0], S, A, H, K, cost.variant_of(params, sim))
        est += cost.SEED_OVERHEAD_S  # as privrl estimate and the SLURM limits price a seed
        meas = float(np.median(times[:, i]))
        ratio = est / meas
        ok = abs(ratio - 1.0) <= TOLERANCE
        misses += not ok
        spread = times[:, i].max() / times[:, i].min()
        print(f"{label(agent, params, env, K, sim):62s} {meas:11.4f} {est:11.4f} {ratio:7.2f}x {spread:6.2f}x  "
              f"{m['agent']}{'/' + m['variant'] if m['variant'] else ''} {m['env']} S={m['S']} A={m['A']} H={m['H']}"
              f"{'' if ok else '  MISS'}")
    print(f"# {len(CELLS) - misses} of {len(CELLS)} cells within {TOLERANCE:.0%}")


if __name__ == "__main__":
    main()
