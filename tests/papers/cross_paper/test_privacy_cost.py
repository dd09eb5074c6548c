"""The privacy_cost analysis (privrl.papers.cross_paper) on synthetic runs: end to end, pooling only eps
cells in their own regime, the two-sided eps exponents, the wrong twins and Shuffled-OBI's own eps law."""

import numpy as np

from privrl.papers import registry
from privrl.rl import engine

from tests.papers.synthetic import privacy_context as _context

EPS = [0.5, 1.0, 2.0, 5.0]


def _cost_curves(b, c, law=lambda e: 1.0 / e, n_seeds=6, noise=0.05, seed=0, C=500.0):
    """Baseline 3 sqrt(K) (common to all seeds) and private = baseline + C K^b g(eps)^c with
    independent per-seed, per-checkpoint noise on the cost (the slopes' CIs then overlap)."""
    rng = np.random.default_rng(seed)
    ep = engine.checkpoints(100_000, 120)
    base = np.tile(3.0 * np.sqrt(ep)[None, :], (n_seeds, 1))
    priv = {e: base + C * ep[None, :] ** b * law(e) ** c * (1 + noise * rng.standard_normal((n_seeds, ep.size)))
            for e in EPS}
    return ep, priv, base


def _pucb_cells(priv, base):
    cells = [("pucb_off", "pucb", {"epsilon": 1.0, "noise": 0.0, "bonus_scale": 0.1, "beta": 0.05}, {}, base, [])]
    return cells + [(f"pucb_{e}", "pucb", {"epsilon": e, "noise": 1.0, "bonus_scale": 0.1, "beta": 0.05}, {}, priv[e], [])
                    for e in priv]


def test_privacy_cost_analysis_end_to_end(tmp_path, monkeypatch):
    from privrl.papers import cross_paper

    monkeypatch.setattr(cross_paper, "agent_crossover", lambda agent, params, mdp: 10.0)  # every eps in regime
    ep, priv, base = _cost_curves(0.0, 1.0)
    res = registry.analysis("privacy_cost")(_context(tmp_path, _pucb_cells(priv, base)))
    assert len(res.table) == 1
    r = res.table.iloc[0]
    # the eps exponent is two-sided (Vietri Thm 6's 1/eps) and rejects both of its twins; b has no
    # same-algorithm local twin (PUCB has no local member): consistent, not reproduced
    assert r.agent == "pucb" and r.b_paper == 0.0 and r.b_verdict == "consistent" and r.eps_verdict == "reproduced"
    assert r.eps_controls == "rejects: non-private, eps-blind"
    assert r.b_controls == "not run: wrong trust model"
    assert set(res.claims.paper) == {"vietri2020"} and "claim_id" in res.claims.columns
    # DP-UCBVI JDP beside its local sibling (b = 1/2): the JDP b row rejects the local twin; the local
    # b row (an upper bound, <= 1/2) cannot reject the central twin (b = 0 meets it): consistent
    _, lpriv, _ = _cost_curves(0.5, 1.0, seed=7)
    dp = {"bonus_scale": 0.1, "delta": 0.05, "z": 0.0}
    cells = [("j_off", "dp-ucbvi-jdp", {**dp, "epsilon": 1.0, "noise": 0.0}, {}, base, [])]
    cells += [(f"j_{e}", "dp-ucbvi-jdp", {**dp, "epsilon": e, "noise": 1.0}, {}, priv[e], []) for e in EPS]
    cells += [("l_off", "dp-ucbvi-ldp", {**dp, "epsilon": 1.0, "noise": 0.0}, {}, base, [])]
    cells += [(f"l_{e}", "dp-ucbvi-ldp", {**dp, "epsilon": e, "noise": 1.0}, {}, lpriv[e], []) for e in EPS]
    t = registry.analysis("privacy_cost")(_context(tmp_path, cells)).table.set_index("agent")
    assert t.loc["dp-ucbvi-jdp", "b_verdict"] == "reproduced", t.loc["dp-ucbvi-jdp", "b_note"]
    assert t.loc["dp-ucbvi-jdp", "b_controls"] == "rejects: wrong trust model"
    assert t.loc["dp-ucbvi-ldp", "b_verdict"] == "consistent"
    assert t.loc["dp-ucbvi-ldp", "b_controls"] == "passes: wrong trust model"
    assert "| riverswim | pucb |" in res.markdown and res.figure is not None
    assert "b=nan" not in " ".join(t.get_text() for ax in res.figure.axes for t in ax.texts + [ax.title])
    from privrl.results import figure_check, style

    style.save_figure(res.figure, tmp_path / "figs/privacy_cost")
    assert figure_check.figure_problems(tmp_path / "figs") == []  # readable in a 3.3 in column


def test_privacy_cost_pools_only_eps_cells_in_their_own_regime(tmp_path, monkeypatch):
    """Small eps still explores (b ~ 1): with a crossover ~ 1/eps it is left out, and the pooled
    b of the cells in regime meets the additive bound; without the regime it would be pooled."""
    from privrl.papers import cross_paper

    ep, priv, base = _cost_curves(0.0, 1.0)
    rng = np.random.default_rng(3)
    priv[0.5] = base + 0.05 * ep[None, :] * (1 + 0.05 * rng.standard_normal((6, ep.size)))  # linear: b = 1
    monkeypatch.setattr(cross_paper, "agent_crossover", lambda agent, params, mdp: 150.0 / params["epsilon"])
    r = registry.analysis("privacy_cost")(_context(tmp_path, _pucb_cells(priv, base))).table.iloc[0]
    # the data agree (no local twin run beside it: "consistent", not "reproduced")
    assert r.b_verdict == "consistent" and "eps 0.5: b 1.00" in r.b_measured and "(pre-regime)" in r.b_measured
    monkeypatch.setattr(cross_paper, "agent_crossover", lambda agent, params, mdp: 10.0)  # all in regime
    r = registry.analysis("privacy_cost")(_context(tmp_path, _pucb_cells(priv, base))).table.iloc[0]
    assert r.b_verdict == "inconclusive" and r.eps_verdict == "inconclusive" and "disagree" in r.b_note


def test_ldp_eps_exponent_is_two_sided_and_shuffle_uses_its_own_law(tmp_path, monkeypatch):
    """LDP on a gap instance: c = 1.8 lies in [1, 2] (two-sided: the local model's lower bound);
    Shuffled-OBI's D ~ e^(eps/2)/(e^eps - 1) is read against that law, not a power of eps."""
    from privrl.papers import cross_paper
    from privrl.results import eps_verdicts as EV

    monkeypatch.setattr(cross_paper, "agent_crossover", lambda agent, params, mdp: 10.0)
    ep, priv, base = _cost_curves(0.5, 1.8)
    cells = [("l_off", "ldp-obi", {"epsilon": 1.0, "noise": 0.0, "bonus_scale": 0.1}, {}, base, [])]
    cells += [(f"l_{e}", "ldp-obi", {"epsilon": e, "noise": 1.0, "bonus_scale": 0.1}, {}, priv[e], []) for e in EPS]
    r = registry.analysis("privacy_cost")(_context(tmp_path, cells)).table.iloc[0]
    # gamma = 1.8 in [1, 2], two-sided (the local lower bound sqrt(K)/eps); b without its central twin run: consistent
    assert r.b_verdict == "consistent" and r.eps_verdict == "reproduced" and r.eps_law == "power"
    assert "(two-sided)" in r.eps_measured and "(two-sided)" not in r.b_measured  # b: an upper bound
    _, sh, _ = _cost_curves(0.5, 1.0, law=EV.EPS_LAWS["garcelon_shuffle"], seed=5)
    cells = [("s_off", "shuffled-obi", {"epsilon": 1.0, "noise": 0.0, "bonus_scale": 0.1}, {}, base, [])]
    cells += [(f"s_{e}", "shuffled-obi", {"epsilon": e, "noise": 1.0, "bonus_scale": 0.1}, {}, sh[e], []) for e in EPS]
    r = registry.analysis("privacy_cost")(_context(tmp_path, cells)).table.iloc[0]
    # Thm 6's law is an upper bound only: the eps-blind twin passes it too, so the row has no power
    assert r.eps_law == "garcelon_shuffle" and r.eps_verdict == "consistent" and "g = garcelon_shuffle" in r.eps_measured
    assert "passes: eps-blind" in r.eps_controls
