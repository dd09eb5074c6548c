"""JDP audited on what other users receive (Vietri et al. 2020 Def. 3): the actions the agent takes for
every user but the differing one join the agent audit's release (privrl.audit.probe ``observe``). An
agent that releases noisy counts but plans on exact ones (tests/audit/exact_planner.py) is flagged; its
honest twin (the same releases, planning on them) and the registered agents are not; on the door's
releases alone the two twins look the same."""
import numpy as np
import pytest

from privrl.audit import privacy as pa
from privrl.audit import probe
from privrl.mechanisms import events as ev

from . import exact_planner

N = 2000


@pytest.fixture
def twins(temporary_agent):
    return (temporary_agent(exact_planner.spec("test-count-ucb-on-releases", exact_planner.HONEST)),
            temporary_agent(exact_planner.spec("test-count-ucb-on-exact-counts", 0)))


def test_an_agent_planning_on_exact_counts_is_flagged_on_the_actions_it_takes(twins):
    honest, exact = twins
    rows = {(a, o): pa.audit_agent(a, ev.REPLACEMENT, np.random.default_rng(3), N, observe=o)
            for a in twins for o in ("none", "actions", "policy")}
    for o in ("none", "actions", "policy"):
        assert rows[honest, o]["verdict"] == "pass", rows[honest, o]
    assert rows[exact, "none"]["verdict"] == "pass"  # the door's releases are the same: blind
    for o in ("actions", "policy"):
        bad = rows[exact, o]
        assert bad["verdict"] == "VIOLATION" and bad["epsilon_lower_bound"] > 2 * bad["claimed_epsilon"], bad


def test_an_agent_planning_on_exact_counts_is_flagged_under_add_remove(twins):
    """The empty user contributes nothing through the door; the episode the kernel still plays for it
    is a stand-in in B's cells, so exact counts kept outside the door see A and the stand-in differ."""
    honest, exact = twins
    ok = pa.audit_agent(honest, ev.ADD_REMOVE, np.random.default_rng(5), N)
    bad = pa.audit_agent(exact, ev.ADD_REMOVE, np.random.default_rng(6), N)
    assert ok["verdict"] == "pass", ok
    assert bad["verdict"] == "VIOLATION" and bad["epsilon_lower_bound"] > bad["claimed_epsilon"], bad


def test_the_observed_actions_are_the_other_users_and_follow_the_releases(twins):
    """The log holds H actions per user but the differing one (serial -2, release index = the user),
    after the door's releases of the users before it; the exact planner's actions for user 1 are a
    function of user 0 alone (deterministic), the honest twin's vary with the noise."""
    honest, exact = twins
    mdp, K, H = pa.tiny_mdp(), 4, pa.H_
    for agent, deterministic in ((exact, True), (honest, False)):
        Y = probe.sample_releases(agent, {}, mdp.P, pa.script(K, 0, "A"), 200, np.random.default_rng(4),
                                  observe="actions", differing=0)
        serial, t = probe.release_layout(Y.shape[1])
        obs = serial == probe.OBSERVED_SERIAL
        assert obs.sum() == (K - 1) * H and sorted(set(t[obs])) == [1, 2, 3]
        assert set(np.unique(Y[:, obs])) <= {0.0, 1.0}
        first = Y[:, obs][:, :H]  # user 1's actions
        assert (np.ptp(first, axis=0).max() == 0) == deterministic
    plain = probe.sample_releases(exact, {}, mdp.P, pa.script(K, 0, "A"), 5, np.random.default_rng(4))
    assert plain.shape[1] == Y.shape[1] - (K - 1) * H


def test_an_agent_exact_only_after_a_few_users_is_flagged_by_the_longer_audit(temporary_agent):
    """Exact from the 9th user on: the audit of 4 users sees the honest agent; the audit of 64 users
    (the default design's longer size) flags it -- replacement, the differing user first."""
    late = temporary_agent(exact_planner.spec("test-count-ucb-exact-after-8", 8))
    short = pa.audit_agent(late, ev.REPLACEMENT, np.random.default_rng(7), N, users=4)
    assert short["verdict"] == "pass", short
    long = pa.audit_agent(late, ev.REPLACEMENT, np.random.default_rng(8), 1000, users=64, positions=(0,))
    assert long["verdict"] == "VIOLATION" and long["epsilon_lower_bound"] > long["claimed_epsilon"], long


def test_what_leaves_the_user_is_audited_where_a_batch_holds_that_user_alone():
    """SDP-PE's stages sum several users into one release: the LDP and shuffle rows also audit the first
    position at which the differing user is alone in its batch (its release is its own message); agents
    that release once per user have it at the first position."""
    assert pa.alone_position("sdp-pe", pa.audit_params("sdp-pe"), 5) == 4
    assert pa.alone_position("sdp-pe-ldp", pa.audit_params("sdp-pe-ldp"), 5) == 4
    assert pa.alone_position("ldp-obi", pa.audit_params("ldp-obi"), 4) == 0
