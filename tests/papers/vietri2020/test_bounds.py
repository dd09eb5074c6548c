"""Vietri et al. (2020) Thm 3, 4 and 6 through privrl.papers.vietri2020.bounds on synthetic PUCB runs:
Thm 3's order and explicit constants, one row per distinct mistake series, Thm 6's testable
(privacy) term, Thm 4's rate on a fixed gap, and the formulas."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.agents.pucb import pucb_error_level
from privrl.papers.vietri2020 import bounds as VB
from privrl.papers.analysis import AnalysisContext
from privrl.results import aggregate
from privrl.results import claims as C
from privrl.results import verdicts as V
from privrl.rl import engine, envs, seeding

RS = {"name": "riverswim", "params": {"S": 2, "H": 3}}


def _pucb_context(tmp_path, curves, mistakes, eps=1.0):
    """One PUCB cell on RiverSwim S=2 H=3: per-seed cum_regret curves float[n, C] and
    {alpha: per-seed mistakes float[n, C]}."""
    ep = engine.checkpoints(100_000, 120)
    df = pd.concat([pd.DataFrame({"seed": i, "episode": ep, "cum_regret": curves[i], "cum_aux": 0.0 * ep,
                                  **{f"mistakes_{a:g}": m[i] for a, m in mistakes.items()}})
                    for i in range(curves.shape[0])], ignore_index=True)
    p = tmp_path / "pucb.parquet"
    df.to_parquet(p)
    params = {"epsilon": eps, "noise": 1.0, "bonus_scale": 1.0, "beta": 0.05}
    info = {"agent": "pucb", "params": params, "env_key": "riverswim", "cell": "pucb", "label": "pucb", "tags": {},
            "guarantees": [], "episodes": 100_000}
    row = aggregate.fit_cell(df, seeding.generator("t", "pucb", 0), n_boot=50)
    row.update(env="riverswim", cell="pucb", label="pucb", agent="pucb")
    agg = aggregate.aggregate_cell(df, seeding.generator("t", "pucb", 1), 50).assign(env="riverswim", cell="pucb")
    return AnalysisContext("exp", {"fit_decades": 2, "envs": {"riverswim": RS}}, pd.DataFrame([row]), agg, [info],
                           {("riverswim", "pucb"): str(p)}, str(tmp_path), 50), ep


def test_thm3_order_and_explicit_constants():
    S, A, H, a, eps = 2, 2, 3, 0.1, 1.0
    assert VB.pac_expression(S, A, H, a, eps) == pytest.approx(S * A * H**4 / a**2 + S * S * A * H**4 / (eps * a))
    E = pucb_error_level(eps, H, S, A, 1e6, 0.05)
    explicit = 18 * S * A * H**4 / a**2 + 240 * E * S * A * H / a + 120 * S * S * A * H**4 / (a * eps)
    assert VB.thm3_explicit_bound(S, A, H, a, eps, 1e6, 0.05) == pytest.approx(explicit)
    # Eq. (9)'s H^4, not the SAH^3 of B.1's last line: quadrupling with H doubled (first term only)
    r = VB.thm3_explicit_bound(1, 1, 2 * H, a, 1e12, 1e6, 0.05) / VB.thm3_explicit_bound(1, 1, H, a, 1e12, 1e6, 0.05)
    assert r == pytest.approx(16, rel=1e-3)


def test_alphas_between_the_same_two_gaps_count_once():
    gaps = [0.0, 0.0, 0.05, 0.2, 0.2, 0.6]
    assert VB.distinct_alphas([0.01, 0.03, 0.1, 0.3, 1.0], gaps) == {0.03: [0.03, 0.01], 0.1: [0.1], 0.3: [0.3]}
    grid = VB.alpha_grid(gaps)
    assert len(VB.distinct_alphas(grid, gaps)) == len(grid) == 3  # one alpha per interval, all distinct
    mdp = envs.make("riverswim", S=2, H=3)
    g = VB.policy_gaps(mdp)
    assert g.size == 2 ** 6 and g.min() == pytest.approx(0.0, abs=1e-12)


def test_pac_analysis_rows_on_synthetic_runs(tmp_path):
    rng = np.random.default_rng(0)
    ep = engine.checkpoints(100_000, 120)
    n = 6
    curves = np.tile(30 * np.log(ep)[None, :], (n, 1)) * (1 + 0.01 * rng.standard_normal((n, 1)))
    plateau = np.minimum(ep, 500.0)[None, :] * (1 + 0.01 * rng.standard_normal((n, 1)))
    alphas = (0.01, 0.03, 0.1, 0.3, 1.0)
    ctx, _ = _pucb_context(tmp_path, curves, {a: np.floor(plateau) for a in alphas})
    rows = C.claims_from_frame(VB.vietri2020_pac(ctx).claims)
    mdp = envs.make("riverswim", S=2, H=3)
    series = VB.series_alphas(mdp, alphas)
    assert len(rows) == 2 * len(series) and len(series) < len(alphas)  # counted once
    bound = [r for r in rows if r.claim_id.startswith("vietri2020_pac_bound")]
    assert all("18 SAH^4/alpha^2" in r.statement and "App. B.1" in r.source for r in bound)
    # 500 mistakes are far below the explicit bound, which exceeds K = 1e5 here: vacuous, not reached
    assert all(r.verdict == V.NOT_REACHED and r.k_needed > 1e5 for r in bound)


def test_thm6_fixed_instance_tests_the_privacy_term_only(tmp_path):
    ep = engine.checkpoints(100_000, 120)
    curves = np.tile(0.2 * ep[None, :], (4, 1)) * (1 + 0.01 * np.arange(4)[:, None])
    ctx, _ = _pucb_context(tmp_path, curves, {})
    rows = C.claims_from_frame(VB.vietri2020_lower_bound(ctx).claims)
    priv = [r for r in rows if r.scope == "paper_claim"]
    sqrt = [r for r in rows if "sqrt" in r.claim_id]
    assert len(priv) == 1 and "privacy term SAH ln(K)/eps" in priv[0].statement
    assert "sqrt(HSAK)" not in priv[0].statement
    assert len(sqrt) == 1 and sqrt[0].verdict == V.INCONCLUSIVE and sqrt[0].scope == "context"
    assert "minimax" in sqrt[0].regime


def test_thm4_rate_on_a_fixed_gap_says_it_tests_convergence(tmp_path):
    ep = engine.checkpoints(100_000, 120)
    curves = np.tile(10 * np.sqrt(ep)[None, :], (4, 1)) * (1 + 0.01 * np.arange(4)[:, None])
    ctx, _ = _pucb_context(tmp_path, curves, {})
    rows = C.claims_from_frame(VB.vietri2020_thm4(ctx).claims)
    rate = [r for r in rows if "rate" in r.claim_id]
    assert rate and all("instance-dependent: converges" in r.statement for r in rate)


def test_vietri_formulas():
    assert VB.pac_expression(2, 2, 3, 0.1, 1.0) == pytest.approx(2 * 2 * 81 / 0.01 + 4 * 2 * 81 / 0.1)  # Thm 3
    b6, b7 = VB.thm4_explicit_bound(1e6, 2, 2, 3, 1.0, 0.05), VB.thm4_explicit_bound(1e7, 2, 2, 3, 1.0, 0.05)
    assert 0 < b6 < b7 and VB.thm4_explicit_bound(1e6, 2, 2, 3, 10.0, 0.05) < b6
    assert VB.lower_bound_expression(100.0, 4, 2, 3, 1.0) == pytest.approx(math.sqrt(2400) + 24 * math.log(100))
    assert VB.privacy_lower_term(100.0, 4, 2, 3, 1.0) == pytest.approx(24 * math.log(100))
