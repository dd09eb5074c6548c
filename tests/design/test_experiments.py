"""The experiment design (privrl.design.experiments): the shipped configs validate and expand; sweeps,
duplicate cells, noise-off twins, matched cells, claims selecting cells, overlays."""
import copy
from pathlib import Path

import jsonschema
import pytest
import yaml

from privrl.design import experiments

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())


@pytest.mark.parametrize("name", ["config.yaml", "smoke.yaml"])
def test_shipped_configs_validate_and_expand(name):
    cfg = experiments.resolve_overlay(yaml.safe_load((ROOT / "config" / name).read_text()), ROOT)
    jsonschema.validate(cfg, SCHEMA)
    cells = experiments.all_cells(cfg)
    assert cells and len({(c.experiment, c.env, c.cell) for c in cells}) == len(cells)


def test_schema_rejects_bad_config():
    cfg = experiments.resolve_overlay(yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text()), ROOT)
    for mutate in (lambda c: c.pop("experiments"),  # results_dir, figures_dir, bootstrap have defaults
                   lambda c: c["experiments"]["ucbvi_baseline"].update(seeds=0),
                   lambda c: c["experiments"]["ucbvi_baseline"]["envs"]["bandit"].update(name="nope"),
                   lambda c: c.update(typo_key=1)):
        bad = copy.deepcopy(cfg)
        mutate(bad)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


def test_sweep_applies_only_to_agents_with_the_parameter():
    cfg = {"experiments": {"e": {
        "envs": {"r": {"name": "riverswim"}}, "episodes": 10, "seeds": 1,
        "cells": [{"agent": "ucbvi", "params": {"bonus_scale": 0.1}}, {"agent": "ucbvi"}],
        "sweep": {"bonus_scale": [1.0, 2.0], "epsilon": [1.0]}}}}
    cells = experiments.expand_cells(cfg, "e")
    assert [c.cell for c in cells] == ["ucbvi__bonus_scale=0.1", "ucbvi__bonus_scale=1", "ucbvi__bonus_scale=2"]
    assert cells[0].setting == "r/ucbvi__bonus_scale=0.1"


def test_duplicate_cells_rejected():
    cfg = {"experiments": {"e": {"envs": {"r": {"name": "riverswim"}}, "episodes": 10, "seeds": 1,
                                 "cells": [{"agent": "ucbvi"}, {"agent": "ucbvi"}]}}}
    with pytest.raises(ValueError, match="declared twice"):
        experiments.expand_cells(cfg, "e")


def _exp(**kw):
    return {"experiments": {"e": {"envs": {"r": {"name": "riverswim", "params": {"S": 6, "H": 20}}},
                                  "episodes": 10, "seeds": 1, **kw}}}


def test_noise_off_generates_the_exact_count_twin_once():
    cfg = _exp(cells=[{"agent": "pucb", "params": {"bonus_scale": 0.1}, "noise_off": True, "label": "P"}],
               sweep={"epsilon": [1, 10]})
    cells = experiments.expand_cells(cfg, "e")
    assert [c.cell for c in cells] == ["pucb__bonus_scale=0.1__epsilon=1", "pucb__bonus_scale=0.1__epsilon=10",
                                       "pucb__bonus_scale=0.1__epsilon=1__noise=0"]
    assert cells[-1].label == "P noise off"


def test_zipped_sweep_and_cell_sweep_and_label_template():
    cfg = _exp(cells=[{"agent": "pe"}, {"agent": "pucb", "sweep": {"epsilon": [2]}, "label": "eps {epsilon:g}"}],
               sweep={"C,C1": [[1, 6], [0.01, 0.06]], "epsilon": [1, 3]})
    ids = [c.cell for c in experiments.expand_cells(cfg, "e")]
    assert ids == ["pe__C=1__C1=6", "pe__C=0.01__C1=0.06", "pucb__epsilon=2"]
    assert experiments.expand_cells(cfg, "e")[-1].label == "eps 2"


def test_matched_cells_run_at_rlsvi_cor14_eps():
    from privrl.mechanisms import accounting

    cfg = _exp(cells=[{"agent": "pucb", "matched": True}], matched_eps={"K": [1000, 100000], "delta": 1e-5})
    cells = experiments.expand_cells(cfg, "e")
    assert [c.cell for c in cells] == ["pucb__epsilon=10.2564", "pucb__epsilon=248.342"]
    exact = accounting.lu_cor14_epsilon(1e-5, 1000.0, 20, 6, 2)
    assert abs(cells[0].params["epsilon"] - exact) / exact < 1e-5 and cells[0].tags["match_K"] == 1000


def test_claims_select_cells_by_parameters_and_expand_per_agent():
    cfg = _exp(cells=[{"agent": "pucb"}, {"agent": "ldp-obi"}], sweep={"epsilon": [1, 10]}, claims=[
        {"id": "{experiment}_{agent_id}_x", "agents": ["pucb", "ldp-obi"], "statement": "{label} ok",
         "check": {"type": "exponent_below", "env": "r", "select": {"epsilon": 10}, "threshold": 0.75}}])
    claims = experiments.resolve_claims(cfg, "e")
    assert [(c["id"], c["check"]["cell"]) for c in claims] == [("e_pucb_x", "pucb__epsilon=10"),
                                                              ("e_ldp_obi_x", "ldp-obi__epsilon=10")]
    assert claims[0]["source"].startswith("Vietri")
    cfg["experiments"]["e"]["claims"][0]["check"]["select"] = {}
    with pytest.raises(ValueError, match="matches 2 cells"):
        experiments.resolve_claims(cfg, "e")


def test_overlay_changes_sizes_and_null_removes():
    base = _exp(cells=[{"agent": "ucbvi"}], sweep={"bonus_scale": [1.0, 0.1]})
    base["experiments"]["f"] = dict(base["experiments"]["e"])
    over = {"experiments": {"e": {"episodes": 5, "sweep": {"bonus_scale": [0.1]}}, "f": None}}
    merged = experiments.deep_merge(base, over)
    assert list(merged["experiments"]) == ["e"] and merged["experiments"]["e"]["episodes"] == 5
    assert merged["experiments"]["e"]["cells"] == [{"agent": "ucbvi"}]
    assert base["experiments"]["e"]["episodes"] == 10  # the base is not modified
