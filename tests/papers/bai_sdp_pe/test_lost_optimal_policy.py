"""Elimination agents that lost pi*: the per-seed diagnostic (privrl.results.elimination) on synthetic
per-seed curves and on a real PE run, and the Bai analyses turning such claims "inconclusive"."""
import numpy as np
import pandas as pd
import pytest

from privrl.papers.bai_sdp_pe import theorems as thm
from privrl.papers.analysis import AnalysisContext
from privrl.results import elimination as EL
from privrl.results import verdicts as V
from privrl.rl import envs

EP = np.unique(np.round(np.geomspace(10, 2_000_000, 40))).astype(np.int64)
GARNET = {"name": "garnet", "params": {"S": 2, "A": 2, "branching": 2, "H": 1, "seed": 1}}
SDP = {"epsilon": 1.0, "beta": 1e-5, "delta": 0.05, "C": 1e-4, "C1": 6e-4, "max_policies": 65536.0}
PE = {k: v for k, v in SDP.items() if k not in ("epsilon", "beta")}
GAP = EL.smallest_policy_gap(envs.make("garnet", **GARNET["params"]))


def kept(scale=10.0):
    return lambda k: scale * np.log(k)


def lost(at, gap=GAP, scale=10.0):
    """Kept pi* until episode ``at``, then plays a policy with regret ``gap`` per episode for ever."""
    return lambda k: scale * np.log(k) + gap * np.maximum(k - at, 0.0)


def _context(tmp_path, cells, env_specs=None):
    """cells: (agent, params, [regret(ep) per seed][, env key]); active fraction 0.5 at K; env_specs:
    {key: env spec} (default: the garnet as "g")."""
    infos, paths, fits, aggs = [], {}, [], []
    for j, (agent, params, per_seed, *env_key) in enumerate(cells):
        cell, env = f"{agent}_{j}", (env_key or ["g"])[0]
        rows = [pd.DataFrame({"seed": s, "episode": EP, "cum_regret": f(EP.astype(float)),
                              "cum_aux": np.where(EP >= EP[-2], 0.5, 1.0) * EP}) for s, f in enumerate(per_seed)]
        p = tmp_path / f"{cell}.parquet"
        pd.concat(rows).to_parquet(p)
        paths[(env, cell)] = str(p)
        infos.append({"agent": agent, "params": params, "cell": cell, "env_key": env, "episodes": int(EP[-1]),
                      "reconstruction": False, "guarantees": [], "tags": {}, "label": cell})
        mean = np.mean([f(EP.astype(float)) for f in per_seed], axis=0)
        m = EP >= EP[-1] / 10
        a = np.polyfit(np.log(EP[m]), np.log(mean[m]), 1)[0]
        fits.append({"env": env, "cell": cell, "agent": agent, "exponent": a, "exponent_lo": a - 0.02,
                     "exponent_hi": a + 0.02, "window_lo": float(EP[m][0]), "window_hi": float(EP[-1]),
                     "n_seeds": len(per_seed), "saturated_fraction": 0.5})
        aggs.append(pd.DataFrame({"env": env, "cell": cell, "episode": EP, "mean": mean, "ci_low": mean,
                                  "ci_high": mean}))
    cfg = {"envs": env_specs or {"g": GARNET}, "fit_decades": 1}
    return AnalysisContext("exp", cfg, pd.DataFrame(fits), pd.concat(aggs), infos, paths, str(tmp_path), 200)


def test_smallest_policy_gap_of_the_four_policy_garnet():
    m = envs.make("garnet", **GARNET["params"])
    from privrl.rl.mdp import expected_return, optimal_return
    from privrl.rl.policies import enumerate_policies
    vals = sorted({round(expected_return(m, p), 12) for p in enumerate_policies(1, 2, 2)})
    assert GAP == pytest.approx(vals[-1] - vals[-2]) and GAP > 0.1
    assert optimal_return(m) == pytest.approx(vals[-1])


def test_late_rate_flags_only_seeds_still_linear_at_k():
    curves = [kept(), kept(50.0), lost(1e3), lost(5e5), lost(1.5e6), lambda k: 0.9 * GAP * k / (1 + k / 1e4)]
    R = np.array([f(EP.astype(float)) for f in curves])
    rates = EL.late_regret_rate(EP, R)
    assert rates[2] == pytest.approx(GAP, rel=1e-3)  # lost long before K/10: slope = the gap
    lo = EL.lost_optimum(EP, R, GAP)
    # lost at 1e3 and 5e5 (< 0.55 K) are flagged; lost at 1.5e6 (late in the decade), kept, and a
    # seed whose regret rate decays (still exploring, not linear at K) are not
    assert lo.n_lost == 2 and lo.n_seeds == 6 and lo.fraction() == "2/6"
    assert EL.lost_optimum(EP, R, float("nan")).n_lost == 0  # no gap: nothing to lose
    with pytest.raises(ValueError, match="checkpoints"):
        EL.late_regret_rate(EP[:-1], R)


def test_guard_makes_any_verdict_inconclusive_and_names_the_cells():
    note = EL.lost_note("PE baseline", EL.LostOptimum(2, 6, GAP, ()), 1e-4, private=False)
    assert note == "PE baseline eliminated pi* on 2/6 seeds: threshold at the scaled C = 0.0001 below its " \
                   "statistical error"
    for verdict in (V.REPRODUCED, V.CONTRADICTED, V.NOT_REACHED):
        s = EL.guard(V.Score(verdict, "a = 0.3", "in regime", 1e7), [note])
        assert s.verdict == V.INCONCLUSIVE and note in s.regime and f"unguarded verdict: {verdict}" in s.regime
        assert np.isnan(s.k_needed)
    s = V.Score(V.REPRODUCED, "a", "r")
    assert EL.guard(s, []) is s


def _error_level_cells(baseline, spread=True):
    mdp = envs.make("garnet", **GARNET["params"])
    cells = [("pe", PE, baseline)]
    for agent in ("sdp-pe-jdp", "sdp-pe"):
        for eps in (1.0, 4.0):
            E = thm.run_error_level({"agent": agent, "params": {**SDP, "epsilon": eps}}, mdp, EP[-1])
            # seeds 1 % apart: identical seeds give a zero-width slope, which reads inconclusive (verdicts.zero_width)
            cells.append((agent, {**SDP, "epsilon": eps},
                          [(lambda E, s: lambda k: 10 * np.log(k) + 2.0 * E * (1 + 0.01 * s))(E, s) for s in range(6)]
                          if spread else [(lambda E: lambda k: 10 * np.log(k) + 2.0 * E)(E)] * 6))
    return cells


def test_error_level_on_identical_seeds_is_inconclusive(tmp_path):
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, _error_level_cells([kept()] * 6, spread=False)))
    assert out.claims.iloc[0].verdict == V.INCONCLUSIVE and "zero-width" in out.claims.iloc[0].regime


def test_error_level_with_a_baseline_that_lost_pi_star_is_inconclusive(tmp_path):
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, _error_level_cells([kept()] * 6)))
    assert out.claims.iloc[0].verdict == V.REPRODUCED  # D proportional to E, baseline fine
    assert set(out.table.lost_optimum) == {"0/6"}
    bad = [kept(), lost(2e3), kept(), lost(4e4), kept(), kept()]
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, _error_level_cells(bad)))
    row = out.claims.iloc[0]
    assert row.verdict == V.INCONCLUSIVE
    assert ("PE baseline eliminated pi* on 2/6 seeds: threshold at the scaled C = 0.0001 below its statistical "
            "error") in row.regime
    t = out.table.set_index("privatizer")
    assert t.loc["none", "lost_optimum"] == "2/6" and t.loc["none", "n_lost_optimum"] == 2
    assert "seeds that eliminated pi*" in out.markdown and "| 2/6 |" in out.markdown
    assert "_lost_note" not in out.table.columns


def test_thm11_cell_that_lost_pi_star_is_not_scored(tmp_path):
    cells = [("pe", PE, [kept()] * 6)]
    for eps in (0.5, 0.9):
        f = (lambda e: lambda k: 10 * np.log(k) + 500 / e)(eps)
        cells.append(("sdp-pe", {**SDP, "epsilon": eps}, [f] * 5 + [lost(1e3)] if eps == 0.5 else [f] * 6))
    out = thm.bai_sdp_pe_thm11(_context(tmp_path, cells))
    v = {i.split("exp_")[1]: (vv, r) for i, vv, r in zip(out.claims.claim_id, out.claims.verdict, out.claims.regime)}
    assert v["sqrtK_eps0.9_g"][0] == V.REPRODUCED
    assert v["sqrtK_eps0.5_g"][0] == V.INCONCLUSIVE
    assert "SDP-PE shuffle (Alg. 4) eps=0.5 eliminated pi* on 1/6 seeds" in v["sqrtK_eps0.5_g"][1]
    assert "statistical + privacy error" in v["sqrtK_eps0.5_g"][1]
    assert v["additive_b_g"][0] == V.INCONCLUSIVE and v["eps_dependence_g"][0] == V.INCONCLUSIVE


def test_real_pe_run_that_lost_pi_star_is_detected():
    """PE at the scaled C = 1e-4 on the 4-policy garnet, K = 2e5: seed 6 eliminates pi* (its
    regret grows at exactly the smallest gap), seed 5 keeps it (flat regret)."""
    from privrl.runs.run import run

    m = envs.make("garnet", **GARNET["params"])
    df, _ = run("pe", {"C": 1e-4, "C1": 6e-4}, m, 200_000, [5, 6])
    ep = np.sort(df.episode.unique())
    R = np.stack([d.sort_values("episode").cum_regret.to_numpy() for _, d in df.groupby("seed")])
    rates = EL.late_regret_rate(ep, R)
    assert rates[0] == pytest.approx(0.0, abs=1e-9) and rates[1] == pytest.approx(GAP, rel=1e-9)
    assert EL.lost_optimum(ep, R, GAP).n_lost == 1


def test_a_seed_that_eliminated_nothing_is_exploring_not_lost():
    R = np.array([0.3 * EP, 0.3 * EP], dtype=float)
    assert EL.lost_optimum(EP, R, GAP).n_lost == 2
    assert EL.lost_optimum(EP, R, GAP, active=np.array([1.0, 0.5])).n_lost == 1  # active 1: nothing eliminated
    aux = np.vstack([EP * 1.0, np.where(EP >= EP[-2], 0.5, 1.0) * EP])
    assert EL.active_at_end(EP, aux).tolist() == pytest.approx([1.0, 0.5])


def test_scaling_rows_name_the_instance_that_lost_pi_star(tmp_path):
    specs = {f"x{S}": {"name": "garnet", "params": {"S": S, "A": 2, "branching": 2, "H": 1, "seed": 1}} for S in (2, 3)}
    gap3 = EL.smallest_policy_gap(envs.make("garnet", **specs["x3"]["params"]))
    cells = [c for e in specs for c in (("sdp-pe", {**SDP, "epsilon": 2.0}, [kept()] * 4, e),
                                        ("pe", PE, [kept()] * 3 + [lost(1e3, gap3)] if e == "x3" else [kept()] * 4, e))]
    out = thm.bai_sdp_pe_scaling(_context(tmp_path, cells, specs))
    t = out.table.set_index(["env", "agent"])
    assert t.loc[("x3", "pe"), "lost_optimum"] == "1/4" and t.loc[("x2", "pe"), "lost_optimum"] == "0/4"
    c = {i.split("exp_")[1]: r for i, r in zip(out.claims.claim_id, out.claims.to_dict("records"))}
    assert c["scaling_X_pe"]["verdict"] == V.INCONCLUSIVE
    assert "PE baseline on x3 eliminated pi* on 1/4 seeds" in c["scaling_X_pe"]["regime"]
    assert "eliminated pi*" not in c["scaling_X_sdp-pe"]["regime"]
    # the slopes are context: never "reproduced", and the window is in X
    assert c["scaling_X_sdp-pe"]["verdict"] == V.INCONCLUSIVE and "instance-dependent" in c["scaling_X_sdp-pe"]["regime"]
    assert " on X in [" in c["scaling_X_sdp-pe"]["measured"]


def test_table1_rows_count_lost_seeds_and_guard_their_claims(tmp_path):
    from privrl.papers import bai_sdp_pe as bai

    sq = lambda c: lambda k: c * np.sqrt(k)  # noqa: E731
    cells = [("pe", PE, [kept()] * 4 + [lost(1e3), lost(1e4)]), ("sdp-pe-jdp", SDP, [sq(30)] * 6),
             ("sdp-pe", SDP, [sq(40)] * 6), ("sdp-pe", {**SDP, "epsilon": 4.0}, [sq(20)] * 6),
             ("sdp-pe-ldp", SDP, [sq(120)] * 6)]
    ctx = _context(tmp_path, cells)
    t1, c1 = bai.table_rows(ctx)
    tr, c2 = bai.trust_rows(ctx)
    assert t1.set_index("agent").loc["sdp-pe", "lost_optimum"] == "0/6"
    by = {c.claim_id.split("exp_")[1]: c for c in c1 + c2}
    sqrt_k = [c for k, c in by.items() if k.endswith("_sqrtK")][0]
    assert "eliminated pi*" not in sqrt_k.regime  # the SDP-PE cell itself kept pi*
    for k in [k for k in by if k.endswith(("_b", "_gamma"))]:  # read against the PE baseline
        assert by[k].verdict == V.INCONCLUSIVE and "PE baseline eliminated pi* on 2/6 seeds" in by[k].regime
    assert set(tr[tr.privatizer == "none"].lost_optimum) == {"2/6"}
    md = bai._markdown(ctx, t1, tr)
    assert "seeds that eliminated pi*" in md and "0/6, 0/6, 0/6, 2/6" in md
