"""The dimension-scaling analysis (privrl.papers.dimensions) on synthetic runs: a nested family
whose regret and privacy cost follow known powers of the varied dimension."""
import numpy as np
import pandas as pd
import pytest

from privrl.papers.analysis import AnalysisContext
from privrl.papers.dimensions import family_axis
from privrl.results import verdicts as V
from privrl.rl import envs

EP = np.unique(np.round(np.geomspace(10, 3_000_000, 40))).astype(np.int64)


def _context(tmp_path, family, cells, experiment="exp"):
    """family: {env key: env spec}; cells: (agent, params, regret(K, mdp) -> float, label) run on
    every env, 4 seeds within 1 % of each other."""
    infos, paths, fits, aggs = [], {}, [], []
    for env, spec in family.items():
        m = envs.make(spec["name"], **spec["params"])
        for j, (agent, params, value, label) in enumerate(cells):
            cell = f"{agent}_{j}"
            R = np.outer(EP / EP[-1], np.ones(1)).ravel() * value(m)
            rows = [pd.DataFrame({"seed": s, "episode": EP, "cum_regret": R * (1 + 0.01 * (s - 1.5)),
                                  "cum_aux": 0.0 * EP}) for s in range(4)]
            p = tmp_path / f"{env}_{cell}.parquet"
            pd.concat(rows).to_parquet(p)
            paths[(env, cell)] = str(p)
            infos.append({"agent": agent, "params": params, "cell": cell, "env_key": env, "episodes": int(EP[-1]),
                          "reconstruction": False, "guarantees": [], "tags": {}, "label": label})
            fits.append({"env": env, "cell": cell, "agent": agent, "exponent": 0.3, "exponent_lo": 0.28,
                         "exponent_hi": 0.32, "window_lo": float(EP[-1]) / 10, "window_hi": float(EP[-1]),
                         "n_seeds": 4, "saturated_fraction": 0.0})
            aggs.append(pd.DataFrame({"env": env, "cell": cell, "episode": EP, "mean": R, "ci_low": R, "ci_high": R}))
    return AnalysisContext(experiment, {"envs": family, "fit_decades": 1}, pd.DataFrame(fits), pd.concat(aggs),
                           infos, paths, str(tmp_path), 200)


BANDITS = {f"a{A}": {"name": "garnet", "params": {"S": 1, "A": A, "branching": 1, "H": 1, "seed": 0}} for A in (2, 3, 4, 6)}


def test_family_axis_is_the_one_dimension_that_varies():
    assert family_axis({k: envs.make(v["name"], **v["params"]) for k, v in BANDITS.items()}) == "A"
    two = {"x": envs.make("garnet", S=2, A=2, branching=2, H=1, seed=1),
           "y": envs.make("garnet", S=3, A=3, branching=2, H=1, seed=1)}
    with pytest.raises(ValueError, match="exactly one of S, A, H"):
        family_axis(two)


def test_vietri_slopes_of_regret_and_privacy_cost_beside_thm4_powers(tmp_path):
    from privrl.papers.vietri2020.dimensions import ANALYSES

    # regret R = 100 A^0.8, noise-off twin R0 = 40 A^0.8: D = 60 A^0.8 (slope 0.8 on both)
    cells = [("pucb", {"epsilon": 10.0, "noise": 1.0}, lambda m: 100.0 * m.A ** 0.8, "PUCB eps=10"),
             ("pucb", {"epsilon": 1.0, "noise": 0.0}, lambda m: 40.0 * m.A ** 0.8, "PUCB eps=10 noise off")]
    out = ANALYSES["vietri2020_dimensions"](_context(tmp_path, BANDITS, cells))
    t = out.table
    assert set(t.quantity) == {"regret", "privacy cost D"} and set(t.x) == {2, 3, 4, 6}
    d = t[(t.quantity == "privacy cost D")].sort_values("x")
    assert np.allclose(d.value, 60.0 * d.x ** 0.8, rtol=0.02)
    assert (d.bound_power == 1.0).all() and (d.lower_power == 1.0).all()  # Thm 4 / Thm 6 privacy terms: A^1
    c = out.claims.set_index("claim_id")
    assert (c.scope == "context").all() and (c.verdict == V.INCONCLUSIVE).all()
    assert (c.kind == "rate").all()
    row = c.loc["exp_A_privacy_cost_d_pucb_eps_10"]
    assert "slope of log D on log A = 0.80" in row.measured and "A in {2, 3, 4, 6}" in row.measured
    assert "below the bound's power A^1" in row.regime and "pinned in the worst case" in row.regime
    reg = c.loc["exp_A_regret_pucb_eps_10"]
    assert "above the bound's power A^0.5" in reg.regime and reg["item"] == "Thm 4"
    assert "Slopes against A" in out.markdown and "| 0.5 |" in out.markdown
    assert out.figure is not None
    axes = out.figure.axes
    assert any("R(noise off)" in a.get_ylabel() for a in axes) and all(a.get_xscale() == "log" for a in axes[:2])
    # the bound's power is drawn as a reference slope in every panel
    assert sum(ln.get_label() == "_guide" for a in axes for ln in a.get_lines()) >= 3


def test_pre_regime_members_are_marked_and_left_out_of_the_slope(tmp_path):
    from privrl.papers.vietri2020.dimensions import ANALYSES

    family = {f"a{A}": BANDITS[f"a{A}"] for A in (2, 3)}
    family["h"] = {"name": "garnet", "params": {"S": 1, "A": 40, "branching": 1, "H": 1, "seed": 0}}
    cells = [("pucb", {"epsilon": 10.0, "noise": 1.0}, lambda m: 100.0 * m.A ** 0.5, "PUCB eps=10")]
    out = ANALYSES["vietri2020_dimensions"](_context(tmp_path, family, cells))
    t = out.table.set_index("x")
    assert bool(t.loc[2, "in_regime"]) and not bool(t.loc[40, "in_regime"])
    c = out.claims.iloc[0]
    assert "2 of 3 past" not in c.measured and "members past 10 x their crossover" in c.measured
    assert "pre-regime at A=40" in c.regime and np.isfinite(c.k_needed)
    assert "no (pre-regime)" in out.markdown


def test_garcelon_burn_in_term_against_h_and_the_powers_the_note_removes(tmp_path):
    from privrl.papers.garcelon2021.dimensions import ANALYSES

    family = {f"h{H}": {"name": "garnet", "params": {"S": 1, "A": 2, "branching": 1, "H": H, "seed": 0}}
              for H in (2, 3, 4)}
    cells = [("shuffled-obi", {"epsilon": 10.0, "tau": 0.0, "bonus_scale": 0.1, "noise": 1.0},
              lambda m: 50.0 * m.H, "Shuffled-OBI tau=0"),
             ("shuffled-obi", {"epsilon": 10.0, "tau": 1000.0, "bonus_scale": 0.1, "noise": 1.0},
              lambda m: 50.0 * m.H + 250.0 * m.H, "Shuffled-OBI tau=1000")]
    out = ANALYSES["garcelon2021_dimensions"](_context(tmp_path, family, cells))
    t = out.table
    burn = t[t.quantity == "burn-in cost"]
    assert len(burn) == 3 and (burn.line == "Shuffled-OBI tau=1000").all() and (burn.bound_power == 1.0).all()
    c = out.claims.set_index("claim_id")
    b = c.loc["exp_H_burn_in_cost_shuffled_obi_tau_1000"]
    assert "slope of log B on log H = 1.00" in b.measured and "at the bound's power H^1" in b.regime
    r = c.loc["exp_H_regret_shuffled_obi_tau_0"]
    assert "the bound prints no power of H" in r.regime and "footnote 4" in r.regime
    assert "no privacy cost D" not in set(t.quantity)  # no noise-off twin: no D row


def test_lu_certified_epsilon_falls_with_h_as_lemma_12_says(tmp_path):
    from privrl.papers.lu2026.dimensions import ANALYSES

    family = {f"h{H}": {"name": "riverswim", "params": {"S": 2, "H": H}} for H in (2, 3, 4)}
    cells = [("rlsvi", {"beta_scale": 1.0, "delta": 1e-5}, lambda m: 10.0 * m.H ** 2, "RLSVI (paper beta_k)")]
    out = ANALYSES["lu2026_dimensions"](_context(tmp_path, family, cells))
    t = out.table
    e = t[t.quantity == "certified eps"].sort_values("x")
    assert len(e) == 3 and (np.diff(e.value) < 0).all() and (e.bound_power == -2.0).all()
    c = out.claims.set_index("claim_id")
    slope = float(c.loc["exp_H_certified_eps_rlsvi_paper_beta_k"].measured.split("= ")[1].split()[0])
    assert -2.5 < slope < -1.5  # rho ~ H^-2 / log(2HSA): eps(delta) ~ rho at this K
    assert "the bound prints no power of H" in c.loc["exp_H_regret_rlsvi_paper_beta_k"].regime
