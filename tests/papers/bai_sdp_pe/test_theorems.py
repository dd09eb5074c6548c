"""Bai et al. theorems on synthetic runs (privrl.papers.bai_sdp_pe.theorems): the error-level slope and
Thm 11 one-sided and in regime, Thm 6's dimension slopes as context beside the Eq. (29) bound rows."""
from __future__ import annotations

import numpy as np

from privrl.results import verdicts as V
from privrl.papers.bai_sdp_pe import theorems as thm

from tests.papers.synthetic import EP, GARNET, SDP, run_context as _context, tagged_context as _ctx


def test_error_level_slope_one_sided_and_in_regime(tmp_path):
    pe = {k: v for k, v in SDP.items() if k not in ("epsilon", "beta")}
    cells = [("pe", pe, lambda k: 10 * np.log(k), 0.5)]
    from privrl.rl import envs
    mdp = envs.make("garnet", **GARNET["params"])
    for agent in ("sdp-pe-jdp", "sdp-pe"):
        for eps in (1.0, 4.0):
            info = {"agent": agent, "params": {**SDP, "epsilon": eps}}
            E = thm.run_error_level(info, mdp, EP[-1])
            cells.append((agent, {**SDP, "epsilon": eps}, (lambda E: lambda k: 10 * np.log(k) + 2.0 * E)(E), 0.5))
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, cells))
    from privrl.results import figure_check, style

    style.save_figure(out.figure, tmp_path / "figs/error_level")
    assert figure_check.figure_problems(tmp_path / "figs") == []  # readable in a 3.3 in column
    row = out.claims.iloc[0]
    assert row.kind == "rate" and row.verdict == V.REPRODUCED, row.measured  # D proportional to E
    quad = [cells[0]] + [(a, p, (lambda E: lambda k: 10 * np.log(k) + 0.01 * E**2)(
        thm.run_error_level({"agent": a, "params": p}, mdp, EP[-1])), 0.5) for a, p, _, _ in cells[1:]]
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, quad))
    assert out.claims.iloc[0].verdict == V.CONTRADICTED  # D ~ E^2, every cell past 10 x its crossover
    # cells that eliminated nothing are not in regime: "not reached" with the K needed
    stuck = [(a, {**p, "C": 1.0, "C1": 6.0}, f, 1.0) for a, p, f, _ in quad]
    out = thm.bai_sdp_pe_error_level(_context(tmp_path, stuck))
    assert out.claims.iloc[0].verdict == V.NOT_REACHED and out.claims.iloc[0].k_needed > EP[-1]


def _thm11(tmp_path, D, monkeypatch):
    # every cell past 10 x its crossover on the synthetic K grid (the subject is the verdict, not the crossover)
    monkeypatch.setattr(thm, "crossover_of", lambda info, mdp: 1_000.0)
    pe = {k: v for k, v in SDP.items() if k not in ("epsilon", "beta")}
    cells = [("pe", pe, lambda k: 10 * np.log(k), 0.5)]
    for eps in (0.09, 0.18, 0.36, 0.9, 2.0):
        cells.append(("sdp-pe", {**SDP, "epsilon": eps}, (lambda e: lambda k: 10 * np.log(k) + D(e))(eps), 0.5))
    return thm.bai_sdp_pe_thm11(_context(tmp_path, cells))


def test_thm11_scores_only_eps_below_one(tmp_path, monkeypatch):
    out = _thm11(tmp_path, lambda e: 500 / e, monkeypatch)
    from privrl.results import figure_check, style

    style.save_figure(out.figure, tmp_path / "figs/thm11")
    assert figure_check.figure_problems(tmp_path / "figs") == []  # readable in a 3.3 in column
    ids = list(out.claims.claim_id)
    assert not any("eps2" in i for i in ids)  # outside Thm 11: shown, not scored
    v = dict(zip([i.split("exp_")[1] for i in ids], out.claims.verdict))
    c = dict(zip([i.split("exp_")[1] for i in ids], out.claims.controls))
    assert v["sqrtK_eps0.18_g"] == V.REPRODUCED
    # Thm 11 is an upper bound (no lower bound for shuffle DP is cited): D ~ 1/eps meets it, and so do
    # the eps-blind twin (D flat) and the non-private one (no cost): the row has no power, it says so
    assert v["eps_dependence_g"] == V.CONSISTENT
    assert c["eps_dependence_g"] == "passes: eps-blind; undecided: non-private"
    # b: its wrong-trust-model twin (SDP-PE with the local Privatizer) is not run here
    assert v["additive_b_g"] == V.CONSISTENT and c["additive_b_g"] == "not run: wrong trust model"
    assert bool(out.table.loc[out.table.epsilon == 2.0, "inside_thm11"].iloc[0]) is False


def test_thm11_one_sided_cannot_tell_a_cost_that_ignores_eps(tmp_path, monkeypatch):
    """The eps-blind agent itself (D the same at every eps) meets Thm 11's one-sided eps bound: the
    reason the real agent's row reads "consistent", never "reproduced"."""
    out = _thm11(tmp_path, lambda e: 500.0, monkeypatch)
    v = dict(zip([i.split("exp_")[1] for i in out.claims.claim_id], out.claims.verdict))
    assert v["eps_dependence_g"] == V.CONSISTENT


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
    # an elimination agent has no widths: its over-exploring twin is undefined, so the bound row has no shown power
    assert c["below_eq29_pe"]["verdict"] == V.CONSISTENT and "eq29_bound" in out.table.columns
    # ... and the row's own check cannot reject a learner that never learns (the linear twin): a regret above
    # Eq. (29) at the run's C is inconclusive, never a violation (Lemma 22's constant is unspecified)
    assert c["below_eq29_pe"]["controls"] == "undecided: linear; not run: over-exploring"
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
