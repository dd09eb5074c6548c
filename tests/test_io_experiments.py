import copy
from pathlib import Path

import jsonschema
import pytest
import yaml

from privrl import experiments, io

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(RuntimeError):
        with io.atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []
    io.write_text(target, "whole")
    assert target.read_text() == "whole" and list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize("name", ["config.yaml", "smoke.yaml"])
def test_shipped_configs_validate_and_expand(name):
    cfg = yaml.safe_load((ROOT / "config" / name).read_text())
    jsonschema.validate(cfg, SCHEMA)
    cells = experiments.all_cells(cfg)
    assert cells and len({(c.experiment, c.env, c.cell) for c in cells}) == len(cells)


def test_schema_rejects_bad_config():
    cfg = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())
    for mutate in (lambda c: c.pop("results_dir"),
                   lambda c: c["experiments"]["ucbvi_baseline"].update(seeds=0),
                   lambda c: c["experiments"]["ucbvi_baseline"]["envs"]["riverswim"].update(name="nope"),
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
