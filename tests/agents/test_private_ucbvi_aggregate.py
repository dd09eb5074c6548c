"""Private-UCBVI-SDP's doubling batches in aggregate simulation
(privrl.agents.private_ucbvi_aggregate) against the episode kernel: equal in law at a batch end
(final regret, the released counters, the last batch's policy), bit-identical in chunks, and
declared in the agent's spec (simulation check, cost terms)."""
import time

import numpy as np
import pytest
from scipy import stats

from privrl.plan import cost
from privrl.runs import run as runs
from privrl.agents import REGISTRY, get, simulation
from privrl.rl import engine, envs, seeding

AGENT = "private-ucbvi-sdp"
H2 = envs.garnet(S=2, A=2, branching=2, H=2, seed=1)
# eps = 10 and a small bonus scale: the policy changes between batches (the comparison has power)
PARAMS = {"epsilon": 10.0, "bonus_scale": 0.05}


def run_one(sim, params, K, seed, env, cuts=None):
    """(final regret, released counters c, the last batch's policy, E) of one seed run in ``cuts``."""
    init, episodes = simulation.kernels(AGENT, sim)
    pv = get(AGENT).param_vector(params)
    K = np.int64(K)
    rec = engine.new_recorder(int(K), np.array([0.1]))
    st = init(env, pv, K)
    rng = seeding.generator("batch-aggregate-test", sim, seed)
    cuts = [0, int(K)] if cuts is None else cuts
    for k0, k1 in zip(cuts[:-1], cuts[1:]):
        episodes(env, pv, K, np.int64(k0), np.int64(k1), rng, rec, st)
    return rec, st


def compare_in_law(params, n_seeds, K, p_min=1e-3):
    """K a power of two: the run ends with a release (batch end). Final regret (two-sample KS),
    every released counter (KS, Bonferroni over counters), the last batch's policy (chi-square
    homogeneity) and the error level E (deterministic: equal) agree between the simulations."""
    env = engine.env_arrays(H2)
    out = {}
    for sim in simulation.SIMULATIONS:
        regret, counters, policy, level = [], [], [], []
        for s in range(n_seeds):
            rec, st = run_one(sim, params, K, s, env)
            regret.append(rec[2][-1])
            counters.append(st[2].copy())
            policy.append(int("".join(map(str, st[8].ravel())), 2))   # pi[H, S] with A = 2 as one integer
            level.append(st[12][0])
        out[sim] = np.array(regret), np.array(counters), np.array(policy), np.array(level)
    (r_e, c_e, p_e, e_e), (r_a, c_a, p_a, e_a) = out["episode"], out["aggregate"]
    assert stats.ks_2samp(r_e, r_a).pvalue > p_min, "final regret distributions differ"
    n_c = c_e.shape[1]
    for j in range(n_c):
        if np.ptp(np.r_[c_e[:, j], c_a[:, j]]) > 0:
            assert stats.ks_2samp(c_e[:, j], c_a[:, j]).pvalue > p_min / n_c, f"released counter {j} differs"
    pols = np.union1d(p_e, p_a)
    table = np.array([[np.sum(p == q) for q in pols] for p in (p_e, p_a)])
    if table.shape[1] > 1:
        assert stats.chi2_contingency(table).pvalue > p_min, ("last batch's policy", pols, table)
    np.testing.assert_array_equal(e_e, e_a)                             # E: a function of the batch sizes only
    return out


def test_batch_aggregate_equals_episode_in_law_smoke():
    compare_in_law(PARAMS, 150, 256, p_min=1e-4)


def test_noise_off_batch_aggregate_equals_episode_in_law_smoke():
    compare_in_law({**PARAMS, "noise": 0.0}, 150, 256, p_min=1e-4)


@pytest.mark.slow  # 2,000 seeds per simulation at K = 4096 (~10 s): the acceptance comparison
def test_batch_aggregate_equals_episode_in_law():
    compare_in_law(PARAMS, 2000, 4096)


def test_chunked_batch_aggregate_run_is_identical():
    env = engine.env_arrays(H2)
    K = 10**6 + 3                                                       # ends inside a batch
    whole = run_one("aggregate", PARAMS, K, 3, env)
    chunked = run_one("aggregate", PARAMS, K, 3, env, [0, 1, 2, 3, 5, 700, 1024, 1025, 500_001, K])
    for x, y in zip(whole[0], chunked[0]):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(whole[1][1:10] + whole[1][12:], chunked[1][1:10] + chunked[1][12:]):   # counts, model, policy
        np.testing.assert_array_equal(x, y)


def test_one_batch_seed_at_1e12_episodes_in_well_under_a_cpu_second():
    mdp = envs.garnet(S=3, A=2, branching=2, H=4, seed=1)            # Bai et al. Table I's instance in the design
    runs.run_seed(AGENT, {}, mdp, 1000, 0, simulation="aggregate")     # compiled / cache loaded
    t0 = time.process_time()
    df = runs.run_seed(AGENT, {}, mdp, 10**12, 0, simulation="aggregate")
    assert time.process_time() - t0 < 0.5
    assert df.episode.dtype == np.int64 and df.episode.iloc[-1] == 10**12
    assert np.isfinite(df.cum_regret).all() and (np.diff(df.cum_regret) >= 0).all()


def test_bitsum_still_refuses_non_integer_sums_in_aggregate():
    """Deterministic rewards of mean 0.3 sum to non-integers: the shuffle bit-sum refuses them in
    either simulation (its domain is counts of ones)."""
    env = engine.env_arrays(envs.garnet(S=2, A=2, branching=2, H=2, seed=1, reward_noise="deterministic"))
    for sim in simulation.SIMULATIONS:
        with pytest.raises(ValueError, match="integer|counts"):
            run_one(sim, PARAMS, 64, 0, env)


def test_specs_declare_exactly_the_registered_aggregate_simulations():
    declared = {n for n, s in REGISTRY.items() if "aggregate" in s.simulations}
    assert declared == set(simulation.AGGREGATE)
    assert {"private-ucbvi-sdp", "sdp-pe", "pe"} <= declared
    for per_episode in ("private-ucbvi-jdp", "private-ucbvi-ldp", "dp-ucbvi-jdp", "dp-ucbvi-ldp"):
        with pytest.raises(ValueError, match="no aggregate simulation"):   # they replan every episode
            simulation.check(per_episode, "aggregate")
    assert cost.cost_terms(AGENT, "") == ("K", "1") and cost.cost_terms(AGENT, "aggregate") == ("1", "L")
    assert cost.cost_terms("sdp-pe", "") == ("K", "B") and cost.cost_terms("sdp-pe", "aggregate") == ("1", "B")
    assert cost.cost_terms("dp-ucbvi-jdp", "aggregate") == ("K", "1")      # no aggregate: its episode terms


def test_aggregate_policy_depends_only_on_the_released_counts(monkeypatch):
    """The aggregate kernel in Python mode with the shuffle release replaced by a spy returning counts
    from its own table: two MDPs, same table -> the same policies; another table -> other policies;
    each release gets the batch's column sums (H visits per user) and its size (1, 1, 2, 4, ...)."""
    from privrl.agents import private_ucbvi, private_ucbvi_aggregate

    calls, pols, table = [], [], [0]

    def fake(code, st, x, users, rng, out):
        calls.append((np.array(x, copy=True), users))
        out[:] = len(calls) * np.random.default_rng([table[0], len(calls)]).uniform(0.5, 3.0, out.shape[0])

    def gap(env, pi, evc):
        pols.append(np.array(pi, copy=True))
        return original_gap(env, pi, evc)

    original_gap = engine.policy_gap
    monkeypatch.setattr(private_ucbvi, "privatizer_release_sums", fake)
    monkeypatch.setattr(private_ucbvi_aggregate, "close_batch", private_ucbvi.close_batch.py_func)
    monkeypatch.setattr(engine, "policy_gap", gap)
    H, S, A, K = 4, 3, 2, np.int64(64)
    pv = get(AGENT).param_vector({"epsilon": 1.0, "bonus_scale": 0.02})

    def run(mdp, table_seed):
        calls.clear()
        pols.clear()
        table[0] = table_seed
        env = engine.env_arrays(mdp)
        st = private_ucbvi.init_state(env, pv, K, np.int64(private_ucbvi.SHUFFLE_BITSUM))
        private_ucbvi_aggregate.run_batches.py_func(env, pv, K, np.int64(0), K, np.random.default_rng(5),
                                                    engine.new_recorder(int(K), np.array([0.1])), st, False)
        return np.array(pols), list(calls)

    polA, callsA = run(envs.riverswim(S=S, H=H), 1)
    polB, _ = run(envs.garnet(S=S, A=A, branching=2, H=H, seed=11), 1)
    polC, _ = run(envs.riverswim(S=S, H=H), 2)
    np.testing.assert_array_equal(polA, polB)
    assert not np.array_equal(polA, polC)
    HSA = H * S * A
    assert [u for _, u in callsA] == [1, 1, 2, 4, 8, 16, 32]
    for x, users in callsA:
        assert x[HSA:2 * HSA].sum() == H * users and x[2 * HSA:].sum() == H * users and 0 <= x[:HSA].sum() <= H * users
