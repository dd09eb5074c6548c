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

The workflow around the runs (:func:`workflow_jobs`), measured by ``bench/startup_compile.py``
and a smoke run's benchmarks (Intel Xeon, 2026-11-25, a machine shared with other work; CPU
seconds of the job's process): every other job costs its start-up (interpreter, Snakemake's
script preamble, privrl and matplotlib imports: 0.8-1.0 CPU s) plus its work at smoke sizes
(``RULE_CPU_S``, a floor at larger sizes); Snakemake itself parses the config and builds the
DAG (``WORKFLOW_CPU_S``, serial); on a cold numba cache the first run job of each agent compiles
its kernels (``COMPILE_CPU_S``: cold, and the load from a filled cache, which ``JOB_OVERHEAD_S``
already holds), and the agent audit compiles its uncached kernel copies on every run.

Pure: a function of the config and the tables only (no timing, no files written). Not
modelled: the theorem checks' and audits' work beyond smoke sizes, and several jobs of one
agent compiling the same kernels at once on a cold cache (more cores, more such jobs).
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


WORKFLOW_CPU_S = 2.7  # snakemake: parse, validate and build the smoke DAG (`snakemake -n`; the default: ~4 s)
# CPU s of one job of each rule other than run_shard: start-up (~0.9 s) + its work at smoke sizes
RULE_CPU_S = {"mdp": 1.0, "run_cell": 1.2, "aggregate": 1.4, "fit": 1.5, "regret_figure": 3.1, "fit_table": 1.1,
              "analysis": 3.3, "theorem_checks": 7.8, "privacy_audit": 2.6, "agent_audit": 1.5,
              "theorem_claims": 1.9, "claims": 1.5}
# agent -> (cold, warm) CPU s of its numba kernels in a fresh process beyond the imports: compiled
# on an empty cache, loaded from a filled one (bench/startup_compile.py, median of 3 warm)
COMPILE_CPU_S = {"dp-ucbvi-jdp": (17.7, 0.55), "dp-ucbvi-ldp": (16.1, 0.46), "ldp-obi": (11.1, 0.41),
                 "pe": (19.0, 0.39), "private-ucbvi-jdp": (16.2, 0.59), "private-ucbvi-ldp": (17.4, 0.47),
                 "private-ucbvi-sdp": (17.3, 0.56), "pucb": (6.5, 0.52), "rlsvi": (6.0, 1.35), "sdp-pe": (21.7, 0.48),
                 "sdp-pe-jdp": (19.3, 0.43), "sdp-pe-ldp": (19.3, 0.47), "shuffled-obi": (13.6, 0.52),
                 "ucbvi": (4.1, 0.49)}
COMPILE_DEFAULT_S = (22.0, 0.6)  # an agent not measured: about the slowest measured


def workflow_jobs(config: Mapping[str, Any], costs: pd.DataFrame, cold: bool) -> tuple[np.ndarray, dict[str, float]]:
    """Every job's expected CPU s -- the run jobs of ``costs`` (:func:`estimate_cost`; the first
    of each agent + its compilation when ``cold``), the other rules' jobs (``RULE_CPU_S``, one per
    (experiment, env), cell, analysis or design) -- and the parts: {run, other, compile} CPU s."""
    pairs = costs[["experiment", "env"]].drop_duplicates()
    analyses = sum(len((config["experiments"][e] or {}).get("analyses", []) or []) for e in pairs.experiment.unique())
    counts = {"mdp": len(pairs), "aggregate": len(pairs), "fit": len(pairs), "regret_figure": len(pairs),
              "fit_table": len(pairs), "run_cell": len(costs), "analysis": analyses, "theorem_checks": 1,
              "privacy_audit": 1, "agent_audit": 1, "theorem_claims": 1, "claims": 1}
    audited = ((config.get("mechanisms") or {}).get("agent_audit") or {}).get("agents")
    if audited is None:
        from privrl.privacy_audit import AGENTS as audited
    audit_compile = sum(COMPILE_CPU_S.get(a, COMPILE_DEFAULT_S)[0] for a in audited)  # uncached copies: always
    other = [RULE_CPU_S[r] + (audit_compile if r == "agent_audit" else 0.0) for r, n in counts.items() for _ in range(n)]
    runs = job_seconds(costs)
    compile_s = 0.0
    if cold:
        starts = np.concatenate([[0], np.cumsum(costs.jobs.to_numpy(int))[:-1]])
        for agent, first in costs.assign(start=starts).groupby("agent", sort=False).start.first().items():
            c = COMPILE_CPU_S.get(agent, COMPILE_DEFAULT_S)[0]
            runs[first] += c
            compile_s += c
    parts = {"run": float(runs.sum() - compile_s), "other": float(sum(other) - audit_compile),
             "compile": compile_s + audit_compile}
    return np.concatenate([runs, other]), parts


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
