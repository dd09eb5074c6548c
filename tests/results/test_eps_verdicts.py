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


def test_eps_exponent_k_needed_is_the_second_cell_entering_its_regime():
    needs = [1e6, 1e8, 1e9, 1e10]  # k_needed of the four eps cells; the run window ends at 1e5
    b, g = EV.score_eps_dependence(_cells(1.0, needs), 0.0, "power", (1.0, 1.0))
    assert b.verdict == g.verdict == V.NOT_REACHED
    assert b.k_needed == pytest.approx(1e6) and g.k_needed == pytest.approx(1e8)
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
