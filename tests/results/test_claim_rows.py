"""What a claim row says about itself and which rows count (privrl.results.claims, ledger): instance,
crossovers and K run on every row, in the CSV and in CLAIMS.md; scopes (context, out of reach)
(docs/decisions/claims.md)."""
from __future__ import annotations

import math

from privrl.results import claims as C
from privrl.results import ledger as L
from privrl.results import verdicts as V
from privrl.rl import envs

RS = {"name": "riverswim", "params": {"S": 2, "H": 3}}


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


def test_every_row_names_its_instance_and_k():
    rows = [V.Claim("vietri2020", "Thm 3", "vietri2020_pac_bound_bandit_pucb", "s", "bound", "a", "m", V.REPRODUCED,
                    regime="crossover K = 6e4", experiment="vietri2020_pac"),
            V.Claim("x", "Thm 1", "two_envs_a", "on hard_a", "bound", "a", "m", V.REPRODUCED, experiment="two"),
            V.Claim("x", "Thm 1", "mech", "s", "check", "a", "m", V.CHECKED, experiment="mechanisms")]
    cfg = {"experiments": {"vietri2020_pac": {"envs": {"bandit": {"name": "garnet", "params": {"S": 1, "A": 2}}}},
                           "two": {"envs": {"hard_a": {"name": "hard_instance"}, "hard_b": {"name": "hard_instance"}}}}}
    got = C.with_instance(rows, C.instances_of(cfg), {"vietri2020_pac": 10**7, "two": 10**6})
    assert (got[0].instance, got[0].k_run, got[0].regime) == ("garnet(S=1, A=2)", 1e7, "crossover K = 6e4")
    assert (got[1].instance, got[1].k_run) == ("hard_instance()", 1e6)  # the env the statement names
    assert got[2].instance == "" and got[2].k_run is None  # a mechanism check: no instance, no run


def test_claims_beyond_1e11_are_out_of_reach_and_scope_round_trips(tmp_path):
    mk = lambda cid, k, scope="paper_claim": V.Claim("vietri2020", "Thm 4", cid, "s", "rate", "a", "m", V.NOT_REACHED,
                                                     k_needed=k, scope=scope)
    rows = C.with_scope_of_reach([mk("a", 1e10), mk("b", 2e11), mk("c", math.inf), mk("d", 1e12, "context")])
    assert [r.scope for r in rows] == ["paper_claim", "out_of_reach", "out_of_reach", "context"]
    back = C.claims_from_frame(C.claims_frame(rows))
    assert [r.scope for r in back] == [r.scope for r in rows]
    legacy = C.claims_frame(rows).drop(columns=["scope"])
    assert {r.scope for r in C.claims_from_frame(legacy)} == {"paper_claim"}


def test_only_undecided_rows_move_out_of_reach():
    """A reproduced, contradicted or checked row was decided on the data: it stays counted whatever
    its K needed; not reached and inconclusive rows beyond 1e11 move."""
    rows = [V.Claim("vietri2020", "Thm 4", v, "s", "check" if v == V.CHECKED else "rate", "a", "m", v, k_needed=1e12)
            for v in V.VERDICTS]
    moved = {r.verdict: r.scope for r in C.with_scope_of_reach(rows)}
    assert moved == {V.NOT_REACHED: "out_of_reach", V.INCONCLUSIVE: "out_of_reach", V.REPRODUCED: "paper_claim",
                     V.CONSISTENT: "paper_claim", V.CONTRADICTED: "paper_claim", V.CHECKED: "paper_claim"}
