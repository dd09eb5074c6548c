"""The bench's lock-step PUCB kernel (G seeds advanced together) gives every seed privrl's regret, bit for bit.

``bench/lockstep_pucb.py`` measures what running seeds in lock-step would save; the measurement means
something only if each seed still draws from its own generator in its own order (the phases interleave
seeds, never a seed's draws), with numba's call per draw and with the PCG64 step inlined (bench/pcg64_step.py:
the same doubles, so the same regret).
"""
from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest

from privrl.runs import run
from privrl.rl import engine, envs, seeding

BENCH = Path(__file__).resolve().parents[2] / "bench" / "lockstep_pucb.py"


@pytest.mark.parametrize("env_name, params, K", [
    ("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}, 20000),
    ("riverswim", {"S": 2, "H": 2}, 5000),
    ("riverswim", {"S": 6, "H": 20}, 300),
])
@pytest.mark.parametrize("variant", [{}, {"bonus_scale": 0.01, "epsilon": 10.0}, {"z": 3.0}])
@pytest.mark.parametrize("kernel", ["lockstep_pucb", "lockstep_pucb_inlined"])
def test_each_lockstep_seed_equals_privrl_pucb(env_name, params, K, variant, kernel, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH.parent))  # numba's cache re-imports the module by name
    lockstep = importlib.import_module("lockstep_pucb")
    mdp = envs.make(env_name, **params)
    p = {"epsilon": 1.0, "bonus_scale": 1.0, "beta": 0.05, "z": 0.0, **variant}
    G = 3
    out = np.zeros(G)
    getattr(lockstep, kernel)(*lockstep.lean_args(engine.env_arrays(mdp)), np.int64(K), p["epsilon"], p["bonus_scale"],
                           p["beta"], True, p["z"], tuple(seeding.generator("adhoc", "default", g) for g in range(G)), out)
    assert list(out) == [run.run_seed("pucb", variant, mdp, K, g)["cum_regret"].iloc[-1] for g in range(G)]
