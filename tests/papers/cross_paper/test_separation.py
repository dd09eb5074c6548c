"""The separation of the trust models over a gap family (privrl.papers.cross_paper.separation): the
worst-case local cost over the worst-case central one grows like sqrt(K), two-sided, on a window
fixed by the crossovers; a central agent labelled local (ratio 1) fails the same check."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.papers.analysis import AnalysisContext
from privrl.papers.cross_paper import separation as SEP
from privrl.results import claims as C
from privrl.results import controls
from privrl.results import verdicts as V
from privrl.rl import engine

EP = np.unique(np.round(np.geomspace(10, 1e9, 150))).astype(np.int64)
GAPS = [float(g) for g in np.geomspace(0.5, 0.002, 20)]


def _family(cost, n=4, seed=0):
    """{gap: (private float64[n, C], baseline float64[n, C])}: baseline log-like, private = baseline + cost(gap)."""
    rng = np.random.default_rng(seed)
    out = {}
    for g in GAPS:
        base = np.log1p(EP)[None, :] / g * (1 + 0.01 * rng.standard_normal((n, 1)))
        out[g] = (base + cost(g)[None, :] * (1 + 0.02 * rng.standard_normal((n, 1))), base)
    return out


def local(g):  # linear until the local crossover c / g^2, then flat: the worst gap gives sqrt(c K)
    return np.minimum(g * EP, 1e3 / g)


def central(g):  # additive: linear until the central crossover 40 / g, then 40 whatever the gap -- worst case flat
    return np.minimum(g * EP, 40.0)


def test_the_ratio_of_worst_costs_grows_like_sqrt_k_and_the_wrong_model_fails():
    loc, cen = _family(local), _family(central)
    local_cross = {g: 1e3 / g ** 2 for g in GAPS}
    central_cross = {g: 40.0 / g for g in GAPS}
    lo, hi, need = SEP.separation_window(central_cross, local_cross, float(EP[-1]))
    assert lo == pytest.approx(10 * max(1e3 / 0.25, 40.0 / min(GAPS))) and hi == pytest.approx(1e3 / min(GAPS) ** 2)
    fit = SEP.ratio_fit(EP, loc, cen, lo, hi, np.random.default_rng(1), 200)
    assert fit.exponent == pytest.approx(0.5, abs=0.05)
    assert SEP.score_separation(fit, lo, hi, need).verdict == V.REPRODUCED
    # a central agent in the local slot (here with the central member's own costs): exponent 0, below the
    # lower side -- rejected
    same = SEP.ratio_fit(EP, cen, cen, lo, hi, np.random.default_rng(1), 50)
    twin = controls.TwinOutcome("wrong_model", SEP.score_separation(same, lo, hi, need))
    assert abs(same.exponent) < 0.02 and twin.rejected
    # swapped (the central member labelled local): exponent -1/2, rejected too
    assert controls.TwinOutcome("wrong_model", SEP.score_separation(
        SEP.ratio_fit(EP, cen, loc, lo, hi, np.random.default_rng(1), 50), lo, hi, need)).rejected
    # a ratio growing like K (a local cost linear in K over the window): above the upper side, contradicted
    steep = V.RateFit(1.0, 0.95, 1.05, lo, hi)
    assert SEP.score_separation(steep, lo, hi, need).verdict == V.CONTRADICTED


def test_a_window_under_a_decade_is_not_reached_with_the_k_it_needs():
    cross_l, cross_c = {0.5: 4e3, 0.05: 4e5}, {0.5: 1e2, 0.05: 1e3}
    lo, hi, need = SEP.separation_window(cross_c, cross_l, 1e5)
    s = SEP.score_separation(V.RateFit(0.5, 0.4, 0.6, lo, hi), lo, hi, need)
    assert s.verdict == V.NOT_REACHED and s.k_needed == pytest.approx(10 * lo)
    narrow = SEP.separation_window({0.5: 1e2, 0.4: 2e2}, {0.5: 4e3, 0.4: 6e3}, 1e9)
    assert SEP.score_separation(V.RateFit(0.5, 0.4, 0.6, 1, 1), *narrow).k_needed == math.inf


def test_the_analysis_registers_the_separation_row(tmp_path):
    """PUCB and LDP-OBI with their noise-off twins on three gaps: one claim for Garcelon et al.'s Table 1
    pair, its controls cell naming the wrong trust model, "not reached" at K = 1e5 (their crossovers are
    far beyond) with the K it needs."""
    from privrl.papers import registry

    ep = engine.checkpoints(100_000, 60)
    envs_cfg, infos, paths = {}, [], {}
    for g in (0.5, 0.16, 0.05):
        key = f"hard_gap{g:g}".replace(".", "p")
        envs_cfg[key] = {"name": "hard_instance", "params": {"n": 1, "m": 1, "H": 2, "gap": g}}
        for agent, cost in (("pucb", 50.0), ("ldp-obi", 5e3), ("dp-ucbvi-jdp", 60.0)):
            for noise, add in ((1, cost), (0, 0.0)):
                R = (np.log1p(ep) / g + np.minimum(g * ep, add))[None, :] * np.ones((3, 1))
                df = pd.concat([pd.DataFrame({"seed": i, "episode": ep, "cum_regret": R[i], "cum_aux": 0.0})
                                for i in range(3)])
                cell = f"{agent}_n{noise}"
                p = tmp_path / f"{key}_{cell}.parquet"
                df.to_parquet(p)
                paths[(key, cell)] = str(p)
                tags = {"control": "wrong_model"} if agent == "dp-ucbvi-jdp" and noise else {}
                infos.append({"agent": agent, "params": {"epsilon": 5.0 if noise else 1e9, "z": 3.0, "noise": noise},
                              "env_key": key, "cell": cell, "episodes": 100_000, "label": agent, "tags": tags})
    ctx = AnalysisContext("sep", {"envs": envs_cfg}, pd.DataFrame(), pd.DataFrame(), infos, paths, str(tmp_path), 50)
    res = registry.analysis("trust_model_separation")(ctx)
    rows = C.claims_from_frame(res.claims)
    assert [(r.paper, r.item) for r in rows] == [("garcelon2021", "Table 1")]
    r = rows[0]
    assert r.kind == "rate" and r.verdict == V.NOT_REACHED and math.isfinite(r.k_needed) and r.k_needed > 1e8
    assert r.scope == "context"  # the papers bound regret, not D: a reading, not a paper claim
    # the control cell (a central agent tagged as the local slot's wrong trust model) is the row's twin, not a member
    assert r.controls == "undecided: wrong trust model" and "dp-ucbvi-jdp (central noise) in the local slot" in r.regime
    assert "gaps {0.05, 0.16, 0.5}" in r.regime and len(rows) == 1
    assert list(res.table.columns[:3]) == ["central", "local", "epsilon"]
