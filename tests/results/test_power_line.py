"""The ledger's power line: per twin kind, how many of the scored rows about it reject it, the twins
realised from runs apart from the analytic ones -- the over-exploring twin counted where it was realised
(a control cell's runs on one row, a bound's slack on another)."""
from privrl.results import controls as C
from privrl.results import ledger as L
from privrl.results import verdicts as V


def _row(cid, outcomes, verdict=V.REPRODUCED, kind="rate", scope="paper_claim"):
    score, _ = C.judge(V.Score(verdict, "m", "in regime"), "agent_regret" if kind != "bound" else "regret_bound",
                       outcomes)
    return V.Claim("vietri2020", "Thm 4", cid, f"statement {cid}", kind, "a.md", score.measured, score.verdict,
                   score.regime, scope=scope, controls=score.controls)


REJECTED = V.Score(V.CONTRADICTED, "x")
PASSING = V.Score(V.REPRODUCED, "y")


def test_per_kind_counts_and_where_each_twin_was_realised():
    claims = [
        # over-exploring from a control cell's runs, rejected; non-private definitional, rejected
        _row("a", [C.over_exploring_run_outcome(REJECTED, "PUCB widths x10"), C.TwinOutcome("non_private", REJECTED)]),
        # over-exploring read from a bound's slack, passing; linear rejected
        _row("b", [C.bound_outcome((100.0, 90.0, 110.0), 5000.0, float("inf")),
                   C.TwinOutcome("linear", REJECTED)], kind="bound"),
        # over-exploring not run (no control cell)
        _row("c", [C.over_exploring_run_outcome(None), C.TwinOutcome("non_private", PASSING)]),
        # a context row and a check are not counted
        _row("d", [C.over_exploring_run_outcome(REJECTED, "x")], scope="context"),
    ]
    per = L.twin_outcomes(claims)
    assert per[("over-exploring", True)] == {"rejects": 1}
    assert per[("over-exploring", False)] == {"passes": 1, "not run": 1}
    assert per[("non-private", False)] == {"rejects": 1, "passes": 1}
    assert L.control_outcomes(claims)["over-exploring"] == {"rejects": 1, "passes": 1, "not run": 1}
    line = L.power_line(claims)
    assert "realised from runs, 1 of 1 (row, twin) pairs rejected: over-exploring rejected by 1 of 1" in line
    assert ("analytic or definitional, 2 of 5 (row, twin) pairs rejected: linear rejected by 1 of 1; "
            "non-private rejected by 1 of 2 (1 passing); over-exploring rejected by 0 of 2 (1 passing, 1 not run)") in line


def test_the_run_mark_is_read_from_the_twin_it_belongs_to():
    regime = ("in regime; twin non-private: rejects (realised from runs: x; contradicted; m); "
              "twin over-exploring: rejects (contradicted; the twin's regret >= 9)")
    assert C.realised_from_runs(regime, "non-private") and not C.realised_from_runs(regime, "over-exploring")
    assert not C.realised_from_runs("twin over-exploring: not run (the design runs no widths-x10 control cell)",
                                    "over-exploring")
