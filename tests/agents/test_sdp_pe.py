"""SDP-PE (Bai et al. Alg. 1-3): schedule, enumeration, privatizers, elimination, refusal."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrl.rl import engine, envs, seeding
from privrl.runs import run
from privrl.agents import get
from privrl.agents import pe_privacy as pp
from privrl.rl import policies as pe
from privrl.agents import sdp_pe
from privrl.rl.mdp import optimal_return
from privrl.mechanisms import privatizer as pz


@given(st.integers(min_value=1, max_value=10**8))
@settings(max_examples=300, deadline=None)
def test_stage_lengths_sum_to_K(K):
    sched = sdp_pe.stage_schedule(K)
    assert sched.sum() == K and (sched >= 0).all()
    B = sched.shape[0]
    for b in range(B - 1):  # L_b = 2^b, b = 1..B-1, crude and fine each
        assert sched[b, 0] == sched[b, 1] == 2 ** (b + 1)
    done = int(sched[:-1, 0].sum())
    assert 2 * (done + 2**B) >= K  # the last stage is the first whose 2^b would overshoot
    assert 0 <= sched[-1, 1] - sched[-1, 0] <= 1


@pytest.mark.slow  # > 5 s
def test_enumeration_and_true_values_match_planning():
    for m in (envs.garnet(S=3, A=2, branching=2, H=3, seed=4), envs.riverswim(S=2, H=4)):
        pols = pe.enumerate_policies(m.H, m.S, m.A)
        assert pols.shape == (m.A ** (m.S * m.H), m.H, m.S)
        assert len({p.tobytes() for p in pols}) == pols.shape[0]
        i = 11
        assert all(pols[i, h, s] == (i // m.A ** (h * m.S + s)) % m.A for h in range(m.H) for s in range(m.S))
        v = pe.true_values(pols, m.P, m.R, m.rho)
        assert v.max() == pytest.approx(optimal_return(m), abs=1e-12)


def test_occupancy_and_best_visitors_brute_force(rng):
    H, X, A = 3, 2, 2
    pols = pe.enumerate_policies(H, X, A)
    P = rng.dirichlet(np.ones(X + 1), size=(H, X + 1, A))
    P[:, X, :, :] = 0.0
    P[:, X, :, X] = 1.0
    d1 = np.array([0.3, 0.7, 0.0])
    active = rng.random(pols.shape[0]) < 0.5
    occ = np.zeros((pols.shape[0], H, X + 1))
    pe.occupancy(pols, active, P, d1, occ)
    for i in np.flatnonzero(active)[:5]:
        d = d1.copy()
        for h in range(H):
            np.testing.assert_allclose(occ[i, h], d, atol=1e-14)
            a = np.append(pols[i, h], 0)
            d = np.array([sum(d[x] * P[h, x, a[x], y] for x in range(X + 1)) for y in range(X + 1)])
    idx = np.zeros((X, A), np.int64)
    for h in range(H):
        pe.best_visitors(pols, active, occ, h, A, idx)
        for x in range(X):
            for a in range(A):
                cand = [i for i in np.flatnonzero(active) if pols[i, h, x] == a]
                best = max(occ[i, h, x] for i in cand)
                assert pols[idx[x, a], h, x] == a and occ[idx[x, a], h, x] == best


def test_refuses_too_large_instance_with_sizes_that_work():
    with pytest.raises(ValueError) as exc:
        run.run("sdp-pe", {}, envs.riverswim(S=6, H=20), 10, [0])
    msg = str(exc.value)
    assert "2^120" in msg and "max_policies = 65536" in msg and "S*H <= 16" in msg and "A=3: S*H <= 10" in msg
    with pytest.raises(ValueError, match="2\\^18"):
        run.run("pe", {}, envs.riverswim(S=3, H=6), 10, [0])
    df, _ = run.run("pe", {"max_policies": 2**18}, envs.riverswim(S=3, H=6), 10, [0])  # raised cap: runs
    assert len(df) == 10


def test_pe_never_eliminates_the_optimal_policy_and_ends_near_optimal():
    """Privatizer none, paper constants (C = 1, C1 = 6), RiverSwim S=2 H=2, K = 1e6, 3 seeds."""
    m = envs.riverswim(S=2, H=2)
    env = engine.env_arrays(m)
    pols = pe.enumerate_policies(m.H, m.S, m.A)
    gap = pe.true_values(pols, m.P, m.R, m.rho)
    gap = gap.max() - gap
    K = 10**6
    params = np.array([1.0, 0.5, 0.05, 1.0, 6.0, 2.0**16, float(pz.NONE)])
    for seed in range(3):
        rec = engine.new_recorder(K, np.array([0.1]))
        active, log = sdp_pe.run_sdp_pe(env, params, K, seeding.generator("t", "pe", seed), rec, pz.NONE)
        assert active[gap < 1e-12].all()                      # no optimal policy eliminated
        assert active.sum() < active.size                     # elimination happened
        assert gap[active].max() <= 2.0 * log[-1, 2]          # the rest is within 4 xi = 2 threshold
        assert np.all(np.diff(log[:, 3]) <= 0)                # active set only shrinks


@pytest.mark.parametrize("code", [pz.NONE, pz.CENTRAL_TREE, pz.SHUFFLE_BITSUM, pz.LOCAL_LAPLACE])
def test_release_counts_equals_privatizer_release_batch(code):
    """The column-sum adapter gives bit-identical output to the privatizer on the users' rows."""
    m, n, eps_c, beta = 7, 5, 0.3, 1e-5
    rows = np.zeros((m, n)) if code == pz.LOCAL_LAPLACE else \
        (np.random.default_rng(1).random((m, n)) < 0.4).astype(float)
    ref = np.zeros(n)
    state = pz.privatizer_new(code, n, 1, eps_c, pp.sensitivity_of(code), beta, 1)
    pz.privatizer_release_batch(code, state, rows, np.random.default_rng(9), ref)
    out = np.zeros(n)
    pp.release_counts(code, eps_c, beta, rows.sum(axis=0), m, np.random.default_rng(9), out)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("code", [pz.CENTRAL_TREE, pz.SHUFFLE_BITSUM, pz.LOCAL_LAPLACE])
def test_error_level_covers_the_noise(code):
    """|noise| <= E/4 for all n_rel counters in >= 1 - delta of the runs (delta = 0.05)."""
    n_rel, delta, eps_c, beta, users = 50, 0.05, 0.5, 1e-5, 40
    E = pp.error_level(code, eps_c, beta, users, delta, n_rel)
    g = np.random.default_rng(3)
    x, out = np.zeros(n_rel), np.zeros(n_rel)
    fails = 0
    for _ in range(400):
        pp.release_counts(code, eps_c, beta, x, users, g, out)
        fails += np.abs(out).max() > E / 4
    assert fails / 400 <= delta


def test_post_processed_estimates_are_distributions(rng):
    X, A = 3, 2
    n_sas = rng.integers(0, 50, size=(X * A, X)).astype(float)
    o_sas, o_sa, o_r = np.zeros((X * A, X)), np.zeros(X * A), np.zeros(X * A)
    E = pp.private_batch(pz.SHUFFLE_BITSUM, 0.5, 1e-5, 0.05, 100.0, n_sas, n_sas.sum(1), n_sas.sum(1) // 2,
                         np.int64(200), rng, o_sas, o_sa, o_r)  # >= every count: one bit per user
    np.testing.assert_allclose(o_sas.sum(1), o_sa, rtol=1e-12)          # Assumption 4: N~(x,a) = sum N~(x,a,.)
    assert (o_sas > 0).all() and E > 0
    W = np.zeros((X, A, X), np.bool_)
    pp.mark_infrequent(o_sas, 0.3 * E, W)
    P = np.zeros((X + 1, A, X + 1))
    pp.estimate_layer(o_sas, o_sa, W, P)
    np.testing.assert_allclose(P.sum(-1), 1.0, atol=1e-12)
    assert (P >= 0).all() and (P[:X, :, :X][W] == 0).all()


def test_seed_identical_alone_and_in_batch():
    m = envs.garnet(S=2, A=2, branching=2, H=3, seed=0)
    for agent in ("sdp-pe", "sdp-pe-ldp"):
        alone, _ = run.run(agent, {"C": 1e-3, "C1": 6e-3}, m, 3000, [3], experiment="e", setting="s")
        batch, _ = run.run(agent, {"C": 1e-3, "C1": 6e-3}, m, 3000, range(8), experiment="e", setting="s")
        assert alone.reset_index(drop=True).equals(batch[batch.seed == 3].reset_index(drop=True))


def test_presets_and_guarantees():
    m = envs.garnet(S=2, A=2, branching=2, H=2, seed=0)
    # SDP: the counter accounting under replacement, (2 eps, 6 H beta) (decisions, mechanisms.md)
    expect = {"sdp-pe": ("SDP", 4.0, 6 * 2 * 1e-5), "sdp-pe-jdp": ("JDP", 2.0, 0.0), "sdp-pe-ldp": ("LDP", 2.0, 0.0)}
    for name, (model, eps, delta) in expect.items():
        spec = get(name)
        assert spec.privacy_model == model
        g = spec.guarantees(spec.resolve({"epsilon": 2.0}), m, 100)
        assert [(x.model, x.epsilon, x.delta) for x in g] == [(model, eps, pytest.approx(delta))]
    assert "epsilon" not in get("pe").defaults and get("pe").guarantees(get("pe").resolve({}), m, 10) == []
    assert "beta" not in get("sdp-pe-jdp").defaults


def test_aux_is_the_active_fraction():
    df = run.run_seed("pe", {"C": 1e-3, "C1": 6e-3}, envs.riverswim(S=2, H=2), 20000, 0, n_checkpoints=100)
    per_episode = np.diff(np.concatenate([[0.0], df.cum_aux.values])) / np.diff(np.concatenate([[0], df.episode]))
    assert per_episode[0] == 1.0 and per_episode[-1] < 1.0 and (per_episode <= 1.0).all()
