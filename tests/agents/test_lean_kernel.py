"""The bench's lean UCBVI kernel does the same work as privrl's UCBVI: the same regret, bit for bit.

``bench/lean_kernel.py`` is the reference for privrl's fixed per-episode cost
(``bench/throughput.py``, section 0); the comparison means something only if the two run the same
algorithm on the same random stream.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from privrl.runs import run
from privrl.rl import engine, envs, seeding

BENCH = Path(__file__).resolve().parents[2] / "bench" / "lean_kernel.py"


def _lean(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH.parent))  # numba's cache re-imports the module by name
    return importlib.import_module("lean_kernel")


@pytest.mark.parametrize("env_name, params, K", [
    ("riverswim", {"S": 2, "H": 3}, 5000),
    ("riverswim", {"S": 6, "H": 20}, 1000),
    ("garnet", {"S": 5, "A": 3, "branching": 3, "H": 6, "seed": 2}, 2000),
])
def test_lean_kernel_regret_equals_privrl_ucbvi(env_name, params, K, monkeypatch):
    lean = _lean(monkeypatch)
    mdp = envs.make(env_name, **params)
    args = lean.lean_args(engine.env_arrays(mdp))
    for seed in (0, 1):
        got = lean.lean_ucbvi(*args[:-1], K, 0.05, 1.0, args[-1], seeding.generator("adhoc", "default", seed))
        want = run.run_seed("ucbvi", {}, mdp, K, seed)["cum_regret"].iloc[-1]
        assert got == want
