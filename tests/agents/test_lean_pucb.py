"""The bench's lean PUCB kernel does the same work as privrl's PUCB: the same regret, bit for bit.

``bench/lean_pucb.py`` is the reference for PUCB's fixed per-episode cost (``bench/agent_throughput.py``,
column ``x lean``); the comparison means something only if the two run the same algorithm (PrivQ,
the binary mechanism's releases, the exact regret) on the same random stream.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from privrl.runs import run
from privrl.rl import engine, envs, seeding

BENCH = Path(__file__).resolve().parents[2] / "bench" / "lean_pucb.py"
BANDIT_H1 = ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0})


def _lean(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH.parent))  # numba's cache re-imports the module by name
    return importlib.import_module("lean_pucb")


@pytest.mark.parametrize("env_name, params, K", [
    BANDIT_H1 + (20000,),  # 15 tree levels
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}, 20000),
    ("riverswim", {"S": 2, "H": 2}, 5000),
    ("riverswim", {"S": 6, "H": 20}, 300),
    ("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}, 2000),
])
@pytest.mark.parametrize("variant", [{}, {"noise": 0.0}, {"bonus_scale": 0.01, "epsilon": 10.0}, {"z": 3.0}])
def test_lean_pucb_regret_equals_privrl_pucb(env_name, params, K, variant, monkeypatch):
    lean = _lean(monkeypatch)
    mdp = envs.make(env_name, **params)
    args = lean.lean_args(engine.env_arrays(mdp))
    p = {"epsilon": 1.0, "bonus_scale": 1.0, "beta": 0.05, "noise": 1.0, "z": 0.0, **variant}
    for seed in (0, 1):
        got = lean.lean_pucb(*args, K, p["epsilon"], p["bonus_scale"], p["beta"], p["noise"] > 0.5, p["z"],
                             seeding.generator("adhoc", "default", seed))
        want = run.run_seed("pucb", variant, mdp, K, seed)["cum_regret"].iloc[-1]
        assert got == want
