"""Determinism across CPU types: a run compiled for AVX2 and for AVX-512 gives the same bytes.

The planners' sums run in source order (fastmath ``contract`` only, no ``reassoc``), so LLVM's
choice of vector width for the host cannot change a result (docs/decisions/performance.md,
"Determinism across machines"). Compiled with ``NUMBA_CPU_NAME`` for each target this machine
can execute (haswell = AVX2 + FMA; skylake-avx512 where the CPU has AVX-512), in fresh
processes with their own numba caches. The instance is the one on which the earlier
reassociating planners differed between the two targets (garnet S = 20).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = """
import hashlib, numpy as np
from privrl import run
from privrl.rl import envs
mdp = envs.make("garnet", S=20, A=3, branching=4, H=8, seed=2)
for agent in ("ucbvi", "rlsvi"):
    df, _ = run.run(agent, None, mdp, 1500, [0, 1])
    print(agent, hashlib.sha256(np.ascontiguousarray(df.select_dtypes("number").to_numpy()).tobytes()).hexdigest())
"""


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.split(":", 1)[-1].split())


def _digests(tmp_path: Path, target: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_CACHE_DIR")}
    env["PRIVRL_CACHE"] = str(tmp_path / (target or "host"))
    if target:
        env["NUMBA_CPU_NAME"] = target
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.skipif(not {"avx2", "fma"} <= _cpu_flags(), reason="needs an x86-64 CPU with AVX2 and FMA")
def test_runs_are_identical_when_compiled_for_avx2_and_avx512(tmp_path):
    targets = ["haswell", "skylake-avx512" if "avx512f" in _cpu_flags() else None]
    got = {t or "host": _digests(tmp_path, t) for t in targets}
    assert len(set(got.values())) == 1, got
