"""eps-dependence verdicts (privrl.results.eps_verdicts) on synthetic cells: one-sided against the upper
bound, K needed from the second cell in regime, Shuffled-OBI's eps law, pooled b with disagreeing slopes."""
from __future__ import annotations

import math

import pytest

from privrl.results import verdicts as V
from privrl.results import eps_verdicts as EV


def _cells(gamma, needs):
    cells = []
    for eps, need in zip((0.5, 1.0, 2.0, 5.0), needs):
        cross = need / 1000.0  # Regime.k_needed = 10 x crossover x (window_hi / window_lo = 100)
        w = (1e3, 1e5)
        D = 100.0 * eps ** -gamma
        cells.append(EV.EpsCell(eps, 0.0, -0.05, 0.05, D, D * 0.95, D * 1.05, V.Regime(cross, *w, 0.0)))
    return cells


def test_eps_exponent_is_one_sided_against_the_upper_bound():
    in_reg = [1e0] * 4  # crossover 1e-3: every cell in regime
    _, g = EV.score_eps_dependence(_cells(0.3, in_reg), 0.0, "power", (1.0, 1.0))
    assert g.verdict == V.REPRODUCED  # gamma = 0.3 below 1: meets the upper bound (was: contradicted)
    _, g = EV.score_eps_dependence(_cells(2.0, in_reg), 0.0, "power", (1.0, 1.0))
    assert g.verdict == V.CONTRADICTED


def test_eps_exponent_k_needed_is_the_second_cell_past_ten_times_its_crossover():
    needs = [1e6, 1e8, 1e9, 1e10]  # k_needed of the four eps cells; the run window ends at 1e5
    b, g = EV.score_eps_dependence(_cells(1.0, needs), 0.0, "power", (1.0, 1.0))
    assert b.verdict == g.verdict == V.NOT_REACHED
    # gamma reads D at one K: the second cell past 10 x its crossover (1e5 x 10), not its two-decade window (1e8)
    assert b.k_needed == pytest.approx(1e6) and g.k_needed == pytest.approx(1e6)
    b, g = EV.score_eps_dependence(_cells(1.0, needs)[:1], 0.0, "power", (1.0, 1.0))
    assert g.k_needed == math.inf  # one eps cell: no eps exponent at any K


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


def test_pooled_b_with_disagreeing_slopes_is_not_reproduced():
    from privrl.results import verdicts as V
    from privrl.results import eps_verdicts as EV

    reg = V.Regime(10.0, 1e3, 1e5)
    cells = [EV.EpsCell(e, b, b - 0.05, b + 0.05, 100.0 / e, 90.0 / e, 110.0 / e, reg)
             for e, b in [(0.5, 0.93), (1.0, 0.4), (10.0, -0.21)]]
    b_score, eps_score = EV.score_eps_dependence(cells, 0.5, "power", (1.0, 2.0))
    assert b_score.verdict != "reproduced" and eps_score.verdict != "reproduced"


def test_no_positive_cost_in_regime_is_inconclusive_not_unreached():
    # every eps cell in regime, none with a cost whose CI clears 0 (a baseline above the private runs):
    # nothing to fit, and no larger K is promised
    cells = [EV.EpsCell(e, 0.5, 0.0, 1.0, d, d - 5e5, d + 5e5, V.Regime(1e2, 1e4, 1e6))
             for e, d in ((1.0, -1e6), (10.0, 2e5))]
    b, g = EV.score_eps_dependence(cells, 0.0, "power", (1.0, 1.0))
    assert b.verdict == g.verdict == V.INCONCLUSIVE and "no positive privacy cost" in b.regime
    assert "eps 1: D -1e+06" in b.measured


def test_no_positive_cost_with_cells_still_to_enter_is_not_reached():
    # eps 10 in regime with a D whose CI spans 0; eps 1 (a clear cost) enters its regime at a larger K
    cells = [EV.EpsCell(1.0, 0.5, 0.4, 0.6, 1e4, 9e3, 1.1e4, V.Regime(1e6, 1e4, 1e6)),
             EV.EpsCell(10.0, 0.5, 0.0, 1.0, 10.0, -50.0, 70.0, V.Regime(1e2, 1e4, 1e6))]
    b, g = EV.score_eps_dependence(cells, 0.0, "power", (1.0, 1.0))
    assert b.verdict == V.NOT_REACHED and "positive cost" in b.regime
    assert b.k_needed == cells[0].regime.k_needed(EV.THRESHOLDS)


def test_zero_width_per_eps_slope_or_exponent_is_inconclusive():
    """D constant on the window in every seed gives a per-eps b of zero width (and an eps
    exponent of zero width): neither is an estimate, so neither reads reproduced / consistent."""
    reg = V.Regime(1e-3, 1e3, 1e5, 0.0)
    eps = (0.5, 1.0, 2.0, 5.0)
    flat = [EV.EpsCell(e, 0.0, -1e-16, 1e-16, 100 / e, 95 / e, 105 / e, reg) for e in eps]
    b, g = EV.score_eps_dependence(flat, 0.0, "power", (0.0, 1.0))
    assert b.verdict == V.INCONCLUSIVE and "zero-width per-eps slope" in b.regime
    assert "would read reproduced" in b.regime
    assert g.verdict == V.INCONCLUSIVE and "D constant on the window" in g.regime
    # D at K identical in every seed up to 1e-8 of its value, per-eps slopes sampled: gamma keeps its reading unless
    # its own CI has zero width
    tight = [EV.EpsCell(e, 0.0, -0.01, 0.01, 100 / e, 100 / e * (1 - 1e-8), 100 / e * (1 + 1e-8), reg) for e in eps]
    _, g = EV.score_eps_dependence(tight, 0.0, "power", (0.0, 1.0))
    assert g.verdict == V.REPRODUCED
    # an ordinary sampled interval keeps its verdict
    _, g = EV.score_eps_dependence(_cells(1.0, [1e0] * 4), 0.0, "power", (0.0, 1.0))
    assert g.verdict == V.REPRODUCED


def test_guard_zero_width_keeps_other_verdicts():
    s = V.Score(V.REPRODUCED, "a = 0.854 [0.854, 0.854]", "in regime")
    assert V.guard_zero_width(s, 0.854, 0.854).verdict == V.INCONCLUSIVE
    assert V.guard_zero_width(s, 0.85, 0.86).verdict == V.REPRODUCED
    assert V.guard_zero_width(V.Score(V.NOT_REACHED, "", ""), 1.0, 1.0).verdict == V.NOT_REACHED


def _point_cells(gamma, eps=(1.0, 2.0, 4.0, 10.0), b=0.05, cross=1e4, window=(1e3, 1e5)):
    """D ~ eps^-gamma at K = 1e5, each cell past 10 x its crossover (1e4 x 10) at K but its window not."""
    return [EV.EpsCell(e, b, b - 0.02, b + 0.02, 100.0 * e ** -gamma, 98.0 * e ** -gamma, 102.0 * e ** -gamma,
                       V.Regime(cross, *window, 0.0)) for e in eps]


def test_rule_a_gamma_reads_d_at_k_past_ten_times_the_crossover_where_d_has_flattened():
    b, g = EV.score_eps_dependence(_point_cells(1.0), 0.0, "power", (1.0, 1.0))
    assert b.verdict == V.NOT_REACHED  # b still needs its whole window past 10 x the crossover
    assert g.verdict == V.REPRODUCED and "flattened" in g.regime
    _, g = EV.score_eps_dependence(_point_cells(1.0, b=0.4), 0.0, "power", (1.0, 1.0))
    assert g.verdict == V.NOT_REACHED and "not flattened" in g.measured  # D still growing: not read
    # the formula's K (1e5) was run: the K printed is where the steep cells' whole window is past 10 x the
    # crossover (1e4 x 10 x 100), never a K at or below the one run
    assert g.k_needed == pytest.approx(1e7) and "window of eps 1, 2, 4, 10 past 10 x" in g.measured
    _, g = EV.score_eps_dependence(_point_cells(1.0, cross=2e4), 0.0, "power", (1.0, 1.0))
    assert g.verdict == V.NOT_REACHED and g.k_needed == pytest.approx(2e5)  # 10 x crossover, not 100 x
    assert EV.gamma_need([(1.0, 2e4), (10.0, 1e3)], False) == pytest.approx(2e5)


def test_rule_a_needs_the_whole_window_where_flattening_cannot_tell_the_regime():
    """A multiplicative cost (b = 1/2) grows like K^(1/2) before its crossover too, so a b below 0.6 is no
    evidence of the regime: its cells count only with their whole window past 10 x the crossover."""
    assert EV.point_regime(0.0) and not EV.point_regime(0.5)
    cells = _point_cells(1.0, b=0.5)  # past 10 x the crossover at K, window not; b 0.5 [0.48, 0.52] "flat"
    _, g = EV.score_eps_dependence(cells, 0.5, "power", (1.0, 2.0))
    assert g.verdict == V.NOT_REACHED and "no evidence of the regime" in g.measured
    assert g.k_needed == pytest.approx(1e7)  # 1e4 x 10 x the window's two decades
    assert EV.gamma_need([(1.0, 1e4), (10.0, 1e3)], False, span=100.0) == pytest.approx(1e7)
    _, g = EV.score_eps_dependence(_point_cells(1.0, b=0.5, window=(1e5, 1e7)), 0.5, "power", (1.0, 2.0))
    assert g.verdict == V.REPRODUCED  # every window past 10 x its crossover: read as before


def test_rule_b_two_sided_lower_side_rejects_the_twins_not_the_bonus_shape():
    # PUCB's Hoeffding bonus predicts gamma 0.86 on the bandit: inside [0.5, 1.1], not below a 0.9 side
    _, g = EV.score_eps_dependence(_point_cells(0.86), 0.0, "power", (1.0, 1.0), gamma_two_sided=True)
    assert g.verdict == V.REPRODUCED and "[0.5, 1.1]" in g.measured
    _, blind = EV.score_eps_dependence(_point_cells(0.0), 0.0, "power", (1.0, 1.0), gamma_two_sided=True)
    assert blind.verdict == V.INCONCLUSIVE and EV.BELOW_LOWER in blind.regime  # the eps-blind twin is rejected
    assert "read on [0.5, 1.1]" in EV.gamma_claim_text((1.0, 1.0), True)
    assert EV.gamma_lower((1.0, 2.0)) == 0.5


def test_rule_c_two_sided_reads_eps_in_1_to_10_where_that_grid_suffices():
    assert EV.gamma_eps([0.3, 1, 2, 4, 10], True) == [1, 2, 4, 10]
    assert EV.gamma_eps([0.1, 0.3, 1, 3, 10], True) == [0.1, 0.3, 1, 3, 10]  # three inside: every cell
    assert EV.gamma_eps([0.3, 1, 2, 4, 10], False) == [0.3, 1, 2, 4, 10]  # one-sided: every cell
    # the 0.3 cell (crossover 1e6) no longer sets the need: 10 x the slowest of {1, 2, 4, 10}
    pairs = [(0.3, 1e6), (1.0, 3e5), (2.0, 1.5e5), (4.0, 8e4), (10.0, 3e4)]
    assert EV.gamma_need(pairs, True) == pytest.approx(3e6)
    cells = _point_cells(1.0, eps=(0.3, 1.0, 2.0, 4.0, 10.0))
    cells[0] = EV.EpsCell(0.3, 0.5, 0.45, 0.55, 1.0, 0.9, 1.1, V.Regime(1e7, 1e3, 1e5, 0.0))  # far from its regime
    _, g = EV.score_eps_dependence(cells, 0.0, "power", (1.0, 1.0), gamma_two_sided=True)
    assert g.verdict == V.REPRODUCED and "over 4 eps" in g.regime
