"""Audits of agents as they run: the end-to-end privacy audit (:mod:`.privacy`) over the numba probes
that drive each agent's own kernel (:mod:`.probe`), and ``check_agent``, the agent contract
(:mod:`.agent_check`)."""
