"""Negative controls (privrl.results.controls): a row is reproduced only when the twins its statement is
about fail its own check; the twins' realisations; the over-exploring twin read from a bound's slack."""
import math

from privrl.results import controls as C
from privrl.results import verdicts as V
from privrl.results.eps_verdicts import EpsCell, score_eps_dependence

REG = V.Regime(10.0, 1e5, 1e6)  # in regime


def _cells(D, b=0.0):
    """Four eps cells over a decade with D(eps) and 5 % CIs."""
    return [EpsCell(e, b, b - 0.01, b + 0.01, D(e), 0.95 * D(e), 1.05 * D(e), REG) for e in (1.0, 2.0, 4.0, 10.0)]


def _score(cells):
    return score_eps_dependence(cells, 0.0, "power", (1.0, 1.0), gamma_two_sided=True)


def test_reproduced_needs_every_relevant_twin_rejected():
    ok = V.Score(V.REPRODUCED, "m", "r")
    rejected = C.TwinOutcome("eps_blind", V.Score(V.CONTRADICTED, "x"))
    passing = C.TwinOutcome("non_private", V.Score(V.REPRODUCED, "y"))
    score, cell = C.judge(ok, "privacy_cost_eps", [rejected, passing])
    assert score.verdict == V.CONSISTENT and score.regime.startswith("no power against non-private")
    assert cell == "rejects: eps-blind; passes: non-private" and score.controls == cell
    # a twin not run counts as no power; a twin short of its regime is undecided, not rejected
    undecided = C.TwinOutcome("non_private", V.Score(V.NOT_REACHED, "z"))
    score, cell = C.judge(ok, "privacy_cost_eps", [undecided])
    assert score.verdict == V.CONSISTENT and cell == "undecided: non-private; not run: eps-blind"
    # a row the data contradict keeps its verdict, with its twins listed
    bad, _ = C.judge(V.Score(V.CONTRADICTED, "m"), "privacy_cost_eps", [rejected])
    assert bad.verdict == V.CONTRADICTED


def test_privacy_cost_twins_on_a_one_over_eps_cost():
    (b, b_cell), (g, g_cell) = C.privacy_cost_with_twins(_score, _cells(lambda e: 100.0 / e))
    assert g.verdict == V.REPRODUCED and g_cell == "rejects: non-private, eps-blind"
    assert "D = 0 by definition" in g.regime  # the non-private rejection is said to be definitional
    assert b.verdict == V.CONSISTENT and b_cell == "not run: wrong trust model"
    # a local sibling (b = 1/2) is rejected by the additive b <= 0 bound
    sib = _cells(lambda e: 100.0 / e, b=0.5)
    (b, b_cell), _ = C.privacy_cost_with_twins(_score, _cells(lambda e: 100.0 / e), sib, "dp-ucbvi-ldp")
    assert b.verdict == V.REPRODUCED and b_cell == "rejects: wrong trust model"


def test_the_eps_blind_twin_is_the_largest_eps_relabelled():
    cells = _cells(lambda e: 100.0 / e)
    twin = C.eps_blind_cells(cells)
    assert [c.eps for c in twin] == [c.eps for c in cells] and {c.D for c in twin} == {10.0}
    assert C.eps_blind_cells(cells[:1]) == []  # one eps: nothing to fake


def test_over_exploring_twin_from_the_slack():
    # regret 100 [90, 110]: the twin has >= 900; a bound at 500 rejects it, a bound at 5000 does not
    assert C.bound_outcome((100.0, 90.0, 110.0), 500.0, math.inf).rejected
    assert C.bound_outcome((100.0, 90.0, 110.0), 5000.0, math.inf).outcome == "passes"
    # the twin's regret cannot exceed K x the largest gap: with that cap below the bound it passes
    assert C.bound_outcome((100.0, 90.0, 110.0), 500.0, 400.0).outcome == "passes"
    s = C.judge_without_twin(V.Score(V.REPRODUCED, "m"), "regret_bound", "no widths")
    assert s.verdict == V.CONSISTENT and s.controls == "not run: over-exploring, linear"


def test_linear_twin_fails_an_exponent_check_and_a_bound_it_exceeds():
    # a learner that never learns has exponent exactly 1 on the row's window: an O~(sqrt K) or a
    # "mistakes stop growing" check in regime rejects it; with slope 0 it makes no mistake and passes
    for claimed in (0.0, 0.5):
        o = C.linear_rate_outcome(lambda f, c=claimed: V.score_rate_upper(f, c, 0.1, REG), 1e5, 1e6, 0.25)
        assert o.rejected and "a = 1" in o.text()
    assert C.linear_rate_outcome(lambda f: V.score_rate_upper(f, 0.0, 0.1, REG), 1e5, 1e6, 0.0).outcome == "passes"
    # short of the agent's regime the same check cannot reject it (undecided: the window is fixed in advance)
    early = V.Regime(1e5, 1e5, 1e6)
    assert C.linear_rate_outcome(lambda f: V.score_rate_upper(f, 0.5, 0.1, early), 1e5, 1e6, 0.25).outcome == "undecided"
    # an explicit bound, through the row's own check at K: rejected where slope x K exceeds it, passing
    # (vacuous) otherwise; a check that cannot contradict (a bound with its polylog dropped) leaves it undecided
    from privrl.results.bound_verdicts import score_bound_one_sided

    def check(bound):
        return lambda m: V.score_bound(m, lambda k: bound, 1e6, 1.0)
    assert C.linear_bound_outcome(check(1e5), 1e6, 0.2).rejected
    assert C.linear_bound_outcome(check(5e5), 1e6, 0.2).outcome == "passes"
    stripped = C.linear_bound_outcome(lambda m: score_bound_one_sided(m, lambda k: 1e5, 1e6, 1.0, "a polylog"), 1e6, 0.2)
    assert stripped.outcome == "undecided"


def test_learning_rows_need_greedy_and_linear_rejected():
    ok = V.Score(V.REPRODUCED, "m", "r")
    lin = C.linear_rate_outcome(lambda f: V.score_rate_upper(f, 0.0, 0.1, REG), 1e5, 1e6, 0.5)
    s, cell = C.judge(ok, "learns", [C.greedy_outcome(None), lin])
    assert s.verdict == V.CONSISTENT and cell == "rejects: linear; not run: greedy"
    s, cell = C.judge(ok, "learns", [C.greedy_outcome(V.Score(V.CONTRADICTED, "a = 1")), lin])
    assert s.verdict == V.REPRODUCED and cell == "rejects: greedy, linear"


def test_uniform_gap_and_mistake_rate():
    from privrl.rl import envs
    from privrl.rl.mdp import optimal_values

    m = envs.make("garnet", S=1, A=2, branching=1, H=1, seed=0)
    r = m.R[0, 0]
    assert math.isclose(C.uniform_gap(m), r.max() - r.mean())
    # RiverSwim: V^unif below V*, and the gap is what a backward induction over uniform actions gives
    rs = envs.make("riverswim", S=2, H=2)
    g = C.uniform_gap(rs)
    assert 0.0 < g < float(rs.rho @ optimal_values(rs)[1][0])
    assert C.uniform_mistake_rate([0.0, 0.5], 0.3) == 0.5 and C.uniform_mistake_rate([0.0, 0.5], 0.6) == 0.0


def test_control_cells_are_found_by_their_tag_and_params():
    real = {"agent": "pucb", "env_key": "bandit", "params": {"epsilon": 10.0, "bonus_scale": 1.0, "z": 0.0}, "tags": {}}
    greedy = {"agent": "pucb", "env_key": "bandit", "params": {"epsilon": 10.0, "bonus_scale": 0.0, "z": 0.0},
              "tags": {"control": "greedy"}}
    other_eps = {**greedy, "params": {**greedy["params"], "epsilon": 100.0}}
    assert C.control_cell([real, other_eps, greedy], real, "greedy") is greedy
    assert C.control_cell([real, other_eps], real, "greedy") is None
    assert C.is_control(greedy) and not C.is_control(real)


def test_fit_tables_name_the_control_a_cell_is():
    import pandas as pd

    from privrl.results.tables import fits_markdown

    assert C.control_name({"tags": {"control": "greedy"}}) == "greedy" and C.control_name({"tags": None}) == ""
    row = {"privacy_model": "JDP", "exponent": 0.1, "exponent_lo": 0.0, "exponent_hi": 0.2, "regret_at_K": 1.0,
           "K": 10, "window_lo": 1.0, "window_hi": 10.0, "saturated_fraction": 0.0}
    fits = pd.DataFrame([{**row, "label": "PUCB", "control": ""}, {**row, "label": "PUCB no bonus", "control": "greedy"}])
    md = fits_markdown(fits, "t")
    assert "| PUCB |  | JDP |" in md and "| PUCB no bonus | greedy | JDP |" in md
    # an agent's empty control read back from CSV is NaN; a table written before the column existed has none
    assert "| PUCB |  | JDP |" in fits_markdown(fits.assign(control=[float("nan"), "greedy"]), "t")
    assert "| PUCB |  | JDP |" in fits_markdown(fits.drop(columns="control"), "t")
