"""Expected CPU time of a design, from the measured agent throughput (``throughput.csv``).

The table (written by ``bench/agent_throughput.py --write``) holds, per agent and measured
instance (env, S, A, H) and per K, the episodes x seeds / s on one core. A cell's seeds run as
shards of ``seeds_per_job`` (config; default 10), one run job each (:func:`privrl.runs.run.seed_shards`),
so the model of a cell is

    est_cpu_s = jobs * JOB_OVERHEAD_S + seeds * (t(K) + SEED_OVERHEAD_S),   jobs = ceil(seeds / seeds_per_job)

and its longest job ``JOB_OVERHEAD_S + min(seeds, seeds_per_job) * (t(K) + SEED_OVERHEAD_S)``.

* ``t(K)``: one seed's CPU seconds at K episodes, fitted through the agent's measured points
  ``t_i = K_i / episodes_per_s_i`` on one instance (least squares; a negative coefficient is
  dropped and the rest refitted), with terms by kind of agent (:func:`cost_terms`):
  ``a K + b`` for the planning agents (``b``: per-seed set-up); ``a K + c B(K)`` for the
  policy-elimination agents (pe, sdp-pe*: ``B(K)`` stages of Bai et al. Alg. 1, each an
  enumeration over the A^(S H) policies -- their per-episode cost falls ~4x from K = 1e4 to
  1e5 because this stage work, not a per-seed constant, dominates at small K); ``b + c B(K)``
  for a cell in aggregate simulation (:mod:`privrl.agents.simulation`: a stage's ~2 H S A
  blocks cost the same whatever K); ``b + c log2 K`` for private-ucbvi-sdp in aggregate
  simulation (its ~log2 K doubling batches, each a release and a plan). Noise-off twins (``noise: 0``), cells at matched
  coverage (``z > 0``) and aggregate cells are priced from their own measured rows (column ``variant``:
  ``noise-off``, ``matched-coverage``, ``aggregate``; an agent without such rows, from its plain ones).
* instance size ``size = H * S * A * S``: an episode's backward induction and count update run
  over (h, s, a, s'). The per-episode cost is ``a(size) = a0 + a1 size``, a fixed part (the
  runner's recorder, generator calls, policy evaluation cache) plus a per-(h, s, a, s') part,
  fitted through the agent's per-instance ``a`` on >= 2 measured sizes (else proportional to
  size from the one measured). The other terms come from the nearest measured instance (an
  exact (env, S, A, H) match first, then |log size|), scaled by ``size`` (per-seed set-up) or by
  the policy enumeration's ``A^(S H) H^2 S^2 A`` (stage work) when the instance differs.
* an agent with no measured row is priced from the nearest measured agent (one with its kernels'
  code first: a copied agent is priced as the agent it copies; then the same cost terms with the
  same privatizer and model, the same model, the same terms; then ucbvi) with a warning -- never refused, so a new agent
  can run before a re-bench (``bench/agent_throughput.py --agents NAME --write``).
* ``JOB_OVERHEAD_S``: python start, imports and the numba cache load of one run job, measured
  as 1.1-1.3 CPU s (``python -c 'from privrl.runs import run; run.run(agent, ..., K=1)'``); tiny
  jobs in the Snakemake benchmarks of a smoke run take 0.95-1.0 CPU s.

The check: ``bench/cost_check.py`` runs 14 cells (every kind of term, measured and unmeasured
instances, twins, aggregate cells) and prints each estimate over its measured CPU time.

The workflow around the runs (:func:`workflow_jobs`), measured by ``bench/startup_compile.py``
and a smoke run's benchmarks (Intel Xeon, 2026-11-25, a machine shared with other work; CPU
seconds of the job's process): every other job costs its start-up (interpreter, Snakemake's
script preamble, privrl and matplotlib imports: 0.8-1.0 CPU s) plus its work at smoke sizes
(``RULE_CPU_S``, a floor at larger sizes); Snakemake itself parses the config and builds the
DAG (``WORKFLOW_CPU_S``, serial); on a cold numba cache the first run job of each agent compiles
its kernels (``COMPILE_CPU_S``: cold, and the load from a filled cache, which ``JOB_OVERHEAD_S``
already holds); the agent audit's probes likewise compile on a cold cache and load from a filled one
(:mod:`privrl.audit.probe`), priced as the audited agents' ``COMPILE_CPU_S``.

The theorem checks and the two audits are priced from their sizes (:func:`mechanism_seconds`):
their time measured at the default design's sizes, scaled by their work (:func:`size_work`).

Pure: a function of the config and the tables only (no timing, no files written). The jobs of one agent do not
compile its kernels side by side on a cold cache: the first compiles, the others wait and load
(:func:`privrl.runs.run.compile_once`), as the model prices it.
"""
from __future__ import annotations

import functools
import heapq
import math
import warnings
from typing import Any, Mapping

import numpy as np
import pandas as pd

from privrl.design import experiments
from privrl.runs.throughput import VARIANT_AGGREGATE, VARIANT_MATCHED, VARIANT_NOISE_OFF, load_table, with_variant

DEFAULT_SEEDS_PER_JOB = 10  # seeds per run job when the config sets no seeds_per_job (workflow and estimate)

JOB_OVERHEAD_S = 1.2
#: the runner's own cost per seed beyond the kernel (recorder, the seed's DataFrame): 0.9 ms CPU
#: measured for run_seed at K = 1 (Intel Xeon); decisive only for aggregate-simulation cells
SEED_OVERHEAD_S = 0.0009
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
    # the mechanism-level jobs the design names (privrl.plan.workflow.WorkflowPlan plans the same)
    checks, audit, audited = experiments.named_checks(config), experiments.names_mechanism_audit(config), \
        experiments.audited_agents(config)
    counts = {"mdp": len(pairs), "aggregate": len(pairs), "fit": len(pairs), "regret_figure": len(pairs),
              "fit_table": len(pairs), "run_cell": len(costs), "analysis": analyses, "theorem_checks": int(bool(checks)),
              "privacy_audit": int(audit), "agent_audit": int(bool(audited)),
              "theorem_claims": int(bool(checks or audit or audited)), "claims": 1}
    # the audit's probes: compiled on a cold cache, loaded from a filled one (privrl.audit.probe)
    audit_compile = sum(COMPILE_CPU_S.get(a, COMPILE_DEFAULT_S)[0 if cold else 1] for a in audited)
    mechanism = mechanism_seconds(config)  # the mechanism jobs priced from their sizes
    other = [mechanism.get(r, RULE_CPU_S[r]) + (audit_compile if r == "agent_audit" else 0.0)
             for r, n in counts.items() for _ in range(n)]
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


# --- the mechanism-level jobs (workflow/rules/theorem_checks.smk), priced from their sizes ----------
# Measured at the default design's sizes (config/config.yaml, docs/timings.md: forced to rerun on 2
# cores, theorem checks 29 s, agent audit 354 s for its 12 agents, privacy audit 3 s): a job at
# other sizes costs that time scaled by its work over the work at those sizes (:func:`size_work`).
# A rough model (each check is given an equal share of the 29 s): its purpose is to refuse sizes
# that are orders of magnitude beyond the limit (a T_grid of 2^40, an audit of 1e9 runs), which the
# run model alone never saw. tests/plan/test_cost.py checks these references against config.yaml.
CHECK_REFERENCE_S = 29.0 / 13  # CPU s of one theorem check at its reference sizes
CHECK_REFERENCE_SIZES: dict[str, dict[str, Any]] = {
    "vietri_claim1": {"grid": [{"S": 2, "A": 2, "H": 1}, {"S": 2, "A": 2, "H": 2}, {"S": 2, "A": 2, "H": 3},
                               {"S": 3, "A": 2, "H": 2}]},
    "lu_lemma11": {"grid": [{"S": 2, "A": 2, "H": 3}, {"S": 6, "A": 2, "H": 20}, {"S": 10, "A": 4, "H": 5},
                            {"S": 1, "A": 2, "H": 1}]},
    "vietri_counters": {"S": 2, "A": 2, "H": 2, "T_grid": [64, 1024, 8192], "epsilon": 1.0, "beta": 0.05,
                        "n_trials": 200},
    "vietri_lemma8": {"grid": [{"S": 2, "A": 2, "H": 2}, {"S": 3, "A": 3, "H": 5}, {"S": 10, "A": 4, "H": 20}],
                      "betas": [1.0e-4, 1.0e-3, 0.01, 0.05, 0.1, 0.12, 0.124]},
    "garcelon_prop7": {"k_grid": [30, 300, 3000], "S": 2, "A": 2, "H": 3, "m": 1, "eps0": 1.0, "delta": 0.05,
                       "alpha": 2.0, "n_trials": 200},
    "bai_assumption4": {"n_users": 2000, "H": 2, "X": 2, "A": 2, "epsilon": 1.0, "delta": 0.05, "n_trials": 200},
    "bai_elimination": {"agents": ["pe", "sdp-pe-jdp"], "C_grid": [0.18, 1.0], "K": 20000000, "n_seeds": 60,
                        "epsilon": 4.0, "delta": 0.05},
    "binary_mechanism": {"T_grid": [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536],
                         "n_trials": 1000, "epsilon": 1.0, "beta": 0.05},
    "garcelon_coverage": {"k_grid": [10, 100, 1000, 10000], "H": 5, "m": 1, "eps0": 1.0, "delta": 0.05,
                          "n_trials": 2000},
    "bitsum_lemma42": {"eps_grid": [0.1, 0.2, 0.3, 0.5, 0.7, 0.9], "beta": 0.01, "n_trials": 20000},
    "garcelon_prop5": {"k_grid": [100, 1000, 10000, 100000], "eps0_grid": [0.5, 1.0, 2.0, 4.0], "H": 5, "m": 1,
                       "delta0": 1.0e-6},
    "lu_cor14": {"grid": [{"K": 1000, "H": 5, "S": 5, "A": 2}, {"K": 100000, "H": 20, "S": 10, "A": 4}],
                 "deltas": [1.0e-3, 1.0e-5, 1.0e-7], "from_experiments": True},
    "lu2026_rlsvi_audit": {"eps_targets": [1.0, 4.0, 16.0], "K": 4, "delta": 1.0e-5, "n_trials": 200000},
}
PRIVACY_AUDIT_REFERENCE = (3.0, {"n_event": 200000, "n_gaussian": 1000000, "n_shuffle": 2000})
#: CPU s of one audited agent at the reference sizes (354 s / 12 agents), the sizes, the default users
AGENT_AUDIT_REFERENCE = (354.0 / 12, {"n": 30000, "n_calibration": 2000, "multipliers": 8}, 4)
#: the agent audit's repeated x1 calibration (privrl.audit.privacy.false_alarm_rows): CPU s per audited agent
#: (every relation it claims) at ``n_calibration`` runs per sequence and ``false_alarm_seeds`` seeds
#: (measured: 16.0 s for the 12 agents, 2-core AMD EPYC shared with other jobs, process CPU, probes loaded)
AGENT_AUDIT_FALSE_ALARMS = (16.0 / 12, {"n_calibration": 2000, "false_alarm_seeds": 10})
#: the privacy-loss row at x1 repeated on the same seeds (``false_alarm_n`` runs per sequence and position):
#: CPU s per audited agent at the reference
#: (measured: 102.6 s for the 12 agents, as above)
AGENT_AUDIT_FALSE_ALARMS_LOSS = (102.6 / 12, {"false_alarm_n": 2000, "false_alarm_seeds": 10})
#: the agent audit at other sizes (``more_sizes``): per instance, CPU s per audited agent at the reference
#: size (the privacy-loss row at x1 and a power curve per relation audited), the size, the relations audited
#: (measured as above: K = 64 under replacement 92.9 s for the 12 agents, S = 3 H = 3 under every relation
#: claimed 56.4 s)
AGENT_AUDIT_SIZES = {
    "riverswim S=2 H=2": (92.9 / 12, {"users": 64, "n": 1000, "n_calibration": 500, "multipliers": 3}, 1),
    "riverswim S=3 H=3": (56.4 / 12, {"users": 4, "n": 4000, "n_calibration": 1000, "multipliers": 3}, 2),
}


def agent_audit_seconds(given: Mapping[str, Any], agents: int) -> float:
    """CPU s of the agent audit job (beyond compiling its probes) at sizes ``given`` (config
    ``mechanisms.agent_audit``) over ``agents`` audited agents: the main table (privacy-loss rows and
    power curve, :data:`AGENT_AUDIT_REFERENCE`), the repeated x1 calibration
    (:data:`AGENT_AUDIT_FALSE_ALARMS`; none without a power curve), the repeated x1 privacy-loss row
    (:data:`AGENT_AUDIT_FALSE_ALARMS_LOSS`, with ``false_alarm_n``) and every size of ``more_sizes``
    (:data:`AGENT_AUDIT_SIZES`, scaled by its runs, users and relations), each scaled by its work."""
    ref_s, ref, users = AGENT_AUDIT_REFERENCE
    n, n_cal = (size_work(given.get(k, ref[k])) for k in ("n", "n_calibration"))
    runs = n + n_cal * size_work(given.get("multipliers", ref["multipliers"]))
    per_agent = ref_s * runs / (ref["n"] + ref["n_calibration"] * ref["multipliers"])
    per_agent *= size_work(given.get("users", users)) / users
    curve = "noise" in given.get("variants", ("noise",))
    fa_s, fa = AGENT_AUDIT_FALSE_ALARMS
    seeds = int(given.get("false_alarm_seeds", fa["false_alarm_seeds"] if curve else 0))
    per_agent += fa_s * seeds / fa["false_alarm_seeds"] * n_cal / fa["n_calibration"] * size_work(
        given.get("users", users)) / users
    fl_s, fl = AGENT_AUDIT_FALSE_ALARMS_LOSS
    if seeds and given.get("false_alarm_n"):
        per_agent += fl_s * seeds / fl["false_alarm_seeds"] * size_work(given["false_alarm_n"]) / fl["false_alarm_n"] \
            * size_work(given.get("users", users)) / users
    for extra in given.get("more_sizes") or []:
        x_s, x, x_rel = AGENT_AUDIT_SIZES[extra.get("instance", "riverswim S=2 H=2")]
        x_runs = (size_work(extra.get("n", 2000)) + size_work(extra.get("n_calibration", 500))
                  * size_work(extra.get("multipliers", [1.0, 0.5])))
        per_agent += (x_s * x_runs / (x["n"] + x["n_calibration"] * x["multipliers"])
                      * size_work(extra.get("users", users)) / x["users"]
                      * len(extra.get("relations", ("add/remove", "replacement"))) / x_rel)
    return per_agent * agents


def size_work(value: Any) -> float:
    """The work a size stands for: an integer its value (a count: trials, K, S, ...), a list of
    integers their sum (a grid of T or K), a mapping the product of its entries' work, a list of
    mappings the sum of theirs, any other list its length (a grid of eps or deltas); a float, a string
    or a flag 1 (a parameter, not a count)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return 1.0
    if isinstance(value, int):
        return float(max(value, 1))
    if isinstance(value, float):
        return 1.0
    if isinstance(value, Mapping):
        return float(np.prod([size_work(v) for v in value.values()])) if value else 1.0
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return float(sum(max(v, 1) for v in value))
        if value and all(isinstance(v, Mapping) for v in value):
            return float(sum(size_work(v) for v in value))
        return float(max(len(value), 1))
    return 1.0


def _ratio(sizes: Mapping[str, Any], reference: Mapping[str, Any]) -> float:
    """Work at ``sizes`` over work at ``reference``, key by key (a key not given: the reference's)."""
    return float(np.prod([size_work(v) / size_work(reference.get(k)) for k, v in (sizes or {}).items()] or [1.0]))


def check_seconds(name: str, sizes: Mapping[str, Any] | None) -> float:
    """CPU s of theorem check ``name`` at ``sizes`` (its reference time scaled by the work ratio)."""
    return CHECK_REFERENCE_S * _ratio(sizes or {}, CHECK_REFERENCE_SIZES.get(name, {}))


def mechanism_seconds(config: Mapping[str, Any]) -> dict[str, float]:
    """{job: CPU s} of the mechanism-level jobs the design names (theorem_checks, privacy_audit,
    agent_audit), each at least its smoke-size cost (:data:`RULE_CPU_S`), beyond any compilation."""
    mech = config.get("mechanisms") or {}
    out = {}
    checks = dict(mech.get("checks") or {})
    if checks:
        out["theorem_checks"] = max(RULE_CPU_S["theorem_checks"],
                                    sum(check_seconds(n, s) for n, s in checks.items()))
    if "audit" in mech:
        ref_s, ref = PRIVACY_AUDIT_REFERENCE
        given = mech.get("audit") or {}
        work = sum(size_work(given.get(k, v)) / size_work(v) for k, v in ref.items()) / len(ref)
        out["privacy_audit"] = max(RULE_CPU_S["privacy_audit"], ref_s * work)
    agents = experiments.audited_agents(config)
    if agents:
        out["agent_audit"] = max(RULE_CPU_S["agent_audit"], agent_audit_seconds(mech.get("agent_audit") or {},
                                                                               len(agents)))
    return out


def instance_size(S: int, A: int, H: int) -> int:
    """The scaling unit of an episode's cost: H * S * A * S (see module docstring)."""
    return int(H) * int(S) * int(A) * int(S)


def _dims(name: str, params: Mapping[str, Any]) -> tuple[int, int, int]:
    from privrl.rl import envs

    mdp = envs.make(name, **dict(params))
    return mdp.S, mdp.A, mdp.H


def policy_work(S: int, A: int, H: int) -> float:
    """The scaling unit of one policy-elimination stage: A^(S H) policies x H^2 S^2 A."""
    return float(A) ** (S * H) * H * H * S * S * A


def n_stages(K: int) -> int:
    """Stages B(K) of Bai et al. Alg. 1 (privrl.agents.sdp_pe.stage_schedule): the first b with
    2 (2^(b+1) - 2) >= K."""
    b = 1
    while 2 * ((1 << (b + 1)) - 2) < K:
        b += 1
    return b


def variant_of(params: Mapping[str, Any], simulation: str = "episode") -> str:
    """The table variant pricing a cell: aggregate simulation, a noise-off twin, the agent at matched
    coverage (``z > 0``), or '' (the agent at its defaults)."""
    if simulation == VARIANT_AGGREGATE:
        return VARIANT_AGGREGATE
    if float(params.get("noise", 1.0)) == 0.0:
        return VARIANT_NOISE_OFF
    return VARIANT_MATCHED if float(params.get("z", 0.0)) > 0.0 else ""


def cost_terms(agent: str, variant: str) -> tuple[str, str]:
    """The two terms of one seed's t(K) besides each other, as the agent's spec declares them per
    simulation (``AgentSpec.simulations``): ("K", "1") planning agents, ("K", "B") policy
    elimination, ("1", "B") its aggregate simulation, ("1", "L") doubling batches in aggregate
    simulation (module docstring)."""
    from privrl.agents import get

    terms = get(agent).simulations
    return tuple(terms["aggregate" if variant == VARIANT_AGGREGATE and "aggregate" in terms else "episode"])


def _feature(term: str, K: np.ndarray) -> np.ndarray:
    return {"K": K, "1": np.ones_like(K), "B": np.array([n_stages(int(k)) for k in K], float),
            "L": np.log2(np.maximum(K, 1.0))}[term]


def fit_terms(rows: pd.DataFrame, terms: tuple[str, str] = ("K", "1")) -> dict[str, float]:
    """{term: coefficient >= 0} of t(K) through the measured rows of one instance (least squares;
    a negative coefficient dropped and the rest refitted; one K: the first term alone)."""
    K = rows["K"].to_numpy(float)
    t = K / rows["episodes_per_s"].to_numpy(float)
    live = list(terms) if np.unique(K).size >= 2 else [terms[0]]
    while True:
        X = np.column_stack([_feature(term, K) for term in live])
        coef = np.linalg.lstsq(X, t, rcond=None)[0]
        if (coef >= 0).all() or len(live) == 1:
            out = {term: 0.0 for term in terms}
            out.update({term: max(float(c), 0.0) for term, c in zip(live, coef)})
            return out
        live = [term for term, c in zip(live, coef) if c >= 0] or [terms[0]]


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


_NEAREST_AGENT_WARNED: set = set()


def measured_agent(table: pd.DataFrame, agent: str, variant: str = "") -> tuple[str, str]:
    """(agent, variant) whose rows price ``agent``'s ``variant``: its own, else the agent's plain
    rows (a variant not measured), else the nearest measured agent -- same privatizer and privacy
    model, then same model, then ucbvi (warned once, never refused)."""
    table = with_variant(table)
    have = set(zip(table["agent"], table["variant"]))
    if (agent, variant) in have:
        return agent, variant
    fallback = (agent, "") if (agent, "") in have else None
    why = "its own rows"
    if fallback is None:
        from privrl.agents import REGISTRY, get

        spec = get(agent)
        measured = sorted({a for a, v in have if v == "" and a in REGISTRY})
        if not measured:
            raise ValueError("the throughput table has no row of a registered agent; "
                             "run bench/agent_throughput.py --write")
        ranked = sorted(measured, key=lambda a: _likeness(REGISTRY[a], spec) + (a != "ucbvi", a))
        fallback = (ranked[0], "")
        like = _likeness(REGISTRY[ranked[0]], spec)
        why = _LIKENESS_TEXT[like.index(False) if False in like else -1]
    if (agent, variant) not in _NEAREST_AGENT_WARNED:
        _NEAREST_AGENT_WARNED.add((agent, variant))
        warnings.warn(f"agent {agent!r}{' (' + variant + ')' if variant else ''} has no row in the throughput table; "
                      f"priced as {fallback[0]!r} ({why}; run bench/agent_throughput.py --agents {agent} --write)",
                      stacklevel=2)
    return fallback


def _kernel_code(spec) -> tuple:
    """What an agent's kernels are, whatever module holds them: their names and bytecode (a copy of
    an agent's module has its kernels' code)."""
    out = []
    for f in (spec.init_state, spec.run_episodes):
        py = getattr(f, "py_func", f)
        code = getattr(py, "__code__", None)
        simple = (int, float, str, bool, bytes, type(None))
        cells = tuple(c.cell_contents if isinstance(c.cell_contents, simple) else type(c.cell_contents).__name__
                      for c in getattr(py, "__closure__", None) or ())  # a preset's constants
        out.append((getattr(py, "__name__", ""), code.co_code if code is not None else id(f), cells,
                    repr(getattr(py, "__defaults__", None))))
    return tuple(out)


#: why the nearest measured agent prices an unmeasured one: the first of these it shares
_LIKENESS_TEXT = ("the same kernel code", "the same cost terms, privatizer and privacy model",
                  "the same cost terms and privacy model", "the same cost terms", "the nearest measured agent")


def _likeness(measured, spec) -> tuple[bool, ...]:
    """Sort key of a measured agent pricing ``spec`` (False first): a copy of its kernels (the same
    code: a copied agent is priced as the agent it copies), then the same cost terms
    (``AgentSpec.simulations``: planning, policy elimination, ...) with the same privatizer and
    privacy model, the same model, the same terms alone."""
    terms = dict(measured.simulations) == dict(spec.simulations)
    same = measured.privatizer == spec.privatizer and measured.privacy_model == spec.privacy_model
    return (_kernel_code(measured) != _kernel_code(spec), not (terms and same),
            not (terms and measured.privacy_model == spec.privacy_model), not terms)


def nearest_instance(table: pd.DataFrame, agent: str, env: str, S: int, A: int, H: int,
                     variant: str = "") -> pd.DataFrame:
    """The measured rows pricing ``agent`` (:func:`measured_agent`) on its nearest instance
    (exact match first, then |log size|)."""
    table = with_variant(table)
    name, var = measured_agent(table, agent, variant)
    rows = table[(table["agent"] == name) & (table["variant"] == var)]
    size = instance_size(S, A, H)
    best, best_key = None, None
    for key, grp in rows.groupby(["env", "S", "A", "H"], sort=True):
        exact = key == (env, S, A, H)
        dist = abs(math.log(instance_size(*key[1:]) / size))
        rank = (not exact, dist, key[0] != env)
        if best_key is None or rank < best_key:
            best, best_key = grp, rank
    return best


def _per_episode(rows: pd.DataFrame, terms: tuple[str, str], size: int, near: pd.Series) -> float:
    """a(size) = a0 + a1 size through the per-instance a of >= 2 measured sizes (each >= 0), else
    the nearest instance's a scaled by size."""
    per = {}
    for key, grp in rows.groupby(["S", "A", "H"]):
        per.setdefault(instance_size(*key), []).append(fit_terms(grp, terms)["K"])
    a_near = fit_terms(rows[(rows["env"] == near["env"]) & (rows["S"] == near["S"]) & (rows["A"] == near["A"])
                            & (rows["H"] == near["H"])], terms)["K"]
    size_near = instance_size(near["S"], near["A"], near["H"])
    if size == size_near or len(per) < 2:
        return a_near * size / size_near
    x = np.array(sorted(per), float)
    y = np.array([np.mean(per[k]) for k in sorted(per)])
    a1, a0 = np.polyfit(x, y, 1)
    if a1 < 0 or a0 < 0:
        return a_near * size / size_near
    return float(a0 + a1 * size)


def seed_seconds(table: pd.DataFrame, agent: str, env: str, S: int, A: int, H: int, K: int, variant: str = ""
                 ) -> tuple[float, pd.Series, float]:
    """(CPU s of one seed at K, the measured row used, the cell's time over the nearest measured
    instance's at the same K) of ``agent``'s ``variant`` on (env, S, A, H)."""
    table = with_variant(table)
    near = nearest_instance(table, agent, env, S, A, H, variant)
    m = near.iloc[0]
    name, var = m["agent"], m["variant"]
    terms = cost_terms(name, var)
    coef = fit_terms(near, terms)
    exact = (m["env"], m["S"], m["A"], m["H"]) == (env, S, A, H)
    size, size_m = instance_size(S, A, H), instance_size(m["S"], m["A"], m["H"])
    scale_other = 1.0 if exact else (policy_work(S, A, H) / policy_work(m["S"], m["A"], m["H"])
                                     if "B" in terms else size / size_m)
    t_near = sum(coef[term] * _feature(term, np.array([float(K)]))[0] for term in terms)
    t = sum(coef[term] * _feature(term, np.array([float(K)]))[0] * scale_other for term in terms if term != "K")
    if "K" in terms:
        rows = table[(table["agent"] == name) & (table["variant"] == var)]
        t += K * (coef["K"] if exact else _per_episode(rows, terms, size, m))
    return t, m, (t / t_near if t_near > 0 else 1.0)


@functools.lru_cache(maxsize=None)
def _cached_table() -> pd.DataFrame:
    return load_table()


def shard_seconds(agent: str, env: tuple[str, Mapping[str, Any]], K: int, n_seeds: int,
                  overhead_s: float = JOB_OVERHEAD_S, params: Mapping[str, Any] | None = None,
                  simulation: str = "episode", seed_overhead_s: float = SEED_OVERHEAD_S) -> float:
    """Expected CPU s of one run job of ``n_seeds`` seeds (a shard) of ``agent`` (with ``params``,
    under ``simulation``) on env spec (name, params) at K (the SLURM runtime limits start from it)."""
    name, env_params = env
    S, A, H = _dims(name, env_params)
    variant = variant_of(params or {}, simulation)
    return overhead_s + n_seeds * (seed_seconds(_cached_table(), agent, name, S, A, H, int(K), variant)[0]
                                   + seed_overhead_s)


def estimate_cost(config: Mapping[str, Any], table: pd.DataFrame | None = None,
                  overhead_s: float = JOB_OVERHEAD_S, seed_overhead_s: float = SEED_OVERHEAD_S) -> pd.DataFrame:
    """One row per cell: COST_COLUMNS plus its run jobs (shards), the longest job's CPU s and the
    instance and throughput used.

    ``config``: a resolved design (:func:`privrl.design.experiments.resolve_overlay` applied).
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
        per_seed, m, scale = seed_seconds(table, cell.agent, name, S, A, H, K, variant_of(cell.params, cell.simulation))
        per_seed += seed_overhead_s
        jobs = -(-seeds // per_job)
        out.append({"experiment": cell.experiment, "env": cell.env, "cell": cell.cell, "agent": cell.agent,
                    "episodes": K, "seeds": seeds, "est_cpu_s": jobs * overhead_s + seeds * per_seed, "jobs": jobs,
                    "job_cpu_s": overhead_s + min(seeds, per_job) * per_seed,
                    "measured_on": f"{m['agent']}{'/' + m['variant'] if m['variant'] else ''} on {m['env']} "
                                   f"S={m['S']} A={m['A']} H={m['H']}", "scale": scale,
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
