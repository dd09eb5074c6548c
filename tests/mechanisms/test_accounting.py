"""Privacy formulas: closed forms, paper-vs-library/exact cross-checks (a paper bound may be looser,
never tighter)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrl.mechanisms import accounting as acc

from privrl.mechanisms import exact_epsilon as exact_eps
from privrl.mechanisms import release_guarantees as rg
from privrl.mechanisms.bitsum import bitsum_tau


def test_guarantee_is_a_validated_value():
    g = acc.Guarantee("JDP", 1.0, 1e-5, "x")
    assert g.as_dict()["model"] == "JDP"
    with pytest.raises(Exception):
        g.epsilon = 2.0  # frozen
    for bad in (("CDP", 1, 0), ("DP", -1, 0), ("DP", 1, 1.0)):
        with pytest.raises(ValueError):
            acc.Guarantee(*bad, source="x")
    assert acc.pucb_guarantee(1.0).model == "JDP"
    sdp = rg.sdp_pe_guarantee(0.5, 0.01, H=2)  # counter accounting: 2H bit flips per family under replacement
    assert (sdp.epsilon, sdp.delta, sdp.neighbour) == (pytest.approx(1.0), pytest.approx(6 * 2 * 0.01), "replacement")
    assert rg.sdp_pe_guarantee(0.5, 0.1, H=2).epsilon == math.inf  # 6 H beta >= 1: vacuous, said so
    ldp, jdp = rg.shuffled_obi_guarantees(1.0, 1, 5, 10_000, 1e-6)  # messages released per user: eps0 only
    assert ldp.model == "LDP" and jdp.model == "JDP" and jdp.epsilon == 1.0 and not jdp.amplified
    assert "3.156" in jdp.note  # Prop. 5's figure named, not claimed


def test_amplified_prop5_only_where_a_batch_is_shuffled():
    """Prop. 5's eps_{c,k} is stated (amplified) only for batches of k >= 2 users shuffled before any
    release and under its hypothesis; at eps0 = 100, tau = 1e5, S = 6, H = 20 it states eps0."""
    gs = rg.shuffled_obi_guarantees(100.0, 1, 20, 100_000, 1e-3)
    assert [g.epsilon for g in gs if g.model == "JDP"] == [100.0] and not any(g.amplified for g in gs)
    gs = rg.shuffled_obi_guarantees(1.0, 1, 5, 10_000, 1e-6, shuffled_batch=10_000)
    amp = [g for g in gs if g.amplified]
    assert len(amp) == 1 and amp[0].epsilon == pytest.approx(3.156471, rel=1e-5) and amp[0].delta == 1e-6
    assert acc.rlsvi_guarantee(1e-5, 1000, 5, 5, 2).epsilon == acc.lu_cor14_epsilon(1e-5, 1000, 5, 5, 2)


def test_vietri_budget():
    assert acc.per_counter_epsilon(0.9, 3) == pytest.approx(0.1)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1, 6), st.integers(1, 8), st.integers(2, 9), st.data())
def test_vietri_claim1(T, H, n_sa, data):
    """Claim 1: a user's event streams have l1 norm exactly H, so the l1 distance to a sequence
    without that user's data is <= H; under *replacement* of the user it is <= 2H (decisions D7)."""
    traj = np.array(data.draw(st.lists(st.lists(st.integers(0, n_sa - 1), min_size=H, max_size=H),
                                       min_size=T, max_size=T)))
    t = data.draw(st.integers(0, T - 1))
    other = traj.copy()
    other[t] = data.draw(st.lists(st.integers(0, n_sa - 1), min_size=H, max_size=H))
    streams = acc.visit_streams(traj, n_sa)
    assert streams[t].sum() == H  # one user's contribution: exactly H ones
    assert acc.claim1_l1_distance(traj, other, n_sa) <= 2 * H
    assert acc.claim1_l1_distance(traj, other, n_sa) == 2 * int((traj[t] != other[t]).sum())


def test_claim1_replacement_attains_2H():
    traj = np.zeros((3, 4), np.int64)
    other = traj.copy()
    other[1] = 1
    assert acc.claim1_l1_distance(traj, other, 2) == 8


def test_garcelon_lemma4_and_exact_msh():
    for eps0, m, H in ((1.0, 1, 5), (2.0, 3, 10)):
        eps = acc.garcelon_lemma4_epsilon(eps0, m, H)
        assert eps == pytest.approx(eps0 / ((4 + 2 * m) * H))
        exact = acc.msh_exact_ldp_epsilon(eps, m, H)
        assert exact == pytest.approx(eps0 - 2 * eps) and exact <= eps0  # Lemma 4 is valid, 2 eps loose


def test_garcelon_prop5_as_printed():
    k, H, m, p, d0 = 1001, 4, 2, 0.6, 1e-4
    n = (k - 1) * H
    a1 = math.sqrt(2 * p * math.log(4 * m / d0) / n)
    a2 = math.sqrt(2 * p * math.log(2 / d0) / n)
    t1 = 256 * math.log(8 * m / d0) * math.sqrt(m * math.log(2 / d0)) / (math.sqrt(n) * (p - a1)) * (1 - p + a1)
    t2 = 64 * math.log(4 / d0) / (math.sqrt(n) * (p - a2)) * (1 - p + a2)
    assert acc.garcelon_prop5_epsilon(k, H, m, p, d0) == pytest.approx(t1 + t2, rel=1e-12)
    assert acc.garcelon_prop5_epsilon(2, 1, 1, 0.01, 1e-6) == math.inf  # p <= a: undefined
    assert acc.garcelon_prop5_condition(0.01, 10_000, 1e-6)
    assert not acc.garcelon_prop5_condition(0.01, 100, 1e-6)


@pytest.mark.parametrize("K,H,S,A", [(10, 2, 2, 2), (1000, 5, 5, 2), (10**5, 20, 10, 4), (10**7, 50, 100, 10)])
@pytest.mark.parametrize("delta", [1e-2, 1e-5, 1e-10])
def test_lu_cor14_is_the_minimum_of_thm13(K, H, S, A, delta):
    cor = acc.lu_cor14_epsilon(delta, K, H, S, A)
    num, alpha = acc.lu_thm13_minimised(delta, K, H, S, A)
    assert abs(num - cor) <= 1e-9 * cor
    assert alpha == pytest.approx(H * math.sqrt(math.log(2 * H * S * A) * math.log(1 / delta) / (2 * A * K)) + 1,
                                  rel=1e-6)
    assert acc.lu_thm13_epsilon(alpha * 1.1, delta, K, H, S, A) >= cor
    # tighter conversions of the same RDP curve: never above the paper's bound
    lib = acc.lu_library_epsilon(delta, K, H, S, A, "rdp")
    ex = acc.lu_exact_epsilon(delta, K, H, S, A)
    assert ex <= lib * (1 + 1e-9) <= cor * (1 + 1e-9)


def test_lu_exact_matches_dp_accounting_pld():
    K, H, S, A, d = 20, 10, 5, 2, 1e-5  # small rho so the PLD is fast
    assert acc.lu_library_epsilon(d, K, H, S, A, "pld") == pytest.approx(acc.lu_exact_epsilon(d, K, H, S, A),
                                                                         rel=1e-3, abs=1e-4)


def test_pure_epsilons_match_dp_accounting():
    assert acc.library_pure_epsilon("laplace", 2.0, 1.0) == pytest.approx(acc.laplace_epsilon(2.0), abs=1e-6)
    for p in (0.2, 0.7):
        lib = acc.library_pure_epsilon("rr", p)
        assert acc.rr_epsilon(p) <= lib + 1e-12 and lib == pytest.approx(acc.rr_epsilon(p), abs=2e-5)
    assert acc.tree_counter_epsilon(6.0, 8) == pytest.approx(4 / 6.0)


def test_epsilon_for_delta_against_bisection_on_hockey_stick():
    rng = np.random.default_rng(0)
    for _ in range(20):
        P, Q = rng.dirichlet(np.ones(12)), rng.dirichlet(np.ones(12))
        lp, lq = np.log(P), np.log(Q)
        for d in (1e-3, 0.05, 0.2):
            e = exact_eps.epsilon_for_delta(lp, lq, d)
            if e > 0:
                assert max(exact_eps.hockey_stick(lp, lq, e), exact_eps.hockey_stick(lq, lp, e)) == pytest.approx(d, abs=1e-9) or \
                    max(exact_eps.hockey_stick(lp, lq, e), exact_eps.hockey_stick(lq, lp, e)) <= d
                assert max(exact_eps.hockey_stick(lp, lq, e - 1e-6), exact_eps.hockey_stick(lq, lp, e - 1e-6)) > d
    # disjoint supports: infinite
    assert exact_eps.epsilon_for_delta(np.array([0.0, -np.inf]), np.array([-np.inf, 0.0]), 0.5) == math.inf


def test_randomized_response_exact_epsilon_is_closed_form():
    p = 0.3
    lp, lq = np.log([1 - p / 2, p / 2]), np.log([p / 2, 1 - p / 2])
    assert exact_eps.epsilon_for_delta(lp, lq, 0.0) == pytest.approx(acc.rr_epsilon(p))


def test_bitsum_exact_epsilon_vs_claim_and_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    for eps, beta, ratio in ((0.5, 0.01, 0.25), (0.5, 0.01, 4.0), (0.9, 1e-3, 0.5)):
        tau = bitsum_tau(eps, beta)
        n = int(ratio * tau)
        ex = exact_eps.bitsum_exact_epsilon(n, tau, beta)
        assert ex <= eps  # Lemma 42's claim is valid (and loose)
        lq, lp = exact_eps.bitsum_logpmfs(n, tau)
        d = pld.from_two_probability_mass_functions(
            {i: v for i, v in enumerate(lq) if np.isfinite(v)}, {i: v for i, v in enumerate(lp) if np.isfinite(v)},
            symmetric=False)
        assert d.get_epsilon_for_delta(beta) == pytest.approx(ex, abs=2e-4)


def test_shuffled_rr_amplifies_and_prop5_is_never_tighter():
    p = 2 / (math.exp(0.5) + 1)
    single = exact_eps.shuffled_rr_exact_epsilon(500, p, 1e-6)
    assert 0 < single < acc.rr_epsilon(p)
    # other users' ones only lower the eps (extremes 0 / all-ones are the worst case; decisions D8)
    by_ones = [exact_eps.shuffled_rr_exact_epsilon(500, p, 1e-6, ones=o) for o in (0, 50, 200, 499)]
    assert max(by_ones) == pytest.approx(by_ones[0], rel=1e-9) and by_ones[2] < by_ones[0]
    for k in (1000, 10_000):
        eps = acc.garcelon_lemma4_epsilon(1.0, 1, 5)
        pk = 2 / (math.exp(eps) + 1)
        assert exact_eps.shuffled_rr_composed_epsilon(k, 5, 1, pk, 1e-6) <= acc.garcelon_prop5_epsilon(k, 5, 1, pk, 1e-6)


def test_gaussian_exact_epsilon():
    # mu-GDP at delta: check the defining equation
    for mu in (0.1, 1.0, 3.0):
        e = acc.gaussian_exact_epsilon(mu, 1e-5)
        assert acc.gaussian_delta(e, mu) == pytest.approx(1e-5, rel=1e-6)
