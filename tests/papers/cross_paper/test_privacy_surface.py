"""The privacy-cost surface (privrl.papers.cross_paper.surface) on synthetic runs: D per (agent, eps),
the trust-model separation and order claims in and out of their regimes, SDP-PE's PE baseline, the
probability of improvement, and a new agent placed on the frontier with no further code."""

import dataclasses

import numpy as np
import pytest

from privrl.papers import registry
from privrl.results.stats import improvement_p_value, probability_of_improvement
from privrl.rl import engine

from tests.papers.synthetic import privacy_context as _context

EPS = [0.3, 1.0, 3.0]


def _curves(b, scale, n_seeds=5, seed=0):
    """Baseline 3 sqrt(K); private = baseline + scale K^b / eps, with 5 % per-seed noise."""
    rng = np.random.default_rng(seed)
    ep = engine.checkpoints(100_000, 120)
    base = np.tile(3.0 * np.sqrt(ep)[None, :], (n_seeds, 1)) * (1 + 0.01 * rng.standard_normal((n_seeds, 1)))
    priv = {e: base + scale * ep[None, :] ** b / e * (1 + 0.05 * rng.standard_normal((n_seeds, ep.size))) for e in EPS}
    return base, priv


def _family(agent, b, scale, seed, params):
    base, priv = _curves(b, scale, seed=seed)
    cells = [(f"{agent}_off", agent, {**params, "epsilon": 1.0, "noise": 0.0}, {}, base, [])]
    return cells + [(f"{agent}_{e}", agent, {**params, "epsilon": e, "noise": 1.0}, {}, priv[e], []) for e in EPS]


@pytest.fixture
def no_figure(monkeypatch):
    """The claims and tables only (the figure is drawn once, in its own test)."""
    from privrl.papers.cross_paper import surface

    monkeypatch.setattr(surface, "figure", lambda ctx, ms: None)


def _crossover(local_k):
    def f(agent, params, mdp):
        return local_k if agent.endswith("ldp") else 10.0
    return f


@pytest.fixture
def surface_cells():
    p = {"bonus_scale": 1.0, "delta": 0.05, "z": 3.0}
    return (_family("private-ucbvi-jdp", 0.0, 300.0, 1, p) + _family("private-ucbvi-sdp", 0.0, 1500.0, 2, p)
            + _family("private-ucbvi-ldp", 1.0, 5.0, 3, p))


def test_surface_separation_in_its_regime_and_the_order_of_the_models(tmp_path, monkeypatch, surface_cells, no_figure):
    from privrl.papers import cross_paper

    # central and shuffle in regime; local before its crossover: the separation is in its regime
    monkeypatch.setattr(cross_paper, "agent_crossover", _crossover(1e9))
    res = registry.analysis("privacy_surface")(_context(tmp_path, surface_cells))
    surf = res.table[res.table.part == "surface"]
    assert len(surf) == 3 * len(EPS) and set(surf.trust_model) == {"central (JDP)", "shuffle (SDP)", "local (LDP)"}
    c = res.claims.set_index("claim_id")
    assert set(c.scope) == {"context"}  # measured and shown, never scored (minimax bound; constant factors)
    sep = c[c.index.str.contains("separation")]
    assert len(sep) == len(EPS) and set(sep.verdict) == {"reproduced"}, sep.measured.tolist()  # what the check reads
    assert sep.regime.str.startswith("context, not scored").all()
    shuffle_above = c[c.index.str.contains("central_below_shuffle")]
    assert set(shuffle_above.verdict) == {"reproduced"}  # D_SDP = 5 x D_JDP, both in regime
    local_above = c[c.index.str.contains("shuffle_below_local")]
    assert set(local_above.verdict) == {"not reached"} and (local_above.k_needed > 1e9).all()  # local pre-regime
    assert "## The frontier" in res.markdown and "No agent beyond the published ones" in res.markdown
    # past the local crossover the minimax sqrt(K) is not pinned on one instance: inconclusive, never contradicted
    monkeypatch.setattr(cross_paper, "agent_crossover", _crossover(10.0))
    res = registry.analysis("privacy_surface")(_context(tmp_path, surface_cells))
    sep = res.claims[res.claims.claim_id.str.contains("separation")]
    assert set(sep.verdict) == {"inconclusive"} and sep.regime.str.contains("past its crossover").all()


def test_a_central_agent_labelled_local_fails_the_separation(tmp_path, monkeypatch, no_figure):
    """The comparison reads a difference: a 'local' member whose cost is additive (b = 0) reads contradicted."""
    from privrl.papers import cross_paper

    monkeypatch.setattr(cross_paper, "agent_crossover", _crossover(1e9))
    p = {"bonus_scale": 1.0, "delta": 0.05, "z": 3.0}
    cells = _family("dp-ucbvi-jdp", 0.0, 300.0, 1, p) + _family("dp-ucbvi-ldp", 0.0, 900.0, 4, p)
    sep = registry.analysis("privacy_surface")(_context(tmp_path, cells)).claims
    assert set(sep.verdict) == {"contradicted"}, sep.measured.tolist()


def test_sdp_pe_is_measured_against_pe(tmp_path, monkeypatch, no_figure):
    from privrl.papers import cross_paper

    monkeypatch.setattr(cross_paper, "agent_crossover", _crossover(1e9))
    base, priv = _curves(0.0, 200.0, seed=5)
    pe = {"C": 1.0, "C1": 6.0, "delta": 0.05, "max_policies": 4096.0}
    cells = [("pe", "pe", pe, {}, base, [])]
    cells += [(f"sdp_{e}", "sdp-pe-jdp", {**pe, "epsilon": e}, {}, priv[e], []) for e in EPS]
    surf = registry.analysis("privacy_surface")(_context(tmp_path, cells)).table
    surf = surf[surf.part == "surface"].set_index("epsilon")
    for e in EPS:  # D = 200 / eps at every K
        assert surf.loc[e, "D_at_K"] == pytest.approx(200.0 / e, rel=0.1)
        assert surf.loc[e, "trust_model"] == "central (JDP)"


def test_probability_of_improvement():
    rng = np.random.default_rng(0)
    p, lo, hi = probability_of_improvement(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]), rng, 200)
    assert p == 1.0 and lo == 1.0
    p, lo, hi = probability_of_improvement(np.array([1.0, 2.0]), np.array([1.0, 2.0]), rng, 200)
    assert p == 0.5 and lo < 0.5 < hi
    p, *_ = probability_of_improvement(np.array([2.0]), np.array([1.0, 3.0]), rng, 10)
    assert p == 0.5
    # complete separation on 2 seeds: the CI is zero-width, the exact one-sided p is 1/6 -- not "better"
    assert probability_of_improvement(np.array([1.0, 2.0]), np.array([3.5, 4.0]), rng, 200) == (1.0, 1.0, 1.0)
    assert improvement_p_value(np.array([1.0, 2.0]), np.array([3.5, 4.0])) == pytest.approx(1 / 6)


def test_a_copy_of_ucbvi_lands_on_the_frontier(tmp_path, monkeypatch, surface_cells, no_figure):
    """An agent added the README's way (a registered AgentSpec and a cell of the experiment) is placed
    on the frontier with no further code: a probability of improvement against each published agent."""
    from privrl.agents import registry as agents
    from privrl.papers import cross_paper

    monkeypatch.setattr(cross_paper, "agent_crossover", _crossover(1e9))
    spec = dataclasses.replace(agents.get("ucbvi"), name="my-ucbvi")
    agents.register(spec)
    try:
        base, _ = _curves(0.0, 1.0, seed=9)
        cells = surface_cells + [("mine", "my-ucbvi", {"bonus_scale": 1.0, "delta": 0.05}, {}, base * 0.9, [])]
        res = registry.analysis("privacy_surface")(_context(tmp_path, cells))
    finally:
        agents.REGISTRY.pop("my-ucbvi")
    front = res.table[res.table.part == "frontier"]
    # a non-private agent against every published cell: 3 agents x 3 eps
    assert len(front) == 9 and set(front.agent) == {"my-ucbvi"}
    assert set(front.against) == {"private-ucbvi-jdp", "private-ucbvi-sdp", "private-ucbvi-ldp"}
    assert (front.p_improvement == 1.0).all() and set(front.reading) == {"better"}
    assert "| mine | none |" in res.markdown or "| mine |" in res.markdown


def test_the_surface_figure_reads_in_print(tmp_path, monkeypatch, surface_cells):
    from privrl.papers import cross_paper
    from privrl.results import figure_check, style

    monkeypatch.setattr(cross_paper, "agent_crossover", _crossover(1e9))
    fig = registry.analysis("privacy_surface")(_context(tmp_path, surface_cells)).figure
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert any("central (JDP)" in t for t in titles) and any("local (LDP)" in t for t in titles)
    style.save_figure(fig, tmp_path / "figs/privacy_surface")
    assert figure_check.figure_problems(tmp_path / "figs") == []


def test_an_agent_sits_in_the_panel_of_the_model_its_runs_deliver():
    """Shuffled-OBI releasing counts every episode delivers eps0-LDP (and eps0-JDP by the billboard
    lemma), not the shuffle amplification: its guarantees put it in the local panel; an agent whose
    runs carry the registered model's guarantee stays there, and one with none keeps its registered model."""
    from privrl.papers.cross_paper.surface import delivered_model

    obi = {"privacy_model": "SDP", "guarantees": [{"model": "LDP"}, {"model": "JDP"}]}
    assert delivered_model(obi) == "LDP"
    assert delivered_model({"privacy_model": "SDP", "guarantees": [{"model": "SDP"}]}) == "SDP"
    assert delivered_model({"privacy_model": "JDP", "guarantees": [{"model": "JDP"}]}) == "JDP"
    assert delivered_model({"privacy_model": "JDP", "guarantees": []}) == "JDP"


def test_a_sibling_delivering_the_same_trust_model_is_no_wrong_model_twin():
    # Shuffled-OBI at tau = 0 releases every episode: eps0-LDP as run, as LDP-OBI is -- LDP-OBI is then
    # no twin "under the other trust model" and is not run as one
    from privrl.papers.cross_paper import _sibling

    obi = {"privacy_model": "LDP", "guarantees": [{"model": "LDP"}]}
    items = (("bonus_scale", 1.0), ("z", 3.0))
    fits = {("rs", "ldp-obi", items): ({"private": {1.0: obi}}, None, None)}
    name, cells, why = _sibling(fits, "rs", "shuffled-obi", items + (("tau", 0.0),), "LDP")
    assert name == "ldp-obi" and cells is None and "same trust model" in why
    assert _sibling({}, "rs", "shuffled-obi", items, "LDP") == ("ldp-obi", None, "")


def test_b_rows_without_a_same_algorithm_twin_name_what_would_test_them():
    """Twins that do not exist (docs/decisions/controls.md): PUCB has no local member, the OBI family no central one. PUCB's b row is scored against
    the nearest LDP agent run beside it (LDP-OBI, labelled another algorithm); where none runs, and for LDP-OBI
    and Shuffled-OBI (tau = 0: eps0-LDP as run), the row says what would test it."""
    from privrl.papers.cross_paper import _sibling
    from privrl.results import verdicts as V

    items = (("bonus_scale", 1.0), ("z", 3.0))
    obi = {"privacy_model": "LDP", "guarantees": [{"model": "LDP"}]}
    fit = {"b_eps": {1.0: (0.5, 0.45, 0.55)}, "D_at_K_ci": {1.0: (10.0, 9.0, 11.0)}}
    fits = {("rs", "ldp-obi", items): ({"private": {1.0: obi}}, fit, {1.0: V.Regime(1.0, 1e3, 1e5)})}
    name, cells, why = _sibling(fits, "rs", "pucb", items, "JDP")
    assert name == "ldp-obi" and len(cells) == 1 and "another algorithm" in why
    name, cells, why = _sibling({}, "rs", "pucb", items, "JDP")
    assert cells is None and "would test it" in why
    _, cells, why = _sibling({}, "rs", "ldp-obi", items, "LDP")
    assert cells is None and "no twin under another trust model can fail" in why
    _, cells, why = _sibling(fits, "rs", "shuffled-obi", items + (("tau", 0.0),), "LDP")
    assert cells is None and "same trust model" in why and "over-exploring" in why
