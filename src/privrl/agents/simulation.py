"""How a run simulates its episodes: ``episode`` (the reference) or ``aggregate``.

``episode``: every episode sampled and fed to the agent's kernel (the agent's registered
``run_episodes``). ``aggregate``: agents whose policy is fixed within blocks of episodes have
each block's statistics drawn at once, exactly in law (docs/decisions/aggregate_simulation.md);
only the agents in :data:`AGGREGATE` support it. A run's simulation is part of its run key
(only when not ``episode``, so every episode-simulation key is unchanged).
"""
from __future__ import annotations

from typing import Callable

EPISODE, AGGREGATE_SIM = "episode", "aggregate"
SIMULATIONS = (EPISODE, AGGREGATE_SIM)


def _sdp_pe(name: str) -> Callable[[], tuple]:
    def kernels():
        from privrl.agents.sdp_pe_aggregate import aggregate_kernels

        return aggregate_kernels(name)
    return kernels


#: agent -> () -> (init_state, run_episodes, kernel module) of its aggregate simulation
AGGREGATE: dict[str, Callable[[], tuple]] = {name: _sdp_pe(name) for name in ("sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp",
                                                                              "pe")}
AGGREGATE_MODULES = {name: "privrl.agents.sdp_pe_aggregate" for name in AGGREGATE}
_CACHE: dict[str, tuple] = {}


def check(agent: str, simulation: str) -> str:
    """``simulation`` if ``agent`` supports it, else ValueError in one line naming what does."""
    if simulation not in SIMULATIONS:
        raise ValueError(f"simulation must be one of {list(SIMULATIONS)}; got {simulation!r}")
    if simulation == AGGREGATE_SIM and agent not in AGGREGATE:
        raise ValueError(f"agent {agent!r} has no aggregate simulation (only {sorted(AGGREGATE)}: a policy fixed "
                         f"within blocks); use simulation: episode")
    return simulation


def kernels(agent: str, simulation: str = EPISODE) -> tuple:
    """(init_state, run_episodes) of ``agent`` under ``simulation`` (the AgentSpec contract)."""
    from privrl.agents import get

    check(agent, simulation)
    if simulation == EPISODE:
        spec = get(agent)
        return spec.init_state, spec.run_episodes
    if agent not in _CACHE:
        _CACHE[agent] = AGGREGATE[agent]()
    return _CACHE[agent]
