"""Vietri et al. / Garcelon et al. claims on synthetic data: regime gates, one-sided bounds, the
Shuffled-OBI eps law, the coverage caveat and Prop. 5 on the exact eps."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.papers.garcelon2021 import thm6 as G
from privrl.results import bound_verdicts as BV
from privrl.papers.vietri2020 import bounds as VB
from privrl.results import verdicts as V
from privrl.results import eps_verdicts as EV


def _fit(a, lo, hi, w=(1e4, 1e6)):
    return V.RateFit(a, lo, hi, w[0], w[1])


def test_table1_linear_rate_before_crossover_is_not_reached():
    # PUCB at eps0 = 1, bonus 0.1 on RiverSwim S=2 H=3: crossover ~9e6 > K = 1e6
    s = V.score_rate_upper(_fit(0.99, 0.98, 1.0), 0.5, V.THRESHOLDS.log_allowance, V.Regime(9e6, 1e4, 1e6, 0.6))
    assert s.verdict == V.NOT_REACHED and s.k_needed == pytest.approx(10 * 9e6 * 100)


def test_saturated_cell_in_regime_is_never_contradicted():
    s = V.score_rate_upper(_fit(0.99, 0.98, 1.0), 0.5, 0.1, V.Regime(10.0, 1e4, 1e6, 0.5))
    assert s.verdict != V.CONTRADICTED


def test_shuffled_eps_law_is_not_a_power_law():
    g = EV.EPS_LAWS["garcelon_shuffle"]
    # regret ~ g(eps)^1 exactly: the eps exponent against g is 1, against 1/eps it is not constant
    eps = [0.5, 1.0, 2.0, 5.0]
    cells = [EV.EpsCell(e, 0.5, 0.45, 0.55, 100 * g(e), 95 * g(e), 105 * g(e), V.Regime(1.0, 1e4, 1e6))
             for e in eps]
    _, s = EV.score_eps_dependence(cells, 0.5, "garcelon_shuffle", (0.0, 1.0))
    assert s.verdict == V.REPRODUCED
    gam, _, _ = EV.eps_exponent(cells, "garcelon_shuffle")
    assert gam == pytest.approx(1.0, abs=1e-6)


def test_eps_dependence_without_regime_is_not_reached_with_k():
    cells = [EV.EpsCell(e, 1.0, 0.99, 1.0, 10.0, 9.0, 11.0, V.Regime(1e9, 1e4, 1e6)) for e in (1.0, 10.0)]
    _, s = EV.score_eps_dependence(cells, 0.5, "garcelon_shuffle", (0.0, 1.0))
    assert s.verdict == V.NOT_REACHED and math.isfinite(s.k_needed)


def test_coverage_hook():
    matched, note = G.coverage_note({"epsilon": 1.0}, {"epsilon": 1.0})
    assert not matched and "paper constants" in note
    matched, note = G.coverage_note({"z": 3.0}, {"z": 3.0})
    assert matched and "3 sd" in note


def test_jdp_ldp_order_before_crossover_is_not_reached():
    s = V.score_order((2.0, 1.8, 2.2), False, False, G.COVERAGE_CAVEAT, k_needed=1e10)
    assert s.verdict == V.NOT_REACHED and s.k_needed == 1e10


def test_prop5_at_tau_100_hypothesis_fails():
    s, row = G.amplification_score(1.0, 1.0, 100, 3, 1, 1e-3, releases=10 ** 6)
    assert not row["prop5_hypothesis"] and row["k_hypothesis"] > 100
    assert s.verdict == V.NOT_REACHED and "repeated releases" in s.regime
    s2, row2 = G.amplification_score(1.0, 1.0, 1000, 3, 1, 1e-3, releases=10 ** 6)
    assert row2["prop5_hypothesis"] and row2["exact_eps"] < row2["prop5_eps"]
    assert s2.verdict == V.REPRODUCED


def test_one_sided_bound_never_contradicts_an_O_expression():
    s = BV.score_bound_one_sided((50.0, 45.0, 55.0), lambda k: 10.0, 1e6, 1.0, "constants")
    assert s.verdict == V.INCONCLUSIVE
    s = BV.score_bound_one_sided((5.0, 4.0, 6.0), lambda k: 10.0, 1e6, 1.0, "constants")
    assert s.verdict == V.REPRODUCED
    s = BV.score_bound_one_sided((5.0, 4.0, 6.0), lambda k: 1e7, 1e6, 1.0, "constants")
    assert s.verdict == V.NOT_REACHED and s.k_needed > 1e6  # vacuous until K = ...


def test_lower_bound_scorer():
    lb = lambda k: math.sqrt(24 * k)  # noqa: E731
    assert BV.score_lower_bound((1e5, 9e4, 1.1e5), lb, 1e6, 0.3, "c").verdict == V.REPRODUCED
    assert BV.score_lower_bound((10.0, 9.0, 11.0), lb, 1e6, 0.3, "c").verdict == V.INCONCLUSIVE
    s = BV.score_lower_bound((10.0, 9.0, 11.0), lb, 10.0, 0.3, "c")
    assert s.verdict == V.NOT_REACHED and s.k_needed > 10.0


def test_lower_bound_met_only_by_linear_regret_is_not_a_reproduction():
    """Regret accrued in the linear phase (crossover x gap) meets any sqrt-K bound, before and after
    the crossover: the row is informative only where the bound exceeds that accrued regret."""
    lb = lambda k: math.sqrt(24 * k)  # noqa: E731
    met = (1e5, 9e4, 1.1e5)
    s = BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=1e5)  # accrued 3e4 > lb(1e6) = 4.9e3
    assert s.verdict == V.NOT_REACHED and "uninformative" in s.regime
    assert lb(s.k_needed) >= 3e4 and lb(s.k_needed / 1.5) < 3e4  # where the bound overtakes 3e4 (grid step)
    s = BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=1e11)  # accrued 3e10: no K <= k_max
    assert s.verdict == V.INCONCLUSIVE and "uninformative" in s.regime
    s = BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=float("nan"))
    assert s.verdict == V.INCONCLUSIVE and "unknown" in s.regime
    assert BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=1e4).verdict == V.REPRODUCED  # 3e3 < 4.9e3
    s = BV.score_lower_bound((10.0, 9.0, 11.0), lb, 1e6, 0.3, "c", linear_until=1e11)
    assert s.verdict == V.INCONCLUSIVE and "below" in s.regime  # below the bound: the same at any crossover


def test_vietri_formulas():
    assert VB.pac_expression(2, 2, 3, 0.1, 1.0) == pytest.approx(2 * 2 * 81 / 0.01 + 4 * 2 * 81 / 0.1)  # Thm 3
    b6, b7 = VB.thm4_explicit_bound(1e6, 2, 2, 3, 1.0, 0.05), VB.thm4_explicit_bound(1e7, 2, 2, 3, 1.0, 0.05)
    assert 0 < b6 < b7 and VB.thm4_explicit_bound(1e6, 2, 2, 3, 10.0, 0.05) < b6
    assert VB.lower_bound_expression(100.0, 4, 2, 3, 1.0) == pytest.approx(math.sqrt(2400) + 24 * math.log(100))
    assert VB.privacy_lower_term(100.0, 4, 2, 3, 1.0) == pytest.approx(24 * math.log(100))


def test_claim_checks_are_checked_not_reproduced():
    c = V.make_claim("garcelon2021", "Table 1", "x", "local eps", "check", "a", V.score_check(True, "ok"))
    assert c.verdict == V.CHECKED
    assert np.isfinite(G.amplification_score(10.0, 4.615, 100, 3, 1, 1e-3, 1)[1]["exact_eps"])
