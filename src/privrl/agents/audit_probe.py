"""What the end-to-end privacy audit needs to know of an agent: :class:`AuditProbe`.

An :class:`~privrl.agents.registry.AgentSpec` may carry an ``audit_probe``. Without one, the
audit (:mod:`privrl.audit.probe`) drives the spec's own ``init_state`` / ``run_episodes``
and finds the privatizer door calls itself (every njit kernel they reach is searched for the
door's ``new`` / ``release`` / ``release_sums`` and ``gaussian_noise``): an agent that uses
the door is audited without any declaration. A probe is needed only where

* the spec's entry points are Python wrappers of one shared njit kernel (presets): name the
  kernels, the preset's extra kernel arguments and its parameter vector;
* the statistics the agent releases are not privatizer outputs (RLSVI: the perturbed
  Q-values, ``released``);
* the audit should run the agent at other parameters than its defaults (``audit_params``),
  or the agent's neighbour relation is narrower than a whole user (``rewards_only``: Lu et
  al. Remark 2, neighbours share states and actions);
* the claim is known to be loose beyond any half-noise audit (``power_multiplier``: the
  noise multiplier the audit's power variant uses instead of 1/2);
* the add/remove neighbour needs a user alone in its batch (``users``: SDP-PE's schedule gives
  the 5th user a fine batch of its own).

An agent with a privacy model other than ``none`` that the audit cannot probe is an error
(:func:`privrl.audit.probe.probe_of`), never skipped.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping


def _no_extra(params: Mapping[str, float]) -> tuple:
    return ()


@dataclass(frozen=True)
class AuditProbe:
    """How :mod:`privrl.audit.probe` drives an agent's kernel (every field optional).

    init_state / run_episodes: the njit (or plain Python) kernels behind the spec's entry points,
    with the registry signatures plus ``extra`` arguments (``init_state`` takes the first
    ``n_extra_init`` of them); None = the spec's own. param_vector(resolved params) -> float64
    vector the kernels take (None = ``AgentSpec.param_vector``). released: ((global name, index
    of the array argument), ...) -- calls whose argument, after the call, is a released statistic.
    """

    init_state: Callable[..., Any] | None = None
    run_episodes: Callable[..., Any] | None = None
    extra: Callable[[Mapping[str, float]], tuple] = _no_extra
    n_extra_init: int = 0
    param_vector: Callable[[Mapping[str, float]], Any] | None = None
    released: tuple = ()
    audit_params: Mapping[str, float] = field(default_factory=dict)
    rewards_only: bool = False
    power_multiplier: float = 0.5
    users: int = 4
