"""The bench's lean DP-UCBVI kernel does the same work as privrl's dp-ucbvi-jdp / -ldp (and, with the
Hoeffding bonus, private-ucbvi-jdp / -ldp): the same
regret, bit for bit (so ``bench/lean_dp_ucbvi.py``'s ratio is privrl's fixed per-episode cost), and
the private UCBVI family's episode loop, compiled without reference counting, leaks nothing."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from privrl.runs import run
from privrl.rl import engine, envs, seeding

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "lean_dp_ucbvi.py"


def _lean(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH.parent))  # numba's cache re-imports the module by name
    return importlib.import_module("lean_dp_ucbvi")


@pytest.mark.parametrize("env_name, params, K", [
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}, 20000),
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}, 5000),
    ("riverswim", {"S": 2, "H": 2}, 5000),
    ("riverswim", {"S": 6, "H": 20}, 300),
    ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}, 2000),
])
@pytest.mark.parametrize("agent, ldp, bernstein", [("dp-ucbvi-jdp", False, True), ("dp-ucbvi-ldp", True, True),
                                                   ("private-ucbvi-jdp", False, False), ("private-ucbvi-ldp", True, False)])
@pytest.mark.parametrize("agent_params", [{}, {"z": 3.0}, {"bonus_scale": 0.01, "epsilon": 10.0}])
def test_lean_dp_ucbvi_regret_equals_privrl(env_name, params, K, agent, ldp, bernstein, agent_params, monkeypatch):
    lean = _lean(monkeypatch)
    mdp = envs.make(env_name, **params)
    env = engine.env_arrays(mdp)
    for seed in (0, 1):
        got = lean.lean_run(env, K, seeding.generator("adhoc", "default", seed), agent_params, ldp, bernstein)
        want = run.run_seed(agent, agent_params, mdp, K, seed)["cum_regret"].iloc[-1]
        assert got == want


LEAK_SCRIPT = """
import numpy as np
from numba.core.runtime import rtsys
from privrl.agents import get
from privrl.rl import engine, envs, seeding
mdp = envs.riverswim(S=2, H=3)
env = engine.env_arrays(mdp)
for name in ("dp-ucbvi-jdp", "dp-ucbvi-ldp", "private-ucbvi-jdp", "private-ucbvi-ldp", "private-ucbvi-sdp"):
    for p in ({}, {"noise": 0.0}, {"z": 3.0}):
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


def test_private_ucbvi_episode_loop_leaks_nothing():
    """``private_ucbvi.episode_loop`` is compiled with ``_nrt=False`` (it only reads and writes arrays
    its caller owns): a run frees every array numba allocates (NRT statistics, switched on at start-up)."""
    env = {**os.environ, "NUMBA_NRT_STATS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)}
    out = subprocess.run([sys.executable, "-c", LEAK_SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


def test_postprocess_row_compiles_without_reference_counting():
    """The private UCBVI loop (``_nrt=False``) inlines ``postprocess_row``; its sort of more than 15
    entries is numba's quicksort, which needs the counting runtime: it is reached through a call
    compiled with it on (``postprocess._sort_large``), so the loop compiles whatever was compiled
    before it in the process, and the row is the same as from Python."""
    import numpy as np
    from numba import njit

    from privrl.mechanisms.postprocess import postprocess_row

    @njit(_nrt=False)
    def row(v, c, E, out):
        return postprocess_row(v, c, E, out)

    rng = np.random.default_rng(3)
    for S in (3, 20):
        v = rng.normal(5.0, 3.0, S)
        got, want = np.zeros(S), np.zeros(S)
        assert row(v, 40.0, 2.0, got) == postprocess_row(v, 40.0, 2.0, want)
        np.testing.assert_array_equal(got, want)
