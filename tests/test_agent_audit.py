"""End-to-end agent privacy audits: each private agent's kernel passes at its claimed eps under
every relation it claims, and a reduced-noise variant of it is flagged (the audit has power)."""
import numpy as np
import pytest

from privrl import privacy_audit as pa
from privrl import privacy_probe as probe
from privrl.mechanisms import events as ev

N = 30000
CASES = [(a, r) for a in pa.AGENTS for r in ev.NEIGHBOURS if pa.claimed(a, r) is not None]


def test_every_private_agent_is_audited_under_its_relations():
    assert {a for a, _ in CASES} == set(pa.AGENTS)
    central = {"pucb", "private-ucbvi-jdp", "dp-ucbvi-jdp", "sdp-pe-jdp"}
    assert {a for a, r in CASES if r == ev.ADD_REMOVE} == central
    assert all((a, ev.REPLACEMENT) in CASES for a in pa.AGENTS)


@pytest.mark.slow
@pytest.mark.parametrize("agent,relation", CASES)
def test_agent_passes_at_claim_and_reduced_noise_is_flagged(agent, relation):
    rng = np.random.default_rng(7)
    ok = pa.audit_agent(agent, relation, rng, N)
    assert ok["verdict"] == "pass", ok
    mult = pa.LOOSE_CLAIMS.get(agent, 0.5)
    bad = pa.audit_agent(agent, relation, rng, N, noise_multiplier=mult)
    assert bad["verdict"] == "flagged", bad


def test_probe_runs_the_agent_kernel_on_scripted_users():
    """PUCB, one user: the released counters are exactly that user's counts plus the tree's
    Laplace noise (scale 3H/eps at K = 1), and the empty user releases noise alone."""
    mdp = pa.tiny_mdp()
    rng = np.random.default_rng(0)
    y = probe.sample_releases("pucb", {}, mdp.P, pa.script(1, 0, "A"), 20000, rng)
    z = probe.sample_releases("pucb", {}, mdp.P, pa.script(1, 0, "empty"), 20000, rng)
    diff = y.mean(0) - z.mean(0)
    assert np.sort(np.round(diff))[-6:].tolist() == [1.0] * 6 and np.abs(np.round(diff)).sum() == 6
    assert np.allclose(z.std(0), np.sqrt(2) * 3 * 2 / 1.0, rtol=0.05)


def test_half_noise_multiplier_is_test_only():
    """The probe's noise multiplier defaults to the agent's own noise (claim unchanged)."""
    mdp = pa.tiny_mdp()
    a = probe.sample_releases("ldp-obi", {}, mdp.P, pa.script(1, 0, "A"), 20000, np.random.default_rng(1))
    b = probe.sample_releases("ldp-obi", {}, mdp.P, pa.script(1, 0, "A"), 20000, np.random.default_rng(1), 0.5)
    assert np.allclose(a.std(0), 2 * b.std(0), rtol=0.05)


def test_table_columns_and_verdicts():
    df = pa.agent_audit_table(np.random.default_rng(3), {"n": 2000, "agents": ["pucb"]})
    assert list(df.columns) == pa.COLUMNS
    assert set(df["relation"]) == {ev.ADD_REMOVE, ev.REPLACEMENT} and len(df) == 4
    assert set(df.loc[df["variant"] == "noise x1", "verdict"]) == {"pass"}
    assert "agent" in pa.agent_audit_markdown(df)
