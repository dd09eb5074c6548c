"""Designs (privrl.papers.designs): the crossover search ranks instances by the K their regime needs, and
the shipped design reaches its optimism claims."""
from __future__ import annotations

import math

import pytest

from privrl.rl import envs


def test_design_search_ranks_instances_by_the_k_their_regime_needs():
    from privrl.papers import designs

    cands = [("bandit", "garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}),
             ("riverswim_s2_h3", "riverswim", {"S": 2, "H": 3})]
    d = designs.search([("pucb", {"epsilon": 10.0}), ("ucbvi", {})], cands)
    assert list(d.key) == ["bandit", "riverswim_s2_h3"]  # the bandit's gap is larger: earlier regime
    row = d.iloc[0]
    assert row.max_crossover == max(row["crossover_pucb@eps=10"], row["crossover_ucbvi"])
    assert row.k_needed == pytest.approx(designs.window_k(row.max_crossover)) == pytest.approx(100 * row.max_crossover)
    assert designs.window_k(math.inf) == math.inf and designs.window_k(10.0, decades=2) == pytest.approx(1e4)
    mdp = envs.make("garnet", S=1, A=2, branching=1, H=1, seed=0)
    from privrl import agents
    assert row["crossover_pucb@eps=10"] == agents.get("pucb").crossover({"epsilon": 10.0}, mdp)
    note = designs.design_note("bandit", {"pucb": 6.07e4}, 1e7)
    assert note == "instance bandit; crossovers pucb 6.07e+04; K run 1e+07"


def test_shipped_design_reaches_its_optimism_claims():
    """The default design's rate claims of the optimism agents sit past 100 x their crossover."""
    import yaml

    from privrl import agents
    from privrl.design import experiments

    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    cfg = experiments.resolve_overlay(yaml.safe_load((root / "config/config.yaml").read_text()), root)
    for name in ("ucbvi_baseline", "vietri2020_pac"):
        exp = cfg["experiments"][name]
        for c in experiments.expand_cells(cfg, name):
            env = exp["envs"][c.env]
            mdp = envs.make(env["name"], **env.get("params", {}))
            assert exp["episodes"] >= 100 * agents.get(c.agent).crossover(dict(c.params), mdp), (name, c.cell)
