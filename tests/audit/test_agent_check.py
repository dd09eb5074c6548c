"""The agent contract over the whole registry (privrl.audit.agent_check, `privrl check-agent NAME`):
determinism, chunked = unchunked through the resumable path, mechanisms only through the privatizer
door, the horizon the agent declares it needs, the end-to-end audit at the claimed eps (slow), a throughput row; and the door check's power
on an agent that draws its own noise."""
import subprocess
import sys
import textwrap

import pytest

from privrl.audit import agent_check
from privrl.agents import REGISTRY

AGENTS = sorted(REGISTRY)
PRIVATE = [a for a in AGENTS if REGISTRY[a].privacy_model != "none"]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_keeps_the_contract(agent):
    props = agent_check.check_agent(agent, episodes=40, audit=False)
    aggregate = ["aggregate simulation"] if "aggregate" in REGISTRY[agent].simulations else []
    assert [p.name for p in props] == ["determinism", "chunked = unchunked", "door-only mechanisms", "min_horizon",
                                       *aggregate, "throughput"]
    assert agent_check.passed(props), "\n".join(p.line() for p in props)


@pytest.mark.slow  # ~15-70 s per agent: compiles the agent's probe
@pytest.mark.parametrize("agent", PRIVATE)
def test_every_private_agent_passes_its_audit_at_the_claimed_epsilon(agent):
    if not agent_check.auditable(agent):
        pytest.skip(f"{agent}: no audit probe yet (check-agent reports FAIL: not audited)")
    prop = agent_check.check_audit(agent, 1500)
    assert prop.status == agent_check.OK, prop.line()


LEAKY = '''
from dataclasses import replace

import numpy as np
from numba import njit

from privrl.agents import ucbvi
from privrl.agents.registry import register
from privrl.mechanisms.laplace import laplace_draw
from privrl.rl import engine


@njit(cache=False)
def run_episodes(env, params, K, k0, k1, rng, rec, state):
    n_sa, n_sas, r_sum, p_hat, q_base, pi, V, traj, evc = state
    for k in range(k0, k1):
        engine.step(env, pi, k, 0.0, rng, traj, evc, rec)
        r_sum[0, 0, 0] += laplace_draw(1.0, rng) + np.random.laplace()


SPEC = register(replace(ucbvi.SPEC, name="leaky-test-agent", run_episodes=run_episodes))
'''


@pytest.fixture
def leaky_agent(tmp_path, monkeypatch):
    (tmp_path / "leaky_test_agent.py").write_text(textwrap.dedent(LEAKY))
    monkeypatch.syspath_prepend(str(tmp_path))
    import leaky_test_agent  # noqa: F401  (registers the agent)
    yield "leaky-test-agent"
    REGISTRY.pop("leaky-test-agent", None)
    sys.modules.pop("leaky_test_agent", None)


def test_door_check_flags_noise_drawn_outside_the_door(leaky_agent):
    bad = agent_check.mechanism_violations(leaky_agent)
    assert any("laplace_draw (privrl.mechanisms.laplace)" in b for b in bad), bad
    assert any("global RNG" in b for b in bad), bad
    assert any("import of privrl.mechanisms.laplace" in b for b in bad), bad
    assert agent_check.check_door_only(leaky_agent).status == agent_check.FAIL


def test_missing_throughput_row_is_a_warning_not_a_failure(leaky_agent):
    prop = agent_check.check_throughput(leaky_agent)
    assert prop.status == agent_check.WARN and "--agents leaky-test-agent --write" in prop.detail
    assert agent_check.passed([prop])


def test_cli_prints_one_line_per_property_and_its_verdict():
    out = subprocess.run([sys.executable, "-m", "privrl.cli.main", "check-agent", "ucbvi", "--no-audit", "--episodes", "30"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines[:-1]] == ["PASS  determinism", "PASS  chunked = unchunked",
                                                       "PASS  door-only mechanisms", "PASS  min_horizon", "PASS  digests",
                                                       "PASS  throughput"]
    assert lines[-1] == "ucbvi: the agent contract holds"
    bad = subprocess.run([sys.executable, "-m", "privrl.cli.main", "check-agent", "ucbvii"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown agent 'ucbvii'" in bad.stderr
