"""A control cell (tags {control: over_exploring} or {control: greedy}) that is the twin of no real cell of its
experiment is refused at the door, in one line: its analysis would find no twin and its row would quietly read
"not run"."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from privrl.design import experiments
from privrl.plan import validate

ROOT = Path(__file__).resolve().parents[2]
SMOKE = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
BANDIT = {"name": "garnet", "params": {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}}


def _config(*controls: dict) -> dict:
    cfg = copy.deepcopy(SMOKE)
    cfg["experiments"] = {"ctl": {"episodes": 1000, "seeds": 2, "envs": {"bandit": BANDIT}, "cells": [
        {"agent": "pucb", "params": {"z": 3, "epsilon": 1, "noise": 0}, "label": "PUCB noise off"},
        {"agent": "pucb", "params": {"z": 3, "epsilon": 1}, "label": "PUCB"},
        *controls]}}
    return cfg


def _control_lines(cfg: dict) -> list[str]:
    return [e for e in validate.experiment_errors(cfg, "ctl") if "control cell" in e]


def test_control_cells_that_twin_a_real_cell_pass():
    over = {"agent": "pucb", "params": {"z": 30, "bonus_scale": 10, "epsilon": 1, "noise": 0},
            "tags": {"control": "over_exploring"}, "label": "x10"}
    greedy = {"agent": "pucb", "params": {"z": 0, "bonus_scale": 0, "epsilon": 1, "noise": 0},
              "tags": {"control": "greedy"}, "label": "greedy"}
    assert validate.experiment_errors(_config(over), "ctl") == []
    # greedy of the noise-off cell: z and bonus_scale 0, the rest equal
    assert _control_lines(_config(greedy)) == []


def test_a_control_cell_that_twins_no_real_cell_is_refused_in_one_line():
    # z x10 but bonus_scale x5: no real cell has these parameters but bonus_scale and z x10
    bad = {"agent": "pucb", "params": {"z": 30, "bonus_scale": 5, "epsilon": 1, "noise": 0},
           "tags": {"control": "over_exploring"}, "label": "x5"}
    lines = _control_lines(_config(bad))
    assert len(lines) == 1 and "\n" not in lines[0], lines
    assert "is the twin of no real cell" in lines[0] and "{control: over_exploring}" in lines[0]
    assert "bonus_scale x10, z x10" in lines[0]
    # a greedy control on an epsilon no real cell runs
    bad = {"agent": "pucb", "params": {"z": 0, "bonus_scale": 0, "epsilon": 2}, "tags": {"control": "greedy"},
           "label": "greedy eps 2"}
    lines = _control_lines(_config(bad))
    assert len(lines) == 1 and "bonus_scale = 0, z = 0" in lines[0], lines
