"""Vietri Lemma 8, Garcelon Prop. 7, Bai Assumption 4 / Lemmas 23-24: closed forms and the
one-sided failure-rate rule the coverage checks use."""
import math

import numpy as np
import pytest

from privrl.papers.bai_sdp_pe import lemmas as bai
from privrl.papers.garcelon2021 import prop7 as g7
from privrl.papers.vietri2020 import checks as vc
from privrl.results.coverage_verdicts import failure_rate_lower, within_stated


def test_one_sided_rate_rule():
    assert failure_rate_lower(0, 50) == 0.0 and within_stated(0, 50, 1e-9)
    assert within_stated(10, 100, 0.1)                      # at the stated rate: never rejected
    assert not within_stated(30, 100, 0.1)                  # 30 % of 100 excludes 10 %
    assert within_stated(15, 100, 0.1) and not within_stated(16, 100, 0.1)   # the boundary, exact
    lo = failure_rate_lower(30, 100)                        # one-sided 95 %: the 5 % quantile of Beta(30, 71)
    assert 0.22 < lo < 0.30


def test_lemma8_closed_forms_and_range():
    # the last line of Lemma 10's proof at beta -> 0 is H S (A-1) ln(7/4) / (336 eps alpha)
    assert vc.hard_instance_first_step(2, 3, 4, 1.0, 0.1, 1e-300) == pytest.approx(4 * 2 * 2 * math.log(7 / 4) / 33.6)
    assert vc.lemma8_pulls(1.0, 0.5, 0.25) == 0.0           # ln(1/(4 beta)) vanishes at beta = 1/4
    d = vc.check_lemma8(None, grid=({"S": 2, "A": 2, "H": 2},), betas=(1e-3, 0.124))
    assert d["holds"].all() and (d["beta_s"] < 0.25).all() and (d["eq4_gap"] > 0.0625 - 1e-12).all()
    # beta_s reaches 1/4 at beta = 1/8: the proof's beta < 1/8 is exactly what Lemma 8 needs
    assert 1 - 6 / 7 * (1 - 0.125) == pytest.approx(0.25)


def test_prop7_widths_cover_and_the_rule_catches_narrow_widths():
    d = g7.check_garcelon_prop7(np.random.default_rng(1), k_grid=(30,), n_trials=20)
    assert d["holds"].all() and (d["quantile_ratio_r"] < 1).all() and (d["quantile_ratio_p"] < 1).all()
    # without privacy noise (eps0 huge: p ~ 0) the statistical widths remain and still cover
    d = g7.check_garcelon_prop7(np.random.default_rng(2), k_grid=(200,), eps0=200.0, n_trials=20)
    assert d["holds"].all() and d["p"].iloc[0] < 1e-3


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


@pytest.mark.slow  # ~7 s: compiles SDP-PE's kernel and renders four figures
def test_new_check_figures_pass_the_figure_check(tmp_path):
    """The four checks' figures at tiny sizes: column width, readable, legends off the data."""
    from privrl.papers import registry
    from privrl.results import figure_check

    tiny = {"vietri_lemma8": {}, "garcelon_prop7": {"k_grid": [10, 100], "n_trials": 10},
            "bai_assumption4": {"n_users": 50, "n_trials": 10},
            "bai_elimination": {"agents": ["pe", "sdp-pe-jdp"], "C_grid": [0.18, 1.0], "K": 500, "n_seeds": 5}}
    checks = registry.theorem_checks()
    for name, sizes in tiny.items():
        c = checks[name]
        c.figure(c.run(np.random.default_rng(0), **c.arguments(sizes, {"experiments": {}})), tmp_path / f"{name}.png")
    assert figure_check.figure_problems(tmp_path) == []
