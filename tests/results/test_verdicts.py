"""Verdict rules (privrl.results.verdicts) on synthetic fits: one test per scoring defect."""
import ast
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrl.results import claims as C
from privrl.results import fits
from privrl.results import verdicts as V
from privrl.results import eps_verdicts as EV

TH = V.THRESHOLDS
IN = V.Regime(crossover_K=1e3, window_lo=1e4, window_hi=1e6, saturation=0.0)       # 10 x crossover reached
PRE = V.Regime(crossover_K=1e7, window_lo=1e4, window_hi=1e6, saturation=0.6)      # Table-1-like: before crossover


def fit(a, lo, hi, w=(1e4, 1e6)):
    return V.RateFit(a, lo, hi, *w, n_seeds=8)


def test_pre_crossover_linear_regret_is_not_reached_with_K_needed():
    s = V.score_rate_upper(fit(0.99, 0.98, 1.0), TH.sqrt_k_exponent, TH.log_allowance, PRE)
    assert s.verdict == V.NOT_REACHED
    assert s.k_needed == pytest.approx(TH.regime_factor * 1e7 * 100)
    assert "need K >= 1e+10" in s.regime


def test_saturated_cell_is_never_contradicted():
    sat = V.Regime(1e3, 1e4, 1e6, saturation=TH.saturation_gate + 0.3)
    s = V.score_rate_upper(fit(0.99, 0.98, 1.0), 0.5, TH.log_allowance, sat)
    assert s.verdict == V.INCONCLUSIVE
    assert V.score_rate_upper(fit(0.99, 0.98, 1.0), 0.5, TH.log_allowance, IN).verdict == V.CONTRADICTED
    low = V.score_rate_lower(fit(0.2, 0.1, 0.3), 1.0, 0.0, sat)
    assert low.verdict == V.INCONCLUSIVE


def test_saturation_gate_catches_partially_saturated_cells():
    """Table 1 cells at 46-78% saturation are still exploring (the old gate was 0.9)."""
    for frac in (0.46, 0.78):
        assert V.Regime(1e3, 1e4, 1e6, frac).saturated()
    assert fits.SATURATED_FRACTION == TH.saturation_gate


def test_upper_bound_is_one_sided():
    """An O~(sqrt K) bound is met by a smaller exponent (a two-sided 0.5 +/- tol would fail it)."""
    assert V.score_rate_upper(fit(0.1, 0.05, 0.15), 0.5, TH.log_allowance, IN).verdict == V.REPRODUCED
    pre = V.score_rate_upper(fit(0.1, 0.05, 0.15), 0.5, TH.log_allowance, PRE)  # scored only in regime
    assert pre.verdict == V.NOT_REACHED and "met on this pre-regime window" in pre.measured
    assert V.score_rate_upper(fit(0.6, 0.55, 0.65), 0.5, TH.log_allowance, IN).verdict == V.INCONCLUSIVE


def _cells(bs, eps=(1.0, 2.0, 5.0, 10.0), regime=IN, law=lambda e: 1 / e, gamma=1.5):
    return [EV.EpsCell(e, b, b - 0.05, b + 0.05, 100 * law(e) ** gamma, 90 * law(e) ** gamma,
                      110 * law(e) ** gamma, regime) for e, b in zip(eps, bs)]


def test_pooled_b_with_disagreeing_per_eps_slopes_is_not_reproduced():
    b, c = EV.score_eps_dependence(_cells([1.0, 0.7, 0.4, 0.1]), 0.5, "power", (1.0, 2.0))
    assert b.verdict == c.verdict == V.INCONCLUSIVE
    assert "disagree" in b.regime


def test_homogeneous_cells_score_b_and_eps_exponent_one_sided():
    b, c = EV.score_eps_dependence(_cells([0.3, 0.32, 0.29, 0.31]), 0.5, "power", (1.0, 2.0))
    assert b.verdict == V.REPRODUCED           # 0.3 < 0.5 + allowance: an upper bound is met
    assert c.verdict == V.REPRODUCED           # gamma = 1.5 below the upper end 2 (+ allowance)
    b, c = EV.score_eps_dependence(_cells([0.3] * 4, gamma=3.0), 0.5, "power", (1.0, 2.0))
    assert c.verdict == V.CONTRADICTED


def test_negative_eps_exponent_is_not_reproduced():
    """D growing with eps (gamma's CI below 0) exceeds no upper bound but shows no 1/eps either:
    inconclusive, the row saying why; a CI that reaches 0 or above keeps the one-sided reading."""
    b, c = EV.score_eps_dependence(_cells([0.3] * 4, gamma=-1.0), 0.5, "power", (1.0, 2.0))
    assert c.verdict == V.INCONCLUSIVE and "grows with eps" in c.regime and "gamma = -1" in c.measured
    assert b.verdict == V.REPRODUCED                     # the K-slope is scored as before
    _, c = EV.score_eps_dependence(_cells([0.3] * 4, gamma=0.5), 0.5, "power", (1.0, 2.0))
    assert c.verdict == V.REPRODUCED                     # a smaller positive exponent meets the bound
    wide = [EV.EpsCell(e, 0.3, 0.25, 0.35, 100 / e ** -0.05, 10 / e ** -0.05, 1000 / e ** -0.05, IN)
            for e in (1.0, 2.0, 5.0, 10.0)]
    gamma, lo, hi = EV.eps_exponent(wide, "power")
    assert lo < 0 < hi
    assert EV.score_eps_dependence(wide, 0.5, "power", (1.0, 2.0))[1].verdict == V.REPRODUCED


def test_garcelon_eps_law_is_not_a_power_law():
    g = EV.EPS_LAWS["garcelon_shuffle"]
    cells = _cells([0.4] * 4, eps=(0.5, 1.0, 2.0, 5.0), law=g, gamma=1.0)
    gamma, lo, hi = EV.eps_exponent(cells, "garcelon_shuffle")
    assert gamma == pytest.approx(1.0) and lo < 1.0 < hi
    _, c = EV.score_eps_dependence(cells, 0.5, "garcelon_shuffle", (1.0, 1.0))
    assert c.verdict == V.REPRODUCED
    power, _, _ = EV.eps_exponent(cells, "power")
    assert abs(power - 1.0) > 0.3             # the same data read as eps^-c is far from c = 1


def test_pre_regime_eps_cells_are_not_reached():
    b, c = EV.score_eps_dependence(_cells([1.0, 0.9, 0.8, 0.7], regime=PRE), 0.0, "power", (1.0, 1.0))
    assert b.verdict == V.NOT_REACHED and np.isfinite(b.k_needed)


def test_shuffle_local_ratio_without_elimination_is_not_an_order():
    r = (1.15, 1.09, 1.23)
    no_elim = V.score_order(r, strong=True, condition=False, condition_note="no policy eliminated")
    assert no_elim.verdict != V.REPRODUCED
    assert V.score_order(r, strong=True, condition=True, condition_note="eliminated").verdict == V.INCONCLUSIVE
    assert V.score_order((3.0, 2.5, 3.5), strong=True, condition=True, condition_note="").verdict == V.REPRODUCED
    assert V.score_order((0.8, 0.7, 0.9), strong=False, condition=True, condition_note="").verdict == V.CONTRADICTED


def test_ratio_bounded_by_slope_of_log_ratio():
    assert V.score_ratio_bounded(fit(0.01, -0.02, 0.04), IN).verdict == V.REPRODUCED
    assert V.score_ratio_bounded(fit(0.4, 0.3, 0.5), IN).verdict == V.CONTRADICTED
    assert V.score_ratio_bounded(fit(0.0, -0.01, 0.01), PRE).verdict == V.NOT_REACHED


def test_fit_ratio_exponent_on_synthetic_curves():
    K = np.geomspace(10, 1e6, 40)
    rng = np.random.default_rng(0)
    num = np.outer(1 + 0.01 * rng.random(5), 3 * np.sqrt(K))
    den = np.outer(1 + 0.01 * rng.random(5), np.sqrt(K))
    f = fits.fit_ratio_exponent(K, num, den, rng, n_boot=200)
    assert abs(f["exponent"]) < 1e-3 and f["exponent_lo"] <= f["exponent_hi"]


def test_bound_vacuous_prints_K_and_o_tilde_is_not_a_number():
    s = V.score_bound((50.0, 40.0, 60.0), lambda k: 1e4 * math.sqrt(k), 100.0, trivial_per_episode=1.0)
    assert s.verdict == V.NOT_REACHED and "vacuous until K" in s.regime
    assert s.k_needed == pytest.approx(1e8, rel=0.1)
    assert V.score_bound((50.0, 40.0, 60.0), lambda k: 10 * k ** 0.5, 1e4, 1.0).verdict == V.REPRODUCED
    assert V.score_bound((50.0, 40.0, 60.0), lambda k: k, 1e4, 1.0, explicit=False).verdict == V.INCONCLUSIVE


def test_amplification_needs_prop5_hypothesis():
    s = V.score_amplification(1.0, 0.3, 140.2, hypothesis_holds=False, k=100, k_hypothesis=2e3, releases=1000)
    assert s.verdict == V.NOT_REACHED and s.k_needed == 2e3 and "compose" in s.regime
    assert V.score_amplification(1.0, 0.3, 0.9, True, 1e5, 2e3).verdict == V.REPRODUCED


def test_checks_are_not_reproductions():
    assert V.score_check(True, "max rel diff 2e-16").verdict == V.CHECKED
    with pytest.raises(ValueError):
        V.Claim("lu2026", "Cor. 14", "x", "s", "check", "a", "m", V.REPRODUCED)
    with pytest.raises(ValueError):
        V.Claim("lu2026", "Cor. 14", "x", "s", "rate", "a", "m", V.CHECKED)
    with pytest.raises(ValueError):
        V.Claim("lu 2020", "Cor. 14", "x", "s", "rate", "a", "m", V.REPRODUCED)  # not a paper id


def _table():
    mk = V.make_claim
    return [mk("vietri2020", "Thm 4", "a1", "PUCB O~(sqrt K) | pipe", "rate", "f.png",
               V.score_rate_upper(fit(0.99, 0.98, 1.0), 0.5, 0.1, PRE)),
            mk("bai_sdp_pe", "Table I", "b1", "shuffle << local", "order", "t.md",
               V.score_order((1.15, 1.09, 1.23), True, False, "no elimination", 5e7)),
            mk("lu2026", "Cor. 14", "c1", "Cor 14 = min Thm 13", "check", "l.md", V.score_check(True, "2e-16")),
            mk("vietri2020", "Thm 5", "a2", "lower bound", "rate", "f.png",
               V.score_rate_lower(fit(0.6, 0.55, 0.65), 0.5, 0.1, IN))]


def test_csv_and_md_agree_row_for_row(tmp_path):
    cl = _table()
    C.write_claims(cl, str(tmp_path / "claims.csv"), str(tmp_path / "CLAIMS.md"))
    df = pd.read_csv(tmp_path / "claims.csv")
    back = C.claims_from_frame(df)
    assert [c.claim_id for c in back] == [c.claim_id for c in cl] and back[0].k_needed == cl[0].k_needed
    md = (tmp_path / "CLAIMS.md").read_text()
    rows = [ln for ln in md.split("## Key")[1].splitlines() if ln.startswith("| ") and " | **" in ln]
    verdicts = [ln.split("**")[1] for ln in rows]
    by_paper = sorted(range(len(cl)), key=lambda i: list(V.PAPERS).index(cl[i].paper))  # sections in paper order
    assert verdicts == [cl[i].verdict for i in by_paper]
    assert all(cl[i].statement.split(" |")[0] in row for i, row in zip(by_paper, rows))
    assert not any(c.claim_id in md for c in cl)  # ids only in claims.csv
    assert "1e+10" in md and md.index("## Scoreboard") < md.index("## Key") < md.index('<a id="vietri2020">')


def test_only_claim_tables_render():
    """Every producer builds Claims; a table without the claims.csv columns is refused, not guessed."""
    df = pd.DataFrame([{"experiment": "e", "id": "x", "statement": "regret K-exponent < 0.6",
                        "artifact": "a", "measured": "a = 0.99", "verdict": "not reproduced"}])
    with pytest.raises(ValueError, match="not a claims table"):
        C.claims_from_frame(df)


def test_thresholds_in_one_place():
    """verdicts.py holds no numeric literal outside the Thresholds table except 0, 1, 2."""
    src = Path(V.__file__).read_text()
    tree = ast.parse(src)
    table = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Thresholds")
    inside = {id(n) for n in ast.walk(table)}
    stray = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) in (int, float)
             and id(n) not in inside and n.value not in (0, 1, 2)]
    assert stray == []
    from privrl.agents.crossover import K_MAX
    assert TH.k_max == K_MAX


def test_eps_cells_from_a_privacy_cost_fit():
    from privrl.results.privacy_fits import eps_cells, fit_privacy_cost

    rng = np.random.default_rng(1)
    K = np.geomspace(10, 1e5, 30)
    base = np.outer(1 + 0.01 * rng.random(6), 10 * np.log(K))
    priv = {e: base + np.outer(1 + 0.01 * rng.random(6), 50 * K ** 0.3 / e) for e in (1.0, 2.0, 5.0)}
    f = fit_privacy_cost(K, priv, base, rng, n_boot=200)
    cells = eps_cells(f, {e: IN for e in priv})
    b, c = EV.score_eps_dependence(cells, 0.5, "power", (1.0, 2.0))
    assert b.verdict == V.REPRODUCED and c.verdict == V.REPRODUCED


def test_slopes_closer_than_the_allowance_are_homogeneous():
    r = V.Regime(1.0, 1e4, 1e6)
    a = EV.EpsCell(1.0, 0.0, -0.01, 0.01, 1.0, 0.9, 1.1, r)
    b = EV.EpsCell(10.0, 0.06, 0.03, 0.09, 0.1, 0.09, 0.11, r)
    assert EV.homogeneous([a, b])
    far = EV.EpsCell(10.0, 0.6, 0.5, 0.7, 0.1, 0.09, 0.11, r)
    assert not EV.homogeneous([a, far])


def _fit(a, lo, hi, w=(1e4, 1e6)):
    """As :func:`fit`, at RateFit's default number of seeds."""
    return V.RateFit(a, lo, hi, w[0], w[1])


def test_table1_linear_rate_before_crossover_is_not_reached():
    # PUCB at eps0 = 1, bonus 0.1 on RiverSwim S=2 H=3: crossover ~9e6 > K = 1e6
    s = V.score_rate_upper(_fit(0.99, 0.98, 1.0), 0.5, V.THRESHOLDS.log_allowance, V.Regime(9e6, 1e4, 1e6, 0.6))
    assert s.verdict == V.NOT_REACHED and s.k_needed == pytest.approx(10 * 9e6 * 100)


def test_saturated_cell_in_regime_is_never_contradicted():
    s = V.score_rate_upper(_fit(0.99, 0.98, 1.0), 0.5, 0.1, V.Regime(10.0, 1e4, 1e6, 0.5))
    assert s.verdict != V.CONTRADICTED
