"""Expected CPU time of a design, from the measured agent throughput (``throughput.csv``).

The table (written by ``bench/agent_throughput.py --write``) holds, per agent and measured
instance (env, S, A, H) and per K, the episodes x seeds / s on one core. A cell's seeds run as
shards of ``seeds_per_job`` (config; default 10), one run job each (:func:`privrl.run.seed_shards`),
so the model of a cell is

    est_cpu_s = jobs * JOB_OVERHEAD_S + seeds * t(K) * scale,   jobs = ceil(seeds / seeds_per_job)

and its longest job ``JOB_OVERHEAD_S + min(seeds, seeds_per_job) * t(K) * scale``.

* ``t(K) = a K + b``: one seed's CPU seconds at K episodes, the least-squares line through the
  agent's measured points ``t_i = K_i / episodes_per_s_i`` on the instance used. ``a`` is the
  per-episode cost; ``b`` the per-seed cost that does not grow with K (the policy-elimination
  agents' stage work: their per-episode cost falls ~4x from K = 1e4 to 1e5). ``b`` is clipped
  at 0; with one measured K, ``t = K / episodes_per_s``.
* ``scale = size(cell) / size(measured)``, ``size = H * S * A * S``: the planning agents'
  per-episode work is a backward induction over (h, s, a, s') (optimistic or perturbed value
  iteration, exact policy evaluation) and a noisy count update of the same (h, s, a, s')
  counters, so cost ~ H S A S. The measured instance used is the agent's nearest in
  |log size| (an exact (env, S, A, H) match first). For the policy-elimination agents (pe,
  sdp-pe*) the rule is only a placeholder: their cost follows the A^(S H) policies, and the
  design runs them on the measured garnet only (scale 1).
* ``JOB_OVERHEAD_S``: python start, imports and the numba cache load of one run job, measured
  as 1.1-1.3 CPU s (``python -c 'from privrl import run; run.run(agent, ..., K=1)'``); tiny
  jobs in the Snakemake benchmarks of a smoke run take 0.95-1.0 CPU s.

Pure: a function of the config and the table only (no timing, no files written). Not
modelled: the aggregate / fit / figure / analysis jobs (~0.5-1.5 s each) and numba compilation
on a cold cache (~30-90 s once per edited module).
"""
from __future__ import annotations

import functools
import heapq
import math
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from privrl import experiments

DEFAULT_SEEDS_PER_JOB = 10  # seeds per run job when the config sets no seeds_per_job (workflow and estimate)

TABLE = Path(__file__).with_name("throughput.csv")
JOB_OVERHEAD_S = 1.2
COST_COLUMNS = ("experiment", "env", "cell", "agent", "episodes", "seeds", "est_cpu_s")


def load_table(path: str | Path = TABLE) -> pd.DataFrame:
    return pd.read_csv(path)


def instance_size(S: int, A: int, H: int) -> int:
    """The scaling unit of an episode's cost: H * S * A * S (see module docstring)."""
    return int(H) * int(S) * int(A) * int(S)


def _dims(name: str, params: Mapping[str, Any]) -> tuple[int, int, int]:
    from privrl.rl import envs

    mdp = envs.make(name, **dict(params))
    return mdp.S, mdp.A, mdp.H


def seed_cost_line(rows: pd.DataFrame) -> tuple[float, float]:
    """(a, b) of one seed's CPU time t(K) = a K + b through the measured rows of one instance."""
    K = rows["K"].to_numpy(float)
    t = K / rows["episodes_per_s"].to_numpy(float)
    if np.unique(K).size < 2:
        return float(np.mean(t / K)), 0.0
    a, b = np.polyfit(K, t, 1)
    if a <= 0:  # a time that falls with K: fall back to the largest measured K's rate
        i = int(np.argmax(K))
        return float(t[i] / K[i]), 0.0
    if b < 0:
        return float(np.sum(t * K) / np.sum(K * K)), 0.0  # least squares through the origin
    return float(a), float(b)


def nearest_instance(table: pd.DataFrame, agent: str, env: str, S: int, A: int, H: int) -> pd.DataFrame:
    """The agent's measured rows on its nearest instance (exact match first, then |log size|)."""
    rows = table[table["agent"] == agent]
    if rows.empty:
        raise ValueError(f"agent {agent!r} has no row in the throughput table; run bench/agent_throughput.py --write")
    size = instance_size(S, A, H)
    best, best_key = None, None
    for key, grp in rows.groupby(["env", "S", "A", "H"], sort=True):
        exact = key == (env, S, A, H)
        dist = abs(math.log(instance_size(*key[1:]) / size))
        rank = (not exact, dist, key[0] != env)
        if best_key is None or rank < best_key:
            best, best_key = grp, rank
    return best


def seed_seconds(table: pd.DataFrame, agent: str, env: str, S: int, A: int, H: int, K: int
                 ) -> tuple[float, pd.Series, float]:
    """(CPU s of one seed at K, the measured row used, scale) of ``agent`` on (env, S, A, H)."""
    rows = nearest_instance(table, agent, env, S, A, H)
    m = rows.iloc[0]
    scale = instance_size(S, A, H) / instance_size(m["S"], m["A"], m["H"])
    a, b = seed_cost_line(rows)
    return (a * K + b) * scale, m, scale


@functools.lru_cache(maxsize=None)
def _cached_table() -> pd.DataFrame:
    return load_table()


def shard_seconds(agent: str, env: tuple[str, Mapping[str, Any]], K: int, n_seeds: int,
                  overhead_s: float = JOB_OVERHEAD_S) -> float:
    """Expected CPU s of one run job of ``n_seeds`` seeds (a shard) of ``agent`` on env spec
    (name, params) at K (the SLURM profile's runtime limits start from it)."""
    name, params = env
    S, A, H = _dims(name, params)
    return overhead_s + n_seeds * seed_seconds(_cached_table(), agent, name, S, A, H, int(K))[0]


def estimate_cost(config: Mapping[str, Any], table: pd.DataFrame | None = None,
                  overhead_s: float = JOB_OVERHEAD_S) -> pd.DataFrame:
    """One row per cell: COST_COLUMNS plus its run jobs (shards), the longest job's CPU s and the
    instance and throughput used.

    ``config``: a resolved design (:func:`privrl.experiments.resolve_overlay` applied).
    ``episodes_per_s`` is the modelled rate of the cell itself (after scaling, at its K).
    """
    table = load_table() if table is None else table
    dims: dict[tuple[str, str], tuple[str, int, int, int]] = {}
    out = []
    per_job = int(config.get("seeds_per_job", DEFAULT_SEEDS_PER_JOB))
    for cell in experiments.all_cells(config):
        exp = config["experiments"][cell.experiment]
        if (cell.experiment, cell.env) not in dims:
            name, params = experiments.env_spec(config, cell.experiment, cell.env)
            dims[cell.experiment, cell.env] = (name, *_dims(name, params))
        name, S, A, H = dims[cell.experiment, cell.env]
        K, seeds = int(exp["episodes"]), int(exp["seeds"])
        per_seed, m, scale = seed_seconds(table, cell.agent, name, S, A, H, K)
        jobs = -(-seeds // per_job)
        out.append({"experiment": cell.experiment, "env": cell.env, "cell": cell.cell, "agent": cell.agent,
                    "episodes": K, "seeds": seeds, "est_cpu_s": jobs * overhead_s + seeds * per_seed, "jobs": jobs,
                    "job_cpu_s": overhead_s + min(seeds, per_job) * per_seed,
                    "measured_on": f"{m['env']} S={m['S']} A={m['A']} H={m['H']}", "scale": scale,
                    "episodes_per_s": K / per_seed})
    return pd.DataFrame(out)


def job_seconds(costs: pd.DataFrame) -> np.ndarray:
    """Every run job's expected CPU s (a cell's shards; the last may hold fewer seeds: counted as
    full, an upper bound)."""
    return np.repeat(costs.job_cpu_s.to_numpy(float), costs.jobs.to_numpy(int))


def summarize(costs: pd.DataFrame) -> pd.DataFrame:
    """Per experiment: cells, episodes x seeds, the throughput used (total episodes x seeds /
    total agent CPU s, job overheads excluded) and the expected CPU seconds."""
    g = costs.assign(ep_seeds=costs.episodes * costs.seeds,
                     agent_s=costs.episodes * costs.seeds / costs.episodes_per_s)
    s = g.groupby("experiment", sort=False).agg(cells=("cell", "size"), episodes_x_seeds=("ep_seeds", "sum"),
                                                agent_cpu_s=("agent_s", "sum"), est_cpu_s=("est_cpu_s", "sum"))
    s["episodes_per_s"] = s.episodes_x_seeds / s.agent_cpu_s
    return s.reset_index()


def wall_time(job_seconds, cores: int) -> float:
    """Makespan of the jobs on ``cores`` single-threaded workers, longest first onto the least
    loaded worker (Snakemake starts ready jobs in no such order: an estimate, >= the true optimum)."""
    if cores < 1:
        raise ValueError(f"cores must be >= 1; got {cores}")
    loads = [0.0] * int(cores)
    for t in sorted((float(x) for x in job_seconds), reverse=True):
        heapq.heapreplace(loads, loads[0] + t)
    return max(loads)
