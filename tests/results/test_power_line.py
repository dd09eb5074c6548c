"""The ledger's power line: per twin kind, how many of the scored rows about it reject it, the twins
realised from runs apart from the analytic ones -- the over-exploring twin counted where it was realised
(a control cell's runs on one row, a bound's slack on another)."""
from privrl.results import controls as C
from privrl.results import ledger as L
from privrl.results import verdicts as V


def _row(cid, outcomes, verdict=V.REPRODUCED, kind="rate", scope="paper_claim", statement="agent_regret"):
    score, _ = C.judge(V.Score(verdict, "m", "in regime"), statement if kind != "bound" else "regret_bound", outcomes)
    return V.Claim("vietri2020", "Thm 4", cid, f"statement {cid}", kind, "a.md", score.measured, score.verdict,
                   score.regime, scope=scope, controls=score.controls)


REJECTED = V.Score(V.CONTRADICTED, "x")
PASSING = V.Score(V.REPRODUCED, "y")


def test_per_kind_counts_and_where_each_twin_was_realised():
    claims = [
        # non-private definitional, rejected; over-exploring not run (analytic on this kind of row)
        _row("a", [C.TwinOutcome("non_private", REJECTED)]),
        # over-exploring read from a bound's slack, passing; linear rejected
        _row("b", [C.bound_outcome((100.0, 90.0, 110.0), 5000.0, float("inf")),
                   C.TwinOutcome("linear", REJECTED)], kind="bound"),
        _row("c", [C.TwinOutcome("non_private", PASSING)]),
        # the project's control rows (context): the over-exploring twin from a control cell's runs, rejected, and
        # not run where the design has no control cell -- both realised from runs, by the row's declared id
        _row("x" + C.NOISE_OFF_SUFFIX, [C.over_exploring_run_outcome(REJECTED, "PUCB widths x10")], scope="context",
             statement="noise_off_level"),
        _row("y" + C.NOISE_OFF_SUFFIX, [C.over_exploring_run_outcome(None)], scope="context",
             statement="noise_off_level"),
        # another context row and a check are not counted
        _row("d", [C.TwinOutcome("non_private", REJECTED)], scope="context"),
        _row("e", [C.TwinOutcome("non_private", REJECTED)], kind="check", verdict=V.CHECKED),
    ]
    per = L.twin_outcomes(claims)
    assert per == {("non-private", False): {"rejects": 1, "passes": 1},
                   ("over-exploring", False): {"passes": 1, "not run": 2}, ("linear", False): {"rejects": 1}}
    assert L.twin_outcomes(claims, control_rows=True) == {("over-exploring", True): {"rejects": 1, "not run": 1}}
    assert L.control_outcomes(claims)["over-exploring"] == {"passes": 1, "not run": 2}
    line = L.power_line(claims)
    assert ("analytic or definitional, 2 of 6 (row, twin) pairs rejected: linear rejected by 1 of 1; "
            "non-private rejected by 1 of 2 (1 passing); over-exploring rejected by 0 of 3 (1 passing, 2 not run)") in line
    assert ("The project's control rows (context, no paper's statement), twins realised from runs: "
            "over-exploring rejected by 1 of 2 (1 not run).") in line
    # a paper row whose id is a control row's counts its twin as realised from runs too (structure, not text)
    own = L.twin_outcomes([_row("z" + C.NOISE_OFF_SUFFIX, [C.over_exploring_run_outcome(None)],
                                statement="noise_off_level")])
    assert own == {("over-exploring", True): {"not run": 1}}
