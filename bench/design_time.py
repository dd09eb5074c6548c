"""Wall and CPU time of whole designs, cold and warm, from a copy of the repository.

    python bench/design_time.py [--designs smoke two-cell] [--cores 2]

For each design: a copy of the tracked files in a temporary folder, then ``snakemake --cores N``
(the README's command with that design's --configfile) twice -- **cold** (an empty numba cache:
``PRIVRL_CACHE`` a new folder, empty ``results/``) and **warm** (the kernels that run filled,
``results/`` emptied again). Prints wall seconds, CPU seconds of the children (user + system),
the load average before each run and the CPU model: compare designs and machines only as ratios
measured in one run (docs/timings.md). ``two-cell`` is a researcher's minimal design: UCBVI and
PUCB on RiverSwim S=2 H=3, 2,000 episodes, 2 seeds, no claims and no mechanism checks.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TWO_CELL = """\
results_dir: results/two_cell
figures_dir: results/two_cell/figures
experiments:
  mine:
    paper: cross_paper
    episodes: 2000
    seeds: 2
    envs:
      riverswim: {name: riverswim, params: {S: 2, H: 3}}
    cells:
      - {agent: ucbvi, label: UCBVI}
      - {agent: pucb, params: {epsilon: 1.0}, label: "PUCB eps=1"}
"""
DESIGNS = {"smoke": "config/smoke.yaml", "two-cell": "two_cell.yaml"}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def copy_repo(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    (dest / "two_cell.yaml").write_text(TWO_CELL)


def timed(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(wall s, CPU s of the children) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--designs", nargs="+", choices=sorted(DESIGNS), default=sorted(DESIGNS))
    ap.add_argument("--cores", type=int, default=2)
    args = ap.parse_args(argv)
    print(f"{cpu_model()}, {os.cpu_count()} cores, snakemake --cores {args.cores}")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp, "repo")
        copy_repo(repo)
        for name in args.designs:
            cache = Path(tmp, f"numba-{name}")
            env = {**os.environ, "PRIVRL_CACHE": str(cache), "PYTHONPATH": str(repo / "src")}
            env.pop("NUMBA_CACHE_DIR", None)
            cmd = [sys.executable, "-m", "snakemake", "--cores", str(args.cores), "--configfile", DESIGNS[name]]
            for phase in ("cold", "warm"):
                shutil.rmtree(repo / "results", ignore_errors=True)
                shutil.rmtree(repo / ".snakemake", ignore_errors=True)
                load = os.getloadavg()[0]
                wall, cpu = timed(cmd, repo, env)
                print(f"{name:9s} {phase}: {wall:6.1f} s wall, {cpu:6.1f} CPU-s (load before {load:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
