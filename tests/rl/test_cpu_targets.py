"""Determinism across CPU types: runs compiled for AVX2 and for AVX-512 give the same bytes.

The planners' sums run in source order (fastmath ``contract`` only, no ``reassoc``), so LLVM's
choice of vector width cannot change a result (docs/decisions/performance.md, "Determinism across
machines"). Each target this CPU can execute (haswell = AVX2 + FMA; skylake-avx512 where the CPU
has AVX-512) is compiled with ``NUMBA_CPU_NAME`` in a fresh process with its own numba cache, and
its digests are compared with :data:`EXPECTED`, recorded on the reference machine (AMD EPYC family
25 model 17, AVX-512, pinned environment): so a CI machine without AVX-512 still checks its
AVX2 code against AVX-512 results. The planners covered: UCBVI's optimistic layer, RLSVI's
perturbed induction, PUCB's PrivQ, OBI's stationary layer, DP-UCBVI's Bernstein layer, and the
occupancy of policy elimination; garnet S = 20 is where the reassociating flags differed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
SCRIPT = """
import hashlib, json, numpy as np
from privrl.runs import run
from privrl.rl import envs
big = envs.make("garnet", S=20, A=3, branching=4, H=8, seed=2)
small = envs.make("garnet", S=3, A=2, branching=2, H=2, seed=1)
out = {}
for agent, mdp in [("ucbvi", big), ("rlsvi", big), ("pucb", big), ("ldp-obi", big), ("dp-ucbvi-jdp", big),
                   ("pe", small)]:
    df, _ = run.run(agent, None, mdp, 1500, [0, 1])
    out[agent] = hashlib.sha256(np.ascontiguousarray(df.select_dtypes("number").to_numpy()).tobytes()).hexdigest()[:16]
print(json.dumps(out))
"""
#: digests on the reference machine (identical for its host, haswell and skylake-avx512 targets);
#: pucb, ldp-obi and dp-ucbvi-jdp re-recorded (host target, Intel Xeon family 6 model 167, where ucbvi,
#: rlsvi and pe reproduced the AMD EPYC digests) for the one-word Laplace sampler, which changed their
#: noise stream (docs/decisions/mechanisms.md, D13)
EXPECTED = {"ucbvi": "43c3b3d571a326a5", "rlsvi": "a86383c420f7d6fa", "pucb": "97a67b0fd93ddb6e",
            "ldp-obi": "3fc272aa6b9d71c4", "dp-ucbvi-jdp": "50509d247fd0e7c8", "pe": "3f6ab00b17bbf6bc"}

HASWELL = {"avx2", "fma", "bmi1", "bmi2", "movbe", "f16c", "abm"}
SKYLAKE_AVX512 = HASWELL | {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"}


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.split(":", 1)[-1].split())


def launch(cache: Path, target: str | None) -> subprocess.Popen:
    """A fresh process (and numba cache) computing the run digests compiled for ``target`` (None: the host)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "NUMBA_CACHE_DIR")}
    env["PRIVRL_CACHE"] = str(cache / (target or "host"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    if target:
        env["NUMBA_CPU_NAME"] = target
    return subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def collect(proc: subprocess.Popen) -> dict[str, str]:
    """The digests a :func:`launch`-ed process printed (its last stdout line)."""
    stdout, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stderr[-2000:]
    return json.loads(stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.skipif(not HASWELL <= _cpu_flags(), reason="needs an x86-64 CPU with AVX2, FMA, BMI and friends")
def test_runs_are_the_same_bytes_compiled_for_avx2_and_avx512(tmp_path):
    targets = ["haswell"] + (["skylake-avx512"] if SKYLAKE_AVX512 <= _cpu_flags() else [])
    procs = {target: launch(tmp_path, target) for target in targets}  # compiled side by side (one core each)
    for target, proc in procs.items():
        assert collect(proc) == EXPECTED, target
