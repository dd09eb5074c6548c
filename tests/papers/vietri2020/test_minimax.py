"""Vietri et al. (2020) Thm 4 / Thm 6 as worst cases over a gap family (privrl.papers.vietri2020.minimax):
the maximum over a gap grid grows like sqrt(K), and the analysis registers the worst-case rows."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.papers.analysis import AnalysisContext
from privrl.results import claims as C
from privrl.results import verdicts as V
from privrl.rl import engine


def test_minimax_exponent_over_a_gap_grid_is_one_half():
    """R(K; g) = min(g K, c / g) (linear until the crossover c / g^2, then flat): each gap converges,
    the maximum over a grid grows like sqrt(c K) between the largest and smallest gaps' crossovers."""
    from privrl.papers.vietri2020 import minimax as MM
    from privrl.results import bound_verdicts as BV

    c = 100.0
    ep = np.unique(np.round(np.geomspace(10, 1e8, 120))).astype(np.int64)
    gaps = np.geomspace(0.5, 0.001, 25)
    rng = np.random.default_rng(0)
    cur = {float(g): np.minimum(g * ep, c / g)[None, :] * (1 + 0.01 * rng.standard_normal((4, 1))) for g in gaps}
    cross = {float(g): c / g ** 2 for g in gaps}
    lo, hi = MM.minimax_window(cross, ep[-1])
    assert lo == pytest.approx(10 * c / 0.25) and hi == pytest.approx(1e8)
    fit = MM.minimax_fit(ep, cur, lo, hi, np.random.default_rng(1), 200)
    assert fit.exponent == pytest.approx(0.5, abs=0.05)
    up, low = BV.score_minimax(fit, lo, hi, cross[min(cross)])
    assert up.verdict == low.verdict == V.REPRODUCED
    # a fixed gap alone converges: exponent ~0 past its crossover (what a single instance tests)
    one = MM.minimax_fit(ep, {0.5: cur[0.5]}, 1e4, 1e8, np.random.default_rng(1), 50)
    assert one.exponent < 0.05
    # a grid too narrow for a decade of window: not reached, never
    narrow = {0.5: 400.0, 0.4: 625.0}
    s, _ = BV.score_minimax(fit, *MM.minimax_window(narrow, 1e8), 625.0)
    assert s.verdict == V.NOT_REACHED and s.k_needed == math.inf
    # the lower bound is never contradicted by a grid's maximum
    flat = V.RateFit(0.1, 0.05, 0.15, lo, hi)
    assert BV.score_minimax(flat, lo, hi, cross[min(cross)])[1].verdict == V.INCONCLUSIVE


def test_minimax_analysis_registers_the_worst_case_rows(tmp_path):
    from privrl.papers import registry

    ep = engine.checkpoints(100_000, 60)
    envs_cfg, infos, paths = {}, [], {}
    for g in (0.5, 0.25, 0.1):
        key = f"hard_gap{g:g}".replace(".", "p")
        envs_cfg[key] = {"name": "hard_instance", "params": {"n": 1, "m": 1, "H": 2, "gap": g}}
        R = np.minimum(g * ep, 1e3 / g)[None, :] * np.ones((3, 1))
        df = pd.concat([pd.DataFrame({"seed": i, "episode": ep, "cum_regret": R[i], "cum_aux": 0.0}) for i in range(3)])
        p = tmp_path / f"{key}.parquet"
        df.to_parquet(p)
        paths[(key, "pucb")] = str(p)
        infos.append({"agent": "pucb", "params": {"epsilon": 100.0}, "env_key": key, "cell": "pucb", "episodes": 100_000})
    ctx = AnalysisContext("mm", {"envs": envs_cfg}, pd.DataFrame(), pd.DataFrame(), infos, paths, str(tmp_path), 50)
    res = registry.analysis("vietri2020_minimax")(ctx)
    rows = C.claims_from_frame(res.claims)
    assert [r.item for r in rows] == ["Thm 4", "Thm 6"] and all(r.kind == "rate" for r in rows)
    assert all("gaps {0.1, 0.25, 0.5}" in r.regime for r in rows)
    assert all(r.verdict == V.NOT_REACHED for r in rows)  # PUCB's crossovers (5.7e5+) exceed K = 1e5
