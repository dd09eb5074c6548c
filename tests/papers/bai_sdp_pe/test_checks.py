"""Bai et al. theorem checks: the shuffle bit-sum (App. Lemma 42) at smoke size, Assumption 4 for each
privatizer and the elimination Lemmas 23-24."""

import numpy as np

from privrl.papers.bai_sdp_pe import lemma42 as bai_sdp_pe_lemma42
from privrl.papers.bai_sdp_pe import lemmas as bai


def test_bitsum_lemma42(tmp_path):
    df = bai_sdp_pe_lemma42.check_bitsum_lemma42(np.random.default_rng(2), eps_grid=(0.2, 0.5, 0.9), n_trials=20_000)
    assert set(df["regime"]) == {"small", "large"}
    assert (df.loc[df.regime == "small", "n_users"] <= df.loc[df.regime == "small", "tau"]).all()
    assert (df.loc[df.regime == "large", "n_users"] > df.loc[df.regime == "large", "tau"]).all()
    assert df["holds"].all(), df
    bai_sdp_pe_lemma42.figure_bitsum(df, tmp_path / "c.png")


def test_assumption4_each_privatizer():
    d = bai.check_assumption4(np.random.default_rng(3), n_users=100, n_trials=15)
    assert set(d["privatizer"]) == {"shuffle-bitsum", "central-tree", "local-laplace"}
    assert d["holds"].all() and (d["max_error_over_E"] <= 1).all() and (d["fail_positive"] == 0).all()


def test_elimination_lemmas_on_the_garnet_at_valid_c():
    d = bai.check_elimination(None, agents=("pe",), C_grid=(0.18,), K=5000, n_seeds=6)
    r = d.iloc[0]
    assert r.holds and r.lost_pi_star == 0 and r.worst_gap_ratio <= 1 and r.worst_stage_regret_ratio <= 1
    assert r.eliminated_some > 0                            # the lemmas were exercised: something was eliminated


def test_elimination_is_not_reached_unless_half_the_seeds_eliminate():
    """Nothing eliminated: Lemma 23 cannot fail and Lemma 24 constrains nothing -> "not reached";
    at the default K (aggregate simulation, work independent of K) every configuration eliminates."""
    from privrl.papers import registry

    small = bai.check_elimination(None, agents=("sdp-pe-jdp",), C_grid=(1.0,), K=20000, n_seeds=5)
    assert small.eliminated_some.iloc[0] < 0.5 and not small.reached.iloc[0] and small.holds.iloc[0]
    (row,) = registry.theorem_check_claims({"bai_elimination": small}, {})
    assert row.verdict == "not reached" and "needs K > 20000" in row.measured
    big = bai.check_elimination(None, agents=("sdp-pe-jdp",), C_grid=(1.0,), K=20_000_000, n_seeds=5)
    assert big.reached.iloc[0] and big.holds.iloc[0] and big.lemma24_below_max_gap.iloc[0] > 0
