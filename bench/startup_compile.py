"""Job start-up and numba compilation, measured (the constants of privrl.plan.cost's wall/CPU model).

    python bench/startup_compile.py [--agents ucbvi pucb ...] [--repeat 3]

Prints, in CPU seconds of a child process (user + system; wall in parentheses):

* start-up of a job: the interpreter alone, then a run job's imports (``privrl.runs.run``) and an
  analysis / figure job's (``privrl.papers.registry`` + matplotlib);
* per agent, one 1-episode run in a fresh process on RiverSwim S=2 H=3 with an empty numba cache
  (``PRIVRL_CACHE`` a new directory: compilation) and again with the cache it filled (loading
  the cached kernels), each minus the run job's imports.

Medians of ``--repeat`` runs; a machine shared with other work inflates wall times, not CPU.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

RUN_ONE = ("from privrl.runs import run; from privrl.rl import envs; "
           "run.run({agent!r}, None, envs.make('riverswim', S=2, H=3), 1, [0])")
IMPORTS = {"python": "pass", "run job": "import privrl.runs.run",
           "analysis job": "import privrl.papers.registry, matplotlib.pyplot"}


def child_seconds(code: str, env: dict | None = None) -> tuple[float, float]:
    """(CPU s, wall s) of ``python -c code`` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def median_seconds(code: str, repeat: int, env: dict | None = None) -> tuple[float, float]:
    runs = [child_seconds(code, env) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    from privrl.agents import REGISTRY

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agents", nargs="*", default=sorted(REGISTRY))
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    start = {name: median_seconds(code, args.repeat) for name, code in IMPORTS.items()}
    for name, (cpu, wall) in start.items():
        print(f"start-up {name:13s} {cpu:6.2f} CPU s ({wall:.2f} s wall)")
    base = start["run job"][0]
    print(f"{'agent':20s} {'cold':>8s} {'warm':>8s}   (CPU s beyond the run job's imports)")
    for agent in args.agents:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "PRIVRL_CACHE": cache}
            cold = child_seconds(RUN_ONE.format(agent=agent), env)[0]
            warm = median_seconds(RUN_ONE.format(agent=agent), args.repeat, env)[0]
        print(f"{agent:20s} {cold - base:8.2f} {warm - base:8.2f}", flush=True)


if __name__ == "__main__":
    main()
