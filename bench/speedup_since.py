"""Three private agents' per-episode speed (PUCB, DP-UCBVI JDP, LDP-OBI, and UCBVI as the unit) now against
the code of an earlier commit, in one run.

    python bench/speedup_since.py --commit bf1cdd8 [--k 1000000] [--rounds 3] [--min-cpu 0.5]

The engine's targets were set from a table measured on one commit (ns per episode and x UCBVI on the
H = 1 and H = 2 two-armed bandits and RiverSwim S = 2, H = 2, K = 1e6, eps = 1). This script exports
that commit's ``src/`` (``git archive``) and times the same agents on the same instances under both
trees: each (tree, round) is a fresh single-threaded process with its own numba cache, the rounds of the two
trees interleaved in ABBA order (drift cancels), the fastest round of each (instance, agent) kept, compilation
excluded (so an agent's and UCBVI's fastest rounds may differ). It prints, per instance and agent, ns per episode
before and now, x UCBVI in each tree, and the speed-up (before / now). Only the API both trees share is
used (``agents.REGISTRY``, ``agents.simulation.kernels``, ``rl.engine``, ``rl.envs``, ``rl.seeding``),
the same loop as ``bench/agent_throughput.py``'s ``measure``; each process checks that it imported the tree
it was given. Both trees run under this environment's numba, llvmlite and numpy (printed): "before" is that
commit's source on today's tools. A tree's numbers need not be the same bits as the other's (a labelled
stream change between them is allowed); the speeds are compared only as ratios measured in this one run, on
one CPU (printed).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import llvmlite
import numba
import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_throughput import INSTANCES as THROUGHPUT_INSTANCES, cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = {k: THROUGHPUT_INSTANCES[k] for k in ("bandit H=1", "bandit H=2", "riverswim S=2 H=2")}
AGENTS = ("ucbvi", "pucb", "dp-ucbvi-jdp", "ldp-obi")

#: run in a fresh process under one tree: prints {instance|agent: episodes / CPU s, "privrl": its path} as JSON
TIMER_SOURCE = r"""
import json, sys, time
import numpy as np
import privrl
from privrl.agents import REGISTRY, simulation
from privrl.rl import engine, envs, seeding
instances, agents, K, min_cpu = json.loads(sys.argv[1])
out = {"privrl": privrl.__file__}
for label, (env_name, env_params) in instances.items():
    mdp = envs.make(env_name, **env_params)
    env = engine.env_arrays(mdp)
    for name in agents:
        spec = REGISTRY[name]
        pv = spec.param_vector({"epsilon": 1.0} if "epsilon" in spec.defaults else {})
        init, episodes = simulation.kernels(name, "episode")
        def kernel(k, rng):
            k = np.int64(k)
            episodes(env, pv, k, np.int64(0), k, rng, engine.new_recorder(int(k), np.array([0.1])), init(env, pv, k))
        kernel(50, seeding.generator("bench", name, 999))  # compile
        done, t0 = 0, time.process_time()
        while True:
            kernel(K, seeding.generator("bench", name, done))
            done += 1
            cpu = time.process_time() - t0
            if cpu >= min_cpu:
                break
        out[label + "|" + name] = K * done / cpu
print(json.dumps(out))
"""


def export_src(commit: str, dest: Path) -> Path:
    """``src/`` of ``commit`` unpacked under ``dest`` (git archive); returns the src directory."""
    dest.mkdir(parents=True, exist_ok=True)
    tar = dest / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(tar), commit, "src"], check=True)
    with tarfile.open(tar) as t:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            t.extractall(dest, filter="data")
        else:  # git archive of our own repository: no links out of dest
            t.extractall(dest)
    return dest / "src"


def rates_under_tree(src: Path, cache: Path, k: int, min_cpu: float) -> dict[str, float]:
    """Episodes per CPU second of every (instance, agent) under the privrl package in ``src`` (one fresh
    single-threaded process); refuses a process that imported privrl from elsewhere."""
    env = {**os.environ, "PYTHONPATH": str(src), "PRIVRL_CACHE": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    arg = json.dumps([INSTANCES, AGENTS, k, min_cpu])
    res = subprocess.run([sys.executable, "-c", TIMER_SOURCE, arg], env=env, capture_output=True, text=True,
                         cwd=str(cache))
    if res.returncode != 0:
        raise SystemExit(f"timing under {src} failed:\n{res.stderr[-3000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    imported = Path(out.pop("privrl")).resolve()
    if not imported.is_relative_to(src.resolve()):
        raise SystemExit(f"timing under {src} imported privrl from {imported}")
    return out



def table(before: dict[str, float], now: dict[str, float], k: int) -> str:
    """One block per instance: ns per episode and x UCBVI in each tree, and before / now."""
    lines = []
    for label in INSTANCES:
        lines += [f"# {label}, K = {k:g}, eps = 1",
                  f"{'agent':<14}{'before ns':>11}{'x UCBVI':>9}{'now ns':>9}{'x UCBVI':>9}{'speed-up':>10}"]
        u_b, u_n = 1e9 / before[f"{label}|ucbvi"], 1e9 / now[f"{label}|ucbvi"]
        for name in AGENTS:
            b, n = 1e9 / before[f"{label}|{name}"], 1e9 / now[f"{label}|{name}"]
            lines.append(f"{name:<14}{b:>11.0f}{b / u_b:>8.2f}x{n:>9.0f}{n / u_n:>8.2f}x{b / n:>9.2f}x")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--commit", required=True, help="the earlier commit (its src/ is timed as 'before')")
    ap.add_argument("--k", type=int, default=1_000_000, help="episodes per seed")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds per tree; the fastest is kept")
    ap.add_argument("--min-cpu", type=float, default=0.5, help="CPU seconds per (instance, agent) and round")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trees = {"before": export_src(args.commit, tmp / "before"), "now": ROOT / "src"}
        best: dict[str, dict[str, float]] = {"before": {}, "now": {}}
        for r in range(args.rounds):
            for which in (("before", "now") if r % 2 == 0 else ("now", "before")):  # ABBA
                src = trees[which]
                (tmp / f"cache-{which}").mkdir(exist_ok=True)
                rates = rates_under_tree(src, tmp / f"cache-{which}", args.k, args.min_cpu)
                for key, rate in rates.items():
                    best[which][key] = max(rate, best[which].get(key, 0.0))
                print(f"# round {r + 1}/{args.rounds}: {which} measured", file=sys.stderr, flush=True)
    print(f"# CPU: {cpu_model()}; before = {args.commit}, now = this checkout's src/; K = {args.k}; "
          f"fastest of {args.rounds} rounds (ABBA), each a fresh single-threaded process, compile excluded; "
          f"numba {numba.__version__}, llvmlite {llvmlite.__version__}, numpy {numpy.__version__} (both trees)")
    print(table(best["before"], best["now"], args.k))


if __name__ == "__main__":
    main()
