"""Bai et al. and Lu et al. claims on synthetic runs: every verdict through privrl.results.verdicts,
in the regime of each cell (crossover K), one-sided where the paper states an upper bound."""
import math

import numpy as np
import pandas as pd
import pytest

from privrl.results import claims as C
from privrl.results import verdicts as V
from privrl.papers import bai_sdp_pe as bai
from privrl.papers.bai_sdp_pe import theorems as thm
from privrl.papers.lu2026 import comparisons as luc
from privrl.papers.analysis import AnalysisContext
from privrl.papers.scoring import slope_fit

EP = np.unique(np.round(np.geomspace(10, 2_000_000, 40))).astype(np.int64)
GARNET = {"name": "garnet", "params": {"S": 2, "A": 2, "branching": 2, "H": 1, "seed": 1}}
SDP = {"epsilon": 1.0, "beta": 1e-5, "delta": 0.05, "C": 1e-4, "C1": 6e-4, "max_policies": 65536.0}


def _context(tmp_path, cells, config=None, env=GARNET, experiment="exp"):
    """cells: list of (agent, params, regret(ep) -> float64[C] per seed list, active fraction at K)."""
    infos, paths, fits, aggs = [], {}, [], []
    rng = np.random.default_rng(0)
    for j, (agent, params, curve, active) in enumerate(cells):
        cell = f"{agent}_{j}"
        rows = []
        for seed in range(6):
            R = curve(EP.astype(float)) * (1 + 0.01 * rng.standard_normal())
            aux = np.where(EP >= EP[-2], active, 1.0) * EP
            rows.append(pd.DataFrame({"seed": seed, "episode": EP, "cum_regret": R, "cum_aux": aux}))
        p = tmp_path / f"{cell}.parquet"
        pd.concat(rows).to_parquet(p)
        paths[("g", cell)] = str(p)
        infos.append({"agent": agent, "params": params, "cell": cell, "env_key": "g", "episodes": int(EP[-1]),
                      "reconstruction": False, "guarantees": [], "tags": {}, "label": cell})
        mean = curve(EP.astype(float))
        m = EP >= EP[-1] / 10
        a = np.polyfit(np.log(EP[m]), np.log(mean[m]), 1)[0]
        fits.append({"env": "g", "cell": cell, "agent": agent, "exponent": a, "exponent_lo": a - 0.02, "exponent_hi": a + 0.02,
                     "window_lo": float(EP[m][0]), "window_hi": float(EP[-1]), "n_seeds": 6,
                     "saturated_fraction": active})
        aggs.append(pd.DataFrame({"env": "g", "cell": cell, "episode": EP, "mean": mean, "ci_low": mean,
                                  "ci_high": mean}))
    cfg = {"envs": {"g": env}, "fit_decades": 1, **(config or {})}
    return AnalysisContext(experiment, cfg, pd.DataFrame(fits), pd.concat(aggs), infos, paths, str(tmp_path), 200)


def _by_id(frame):
    return {cid.split("exp_", 1)[1]: r for cid, r in zip(frame.claim_id, frame.to_dict("records"))}


def test_shuffle_vs_local_needs_an_elimination_and_a_minimum_effect(tmp_path):
    lin = lambda k: 0.3 * k  # noqa: E731  explorers: linear regret
    cells = [("sdp-pe-jdp", SDP, lin, 1.0), ("sdp-pe", SDP, lin, 1.0),
             ("sdp-pe-ldp", SDP, lambda k: 0.3 * 1.15 * k, 1.0)]
    _, claims = bai.trust_rows(_context(tmp_path, cells))
    got = {c.claim_id.split("_")[1]: c for c in claims}
    local = [c for c in claims if "shuffle_lt_local" in c.claim_id][0]
    assert local.verdict == V.NOT_REACHED and math.isfinite(local.k_needed)  # ratio 1.15, nothing eliminated
    assert "no policy eliminated" in local.regime
    assert got  # the ratio claim is emitted too
    # with an elimination and R_local / R_shuffle = 3 the strong order is reproduced
    cells = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: 40 * np.sqrt(k), 0.5),
             ("sdp-pe-ldp", SDP, lambda k: 120 * np.sqrt(k), 1.0)]
    _, claims = bai.trust_rows(_context(tmp_path, cells))
    local = [c for c in claims if "shuffle_lt_local" in c.claim_id][0]
    assert local.verdict == V.REPRODUCED


def test_shuffle_over_central_ratio_bounded_only_in_regime(tmp_path):
    cells = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: 60 * np.sqrt(k), 0.5)]
    _, claims = bai.trust_rows(_context(tmp_path, cells))
    ratio = [c for c in claims if "shuffle_matches_central" in c.claim_id][0]
    assert ratio.kind == "ratio" and ratio.verdict == V.REPRODUCED  # crossover ~ 4e3 << window [2e5, 2e6]
    assert "central <= shuffle" in ratio.statement and "not scored" in ratio.statement
    grow = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: k**0.75, 0.5)]
    _, claims = bai.trust_rows(_context(tmp_path, grow))
    assert [c for c in claims if "shuffle_matches_central" in c.claim_id][0].verdict == V.CONTRADICTED
    # a shuffle run still linear at K after eliminating policies has lost pi*: never contradicted
    lost = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: 0.3 * k, 0.5)]
    _, claims = bai.trust_rows(_context(tmp_path, lost))
    c = [c for c in claims if "shuffle_matches_central" in c.claim_id][0]
    assert c.verdict == V.INCONCLUSIVE and "eliminated pi* on 6/6 seeds" in c.regime
    # the same growing ratio before the shuffle run's crossover (C = 1: crossover ~ 6e7) is "not reached"
    big = {**SDP, "C": 1.0, "C1": 6.0}
    grow = [("sdp-pe-jdp", big, lambda k: 30 * np.sqrt(k), 1.0), ("sdp-pe", big, lambda k: 0.3 * k, 1.0)]
    _, claims = bai.trust_rows(_context(tmp_path, grow))
    c = [c for c in claims if "shuffle_matches_central" in c.claim_id][0]
    assert c.verdict == V.NOT_REACHED and c.k_needed > 1e8


def test_error_level_slope_one_sided_and_in_regime(tmp_path):
    pe = {k: v for k, v in SDP.items() if k not in ("epsilon", "beta")}
    cells = [("pe", pe, lambda k: 10 * np.log(k), 0.5)]
    from privrl.rl import envs
    mdp = envs.make("garnet", **GARNET["params"])
    for agent in ("sdp-pe-jdp", "sdp-pe"):
        for eps in (1.0, 4.0):
            info = {"agent": agent, "params": {**SDP, "epsilon": eps}}
            E = thm.run_error_level(info, mdp, EP[-1])
            cells.append((agent, {**SDP, "epsilon": eps}, (lambda E: lambda k: 10 * np.log(k) + 2.0 * E)(E), 0.5))
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, cells))
    from privrl.results import figure_check, style

    style.save_figure(out.figure, tmp_path / "figs/error_level")
    assert figure_check.figure_problems(tmp_path / "figs") == []  # readable in a 3.3 in column
    row = out.claims.iloc[0]
    assert row.kind == "rate" and row.verdict == V.REPRODUCED, row.measured  # D proportional to E
    quad = [cells[0]] + [(a, p, (lambda E: lambda k: 10 * np.log(k) + 0.01 * E**2)(
        thm.run_error_level({"agent": a, "params": p}, mdp, EP[-1])), 0.5) for a, p, _, _ in cells[1:]]
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, quad))
    assert out.claims.iloc[0].verdict == V.CONTRADICTED  # D ~ E^2, every cell past 10 x its crossover
    # cells that eliminated nothing are not in regime: "not reached" with the K needed
    stuck = [(a, {**p, "C": 1.0, "C1": 6.0}, f, 1.0) for a, p, f, _ in quad]
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, stuck))
    assert out.claims.iloc[0].verdict == V.NOT_REACHED and out.claims.iloc[0].k_needed > EP[-1]


def test_thm11_scores_only_eps_below_one(tmp_path):
    pe = {k: v for k, v in SDP.items() if k not in ("epsilon", "beta")}
    cells = [("pe", pe, lambda k: 10 * np.log(k), 0.5)]
    for eps in (0.5, 0.9, 2.0):
        cells.append(("sdp-pe", {**SDP, "epsilon": eps}, (lambda e: lambda k: 10 * np.log(k) + 500 / e)(eps), 0.5))
    out = thm.bai_sdp_pe_thm11(_context(tmp_path, cells))
    from privrl.results import figure_check, style

    style.save_figure(out.figure, tmp_path / "figs/thm11")
    assert figure_check.figure_problems(tmp_path / "figs") == []  # readable in a 3.3 in column
    ids = list(out.claims.claim_id)
    assert not any("eps2" in i for i in ids)  # outside Thm 11: shown, not scored
    v = dict(zip([i.split("exp_")[1] for i in ids], out.claims.verdict))
    assert v["sqrtK_eps0.5_g"] == V.REPRODUCED and v["additive_b_g"] == V.REPRODUCED
    assert v["eps_dependence_g"] == V.REPRODUCED  # D ~ 1/eps, in [0, 1]
    assert bool(out.table.loc[out.table.epsilon == 2.0, "inside_thm11"].iloc[0]) is False


def test_slope_fit_recovers_an_exponent():
    rng = np.random.default_rng(1)
    x = [1.0, 2.0, 4.0, 8.0]
    samples = [xi**1.5 * (1 + 0.01 * rng.standard_normal(20)) for xi in x]
    f = slope_fit(x, samples, rng, 300)
    assert f.lo < 1.5 < f.hi and f.hi - f.lo < 0.05


@pytest.mark.parametrize("eps", [1.0, 10.0, 100.0])
def test_beta_scale_certifies_the_target_eps(eps):
    from privrl.agents.rlsvi import privacy_table

    bs = luc.beta_scale_for_epsilon(eps, 1e-5, 4_000_000, 3, 2, 2)
    assert privacy_table(1e-5, 4_000_000, 3, 2, 2, bs)["eps_cor14"] == pytest.approx(eps, rel=1e-9)


def test_two_explorers_order_nothing(tmp_path):
    ctx = _context(tmp_path, [("pe", {}, lambda k: k, 1.0)])
    x = np.full(6, 100.0)
    s = luc.order_no_larger(ctx, "t", x, 2 * x, {"rlsvi": 1e9, "pucb": 1e8}, 1e6)
    assert s.verdict == V.NOT_REACHED and s.k_needed == pytest.approx(1e10)
    s = luc.order_no_larger(ctx, "t", 2 * x, x, {"rlsvi": 1e3, "pucb": 1e8}, 1e6)
    assert s.verdict == V.NOT_REACHED  # PUCB still explores: its regret says nothing of its rate
    s = luc.order_no_larger(ctx, "t", 2 * x, x, {"rlsvi": 1e3, "pucb": 1e4}, 1e6)
    assert s.verdict == V.CONTRADICTED  # both in regime, RLSVI clearly worse


def test_rlsvi_audit_catches_a_false_certificate():
    """With beta_scale -> 0 the released sequence reveals r1: the audited lower bound exceeds a
    certificate of eps = 0.1 claimed for it (the audit has power); the true certificate holds."""
    from privrl.mechanisms.audit import epsilon_bounds
    from privrl.papers.lu2026 import audit as au

    rng = np.random.default_rng(3)
    t1 = au.released_action_counts(1.0, 4, 1e-6, 2000, rng)
    t0 = au.released_action_counts(0.0, 4, 1e-6, 2000, rng)
    b = epsilon_bounds(int((t1 >= 3).sum()), t1.size, int((t0 >= 3).sum()), t0.size, 1e-5)
    assert b["ci_low"] > 0.1
    df = au.check_rlsvi_audit(np.random.default_rng(4), eps_targets=(4.0,), n_trials=4000)
    assert df.holds.all() and df.eps_cor14.iloc[0] == pytest.approx(4.0)


def test_checks_are_checked_and_config_claims_are_claims():
    from privrl.results.claims import score_claims
    fits = pd.DataFrame([{"env": "e", "cell": "c", "exponent": 0.5, "exponent_lo": 0.45, "exponent_hi": 0.55,
                          "window_lo": 1e3, "window_hi": 1e5, "K": 100000, "n_seeds": 5,
                          "saturated_fraction": 0.0}])
    spec = [{"id": "x", "statement": "UCBVI O~(sqrt K)", "source": "Azar et al. 2017, Thm 1",
             "check": {"type": "rate_upper", "env": "e", "cell": "c", "claimed": 0.5}}]
    new = C.claims_frame([V.make_claim("lu2026", "Cor. 14", "c", "Cor. 14 equals Thm 13's min", "check", "a",
                                       V.score_check(True, "ok"))])
    got = C.claims_from_frame(pd.concat([score_claims("e", spec, fits, "a"), new], ignore_index=True))
    # no MDP given: the crossover, hence the regime, is unknown -> inconclusive, never reproduced
    assert [c.verdict for c in got] == [V.INCONCLUSIVE, V.CHECKED] and got[1].paper == "lu2026"
    assert (got[0].paper, got[0].item, got[0].kind) == ("cross_paper", "Thm 1", "rate")

def test_fixed_eps_rlsvi_never_reaches_its_regime_and_rival_orders_are_context(tmp_path):
    """At a fixed eps beta_scale = K / K_e: RLSVI's perturbation no longer shrinks with K, so its
    K needed is never (inf); orders against other private agents are context, not Lu et al.'s claims."""
    K = int(EP[-1])
    rl = {"beta_scale": luc.beta_scale_for_epsilon(10.0, 1e-5, K, 1, 2, 2), "delta": 1e-5}
    ctx = _context(tmp_path, [("rlsvi", rl, lambda k: 0.2 * k, 1.0),
                              ("pucb", {"epsilon": 10.0, "beta": 0.05}, lambda k: 0.1 * k, 1.0)])
    ctx.infos[0]["tags"] = {"certify_eps": 10.0}
    ctx.infos[1]["tags"] = {"fixed_eps": 10.0}
    got = C.claims_from_frame(luc.lu2026_fixed_eps(ctx).claims)
    order = [c for c in got if c.kind == "order"]
    assert order and all(c.scope == "context" and c.verdict == V.NOT_REACHED and c.k_needed == math.inf for c in order)
    assert all(c.scope == "context" for c in C.with_scope_of_reach(order))  # context stays context
