"""The agent registry: one :class:`AgentSpec` per named agent.

An agent is a pair of numba kernels plus this small declaration of its parameters, defaults,
privacy model and paper reference:

* ``init_state(env, params, K) -> state``: a tuple of arrays holding everything that persists
  across episodes (counters, the privatizer's state, policy, values, the runner's trajectory
  and evaluation cache, and any scalar the episode loop carries, as small arrays); sized for
  the full horizon K (the mechanisms are built for T = K releases). A plain Python function
  (numpy allocations and njit constructors): compiling it would cost numba seconds per agent,
  and it runs once per seed (the privacy probe compiles its own copy);
* ``run_episodes(env, params, K, k0, k1, rng, rec, state)``: episodes k0..k1-1 of the fixed
  ``plan -> engine.step -> observe`` skeleton (see :mod:`privrl.rl.engine`), updating
  ``state`` and the recorder ``rec`` in place.

A run is ``init_state`` then ``run_episodes`` over 0..K in one call (:meth:`AgentSpec.kernel`)
or in chunks, saving and restoring ``state``, ``rec`` and the RNG between them
(:mod:`privrl.runs.run`); the result is bit-identical either way.
Parameters travel to the kernels as a float64 vector in the order of ``defaults``; each has a
:class:`Domain` in ``domains`` (declared with the agent, checked at registration; the config
validation, :mod:`privrl.plan.validate`, and ``privrl run`` read them from the spec).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import math

import numpy as np

PRIVACY_MODELS = ("none", "JDP", "LDP", "SDP")
COST_TERMS = ("K", "1", "B", "L")  # terms of a seed's CPU time t(K) (AgentSpec.simulations, privrl.plan.cost)


def _real(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class Domain:
    """The values one agent parameter accepts: ``text`` as printed in messages, ``contains`` the test."""
    text: str
    contains: Callable[[Any], bool] = field(compare=False)

    def why_not(self, value: Any) -> str | None:
        """None if ``value`` is in the domain, else the reason (one phrase)."""
        if self.contains(value):
            return None
        return f"{value!r} {'not' if self.text.startswith('in ') else 'is not'} {self.text}"


# the domains the registered agents share (an agent may declare its own Domain)
POSITIVE = Domain("a finite number > 0", lambda x: _real(x) and x > 0)
NONNEGATIVE = Domain("a finite number >= 0", lambda x: _real(x) and x >= 0)
OPEN_UNIT = Domain("in (0, 1)", lambda x: _real(x) and 0 < x < 1)
HALF_OPEN_UNIT = Domain("in [0, 1)", lambda x: _real(x) and 0 <= x < 1)
SWITCH = Domain("0 or 1", lambda x: _real(x) and x in (0, 1))
COUNT = Domain("an integer >= 1", lambda x: _real(x) and float(x).is_integer() and x >= 1)
NONNEGATIVE_INTEGER = Domain("an integer >= 0", lambda x: _real(x) and float(x).is_integer() and x >= 0)


@dataclass(frozen=True)
class AgentSpec:
    name: str
    init_state: Callable[..., tuple]
    run_episodes: Callable[..., None]
    defaults: Mapping[str, float]
    privacy_model: str
    reference: str
    description: str = ""
    privatizer: str = "none"
    reconstruction: bool = False
    guarantees: Callable[[Mapping[str, float], Any, int], list] | None = field(default=None, compare=False)
    # privrl.agents.crossover.CrossoverRule: the agent's own width formula vs the instance gap
    crossover_rule: Any = field(default=None, compare=False)
    # parameter name -> Domain: one per name of ``defaults`` (the config and the CLI check against it)
    domains: Mapping[str, Domain] = field(default_factory=dict, compare=False)
    audit_probe: Any = field(default=None, compare=False)  # privrl.agents.audit_probe.AuditProbe; None = generic door probe
    # simulation -> the terms of one seed's CPU time t(K) under it (privrl.plan.cost): "K" per episode, "1" per
    # seed, "B" per policy-elimination stage, "L" per log2 K (doubling batches). "aggregate" declares an
    # aggregate simulation, whose kernels the agent's aggregate module registers (privrl.agents.simulation)
    simulations: Mapping[str, tuple[str, str]] = field(default_factory=lambda: {"episode": ("K", "1")}, compare=False)
    # the shortest horizon H the agent accepts (its init_state refuses a shorter instance); the design check
    # (privrl.plan.validate) refuses a cell on a shorter instance before any job
    min_horizon: int = 1

    def __post_init__(self) -> None:
        if self.privacy_model not in PRIVACY_MODELS:
            raise ValueError(f"{self.name}: privacy_model must be one of {PRIVACY_MODELS}")
        missing, extra = sorted(set(self.defaults) - set(self.domains)), sorted(set(self.domains) - set(self.defaults))
        if missing or extra:
            raise ValueError(f"agent {self.name!r}: every parameter needs one domain (AgentSpec.domains); "
                             + ", ".join(([f"none for {missing}"] if missing else []) + ([f"no parameter {extra}"] if extra else [])))
        if "episode" not in self.simulations or set(self.simulations) - {"episode", "aggregate"} or any(
                len(t) != 2 or set(t) - set(COST_TERMS) for t in self.simulations.values()):
            raise ValueError(f"agent {self.name!r}: simulations must map 'episode' (and optionally 'aggregate') to two "
                             f"cost terms of {COST_TERMS}; got {dict(self.simulations)}")
        if not (isinstance(self.min_horizon, int) and self.min_horizon >= 1):
            raise ValueError(f"agent {self.name!r}: min_horizon must be an integer >= 1; got {self.min_horizon!r}")
        for k, v in self.defaults.items():
            if (why := self.domains[k].why_not(v)) is not None:
                raise ValueError(f"agent {self.name!r}: default {k} = {why}")

    def kernel(self, env: tuple, params: np.ndarray, K: int, rng: np.random.Generator, rec: tuple) -> None:
        """All K episodes of one seed in one call: ``run_episodes(0, K)`` on a fresh state."""
        K = np.int64(K)
        self.run_episodes(env, params, K, np.int64(0), K, rng, rec, self.init_state(env, params, K))

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
    """The registered agent ``name`` (importing this module runs ``privrl.agents``' __init__ first,
    which registers every agent module of the package)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; registered: {sorted(REGISTRY)}") from None


def agent_crossover(name: str, params: Mapping, mdp) -> float:
    """The crossover K (``AgentSpec.crossover``) of agent ``name`` at ``params`` (keys outside its
    defaults dropped, values as floats) on ``mdp``; nan without an MDP. The one crossover lookup
    of the analyses, the designs and the claims table."""
    if mdp is None:
        return float("nan")
    spec = get(name)
    return float(spec.crossover({k: float(v) for k, v in params.items() if k in spec.defaults}, mdp))
