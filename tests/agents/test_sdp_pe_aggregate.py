"""Aggregate simulation (privrl.agents.sdp_pe_aggregate) against the episode kernel: its parts
by closed forms, the whole run equal in law (final regret, eliminations), keys and config."""
import time

import numpy as np
import pytest
from scipy import stats

from privrl.design import experiments
from privrl.runs import run as runs
from privrl.agents import get, simulation
from privrl.agents.sdp_pe import stage_schedule
from privrl.mechanisms.laplace import laplace_draw
from privrl.mechanisms.laplace_sum import laplace_sum_release
from privrl.rl import engine, envs, seeding
from privrl.rl.block_sampling import multinomial_add, record_block, sample_block
from privrl.rl.policies import enumerate_policies, true_values

H2 = envs.garnet(S=2, A=2, branching=2, H=2, seed=1)  # 16 policies, two of them optimal
# parameters under which each agent eliminates within K = 20000 (so the comparison has power)
CASES = {
    "pe": {"C": 1e-4, "C1": 6e-4},
    "sdp-pe": {"C": 1e-5, "C1": 6e-4, "epsilon": 10.0},
    "sdp-pe-jdp": {"C": 1e-5, "C1": 6e-4, "epsilon": 10.0},
    "sdp-pe-ldp": {"C": 3e-6, "C1": 6e-4, "epsilon": 10.0},
}


def occupancy_of(mdp, pi):
    """d[H, S]: exact Pr(s_h = s) under the deterministic policy pi[H, S]."""
    d = np.zeros((mdp.H, mdp.S))
    d[0] = mdp.rho
    for h in range(mdp.H - 1):
        for s in range(mdp.S):
            d[h + 1] += d[h, s] * mdp.P[h, s, pi[h, s]]
    return d


def test_multinomial_add_is_exact_on_its_support(rng):
    p = np.array([0.2, 0.0, 0.5, 0.3, 0.0])
    draws = np.zeros((4000, 5), np.int64)
    for i in range(4000):
        multinomial_add(np.int64(7), p, rng, draws[i])
    assert (draws.sum(1) == 7).all() and (draws[:, [1, 4]] == 0).all()
    np.testing.assert_allclose(draws.mean(0), 7 * p, atol=0.06)
    np.testing.assert_allclose(draws.var(0), 7 * p * (1 - p), rtol=0.08, atol=1e-12)   # multinomial variances
    big = np.zeros(5, np.int64)
    multinomial_add(np.int64(10**12), p, rng, big)
    assert big.sum() == 10**12 and big.dtype == np.int64
    np.testing.assert_allclose(big / 1e12, p, atol=1e-5)


def test_block_visits_follow_the_occupancy(rng):
    mdp = envs.riverswim(S=4, H=5)
    env = engine.env_arrays(mdp)
    pi = rng.integers(0, 2, size=(5, 4))
    visits, rsum = np.zeros((5, 4, 4), np.int64), np.zeros((5, 4))
    m = np.int64(10**12)
    sample_block(env, pi, m, 5, True, rng, visits, rsum)
    d = occupancy_of(mdp, pi)
    assert (visits.sum(axis=(1, 2)) == m).all()                         # every layer holds all m episodes
    expect = d[:, :, None] * np.take_along_axis(mdp.P, pi[:, :, None, None], 2)[:, :, 0]
    np.testing.assert_allclose(visits / m, expect, atol=1e-5)           # E[visits] = m d_h(s) P_h(s'|s, pi)
    mean_r = np.take_along_axis(mdp.R, pi[:, :, None], 2)[:, :, 0]
    np.testing.assert_allclose(rsum / m, d * mean_r, atol=1e-5)
    assert (visits[:, :, :][np.take_along_axis(mdp.P, pi[:, :, None, None], 2)[:, :, 0] == 0] == 0).all()
    sample_block(env, pi, np.int64(9), 2, False, rng, visits, rsum)     # layers past n_layers not drawn
    assert visits[:2].sum() == 18 and visits[2:].sum() == 0 and rsum.sum() == 0


def test_record_block_writes_what_the_episode_recorder_writes(rng):
    K = 5000
    alphas = np.array([0.01, 0.1, 0.5])
    a, b = engine.new_recorder(K, alphas), engine.new_recorder(K, alphas)
    cuts = np.unique(np.r_[0, rng.integers(1, K, 40), K])
    for k0, k1 in zip(cuts[:-1], cuts[1:]):
        gap, aux = float(rng.choice([0.0, 0.05, 0.3, 0.7])), float(rng.random())
        for k in range(k0, k1):
            engine.record(a, k, gap, aux)
        record_block(b, np.int64(k0), np.int64(k1 - k0), np.int64(k1), gap, aux)
    assert a[6][0] == b[6][0] == a[0].size
    np.testing.assert_allclose(b[2], a[2], rtol=1e-12)                  # cumulative regret at checkpoints
    np.testing.assert_allclose(b[3], a[3], rtol=1e-12)
    np.testing.assert_array_equal(b[4], a[4])                           # PAC mistakes, exact integers


def test_laplace_sum_release_is_the_sum_of_m_laplace_draws(rng):
    m, b, n = 5, 1.5, 20000
    x = np.zeros(n)
    out = np.empty(n)
    laplace_sum_release(x, 3.0, 2.0, np.int64(m), rng, out)           # b = sensitivity / epsilon
    ref = np.array([sum(laplace_draw(b, rng) for _ in range(m)) for _ in range(n)])
    assert stats.ks_2samp(out, ref).pvalue > 1e-3
    assert abs(out.var() / (2 * m * b * b) - 1) < 0.05                  # Var = 2 m b^2


@pytest.mark.parametrize("x, sens, eps, m", [
    ([-1.0], 1.0, 1.0, 1),          # a negative count
    ([np.nan], 1.0, 1.0, 1),        # NaN
    ([2.5], 1.0, 1.0, 2),           # above m x sensitivity (the per-user domain)
    ([1.0], 1.0, 1.0, 0),           # no users but a count
    ([0.0], 1.0, 0.0, 1),           # epsilon outside [1e-9, 1e4] (the door's check_epsilon)
    ([0.0], 1.0, 1e5, 1),
    ([0.0], 0.0, 1.0, 1),           # sensitivity 0
    ([0.0], 1.0, 1.0, -1),          # negative users
])
def test_laplace_sum_release_refuses_what_the_door_refuses(rng, x, sens, eps, m):
    """The same domain as the door's local-laplace kind (kinds.check_epsilon, check_bounded_counts)."""
    with pytest.raises(ValueError):
        laplace_sum_release(np.array(x), sens, eps, np.int64(m), rng, np.empty(1))
    laplace_sum_release(np.array([2.0]), 1.0, 1.0, np.int64(2), rng, np.empty(1))  # m x sensitivity: in the domain


def run_one(agent, sim, params, K, seed, mdp=H2, env=None):
    """(final regret, stage at which each policy was eliminated, B if never) of one seed, the run
    chunked at the stage ends (chunking changes no result: test_chunked_aggregate_run_is_identical)."""
    env = engine.env_arrays(mdp) if env is None else env
    init, episodes = simulation.kernels(agent, sim)
    pv = get(agent).param_vector(params)
    K = np.int64(K)
    rec = engine.new_recorder(int(K), np.array([0.1]))
    st = init(env, pv, K)
    rng = seeding.generator("aggregate-test", sim, seed)
    ends = np.cumsum(stage_schedule(K).sum(1))
    B = ends.size
    stage = np.full(st[1].size, B)
    k = 0
    for b, e in enumerate(ends):
        k1 = int(min(e + 1, K))
        if k1 > k:
            episodes(env, pv, K, np.int64(k), np.int64(k1), rng, rec, st)
            k = k1
        stage[(stage == B) & ~st[1]] = b
    return rec[2][-1], stage


def compare_in_law(agent, n_seeds, K=20000, ks_p=1e-3):
    env = engine.env_arrays(H2)
    out = {}
    for sim in simulation.SIMULATIONS:
        res = [run_one(agent, sim, CASES[agent], K, s, env=env) for s in range(n_seeds)]
        out[sim] = (np.array([r[0] for r in res]), np.array([r[1] for r in res]))
    (reg_e, st_e), (reg_a, st_a) = out["episode"], out["aggregate"]
    assert stats.ks_2samp(reg_e, reg_a).pvalue > ks_p, "final regret distributions differ"
    v = true_values(enumerate_policies(2, 2, 2), H2.P, H2.R, H2.rho)
    B = stage_schedule(np.int64(K)).shape[0]
    for i in np.flatnonzero(v >= v.max() - 1e-12):                      # rate of eliminating an optimal policy
        p_e, p_a = (st_e[:, i] < B).mean(), (st_a[:, i] < B).mean()
        p = 0.5 * (p_e + p_a)
        assert abs(p_e - p_a) <= 4.5 * np.sqrt(max(p * (1 - p), 1e-12) * 2 / n_seeds) + 1e-12, (i, p_e, p_a)
    npol = st_e.shape[1]
    for i in range(npol):                                               # stage at which each policy goes
        table = np.array([np.bincount(st_e[:, i], minlength=B + 1), np.bincount(st_a[:, i], minlength=B + 1)])
        table = table[:, table.sum(0) > 0]
        if table.shape[1] > 1:
            assert stats.chi2_contingency(table).pvalue > 1e-3 / npol, (i, table)
    return out


@pytest.mark.parametrize("agent", sorted(CASES))
def test_aggregate_equals_episode_in_law_smoke(agent):
    compare_in_law(agent, 120, K=4000, ks_p=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("agent", sorted(CASES))
def test_aggregate_equals_episode_in_law(agent):
    compare_in_law(agent, 2000)


@pytest.mark.parametrize("agent", ["sdp-pe", "sdp-pe-ldp"])
def test_chunked_aggregate_run_is_identical(agent):
    env = engine.env_arrays(H2)
    init, episodes = simulation.kernels(agent, "aggregate")
    pv = get(agent).param_vector(CASES[agent])
    K = np.int64(30001)
    outs = []
    for cuts in ([0, K], [0, 1, 17, 2000, 2001, 9999, K]):
        rec, st, rng = engine.new_recorder(int(K), np.array([0.1])), init(env, pv, K), seeding.generator("c", "c", 3)
        for k0, k1 in zip(cuts[:-1], cuts[1:]):
            episodes(env, pv, K, np.int64(k0), np.int64(k1), rng, rec, st)
        outs.append((rec, st))
    for x, y in zip(outs[0][0], outs[1][0]):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(outs[0][1][1], outs[1][1][1])


def test_one_seed_at_1e12_episodes_in_under_a_cpu_second():
    mdp = envs.garnet(S=2, A=2, branching=2, H=3, seed=1)
    K = 10**12
    run_one("sdp-pe", "aggregate", {"C": 1e-4, "C1": 6e-4}, 10**6, 0, mdp=mdp)   # compiled / cache loaded
    t0 = time.process_time()
    df = runs.run_seed("sdp-pe", {"C": 1e-4, "C1": 6e-4}, mdp, K, 0, simulation="aggregate")
    assert time.process_time() - t0 < 1.0
    assert df.episode.dtype == np.int64 and df.episode.iloc[-1] == K
    assert np.isfinite(df.cum_regret).all() and (np.diff(df.cum_regret) >= 0).all()
    assert df.filter(like="mistakes").dtypes.eq(np.int64).all() and df.filter(like="mistakes").iloc[-1].max() <= K


def test_run_key_names_the_simulation_only_when_aggregate():
    args = ("sdp-pe", {}, H2, 1000, "e", "s", 120)
    episode = runs.run_key(*args, runs.agent_digest("sdp-pe"))
    assert "simulation" not in episode and set(episode) == set(runs.KEY_FIELDS)     # episode keys as before
    assert runs.agent_digest("sdp-pe", "episode") == runs.agent_digest("sdp-pe")
    agg = runs.run_key(*args, runs.agent_digest("sdp-pe", "aggregate"), simulation="aggregate")
    assert agg["simulation"] == "aggregate" and agg["code"] != episode["code"]
    assert runs.key_digest(agg, [0]) != runs.key_digest(episode, [0])
    with pytest.raises(ValueError, match="no aggregate simulation"):
        runs.run_key("ucbvi", {}, H2, 1000, "e", "s", 120, "x", simulation="aggregate")
    info = runs.run_info("sdp-pe", {}, H2, 10, [0], "e", "s", simulation="aggregate")
    assert info["simulation"] == "aggregate"


def test_config_cells_choose_their_simulation():
    cfg = {"experiments": {"x": {"envs": {"g": {"name": "garnet", "params": {"S": 2, "A": 2, "H": 1}}},
                                 "episodes": 10, "seeds": 1,
                                 "cells": [{"agent": "sdp-pe", "simulation": "aggregate"}, {"agent": "pe"}]}}}
    cells = experiments.expand_cells(cfg, "x")
    assert [(c.agent, c.simulation, c.cell) for c in cells] == [("sdp-pe", "aggregate", "sdp-pe"),
                                                                 ("pe", "episode", "pe")]
    cfg["experiments"]["x"]["cells"] = [{"agent": "ucbvi", "simulation": "aggregate"}]
    with pytest.raises(ValueError, match="'x': agent 'ucbvi' has no aggregate simulation"):
        experiments.expand_cells(cfg, "x")


def test_a_probe_clone_cannot_take_the_symbol_of_the_kernel_it_copies():
    """The flaky "probe: release log full" of this file in a full xdist run: the privacy audit's probe
    clones SDP-PE's kernels (run_episodes, _advance, ...) with their door calls swapped for logging
    wrappers. numba names a compiled function's symbols by module, qualname, types and a per-process
    counter and finds a dispatcher's entry point by name in the process-wide JIT, so a probe driver
    loaded from the cache (numbered in the process that compiled it) could define the name of this
    process's production kernel: the production run then called the clone, whose log filled. Every
    function made for a probe is named by the probe's key (privrl.audit.probe.made_for_probe)."""
    from privrl.audit import probe

    drive, key = probe.driver("sdp-pe", 1)
    made = {(m.py_func.__module__, m.py_func.__qualname__) for m in probe.made_for_probe(drive)}
    assert ("privrl.agents.sdp_pe", f"_advance.probe_{key}") in made
    for module, qualname in made:  # none keeps the name of the function it was made from
        assert qualname.endswith(f".probe_{key}"), (module, qualname)
