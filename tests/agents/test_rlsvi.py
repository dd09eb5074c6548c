"""RLSVI (Lu et al. 2026, Alg. 1) and its computed privacy (Lemma 12, Thm 13, Cor. 14)."""
import math

import numpy as np
import pytest

from privrl.mechanisms import accounting
from privrl.rl import envs, seeding
from privrl.runs import run
from privrl.agents import get
from privrl.agents.rlsvi import privacy_table, rlsvi_plan
from privrl.rl.mdp import optimal_return, policy_values
from privrl.agents.rlsvi import rlsvi_beta


def test_beta_k_is_alg1_tuning():
    for k, H, S, A in [(1, 20, 6, 2), (17, 4, 3, 2), (10**6, 10, 10, 3)]:
        assert rlsvi_beta(k, H, S, A) == pytest.approx(0.5 * S * H**3 * math.log(2 * H * S * A * k), rel=1e-15)


def _reference_plan(k1, r_sum, n_sa, n_sas, z, beta_scale=1.0):
    """Alg. 1 lines 5-15 in numpy: R^, P^ zero where N = 0; w = sqrt(beta_k / (N + 1)) z."""
    H, S, A = n_sa.shape
    beta = beta_scale * 0.5 * S * H**3 * math.log(2 * H * S * A * k1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r_hat = np.where(n_sa > 0, r_sum / n_sa, 0.0)
        p_hat = np.where(n_sa[..., None] > 0, n_sas / n_sa[..., None], 0.0)
    w = np.sqrt(beta / (n_sa + 1.0)) * z
    V = np.zeros(S)
    Q = np.zeros((H, S, A))
    pi = np.zeros((H, S), np.int64)
    for h in range(H - 1, -1, -1):
        Q[h] = r_hat[h] + p_hat[h] @ V + w[h]
        pi[h] = Q[h].argmax(axis=1)
        V = Q[h].max(axis=1)
    return Q, pi, w


def test_plan_is_alg1_exactly(rng):
    """Same standard normals -> same perturbed Q as the numpy Alg. 1 (variance beta_k/(N+1))."""
    H, S, A = 5, 4, 3
    n_sa = rng.integers(0, 6, size=(H, S, A)).astype(float)
    n_sas = np.zeros((H, S, A, S))
    for idx in np.ndindex(H, S, A):
        n_sas[idx] = rng.multinomial(int(n_sa[idx]), np.ones(S) / S)
    r_sum = rng.uniform(0, 1, size=(H, S, A)) * n_sa
    with np.errstate(divide="ignore", invalid="ignore"):
        r_hat = np.where(n_sa > 0, r_sum / n_sa, 0.0)
        p_hat = np.where(n_sa[..., None] > 0, n_sas / n_sa[..., None], 0.0)
    for k1, scale in [(1, 1.0), (37, 1.0), (500, 0.01)]:
        z, w, Q = np.zeros((H, S, A)), np.zeros((H, S, A)), np.zeros((H, S, A))
        pi, V = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
        rlsvi_plan(k1, r_hat, p_hat, n_sa, scale, np.random.default_rng(k1), z, w, pi, V, Q)
        z_ref = np.random.default_rng(k1).standard_normal(H * S * A).reshape(H, S, A)
        np.testing.assert_array_equal(z, z_ref)  # numba's Generator draws numpy's stream
        Q_ref, pi_ref, w_ref = _reference_plan(k1, r_sum, n_sa, n_sas, z_ref, scale)
        np.testing.assert_allclose(w, w_ref, rtol=1e-14, atol=0)
        np.testing.assert_allclose(Q, Q_ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(pi, pi_ref)


def test_noise_variance_statistically(rng):
    """w_h(s, a) ~ N(0, beta_k / (N + 1)): sample variance within 5% over 4000 draws per cell."""
    H, S, A = 2, 2, 2
    n_sa = np.array([0.0, 1.0, 3.0, 99.0] * 2).reshape(H, S, A)
    zeros_r, zeros_p = np.zeros((H, S, A)), np.zeros((H, S, A, S))
    draws = []
    g = np.random.default_rng(5)
    for _ in range(4000):
        z, w, Q = np.zeros((H, S, A)), np.zeros((H, S, A)), np.zeros((H, S, A))
        rlsvi_plan(7, zeros_r, zeros_p, n_sa, 1.0, g, z, w, np.zeros((H, S), np.int64), np.zeros((H + 1, S)), Q)
        draws.append(w.copy())
    var = np.var(np.array(draws), axis=0)
    expected = rlsvi_beta(7, H, S, A) / (n_sa + 1.0)
    np.testing.assert_allclose(var / expected, 1.0, atol=0.05)


def _rlsvi_numpy(mdp, K, rng, beta_scale=1.0):
    """Whole-run numpy reference consuming the runner's random stream in the same order."""
    H, S, A = mdp.H, mdp.S, mdp.A
    n_sa, n_sas, r_sum = np.zeros((H, S, A)), np.zeros((H, S, A, S)), np.zeros((H, S, A))
    P_cdf = np.cumsum(mdp.P, axis=3)
    P_cdf[..., -1] = 1.0
    v_star = optimal_return(mdp)
    gaps = np.zeros(K)
    for k in range(K):
        z = rng.standard_normal(H * S * A).reshape(H, S, A)
        _, pi, _ = _reference_plan(k + 1, r_sum, n_sa, n_sas, z, beta_scale)
        gaps[k] = max(v_star - float(mdp.rho @ policy_values(mdp, pi)[0]), 0.0)
        s = 0
        for h in range(H):
            a = pi[h, s]
            mean = mdp.R[h, s, a]
            r = (1.0 if rng.random() < mean else 0.0) if 0.0 < mean < 1.0 else mean
            s2 = min(int(np.searchsorted(P_cdf[h, s, a], rng.random(), side="right")), S - 1)
            n_sa[h, s, a] += 1
            n_sas[h, s, a, s2] += 1
            r_sum[h, s, a] += r
            s = s2
    return gaps


def test_kernel_matches_numpy_alg1():
    m = envs.garnet(S=4, A=3, branching=3, H=4, seed=2)  # stochastic rows everywhere, start s0
    K = 300
    for scale in (1.0, 0.001):
        gaps = _rlsvi_numpy(m, K, seeding.generator("adhoc", "default", 3), scale)
        df = run.run_seed("rlsvi", {"beta_scale": scale}, m, K, 3, n_checkpoints=100)
        np.testing.assert_allclose(df.cum_regret.values, np.cumsum(gaps)[df.episode.values - 1], rtol=1e-9, atol=1e-9)


def test_seed_identical_alone_and_in_batch():
    m = envs.riverswim(S=4, H=5)
    alone, _ = run.run("rlsvi", {"beta_scale": 0.01}, m, 2000, [3], experiment="e", setting="s")
    batch, _ = run.run("rlsvi", {"beta_scale": 0.01}, m, 2000, range(8), experiment="e", setting="s")
    assert alone.reset_index(drop=True).equals(batch[batch.seed == 3].reset_index(drop=True))


GRID = [(K, H, S, A, d) for K in (10, 1000, 10**5, 10**7) for (H, S, A) in ((20, 6, 2), (4, 3, 2), (10, 10, 3))
        for d in (1e-3, 1e-5, 1e-8)]


@pytest.mark.parametrize("K,H,S,A,delta", GRID)
def test_cor14_equals_numeric_minimum_of_thm13(K, H, S, A, delta):
    t = privacy_table(delta, K, H, S, A)
    assert t["eps_thm13_min"] == pytest.approx(t["eps_cor14"], rel=1e-9)
    assert t["eps_cor14"] == accounting.lu_cor14_epsilon(delta, K, H, S, A)


@pytest.mark.parametrize("K,H,S,A,delta", GRID[::2])
def test_library_conversion_never_looser_than_cor14(K, H, S, A, delta):
    """Wherever dp_accounting can use Cor. 14's order (alpha* > 1.01); the exact Gaussian always."""
    t = privacy_table(delta, K, H, S, A)
    assert t["eps_exact_gaussian"] <= t["eps_cor14"] * (1 + 1e-9)
    if t["library_in_domain"]:
        assert t["eps_library_rdp"] <= t["eps_cor14"] * (1 + 1e-9)
        assert t["eps_exact_gaussian"] <= t["eps_library_rdp"] * (1 + 1e-9)


def test_library_domain_covers_the_configured_experiments():
    """RiverSwim S=6, H=20 up to K = 1e7 at delta = 1e-5 and beta_scale >= 0.01 up to 1e5."""
    assert privacy_table(1e-5, 10**7, 20, 6, 2)["library_in_domain"]
    assert privacy_table(1e-5, 10**5, 20, 6, 2, beta_scale=0.01)["library_in_domain"]
    assert not privacy_table(1e-3, 10**7, 4, 3, 2)["library_in_domain"]  # alpha* = 1.003


def test_beta_scale_rescales_the_rdp_slope():
    t1 = privacy_table(1e-5, 10**4, 20, 6, 2, beta_scale=0.01)
    t2 = privacy_table(1e-5, 10**6, 20, 6, 2, beta_scale=1.0)
    assert t1["eps_cor14"] == pytest.approx(t2["eps_cor14"], rel=1e-12)


def test_guarantees_reported_with_remark2():
    m = envs.riverswim(S=6, H=20)
    _, info = run.run("rlsvi", {}, m, 50, [0])
    g = info["guarantees"]
    assert [x["model"] for x in g] == ["JDP"] * 4
    assert g[0]["epsilon"] == pytest.approx(accounting.lu_cor14_epsilon(1e-5, 50, 20, 6, 2))
    assert all("rewards only" in x["note"] and "Remark 2" in x["note"] for x in g)
    assert get("rlsvi").privacy_model == "JDP"


def test_aux_is_wide_noise_fraction():
    """At the paper's beta every perturbation sd exceeds the value range early on (aux ~ 1)."""
    df = run.run_seed("rlsvi", {}, envs.riverswim(S=6, H=20), 200, 0, n_checkpoints=100)
    assert df.cum_aux.iloc[-1] / 200 > 0.99
