"""How a run simulates its episodes: ``episode`` (the reference) or ``aggregate``.

``episode``: every episode sampled and fed to the agent's kernel (the agent's registered
``run_episodes``). ``aggregate``: agents whose policy is fixed within blocks of episodes have
each block's statistics drawn at once, exactly in law (docs/decisions/aggregate_simulation.md);
only the agents in :data:`AGGREGATE` support it. A module providing an aggregate kernel
registers it here (:func:`register_aggregate`) when the agents package loads it, so that this
module imports none of them: an episode run's code digest (:func:`privrl.runs.run.agent_digest`)
never includes aggregate kernels. A run's simulation is part of its run key only when it is not
``episode``, so every episode-simulation key keeps its fields.
"""
from __future__ import annotations

from typing import Callable

EPISODE, AGGREGATE_SIM = "episode", "aggregate"
SIMULATIONS = (EPISODE, AGGREGATE_SIM)

#: agent -> (init_state, run_episodes, module of the kernel) of its aggregate simulation
AGGREGATE: dict[str, tuple[Callable, Callable, str]] = {}


def register_aggregate(agent: str, init_state: Callable, run_episodes: Callable, module: str) -> None:
    """Declare ``agent``'s aggregate simulation: kernels with the AgentSpec contract
    (:mod:`privrl.agents.registry`) and the module whose code the run's digest must cover."""
    from privrl.agents.registry import REGISTRY

    if agent in AGGREGATE:
        raise ValueError(f"aggregate simulation of {agent!r} registered twice")
    if agent not in REGISTRY or AGGREGATE_SIM not in REGISTRY[agent].simulations:
        raise ValueError(f"aggregate simulation of {agent!r}: its AgentSpec must declare it (simulations)")
    AGGREGATE[agent] = (init_state, run_episodes, module)


def check(agent: str, simulation: str) -> str:
    """``simulation`` if ``agent`` supports it, else ValueError in one line naming what does."""
    if simulation not in SIMULATIONS:
        raise ValueError(f"simulation must be one of {list(SIMULATIONS)}; got {simulation!r}")
    if simulation == AGGREGATE_SIM and agent not in AGGREGATE:
        raise ValueError(f"agent {agent!r} has no aggregate simulation (only {sorted(AGGREGATE)}: a policy fixed "
                         f"within blocks); use simulation: episode")
    return simulation


def kernels(agent: str, simulation: str = EPISODE) -> tuple[Callable, Callable]:
    """(init_state, run_episodes) of ``agent`` under ``simulation`` (the AgentSpec contract)."""
    from privrl.agents import get

    if check(agent, simulation) == EPISODE:
        spec = get(agent)
        return spec.init_state, spec.run_episodes
    return AGGREGATE[agent][:2]


def kernel_modules(agent: str, simulation: str = EPISODE) -> list[str]:
    """The modules a run's code digest adds to the agent's own under ``simulation`` (none for episode)."""
    return [] if check(agent, simulation) == EPISODE else [AGGREGATE[agent][2]]
