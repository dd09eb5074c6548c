"""The claim plan reads each config check type's regime: a rate needs its window past the
crossover; "still exploring" holds only up to the crossover, so no larger K reaches it."""
import math

from privrl.plan import claims as claim_plan

CONFIG = {
    "results_dir": "results/t", "figures_dir": "results/t/figures",
    "experiments": {"explore": {
        "paper": "cross_paper", "episodes": 2000, "seeds": 2,
        "envs": {"riverswim": {"name": "riverswim", "params": {"S": 2, "H": 3}}},
        "cells": [{"agent": "ucbvi", "params": {"bonus_scale": 1.0}}],
        "claims": [
            {"id": "still_exploring", "statement": "UCBVI still exploring", "source": "Azar et al. 2017",
             "check": {"type": "exploring", "env": "riverswim", "select": {"bonus_scale": 1.0}}},
            {"id": "sublinear", "statement": "UCBVI sublinear", "source": "Azar et al. 2017",
             "check": {"type": "rate_upper", "env": "riverswim", "select": {"bonus_scale": 1.0}, "claimed": 0.5}},
        ]}},
}


def _rows(episodes):
    cfg = {**CONFIG, "experiments": {"explore": {**CONFIG["experiments"]["explore"], "episodes": episodes}}}
    claims, _ = claim_plan.plan(cfg)
    return {c.claim: c for c in claims if c.experiment == "explore"}


def test_exploring_is_in_regime_below_the_crossover_and_past_its_phase_above():
    rows = _rows(10)
    explore, rate = rows["still_exploring"], rows["sublinear"]
    cross = next(iter(explore.crossovers.values()))
    assert explore.k_needed == claim_plan.NO_K and explore.k_max == cross and explore.in_regime
    assert not rate.in_regime and math.isfinite(rate.k_needed) and rate.k_needed > cross
    late = _rows(int(10 * cross))["still_exploring"]
    assert late.past_its_phase and not late.in_regime and not late.out_of_reach
    assert "past phase" in late.text() and f"<= {cross:.3g}" in late.text()


def test_every_config_check_type_has_a_regime_rule():
    from privrl.results.claims import CHECKS

    assert set(claim_plan.CONFIG_CHECK_REGIME) == set(CHECKS)


def test_the_verdict_scores_exploring_in_the_same_phase_the_plan_plans():
    from privrl.results import verdicts as V

    fit = V.RateFit(1.0, 0.98, 1.02, 1e3, 1e5)
    assert V.score_exploring(fit, V.Regime(1e6, 1e3, 1e5)).verdict == V.REPRODUCED  # window before the crossover
    past = V.score_exploring(fit, V.Regime(1e4, 1e3, 1e5))
    assert past.verdict == V.INCONCLUSIVE and "past the linear phase" in past.regime
    flat = V.RateFit(0.5, 0.45, 0.55, 1e3, 1e5)
    assert V.score_exploring(flat, V.Regime(1e6, 1e3, 1e5)).verdict == V.CONTRADICTED


def test_the_claim_plan_reads_a_design_through_the_door(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("experiments:\n  x: {episodes: -3}\n")
    assert claim_plan.main(["--configfile", str(bad)]) == 2
    assert "experiments.x.episodes: -3 is less than the minimum of 10" in capsys.readouterr().err
