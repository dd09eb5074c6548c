"""Throughput of every registered agent, side by side in one run, and its noise-draw floor.

    python bench/agent_throughput.py [--write] [--k-grid 10000 100000] [--min-cpu 0.3]

For every agent of ``privrl.agents.REGISTRY`` on RiverSwim (S=6, H=20), RiverSwim (S=2, H=3)
and the Bai et al. Table I garnet (S=3, A=2, branching 2, H=4, seed 1; the only instance of
the three small enough for the policy-elimination agents pe / sdp-pe* to enumerate on S=6,
H=20 they refuse): episodes x seeds / s / core at the agent's default parameters (every
private agent's default is epsilon = 1, so "defaults" and "epsilon 1" are one run), at each
K of ``--k-grid`` (per-episode cost depends on K for the batched agents), after a warm-up
(numba compile excluded), timed in process CPU time (one process, one core; seeds repeated
until ``--min-cpu`` seconds), the fastest of ``--repeat`` rounds over all agents (on a shared
virtual machine the speed drifts by tens of percent within minutes; a round measures every
agent once, so a slow spell costs one round of each, not one agent). Beside it: the ratio of
the agent's time to UCBVI's on the same instance and K, and the floor set by fresh noise draws.

Noise floor: the PCG64 stream is advanced in place by the numba kernels, so the number of
64-bit words an episode consumes is the distance between the generator's state before and
after the run (the LCG jump-ahead inverse of O'Neill's PCG ``distance``). Noise words per
episode = the agent's words minus those of its noise-free twin (the same agent with
``noise = 0``; ``pe`` for the SDP-PE family; ``ucbvi`` for RLSVI, whose Gaussian perturbation
is its exploration); divided by the words one draw of the agent's noise kind takes, that is
the number of draws per episode. ns per draw is measured with numba's np.random in a tight
njit loop of exactly the draw the mechanism makes (Laplace = privrl.mechanisms.laplace.laplace_unit,
one word per variate, as the tree and local-Laplace privatizers draw it; Gaussian = standard_normal; Bernoulli =
one uniform per randomized bit, as in the shuffle bitsum / randomized-response sums).
The floor (draws per episode x ns per draw) is what the agent would cost if drawing its noise
were all it did. The twin plays different policies, so env-sampling words (<= 2H + 1 per
episode) blur the count by that much.

Targets. ``x UCBVI`` (the agent's episode in UCBVI episodes) is printed, not scored: the old target
(every private agent >= 1/3 of UCBVI's throughput at RiverSwim S=2 H=3, >= 1/4 at S=6 H=20) measured
UCBVI's own speed-up once the lean engine cut its episode 4x (docs/decisions/performance.md,
"Throughput targets restated"). ``floor xU`` is the noise floor alone in units of UCBVI's episode,
``rest xU`` the agent's other work (``x UCBVI - floor xU``), ``x floor`` the agent's time over its
floor (a 1.3x-over-floor target at S=6 H=20 is not reachable: the tree agents' noise-free twins alone take
0.5-0.75x of it) and ``x fl+twin`` its time over the floor plus its noise-free twin's episode (the
same agent with noise 0 measured in the same rounds; ``pe`` for the SDP-PE family, ``ucbvi`` for
RLSVI): what the privacy machinery costs beyond the draws and the planning. The ``target`` column
scores that one: ``ok`` when ``x fl+twin`` <= :data:`TARGET_OVERHEAD`, ``MISS`` otherwise, blank for
agents without noise (docs/decisions/performance.md, "The tree agents' honest floor"). ``x lean``:
the agent's episode over its lean kernel's (:data:`LEAN_KERNELS`: one njit function written for speed
whose regret equals the agent's bit for bit, timed at the largest K in the same run), i.e. privrl's
fixed overhead for that agent. A cheaper
sampler changes the noise stream and so every committed number (bench/laplace_sampler.py
measures one).

``--before-src DIR`` first runs this same script as a subprocess on the privrl package under
``DIR`` (e.g. ``../main/src``: the ``src`` of a checkout of the code before a change) and prints, beside each agent, its
``x UCBVI`` ratio then and its speed-up (episodes / s now over then, at the largest K); both
measurements are ratios taken in one run on one machine. ``--json FILE`` saves the measured
rates (used by ``--before-src``).

``--write`` saves the measured table as src/privrl/throughput.csv (columns agent, variant, env,
S, A, H, K, episodes_per_s, cpu, date), read by privrl.plan.cost: there the *median* round's rate (what
a job should expect), where the printed ratios use each agent's fastest round. Rows of variant
``noise-off`` are the agent's noise-off twin (``noise = 0``, measured as its own agent); rows of variant
``matched-coverage`` the agents with a ``z`` parameter at z = 3 (the LDP agents' episode then takes the sd
of their noise instead of its Chernoff bound -- 1.5x faster at K = 1e6 for LDP-OBI on the H = 2 bandit while
that bound was a Newton solve, about the same cost since its series form, mechanisms D11b; the JDP agents'
matched sd can cost more: privrl.plan.cost prices z > 0 cells from these rows); rows of
variant ``aggregate`` the agents with an aggregate simulation (the policy-elimination agents and
private-ucbvi-sdp's doubling batches) at K = 1e8, 1e10, 1e12 (privrl.agents.simulation), on the
garnets the design runs them on (ELIMINATION_INSTANCES, episode by episode too). ``--agents NAME ...`` measures only those agents (UCBVI too, for the
ratios) and ``--write`` then replaces only their rows in the table (a new agent needs no
re-bench of all). The floor pairs the
fastest draw loop with UCBVI's fastest round: an estimate of the same kind as the ratios.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit

from privrl import io
from privrl.agents import REGISTRY, simulation
from privrl.agents.obi import shuffled_tau_py
from privrl.mechanisms.laplace import laplace_unit
from privrl.rl import engine, envs, seeding
from privrl.runs.throughput import VARIANT_MATCHED as MATCHED

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/: the agents' lean kernels
import lean_dp_ucbvi  # noqa: E402
import lean_obi  # noqa: E402
import lean_pucb  # noqa: E402


def _lean_pucb(env, K, rng, p):
    a = lean_pucb.lean_args(env)
    return lean_pucb.lean_pucb(*a, np.int64(K), p["epsilon"], p["bonus_scale"], p["beta"], p["noise"] > 0.5, p["z"], rng)


def _lean_obi(env, K, rng, p):
    return lean_obi.lean_ldp_obi(*lean_obi.lean_args(env), np.int64(K), p["epsilon"], p["bonus_scale"], p["delta"],
                                 p["alpha"], rng)


def _lean_shuffled_obi(env, K, rng, p):
    return lean_obi.lean_shuffled_obi(*lean_obi.lean_args(env), np.int64(K), p["epsilon"], p["bonus_scale"], p["delta"],
                                      p["alpha"], int(p["m"]), shuffled_tau_py(p, int(K)), rng)


def _lean_ucbvi_family(ldp: bool, bernstein: bool):
    return lambda env, K, rng, p: lean_dp_ucbvi.lean_run(env, K, rng, p, ldp, bernstein)


def _noise_on(p):
    return p["noise"] > 0.5


#: agent -> (its lean kernel: a scalar reference written for speed, ``run(env, K, rng, p)`` on privrl's env tuple at
#: the agent's full parameter dict ``p``, returning the cumulative regret, equal to privrl's bit for bit (tests/agents/
#: test_lean_*.py); ``implements(p)``: whether it implements those parameters). Column ``x lean`` (at the agent's
#: defaults) and bench/design_floor.py's lean price.
LEAN = {
    "pucb": (_lean_pucb, lambda p: True),
    "dp-ucbvi-jdp": (_lean_ucbvi_family(False, True), _noise_on),
    "dp-ucbvi-ldp": (_lean_ucbvi_family(True, True), _noise_on),
    "private-ucbvi-jdp": (_lean_ucbvi_family(False, False), _noise_on),
    "private-ucbvi-ldp": (_lean_ucbvi_family(True, False), _noise_on),
    "ldp-obi": (_lean_obi, lambda p: _noise_on(p) and p["z"] == 0.0),
    "shuffled-obi": (_lean_shuffled_obi, lambda p: _noise_on(p) and p["z"] == 0.0),
}


def _timed(run, p):
    """``seconds(env, K, rng)``: CPU seconds of ``run(env, K, rng, p)``, compiled before the clock starts."""
    def seconds(env, K, rng):
        run(env, 10, np.random.Generator(np.random.PCG64(999)), p)
        t0 = time.process_time()
        run(env, K, rng, p)
        return time.process_time() - t0
    return seconds


#: agent -> ``seconds(env, K, rng)`` of one run of its lean kernel at the agent's defaults (epsilon 1, z 0)
LEAN_KERNELS = {agent: _timed(run, dict(REGISTRY[agent].defaults)) for agent, (run, _) in LEAN.items()}

INSTANCES = {  # env name, params
    # the default design's agent rows: the two-armed bandits (garnet S=1, A=2, branching 1, seed 0)
    "bandit H=1": ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}),
    "bandit H=2": ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}),
    "riverswim S=2 H=2": ("riverswim", {"S": 2, "H": 2}),
    "riverswim S=6 H=20": ("riverswim", {"S": 6, "H": 20}),
    "riverswim S=2 H=3": ("riverswim", {"S": 2, "H": 3}),
    "garnet S=3 A=2 b=2 H=4": ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}),
}
#: the instances the design runs the policy-elimination agents on (Bai et al. Table I and the scaling garnet)
ELIMINATION_INSTANCES = {
    "garnet S=2 A=2 b=2 H=1": ("garnet", {"S": 2, "A": 2, "branching": 2, "H": 1, "seed": 1}),
    "garnet S=2 A=2 b=2 H=3": ("garnet", {"S": 2, "A": 2, "branching": 2, "H": 3, "seed": 1}),
    "garnet S=3 A=2 b=2 H=4": ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}),
}
AGGREGATE_K = (10**8, 10**10, 10**12)
NOISE_FREE_TWIN = {"sdp-pe": ("pe", {}), "sdp-pe-jdp": ("pe", {}), "sdp-pe-ldp": ("pe", {}), "rlsvi": ("ucbvi", {})}
DRAW_KIND = {"central-tree": "laplace", "local-laplace": "laplace", "shuffle-bitsum": "bernoulli",
             "shuffle-rr": "bernoulli"}
AGENT_DRAW_KIND = {"rlsvi": "gaussian"}  # agents whose noise is not a privatizer's
TABLE = Path(__file__).resolve().parents[1] / "src" / "privrl" / "throughput.csv"
#: largest ``x fl+twin`` a private agent may have: its episode over (noise floor + noise-free twin)
TARGET_OVERHEAD = 1.3
#: the z of the ``matched-coverage`` rows (the design's privacy-cost cells run z = 3)
MATCHED_Z = 3.0

# PCG64 (numpy's 128-bit LCG step: state <- state * MULT + inc, mod 2^128)
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341
_MASK = (1 << 128) - 1


def pcg_distance(before: dict, after: dict) -> int:
    """Number of LCG steps (64-bit outputs) from PCG64 state ``before`` to ``after``
    (O'Neill, pcg_random.hpp ``distance``: match the states bit by bit, squaring the step)."""
    cur, new = before["state"]["state"], after["state"]["state"]
    mult, plus = _PCG_MULT, before["state"]["inc"]
    bit, dist = 1, 0
    while cur != new:
        if (cur & bit) != (new & bit):
            cur = (cur * mult + plus) & _MASK
            dist |= bit
        bit <<= 1
        plus = ((mult + 1) * plus) & _MASK
        mult = (mult * mult) & _MASK
    return dist


def cpu_model() -> str:
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def _params(name: str) -> dict:
    return {"epsilon": 1.0} if "epsilon" in REGISTRY[name].defaults else {}


def measure(name: str, params: dict, mdp, K: int, min_cpu: float, sim: str = "episode") -> tuple[float, float]:
    """(episodes x seeds / CPU s, RNG words per episode of seed 0) of one agent at K episodes."""
    spec = REGISTRY[name]
    init, episodes = simulation.kernels(name, sim)
    env = engine.env_arrays(mdp)
    pv = spec.param_vector(params)

    def kernel(K, rng):
        K = np.int64(K)
        episodes(env, pv, K, np.int64(0), K, rng, engine.new_recorder(int(K), np.array([0.1])), init(env, pv, K))
    kernel(50, seeding.generator("bench", name, 999))
    done, words, t0 = 0, 0.0, time.process_time()
    while True:
        rng = seeding.generator("bench", name, done)
        before = rng.bit_generator.state
        kernel(K, rng)
        if done == 0:
            words = pcg_distance(before, rng.bit_generator.state) / K
        done += 1
        cpu = time.process_time() - t0
        if cpu >= min_cpu:
            return K * done / cpu, words


@njit
def _laplace_loop(rng, n):
    x = 0.0
    for _ in range(n):
        x += laplace_unit(rng)
    return x


@njit
def _gaussian_loop(rng, n):
    x = 0.0
    for _ in range(n):
        x += rng.standard_normal()
    return x


@njit
def _bernoulli_loop(rng, n):
    x = 0
    for _ in range(n):
        if rng.random() < 0.5:
            x += 1
    return x


DRAW_LOOPS = {"laplace": _laplace_loop, "gaussian": _gaussian_loop, "bernoulli": _bernoulli_loop}


def draw_costs(n: int = 5_000_000) -> dict[str, tuple[float, float]]:
    """kind -> (ns per draw, 64-bit words per draw), numba np.random in a tight njit loop."""
    out = {}
    for kind, loop in DRAW_LOOPS.items():
        loop(seeding.generator("bench", kind, 1), 1000)  # compile
        rng = seeding.generator("bench", kind, 0)
        before = rng.bit_generator.state
        t0 = time.process_time()
        loop(rng, n)
        ns = (time.process_time() - t0) / n * 1e9
        out[kind] = (ns, pcg_distance(before, rng.bit_generator.state) / n)
    return out


def target_verdict(overhead: float | None, target: float = TARGET_OVERHEAD) -> str:
    """"ok" when the agent's episode over (noise floor + noise-free twin) is within ``target``,
    "MISS" above it, "" for an agent without noise or twin (nothing to score)."""
    if overhead is None:
        return ""
    return "ok" if overhead <= target else "MISS"


def noise_kind(name: str) -> str | None:
    spec = REGISTRY[name]
    return AGENT_DRAW_KIND.get(name) or DRAW_KIND.get(spec.privatizer)


def twin_of(name: str) -> tuple[str, dict] | None:
    if "noise" in REGISTRY[name].defaults:
        return name, {**_params(name), "noise": 0.0}
    return NOISE_FREE_TWIN.get(name)


def best_of(names: list, mdp, k_grid: list[int], min_cpu: float, repeat: int
            ) -> tuple[dict[tuple[str, int], tuple[float, float]], dict[tuple[str, int], float], dict[str, str]]:
    """Measure every agent in ``repeat`` rounds, each round measuring every agent once in turn (a
    slowdown of the shared machine then hits one round of every agent, not every round of one).

    Returns {(agent, K): (fastest round's rate, RNG words per episode)} -- the least disturbed
    round, for the ratios -- {(agent, K): median rate} -- what a job should expect, for
    ``--write`` (privrl.plan.cost's time limits) -- and {agent: why} for agents that refuse the instance.
    An entry of ``names`` is an agent name or (key, agent, params, simulation) (a variant).
    """
    rounds: dict[tuple[str, int], list[float]] = {}
    words: dict[tuple[str, int], float] = {}
    refused: dict[str, str] = {}
    for _ in range(repeat):
        for entry in names:
            name, agent, params, sim = (entry, entry, _params(entry), "episode") if isinstance(entry, str) else entry
            if name in refused:
                continue
            try:
                for K in k_grid:
                    rate, w = measure(agent, params, mdp, K, min_cpu, sim)
                    rounds.setdefault((name, K), []).append(rate)
                    words.setdefault((name, K), w)
            except ValueError as exc:
                refused[name] = str(exc)
    best = {key: (max(r), words[key]) for key, r in rounds.items()}
    return best, {key: float(np.median(r)) for key, r in rounds.items()}, refused


def run_before(args) -> dict[str, float]:
    """Rates of the privrl package under ``args.before_src`` (this script in a subprocess)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "before.json"
        cmd = [sys.executable, __file__, "--json", str(out), "--min-cpu", str(args.min_cpu), "--repeat", str(args.repeat),
               "--k-grid", *map(str, args.k_grid)]
        if args.instances:
            cmd += ["--instances", *args.instances]
        if args.agents:
            cmd += ["--agents", *args.agents]
        env = {**os.environ, "PYTHONPATH": str(args.before_src.resolve())}
        print(f"# before: {' '.join(cmd[1:])} with PYTHONPATH={env['PYTHONPATH']}", flush=True)
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        print("\n".join("#   " + line for line in res.stdout.splitlines()), flush=True)
        return json.loads(out.read_text())


def elimination_rows(names: list[str], args, cpu: str, date: str) -> list[dict]:
    """The agents with an aggregate simulation (policy elimination, doubling batches) on the
    garnets the design runs them on: episode by episode at
    ``--k-grid`` and in aggregate simulation at AGGREGATE_K (median rounds), printed as CPU s per seed."""
    rows = []
    for inst, (env_name, env_params) in ELIMINATION_INSTANCES.items() if names else ():
        mdp = envs.make(env_name, **env_params)
        entries = [(f"{n}/aggregate", n, _params(n), "aggregate") for n in names]
        print(f"\n# {inst}: CPU s per seed, episode by episode at K = {', '.join(f'{k:g}' for k in args.k_grid)}; "
              f"aggregate simulation at K = {', '.join(f'{k:.0e}' for k in AGGREGATE_K)}")
        if inst not in INSTANCES:
            _, ep_median, _ = best_of(names, mdp, args.k_grid, args.min_cpu, args.repeat)
        _, agg_median, _ = best_of(entries, mdp, list(AGGREGATE_K), args.min_cpu, args.repeat)
        for n in names:
            line = f"{n:19s}"
            if inst not in INSTANCES:
                rows += [{"agent": n, "variant": "", "env": env_name, "S": mdp.S, "A": mdp.A, "H": mdp.H, "K": K,
                          "episodes_per_s": round(ep_median[n, K], 1), "cpu": cpu, "date": date} for K in args.k_grid]
                line += " " + " ".join(f"{K / ep_median[n, K]:10.4f}" for K in args.k_grid)
            rows += [{"agent": n, "variant": "aggregate", "env": env_name, "S": mdp.S, "A": mdp.A, "H": mdp.H, "K": K,
                      "episodes_per_s": round(agg_median[f"{n}/aggregate", K], 1), "cpu": cpu, "date": date}
                     for K in AGGREGATE_K]
            print(line + "  aggregate: " + " ".join(f"{K / agg_median[f'{n}/aggregate', K]:9.5f}" for K in AGGREGATE_K),
                  flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--k-grid", type=int, nargs="+", default=[10_000, 100_000], help="episodes per seed")
    ap.add_argument("--min-cpu", type=float, default=0.3, help="CPU seconds per measurement (at least one seed)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds over all agents; each agent's fastest round is kept (and the fastest draw loop)")
    ap.add_argument("--write", action="store_true",
                    help=f"save the table as {TABLE} (with --agents: replace only those agents' rows)")
    ap.add_argument("--agents", nargs="+", choices=sorted(REGISTRY), metavar="NAME",
                    help="measure only these agents (and ucbvi, the ratios' unit)")
    ap.add_argument("--instances", nargs="+", choices=sorted(INSTANCES), metavar="NAME",
                    help="measure only these instances (default: all)")
    ap.add_argument("--json", type=Path, help="save the measured rates as JSON ({instance|agent|K: rate})")
    ap.add_argument("--before-src", type=Path,
                    help="first measure the privrl package under this src dir (the code before a change)")
    args = ap.parse_args()
    before = run_before(args) if args.before_src else {}
    cpu, date = cpu_model(), datetime.date.today().isoformat()
    print(f"# CPU: {cpu}   ({date}; one process, one core; CPU time; compile excluded)")
    rounds = [draw_costs() for _ in range(args.repeat)]
    costs = {kind: min(r[kind] for r in rounds) for kind in DRAW_LOOPS}  # the least disturbed round
    print("# noise draws, numba np.random in a tight njit loop: "
          + ", ".join(f"{k} {ns:.1f} ns/draw ({w:.2f} words)" for k, (ns, w) in costs.items()))
    rows = []
    rates: dict[str, float] = {}
    Kmax = max(args.k_grid)
    selected = set(args.agents or REGISTRY)
    for inst, (env_name, env_params) in INSTANCES.items():
        if args.instances and inst not in args.instances:
            continue
        mdp = envs.make(env_name, **env_params)
        print(f"\n# {inst}   episodes x seeds / s / core at K = {', '.join(f'{k:g}' for k in args.k_grid)}; "
              f"ratio, noise floor at K = {Kmax:g}")
        print(f"{'agent':19s} {'privacy':7s} " + " ".join(f"{'K=' + format(k, 'g'):>10s}" for k in args.k_grid)
              + f" {'x UCBVI':>8s}" + (f" {'before':>7s} {'speedup':>7s}" if before else "") + f" {'x lean':>6s}"
              + f" {'target':>11s} {'ns/ep':>8s} {'draws/ep':>9s} {'kind':>9s} {'floor ns/ep':>11s} {'floor %':>7s}"
              + f" {'floor xU':>8s} {'rest xU':>8s} {'x floor':>7s} {'x fl+twin':>10s}")
        names = ["ucbvi"] + sorted(n for n in selected if n != "ucbvi")
        twins = [(f"{n}/noise-off", n, {**_params(n), "noise": 0.0}, "episode") for n in names
                 if "noise" in REGISTRY[n].defaults and n in selected]
        matched = [(f"{n}/{MATCHED}", n, {**_params(n), "z": MATCHED_Z}, "episode") for n in names
                   if "z" in REGISTRY[n].defaults and n in selected]
        measured, median, refused = best_of(names + twins + matched, mdp, args.k_grid, args.min_cpu, args.repeat)
        lean_ns = {n: min(LEAN_KERNELS[n](engine.env_arrays(mdp), Kmax, seeding.generator("bench", "lean", r))
                          for r in range(args.repeat)) / Kmax * 1e9 for n in names
                   if n in LEAN_KERNELS and n in selected and n not in refused}
        for key, tw_name, _p, _s in twins + matched:
            if key not in refused:
                rows += [{"agent": tw_name, "variant": key.split("/")[1], "env": env_name, "S": mdp.S, "A": mdp.A,
                          "H": mdp.H, "K": K, "episodes_per_s": round(median[key, K], 1), "cpu": cpu, "date": date}
                         for K in args.k_grid]
        for name in names:
            spec = REGISTRY[name]
            if name in refused:  # an agent that refuses this instance (policy enumeration)
                print(f"{name:19s} {spec.privacy_model:7s} refused: {refused[name][:70]}")
                continue
            for K in args.k_grid if name in selected else ():
                rows.append({"agent": name, "variant": "", "env": env_name, "S": mdp.S, "A": mdp.A, "H": mdp.H, "K": K,
                             "episodes_per_s": round(median[name, K], 1), "cpu": cpu, "date": date})
            rate, words = measured[name, Kmax]
            ns_ep = 1e9 / rate
            ratio = measured["ucbvi", Kmax][0] / rate
            line = (f"{name:19s} {spec.privacy_model:7s} "
                    + " ".join(f"{measured[name, K][0]:10,.0f}" for K in args.k_grid) + f" {ratio:7.2f}x")
            if before:
                b_rate, b_ucb = before.get(f"{inst}|{name}|{Kmax}"), before.get(f"{inst}|ucbvi|{Kmax}")
                line += (f" {b_ucb / b_rate:6.2f}x {rate / b_rate:6.2f}x" if b_rate and b_ucb else f" {'':7s} {'':7s}")
            line += f" {ns_ep / lean_ns[name]:5.2f}x" if name in lean_ns else f" {'':6s}"
            kind, twin = noise_kind(name), twin_of(name)
            floor_cols, floor_xu, overhead = "", 0.0, None
            if kind and twin:
                tw_name, tw_params = twin
                tw_words = measure(tw_name, tw_params, mdp, Kmax, 0.0)[1] if tw_name != name or tw_params else 0.0
                ns_draw, words_draw = costs[kind]
                draws = max(words - tw_words, 0.0) / words_draw
                floor = draws * ns_draw
                floor_xu = floor * measured["ucbvi", Kmax][0] / 1e9
                floor_cols = (f" {draws:9,.0f} {kind:>9s} {floor:11,.0f} {100 * floor / ns_ep:6.0f}% {floor_xu:7.2f}x"
                              f" {ratio - floor_xu:7.2f}x {ns_ep / floor if floor > 0 else float('inf'):6.2f}x")
                # the noise-free twin, measured in the same rounds (the agent with noise 0, or pe / ucbvi)
                off = measured.get((f"{name}/noise-off", Kmax) if tw_name == name else (tw_name, Kmax))
                if off and off[0] > 0:
                    overhead = ns_ep / (floor + 1e9 / off[0])
                floor_cols += f" {overhead:9.2f}x" if overhead is not None else f" {'':10s}"
            line += f" {target_verdict(overhead):>11s} {ns_ep:8,.0f}"
            print(line + floor_cols, flush=True)
        for (name, K), (rate, _w) in measured.items():
            rates[f"{inst}|{name}|{K}"] = rate
    if not args.instances:
        rows += elimination_rows(sorted(selected & set(simulation.AGGREGATE)), args, cpu, date)
    print(f"\n# target: ok = x fl+twin (the episode over noise floor + noise-free twin) <= {TARGET_OVERHEAD}; "
          "MISS = above it; blank = no noise to score")
    if args.json:
        args.json.write_text(json.dumps(rates, indent=0))
    if args.write:
        new = pd.DataFrame(rows)
        if args.agents and TABLE.exists():  # keep every other agent's rows
            old = pd.read_csv(TABLE)
            old = old.assign(variant=old["variant"].fillna("") if "variant" in old else "")
            new = pd.concat([old[~old["agent"].isin(selected)], new], ignore_index=True)
        io.write_csv(TABLE, new[["agent", "variant", "env", "S", "A", "H", "K", "episodes_per_s", "cpu", "date"]])
        print(f"\nwrote {TABLE} ({len(new)} rows; measured now: {len(rows)})")


if __name__ == "__main__":
    main()
