"""The agent registry: one :class:`AgentSpec` per named agent.

An agent is a numba kernel ``kernel(env, params, K, rng, rec)`` that runs the fixed
``plan -> engine.step -> observe`` skeleton for one seed (see :mod:`privrl.rl.engine`), plus
this small declaration of its parameters, defaults, privacy model and paper reference.
Parameters travel to the kernel as a float64 vector in the order of ``defaults``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

PRIVACY_MODELS = ("none", "JDP", "LDP", "SDP")


@dataclass(frozen=True)
class AgentSpec:
    name: str
    kernel: Callable[..., None]
    defaults: Mapping[str, float]
    privacy_model: str
    reference: str
    description: str = ""
    privatizer: str = "none"
    reconstruction: bool = False
    guarantees: Callable[[Mapping[str, float], Any, int], list] | None = field(default=None, compare=False)
    # privrl.agents.crossover.CrossoverRule: the agent's own width formula vs the instance gap
    crossover_rule: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.privacy_model not in PRIVACY_MODELS:
            raise ValueError(f"{self.name}: privacy_model must be one of {PRIVACY_MODELS}")

    def resolve(self, params: Mapping[str, Any] | None) -> dict[str, float]:
        """Defaults overridden by ``params``; unknown names are an error naming the agent."""
        params = dict(params or {})
        unknown = sorted(set(params) - set(self.defaults))
        if unknown:
            raise ValueError(f"agent {self.name!r} has no parameter(s) {unknown}; it takes {list(self.defaults)}")
        out = {k: float(v) for k, v in self.defaults.items()}
        out.update({k: float(v) for k, v in params.items()})
        return out

    def crossover(self, params: Mapping[str, Any] | None, mdp: Any) -> float:
        """K at which this agent's own width falls below the instance's gap (uniform visitation;
        :mod:`privrl.agents.crossover`); nan if the agent registers no rule."""
        if self.crossover_rule is None:
            return float("nan")
        return self.crossover_rule.crossover(self.resolve(params), mdp)

    def param_vector(self, params: Mapping[str, Any] | None) -> np.ndarray:
        resolved = self.resolve(params)
        return np.array([resolved[k] for k in self.defaults], dtype=np.float64)


REGISTRY: dict[str, AgentSpec] = {}


def register(spec: AgentSpec) -> AgentSpec:
    if spec.name in REGISTRY:
        raise ValueError(f"agent {spec.name!r} registered twice")
    REGISTRY[spec.name] = spec
    return spec


def get(name: str) -> AgentSpec:
    from privrl.agents import _load_all  # noqa: F401  (populates the registry)

    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; registered: {sorted(REGISTRY)}") from None
