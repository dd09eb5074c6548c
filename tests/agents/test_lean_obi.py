"""The bench's lean LDP-OBI and Shuffled-OBI kernels do the same work as privrl's ``ldp-obi`` and
``shuffled-obi``: the same regret, bit for bit; and the OBI episode loops, compiled without reference
counting, leak nothing.

``bench/lean_obi.py`` is the reference for their per-episode cost; the comparison means something only
if the kernel and the agent run the same algorithm on the same random stream.
"""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from privrl.runs import run
from privrl.rl import engine, envs, seeding

BENCH = Path(__file__).resolve().parents[2] / "bench" / "lean_obi.py"


def _lean(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH.parent))  # numba's cache re-imports the module by name
    return importlib.import_module("lean_obi")


@pytest.mark.parametrize("env_name, params, K, eps", [
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}, 20000, 1.0),  # the default design's bandits
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}, 5000, 10.0),
    ("riverswim", {"S": 2, "H": 2}, 5000, 1.0),
    ("riverswim", {"S": 3, "H": 4}, 3000, 10.0),
    ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}, 3000, 5.0),
])
def test_lean_obi_regret_equals_privrl_ldp_obi(env_name, params, K, eps, monkeypatch):
    lean = _lean(monkeypatch)
    mdp = envs.make(env_name, **params)
    args = lean.lean_args(engine.env_arrays(mdp))
    for seed in (0, 1):
        got = lean.lean_ldp_obi(*args, K, eps, 1.0, 0.05, 2.0, seeding.generator("adhoc", "default", seed))
        want = run.run_seed("ldp-obi", {"epsilon": eps}, mdp, K, seed)["cum_regret"].iloc[-1]
        assert got == want


@pytest.mark.parametrize("env_name, params, K, p", [
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}, 5000, {"epsilon": 10.0}),  # the design's H = 2 bandit
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}, 5000,
     {"epsilon": 5.49, "tau_power": 1 / 3, "bonus_scale": 0.1}),  # Table 1's tau = K^(1/3), a burn-in of 18
    ("riverswim", {"S": 2, "H": 2}, 3000, {"epsilon": 1.0, "tau": 100.0}),
    ("riverswim", {"S": 3, "H": 4}, 2000, {"epsilon": 10.0, "m": 4.0}),  # 16 bits per reward entry: the binomials
    ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}, 2000, {"epsilon": 5.0}),
    ("riverswim", {"S": 2, "H": 13}, 300, {"epsilon": 10.0}),  # 13 bits per visit entry: every release by binomials
])
def test_lean_shuffled_obi_regret_equals_privrl_shuffled_obi(env_name, params, K, p, monkeypatch):
    from privrl.agents import REGISTRY
    from privrl.agents.obi import shuffled_tau_py
    lean = _lean(monkeypatch)
    mdp = envs.make(env_name, **params)
    args = lean.lean_args(engine.env_arrays(mdp))
    q = {**REGISTRY["shuffled-obi"].defaults, **p}
    for seed in (0, 1):
        got = lean.lean_shuffled_obi(*args, K, q["epsilon"], q["bonus_scale"], q["delta"], q["alpha"], int(q["m"]),
                                     shuffled_tau_py(q, K), seeding.generator("adhoc", "default", seed))
        want = run.run_seed("shuffled-obi", p, mdp, K, seed)["cum_regret"].iloc[-1]
        assert got == want


LEAK_SCRIPT = """
import numpy as np
from numba.core.runtime import rtsys
from privrl.agents import get
from privrl.rl import engine, envs, seeding
for mdp in (envs.riverswim(S=2, H=3), envs.garnet(S=1, A=2, branching=1, H=2, seed=0)):
    env = engine.env_arrays(mdp)
    for name, p in (("ldp-obi", {}), ("shuffled-obi", {}), ("shuffled-obi", {"tau": 30.0}), ("shuffled-obi", {"m": 8.0})):
        spec = get(name)
        pv = spec.param_vector(p)
        spec.kernel(env, pv, 50, seeding.generator("leak", name, 0), engine.new_recorder(50, np.array([0.1])))
        s0 = rtsys.get_allocation_stats()
        spec.kernel(env, pv, 3000, seeding.generator("leak", name, 1), engine.new_recorder(3000, np.array([0.1])))
        s1 = rtsys.get_allocation_stats()
        assert s1.alloc - s0.alloc == s1.free - s0.free, (name, p, s0, s1)
        assert s1.mi_alloc - s0.mi_alloc == s1.mi_free - s0.mi_free, (name, p, s0, s1)
print("ok")
"""


def test_obi_episode_loops_without_reference_counting_leak_nothing():
    """LDP-OBI's and Shuffled-OBI's loops run with numba's reference counting off (``_nrt=False``);
    their burn-in policies (``rng.integers``) and the shuffle's binomial tables (m H > 12 bits) are
    drawn in callees that keep it on: a run frees every array numba allocates (NRT statistics)."""
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "NUMBA_NRT_STATS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(src), os.environ.get("PYTHONPATH", "")) if p)}
    out = subprocess.run([sys.executable, "-c", LEAK_SCRIPT], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
