"""What a claim row says about itself and which rows count: instance, crossovers and K run on every
row; table orders scored only where the tables' privacy terms dominate; Bai et al.'s Thm 6 against
its explicit Eq. (29), its dimension slopes as context; Lu et al.'s Sec. 4 order as context; Garcelon's
bonus-independent checks registered once (docs/decisions/claims.md)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.papers.bai_sdp_pe import eq29
from privrl.papers import table_orders as T
from privrl.papers.analysis import AnalysisContext
from privrl.results import claims as C
from privrl.results import ledger as L
from privrl.results import verdicts as V
from privrl.rl import envs

EP = np.unique(np.round(np.geomspace(10, 2_000_000, 40))).astype(np.int64)
RS = {"name": "riverswim", "params": {"S": 2, "H": 3}}


def _ctx(tmp_path, cells, env_specs):
    """cells: (agent, params, regret(ep) float64[n], env key, tags); 4 seeds within 1 % of each other."""
    infos, paths, fits, aggs = [], {}, [], []
    for j, (agent, params, curve, env, tags) in enumerate(cells):
        cell = f"{agent}_{j}"
        R = curve(EP.astype(float))
        active = float(tags.get("active_at_K", 0.0))  # fraction of policies active (1: nothing eliminated)
        rows = [pd.DataFrame({"seed": s, "episode": EP, "cum_regret": R * (1 + 0.01 * (s - 1.5)),
                              "cum_aux": active * EP}) for s in range(4)]
        p = tmp_path / f"{cell}.parquet"
        pd.concat(rows).to_parquet(p)
        paths[(env, cell)] = str(p)
        infos.append({"agent": agent, "params": params, "cell": cell, "env_key": env, "episodes": int(EP[-1]),
                      "reconstruction": False, "guarantees": [], "tags": tags, "label": cell})
        fits.append({"env": env, "cell": cell, "agent": agent, "exponent": 0.3, "exponent_lo": 0.28,
                     "exponent_hi": 0.32, "window_lo": float(EP[-1]) / 10, "window_hi": float(EP[-1]), "n_seeds": 4,
                     "saturated_fraction": 0.0, "K": int(EP[-1])})
        aggs.append(pd.DataFrame({"env": env, "cell": cell, "episode": EP, "mean": R, "ci_low": R, "ci_high": R}))
    return AnalysisContext("exp", {"envs": env_specs, "fit_decades": 1}, pd.DataFrame(fits), pd.concat(aggs), infos,
                           paths, str(tmp_path), 50)


# ------------------------------------------------------------------ instance, crossovers, K run
def test_claims_csv_round_trips_instance_crossovers_and_k_run():
    c = V.Claim("vietri2020", "Thm 4", "id", "s", "rate", "a", "m", V.REPRODUCED, k_needed=1e7, instance="riverswim(S=2, H=3)",
                crossovers="pucb: 6.22e+04", k_run=1e6)
    back = C.claims_from_frame(C.claims_frame([c, V.Claim("x", "Thm 1", "m", "s", "check", "a", "m", V.CHECKED)]))
    assert back[0] == c and back[1].k_run is None and back[1].instance == ""
    legacy = C.claims_frame([c]).drop(columns=["instance", "crossovers", "k_run"])  # a table written before them
    assert C.claims_from_frame(legacy)[0].k_run is None
    assert {"instance", "crossovers", "k_run"} <= set(C.CSV_COLUMNS)


def test_row_crossovers_name_the_rows_agents_at_its_eps():
    cells = [{"agent": "pucb", "params": {"epsilon": 10.0}, "crossover": 6.9e5},
             {"agent": "pucb", "params": {"epsilon": 100.0}, "crossover": 6.2e4},
             {"agent": "pucb", "params": {"epsilon": 100.0, "noise": 0.0}, "crossover": 1.0},  # noise-off twin
             {"agent": "ldp-obi", "params": {"epsilon": 100.0}, "crossover": 1.1e5},
             {"agent": "sdp-pe", "params": {"epsilon": 2.0}, "crossover": 2.8e7},
             {"agent": "pe", "params": {}, "crossover": 2.5e4},
             {"agent": "dp-ucbvi-jdp", "params": {"epsilon": 10.0}, "crossover": 1.1e5}]

    def row(statement):
        return C.row_crossovers(V.Claim("p", "Thm 1", "id", statement, "rate", "a", "m", V.REPRODUCED), cells)

    assert row("pucb regret at eps=100 is O~(sqrt K)") == {"pucb": 6.2e4}
    assert row("pucb (JDP): D(K, eps) ~ g(eps)") == {"pucb(eps=10)": 6.9e5, "pucb(eps=100)": 6.2e4}
    assert row("PE (no privacy): regret at K") == {"pe": 2.5e4}  # not "pe" inside "SDP-PE"
    assert row("SDP-PE (shuffle): regret") == {"sdp-pe": 2.8e7}
    assert row("RLSVI no larger than DP-UCBVI (JDP, recon.)'s") == {"dp-ucbvi-jdp": 1.1e5}
    assert len(row("an agent-free statement")) == 6  # names none: every live cell's agent (per eps)
    assert C.crossover_text({"a": 6.22e4, "b": math.inf, "c": float("nan")}) == "a: 6.22e+04; b: never; c: unknown"


def test_with_instance_fills_crossovers_from_the_design_unless_the_producer_set_them():
    cfg = {"experiments": {"e": {"envs": {"rs": RS}, "cells": [{"agent": "ucbvi"}, {"agent": "pucb"}],
                                 "sweep": {"epsilon": [10.0]}}}}
    cells = C.cell_crossovers(C.cell_specs(cfg))
    mdp = envs.make("riverswim", S=2, H=3)
    from privrl import agents

    assert cells["e"]["rs"][1]["crossover"] == agents.get("pucb").crossover({"epsilon": 10.0}, mdp)
    rows = [V.Claim("p", "Thm 1", "a", "UCBVI regret", "rate", "a", "m", V.REPRODUCED, experiment="e"),
            V.Claim("p", "Thm 1", "b", "PUCB vs UCBVI", "order", "a", "m", V.REPRODUCED, experiment="e",
                    crossovers="pucb: 1")]
    got = C.with_instance(rows, C.instances_of(cfg), {"e": 10**6}, cells)
    assert got[0].instance == "riverswim(S=2, H=3)" and got[0].k_run == 1e6
    assert got[0].crossovers == f"ucbvi: {agents.get('ucbvi').crossover({}, mdp):.3g}"
    assert got[1].crossovers == "pucb: 1"  # the producer's own list stands
    two = {"e": {"rs": "riverswim(S=2, H=3)", "rs4": "riverswim(S=4, H=3)"}}
    per_env = {"e": {"rs": [{"agent": "ucbvi", "params": {}, "crossover": 10.0}],
                     "rs4": [{"agent": "ucbvi", "params": {}, "crossover": 20.0}]}}
    both = C.with_instance(rows[:1], two, {"e": 10**6}, per_env)[0]  # names neither env: both, per env
    assert both.instance == "riverswim(S=2, H=3); riverswim(S=4, H=3)" and both.crossovers == "rs/ucbvi: 10; rs4/ucbvi: 20"


def test_claims_md_shows_instance_and_k_run_compactly_and_no_ids():
    one = V.Claim("vietri2020", "Thm 4", "vietri_row_id", "s", "rate", "a", "m", V.REPRODUCED,
                  instance="riverswim(S=2, H=3)", k_run=1e6)
    many = V.Claim("bai_sdp_pe", "Thm 6", "bai_row_id", "t", "bound", "a", "m", V.REPRODUCED,
                   instance="; ".join(f"garnet(S={s})" for s in range(2, 9)), k_run=1e10)
    assert L.instance_text(one) == "riverswim(S=2, H=3), K 1e+06" and L.instance_text(many) == "7 instances, K 1e+10"
    md = L.render_markdown([one, many])
    assert "| riverswim(S=2, H=3), K 1e+06 |" in md and "| 7 instances, K 1e+10 |" in md
    assert "vietri_row_id" not in md and "bai_row_id" not in md


# ------------------------------------------------------------------ table orders: the privacy term must dominate
@pytest.mark.parametrize("K", [1e4, 1e6, 1e10])
def test_table1_forms_put_ldp_above_jdp_only_below_eps0_one_half(K):
    mdp = envs.make("riverswim", S=2, H=3)
    assert T.eps_threshold("garcelon2021", "LDP", "JDP", K, mdp) == pytest.approx(T.garcelon_eps_threshold(K), rel=1e-6)
    assert T.garcelon_eps_threshold(K) < 0.5 and T.MARGIN == V.THRESHOLDS.strong_ratio
    r, k_from, note = T.dominance("garcelon2021", "LDP", "JDP", 100.0, K, mdp)
    assert r == pytest.approx(math.sqrt(K) / 100 / (math.sqrt(K) + 0.01)) and k_from == math.inf
    assert "at no K" in note
    assert math.isfinite(T.dominance("garcelon2021", "LDP", "JDP", 0.25, K, mdp)[1])


def test_bai_table_i_forms_on_the_cross_model_instance():
    """RiverSwim S=2, H=3 (X=2, A=2): LDP/JDP -> 1 + sqrt(X^3 A H^3)/eps = 1 + 20.8/eps, so eps = 10 is
    dominated; the SDP row's larger statistical term sqrt(X^2AH^5K) needs eps below ~2.8."""
    mdp = envs.make("riverswim", S=2, H=3)
    r, k_from, _ = T.dominance("bai_sdp_pe", "LDP", "JDP", 10.0, 1e7, mdp)
    assert r == pytest.approx(1 + math.sqrt(2**3 * 2 * 3**3) / 10, rel=1e-2) and k_from <= 1e7
    assert T.dominance("bai_sdp_pe", "LDP", "SDP", 10.0, 1e7, mdp)[1] == math.inf
    assert T.dominance("bai_sdp_pe", "LDP", "SDP", 1.0, 1e7, mdp)[1] <= 1e7


def test_garcelon_jdp_vs_ldp_at_eps0_100_is_labelled_context(tmp_path):
    from privrl.papers.garcelon2021.thm6 import jdp_vs_ldp_claim

    cells = [("pucb", {"epsilon": 50.0}, lambda k: 200 * np.log(k), "rs", {}),
             ("ldp-obi", {"epsilon": 100.0}, lambda k: 100 * np.log(k), "rs", {})]
    c = jdp_vs_ldp_claim(_ctx(tmp_path, cells, {"rs": RS}), "rs", "pucb_0", "ldp-obi_1", "cid", "rs, eps0=100", "a")
    assert c.scope == "context" and "not Table 1's statement" in c.statement and "at no K" in c.regime
    assert c.crossovers.startswith("pucb: ") and "ldp-obi: " in c.crossovers


# ------------------------------------------------------------------ Bai et al. Thm 6: Eq. (29)
def test_eq29_is_lemma_25s_sum_over_the_runs_stages():
    """K = 12: stages L = (2, 4) (2 x (2 + 4) = 12); PE's E is 1 (pe_privacy.error_level)."""
    mdp = envs.make("garnet", S=2, A=2, branching=2, H=1, seed=1)
    info = {"agent": "pe", "params": {"delta": 0.05, "C": 0.5, "C1": 3.0, "max_policies": 65536.0}}
    X, A, H, iota = 2, 2, 1, math.log(2 * 1 * 2 * 12 / 0.05)
    want = 4 * H + 8 * 0.5 * 4 * (math.sqrt(H**5 * X**2 * A * iota / 2) + 1.0 * X**3 * A**2 * H**5 * iota / 2)
    assert eq29.eq29_bound(info, mdp, 12) == pytest.approx(want)


def test_regret_above_eq29_is_inconclusive_never_contradicted():
    mdp = envs.make("garnet", S=2, A=2, branching=2, H=1, seed=1)
    info = {"agent": "pe", "params": {"delta": 0.05, "C": 1.0, "C1": 6.0, "max_policies": 65536.0}}
    K = 1e10
    b = eq29.eq29_bound(info, mdp, int(K))
    assert b < K * 0.1  # non-vacuous at K = 1e10 on this garnet
    assert eq29.score_below_eq29((b / 10, b / 11, b / 9), info, mdp, K, 0.1).verdict == V.REPRODUCED
    above = eq29.score_below_eq29((10 * b, 9 * b, 11 * b), info, mdp, K, 0.1)
    assert above.verdict == V.INCONCLUSIVE and "C = 1" in above.regime
    vac = eq29.score_below_eq29((1.0, 1.0, 1.0), info, mdp, 1e3, 0.1)
    assert vac.verdict == V.NOT_REACHED and vac.k_needed > 1e3


def test_scaling_slopes_are_context_and_the_bound_rows_name_their_c(tmp_path):
    from privrl.papers.bai_sdp_pe import theorems as thm

    pe = {"delta": 0.05, "C": 0.1, "C1": 0.6, "max_policies": 65536.0}  # Eq. (29) non-vacuous at K = 2e6
    specs = {f"h{H}": {"name": "garnet", "params": {"S": 2, "A": 2, "branching": 2, "H": H, "seed": 1}}
             for H in (1, 2)}
    # regret steeper than H^5 across H: an instance-dependent ratio, not a contradiction of Thm 6
    cells = [("pe", pe, (lambda H: lambda k: 10.0 * H**8 * np.log(k))(H), e, {}) for H, e in ((1, "h1"), (2, "h2"))]
    out = thm.bai_sdp_pe_scaling(_ctx(tmp_path, cells, specs))
    c = {i.split("exp_")[1]: r for i, r in zip(out.claims.claim_id, out.claims.to_dict("records"))}
    assert c["scaling_H_pe"]["scope"] == "context" and c["scaling_H_pe"]["verdict"] == V.INCONCLUSIVE
    assert V.CONTRADICTED not in set(out.claims.verdict)
    assert c["below_eq29_pe"]["scope"] == "paper_claim" and c["below_eq29_pe"]["kind"] == "bound"
    assert "C = 0.1:" in c["below_eq29_pe"]["statement"] and "C = 0.1:" in c["scaling_H_pe"]["statement"]
    assert c["below_eq29_pe"]["verdict"] == V.REPRODUCED and "eq29_bound" in out.table.columns
    assert "x below (at the run's C" in c["below_eq29_pe"]["regime"]
    assert "scored" not in c["scaling_H_pe"]["regime"] and "see the Eq. (29) row" in c["scaling_H_pe"]["regime"]
    # no seed eliminated anything on h2: below Eq. (29) there tests nothing of the elimination analysis
    cells[1] = (*cells[1][:4], {"active_at_K": 1.0})
    c = {i.split("exp_")[1]: r for i, r in zip(*(lambda o: (o.claim_id, o.to_dict("records")))(
        thm.bai_sdp_pe_scaling(_ctx(tmp_path, cells, specs)).claims))}
    assert c["below_eq29_pe"]["verdict"] == V.INCONCLUSIVE
    assert "no seed eliminated any policy on h2" in c["below_eq29_pe"]["regime"]
    # every seed eliminated at the same stages (zero regret spread): said, with the number of seeds
    cells[1] = (cells[1][0], cells[1][1], lambda k: 0.0 * k, "h2", {})
    c = {i.split("exp_")[1]: r for i, r in zip(*(lambda o: (o.claim_id, o.to_dict("records")))(
        thm.bai_sdp_pe_scaling(_ctx(tmp_path, cells, specs)).claims))}
    assert "seeds' regrets identical on h2" in c["below_eq29_pe"]["regime"]
    assert "share of the 4 seeds that eliminated" in c["below_eq29_pe"]["regime"]


# ------------------------------------------------------------------ Lu et al. Sec. 4; Garcelon's checks once
def test_lu_rlsvi_against_ucbvi_is_context(tmp_path):
    from privrl.papers import lu2026

    bandit = {"name": "garnet", "params": {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}}
    cells = [("rlsvi", {"beta_scale": 1.0}, lambda k: 5 * np.log(k), "b", {}),
             ("ucbvi", {"bonus_scale": 1.0}, lambda k: 50 * np.log(k), "b", {})]
    ctx = _ctx(tmp_path, cells, {"b": bandit})
    reg = pd.DataFrame([{"env": "b", "cell": "rlsvi_0", "K": int(EP[-1]), "eps_cor14": 1e6, "delta": 1e-5}])
    got = [c for c in lu2026._claims(ctx, pd.DataFrame(columns=["env"]), reg, pd.DataFrame())
           if "no_privacy_cost" in c.claim_id]
    assert len(got) == 1 and got[0].scope == "context" and "compare RLSVI with no other agent" in got[0].statement
    assert got[0].crossovers.startswith("rlsvi: ") and "ucbvi: " in got[0].crossovers
    remark2 = [c for c in lu2026._claims(ctx, pd.DataFrame(columns=["env"]), reg, pd.DataFrame())
               if "remark2" in c.claim_id]
    assert "Every RLSVI run (b) reports" in remark2[0].statement  # one per experiment: its instances named


def test_garcelon_bonus_independent_checks_are_registered_once(tmp_path):
    from privrl.papers.garcelon2021.thm6 import garcelon2021_thm6

    local = {"epsilon": 2.397895273, "tau_power": 1 / 3}
    cells = [("shuffled-obi", {**local, "bonus_scale": b}, lambda k: 10 * np.sqrt(k), "rs",
              {"thm6": "k13_local", "eps0": "1"}) for b in (1.0, 0.1)]
    claims = garcelon2021_thm6(_ctx(tmp_path, cells, {"rs": RS})).claims
    checks = claims[claims.kind == "check"]
    assert len(checks) == len(set(checks.statement)) == 2  # the local eps and the release sequence, once each
    rates = claims[claims.kind == "rate"]
    assert len(rates) == 2 and len(set(rates.statement)) == 2  # one per bonus_scale, which the statement names
    seq = checks[checks.claim_id.str.endswith("_release_sequence")].iloc[0]
    assert seq.verdict != "checked"  # labelled eps0 = 1: never certified by a sequence run at local eps 2.4


def test_garcelon_amplification_rows_are_context_once_per_env_eps_tau(tmp_path):
    """The exact eps of tau = 1000 shuffled users vs eps0 is context (Prop. 5 states eps_(c,tau)),
    registered once per (env, eps0, tau) whatever the bonus_scale."""
    from privrl.papers.garcelon2021.thm6 import garcelon2021_thm6

    cells = [("shuffled-obi", {"epsilon": 1.0, "tau": t, "bonus_scale": b}, lambda k: 10 * np.sqrt(k), "rs",
              {"thm6": "grid"}) for b in (1.0, 0.1) for t in (0, 1000)]
    claims = garcelon2021_thm6(_ctx(tmp_path, cells, {"rs": RS})).claims
    amp = claims[claims.claim_id.str.startswith("thm6_amplification_")]
    assert list(amp.claim_id) == ["thm6_amplification_rs_eps1_tau1000"]
    assert (amp.scope == "context").all() and "Prop. 5 states eps_(c,tau) = 14.09" in amp.statement.iloc[0]
    assert "bonus_scale" not in amp.statement.iloc[0]
