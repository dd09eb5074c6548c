"""Audits pass on the real mechanisms and catch deliberately broken variants.

Every audit uses a fixed seed; the event audits' false-alarm rate is alpha = 0.05 by
construction (Clopper-Pearson + union bound), the distribution tests reject a correct
mechanism with probability <= alpha as well.
"""
import numpy as np
import pytest

from privrl.mechanisms import audit
from privrl.mechanisms.rr import rr_p_from_epsilon


def test_clopper_pearson_known_values():
    lo, hi = audit.clopper_pearson(5, 10, 0.05)
    assert lo == pytest.approx(0.187086, abs=1e-5) and hi == pytest.approx(0.812914, abs=1e-5)
    assert audit.clopper_pearson(0, 10, 0.05)[0] == 0.0 and audit.clopper_pearson(10, 10, 0.05)[1] == 1.0
    b = audit.epsilon_bounds(5000, 10_000, 1839, 10_000)
    assert b["ci_low"] < 1.0 < b["ci_high"]


@pytest.mark.parametrize("name,good,bad", [
    ("laplace", lambda r: audit.audit_laplace(r, 100_000), lambda r: audit.audit_laplace(r, 100_000, noise_factor=0.5)),
    ("rr", lambda r: audit.audit_rr(r, 100_000),
     lambda r: audit.audit_rr(r, 100_000, p=0.5 * rr_p_from_epsilon(1.0))),
    ("tree", lambda r: audit.audit_tree(r, 100_000), lambda r: audit.audit_tree(r, 100_000, noise_factor=0.5)),
    ("gaussian", lambda r: audit.audit_gaussian(r, 600_000),
     lambda r: audit.audit_gaussian(r, 600_000, noise_factor=0.5)),
    ("laplace sum, 1 user", lambda r: audit.audit_laplace_sum(r, 100_000),
     lambda r: audit.audit_laplace_sum(r, 100_000, noise_factor=0.5)),
    ("laplace sum, 2 users", lambda r: audit.audit_laplace_sum(r, 100_000, m=2),
     lambda r: audit.audit_laplace_sum(r, 100_000, m=2, noise_factor=0.5)),
])
def test_event_audits_pass_real_and_catch_broken(name, good, bad):
    g = good(np.random.default_rng(100))
    assert g["verdict"] == "pass", g
    assert g["ci_low"] <= g["exact_epsilon"] + 1e-12
    b = bad(np.random.default_rng(101))
    assert b["verdict"] == "VIOLATION", b
    assert b["empirical_lower_bound"] > b["claimed_epsilon"]


@pytest.mark.parametrize("n_users", [500, 8000])  # tau(0.5, 0.01) ~ 2035: small and large regime
def test_bitsum_distribution_audit(n_users):
    # false-alarm rate alpha = 0.01 (Bonferroni over chi-square, mean and variance tests)
    good = audit.audit_bitsum(np.random.default_rng(1), 1500, 0.5, 0.01, n_users, alpha=0.01)
    assert good["verdict"] == "pass" and good["exact_epsilon"] <= 0.5
    bad = audit.audit_bitsum(np.random.default_rng(2), 1500, 0.5, 0.01, n_users, tau_factor=0.5, alpha=0.01)
    assert bad["verdict"] == "FAIL" and not bad["test"]["passed"]


def test_shuffled_rr_distribution_audit():
    # false-alarm rate alpha = 0.01 (Bonferroni over chi-square, mean and variance tests)
    good = audit.audit_shuffled_rr(np.random.default_rng(13), 1500, 1.0, 200, 5, 1, 1e-6, alpha=0.01)
    assert good["verdict"] == "pass" and good["exact_epsilon"] <= good["claimed_epsilon"]
    p = rr_p_from_epsilon(1.0 / 30)
    bad = audit.audit_shuffled_rr(np.random.default_rng(14), 1500, 1.0, 200, 5, 1, 1e-6, p=0.9 * p, alpha=0.01)
    assert bad["verdict"] == "FAIL"


def test_distribution_test_rejects_a_shifted_law():
    from scipy import stats
    rng = np.random.default_rng(5)
    lp = stats.binom.logpmf(np.arange(101), 100, 0.5)
    assert audit.distribution_test(rng.binomial(100, 0.5, 3000), 0, lp)["passed"]
    assert not audit.distribution_test(rng.binomial(100, 0.5, 3000) + 1, 0, lp)["passed"]


def test_privacy_audit_table_small():
    df = audit.privacy_audit_table(np.random.SeedSequence(7), {"n_event": 20_000, "n_gaussian": 50_000,
                                                               "n_shuffle": 300})
    assert list(df.columns) == audit.COLUMNS and len(df) == 7 + len(audit.LAPLACE_SUM_USERS)
    assert (df["verdict"] == "pass").all(), df
    assert (df["exact_epsilon"] > 0).all()
    assert df["mechanism"].str.contains("aggregate simulation").sum() == len(audit.LAPLACE_SUM_USERS)
    md = audit.audit_table_markdown(df)
    assert md.startswith("| mechanism") and md.count("\n") == len(df) + 2


def test_laplace_sum_audit_samples_the_aggregate_paths_function():
    """The audit draws through the door's laplace_sum_release, the very function SDP-PE's aggregate
    batches call (pe_privacy.private_batch with summed=True), at SDP-PE-LDP's sensitivity 2."""
    from privrl.agents import pe_privacy

    assert pe_privacy.laplace_sum_release is audit.door.laplace_sum_release
    assert pe_privacy.sensitivity_of(pe_privacy.LOCAL_LAPLACE) == 2.0
    assert audit.audit_laplace_sum.__defaults__[2] == 2.0  # sensitivity


def test_row_alpha_is_bonferroni():
    assert audit.row_alpha(0.05, 10) == pytest.approx(0.005)
    assert audit.row_alpha(0.05, 0) == 0.05
