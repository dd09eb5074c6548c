"""Experiments are data: the ``experiments`` mapping of the config is the one registry.

An experiment names its environments, its agent cells, an optional parameter sweep, the
number of episodes K and of seeds, and the claims its analysis scores against theory.
This module expands that data into concrete cells (experiment, env, cell id, agent,
params) that the Snakemake rules turn into jobs; it is pure and unit-tested.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from privrl.agents import get as get_agent

_SAFE = re.compile(r"[^A-Za-z0-9_.=+-]")


@dataclass(frozen=True)
class Cell:
    experiment: str
    env: str
    cell: str
    agent: str
    params: Mapping[str, float] = field(default_factory=dict)
    label: str = ""
    tags: Mapping[str, Any] = field(default_factory=dict)

    @property
    def setting(self) -> str:
        """The stable string that, with the experiment and seed, keys the random stream."""
        return f"{self.env}/{self.cell}"


def format_value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def cell_id(agent: str, params: Mapping[str, Any], tag: str | None = None) -> str:
    """Filesystem-safe, stable id: agent[+tag]__k=v__... with keys sorted."""
    head = agent if not tag else f"{agent}+{tag}"
    parts = [head] + [f"{k}={format_value(v)}" for k, v in sorted(params.items())]
    return _SAFE.sub("_", "__".join(parts))


def expand_cells(config: Mapping[str, Any], experiment: str) -> list[Cell]:
    """All cells of one experiment: every (env, agent cell, sweep point) the agent accepts.

    A sweep key applies to a cell only if the agent has that parameter and the cell does
    not fix it; so a non-private agent appears once in an epsilon sweep.
    """
    exp = config["experiments"][experiment]
    sweep: Mapping[str, list] = exp.get("sweep", {}) or {}
    out: list[Cell] = []
    seen: set[tuple[str, str]] = set()
    for env_key in exp["envs"]:
        for spec in exp["cells"]:
            agent = spec["agent"]
            defaults = get_agent(agent).defaults
            fixed = dict(spec.get("params", {}) or {})
            keys = [k for k in sweep if k in defaults and k not in fixed]
            for values in itertools.product(*(sweep[k] for k in keys)):
                params = {**fixed, **dict(zip(keys, values))}
                cid = cell_id(agent, params, spec.get("tag"))
                if (env_key, cid) in seen:
                    raise ValueError(f"experiment {experiment!r}: cell {cid!r} declared twice for env {env_key!r}")
                seen.add((env_key, cid))
                label = spec.get("label") or cid
                out.append(Cell(experiment, env_key, cid, agent, params, label, dict(spec.get("tags", {}) or {})))
    return out


def all_cells(config: Mapping[str, Any]) -> list[Cell]:
    return [c for name in config["experiments"] for c in expand_cells(config, name)]


def find_cell(config: Mapping[str, Any], experiment: str, env: str, cell: str) -> Cell:
    for c in expand_cells(config, experiment):
        if c.env == env and c.cell == cell:
            return c
    raise KeyError(f"no cell {cell!r} for env {env!r} in experiment {experiment!r}")


def seeds_of(config: Mapping[str, Any], experiment: str) -> list[int]:
    n = config["experiments"][experiment]["seeds"]
    return list(range(int(n)))


def env_spec(config: Mapping[str, Any], experiment: str, env: str) -> tuple[str, dict]:
    spec = config["experiments"][experiment]["envs"][env]
    return spec["name"], dict(spec.get("params", {}) or {})
