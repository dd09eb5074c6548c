"""Every agent's per-seed outputs against the digests recorded by `privrl check-agent NAME
--record-digests` (:mod:`privrl.audit.digests`: which runs, and when a record may change), and the
episode loops compiled without reference counting leak nothing."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from privrl.agents.registry import REGISTRY
from privrl.audit import digests

AGENTS = sorted(REGISTRY)
ROOT = Path(__file__).resolve().parents[2]


def test_every_agent_of_the_shipped_designs_has_recorded_digests():
    """The published agents' numbers are pinned; only a new agent may run unrecorded."""
    import yaml

    from privrl.design import experiments

    shipped = {c.agent for d in ("config/config.yaml", "config/paper.yaml")
               for c in experiments.all_cells(experiments.resolve_overlay(yaml.safe_load((ROOT / d).read_text()), ROOT))}
    assert shipped <= set(digests.recorded()), sorted(shipped - set(digests.recorded()))


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_gives_its_recorded_bytes(agent):
    """An agent with no record (a new one) is skipped with the command that records it."""
    rec = digests.recorded().get(agent)
    if rec is None:
        pytest.skip(f"{agent}: no recorded digests (privrl check-agent {agent} --record-digests)")
    got = digests.agent_digests(agent)
    diff = {k: (rec.get(k), got.get(k)) for k in set(rec) | set(got) if rec.get(k) != got.get(k)}
    assert not diff, f"per-seed outputs of {agent} changed: {diff}"


LEAK_SCRIPT = """
import numpy as np
from numba.core.runtime import rtsys
from privrl.agents import get
from privrl.rl import engine, envs, seeding
mdp = envs.riverswim(S=2, H=3)
env = engine.env_arrays(mdp)
for name in ("ucbvi", "rlsvi", "pucb"):
    spec = get(name)
    pv = spec.param_vector({})
    spec.kernel(env, pv, 50, seeding.generator("leak", name, 0), engine.new_recorder(50, np.array([0.1])))
    s0 = rtsys.get_allocation_stats()
    spec.kernel(env, pv, 5000, seeding.generator("leak", name, 1), engine.new_recorder(5000, np.array([0.1])))
    s1 = rtsys.get_allocation_stats()
    assert s1.alloc - s0.alloc == s1.free - s0.free, (name, s0, s1)
    assert s1.mi_alloc - s0.mi_alloc == s1.mi_free - s0.mi_free, (name, s0, s1)
print("ok")
"""


def test_episode_loops_without_reference_counting_leak_nothing():
    """The agents whose ``run_episodes`` is compiled without numba's reference counting
    (``_nrt=False``: the episode loop only reads and writes the arrays its caller owns) free every
    array numba allocates during a run (NRT statistics, which must be switched on at start-up)."""
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "NUMBA_NRT_STATS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(src), os.environ.get("PYTHONPATH", "")) if p)}
    out = subprocess.run([sys.executable, "-c", LEAK_SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
