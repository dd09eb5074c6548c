"""Sizes that cannot fit in memory, refused before any job with the memory they would need.

The bound is derived from the data structures a job holds, float64 (8 bytes) each:

* a run job: the MDP's transition array P[H, S, A, S], the engine's cumulative copy P_cdf
  (privrl.rl.engine.env_arrays) and the agent's transition counts and empirical model
  (e.g. UCBVI's n_sas and p_hat, privrl.agents.ucbvi.init_state): :data:`TRANSITION_ARRAYS` x
  H * S^2 * A * 8 bytes; the environment's (H, S, A) come from its parameters through the shape
  its registration declares (privrl.rl.envs.register), before anything is built.
* the agent's own tables beyond those (:data:`AGENT_TABLES`, from the agent's name, the
  environment's (H, S, A) and the agent's parameters): SDP-PE and PE (privrl.agents.sdp_pe.init_state)
  hold all A^(S H) deterministic policies, each with its actions int8[H, S], its active flag
  (1 byte), its occupancy float64[H, S + 1] and its value float64: :func:`policy_table_bytes`
  (4.3 GB at A = 2, S = 6, H = 4); an instance with more policies than the agent's
  ``max_policies`` is refused with the agent's own message (privrl.rl.policies.check_enumerable).
* an aggregate, fit or analysis job: the batched bootstrap (privrl.results.stats.mean_ci)
  resamples the seed x checkpoint matrix n_boot times: n_boot * seeds * (n_checkpoints + 1) * 8
  bytes (plus the int64 indices, n_boot * seeds * 8).

A job needing more than the machine's physical memory is refused (``memory_limit_bytes``).
"""
from __future__ import annotations

import inspect
import os
from typing import Any, Callable, Mapping

TRANSITION_ARRAYS = 4  # P, P_cdf, the agent's transition counts and its empirical model
FLOAT_BYTES = 8



def shape_error(where: str, name: str) -> str | None:
    """A one-line refusal if registered environment ``name`` declares no shape (privrl.rl.envs.register):
    the memory guard could not price it before it is built."""
    from privrl.rl import envs

    if name in envs.ENVS and not callable(getattr(envs.ENVS[name], "shape", None)):
        return (f"{where}: environment {name!r} declares no shape (H, S, A), so its memory cannot be checked before it "
                f"is built; add it with privrl.rl.envs.register(name, factory, shape=lambda params: (H, S, A))")
    return None


def memory_limit_bytes() -> int:
    """The machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def env_shape(name: str, params: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """(H, S, A) of this environment from its parameters (defaults filled), or None if unknown."""
    from privrl.rl import envs

    shape = getattr(envs.ENVS.get(name), "shape", None)  # declared by the registry (privrl.rl.envs.register)
    if not callable(shape):
        return None  # the door refuses it (shape_error)
    sig = inspect.signature(envs.ENVS[name])
    full = {k: v.default for k, v in sig.parameters.items() if v.default is not inspect.Parameter.empty}
    full.update(params)
    try:
        H, S, A = (int(x) for x in shape(full))
    except (KeyError, TypeError, ValueError):
        return None  # the environment's own checks name the bad parameter
    return H, S, A


def run_bytes(name: str, params: Mapping[str, Any]) -> int | None:
    """Memory of one run job's transition arrays on this environment (module docstring), or None if unknown."""
    shape = env_shape(name, params)
    if shape is None:
        return None
    H, S, A = shape
    return TRANSITION_ARRAYS * H * S * S * A * FLOAT_BYTES


def policy_table_bytes(H: int, S: int, A: int, params: Mapping[str, Any]) -> int:
    """SDP-PE / PE's policy table (privrl.agents.sdp_pe.init_state: pols int8[n, H, S], active
    bool[n], occ float64[n, H, S + 1], vals float64[n]) for n = A^(S H) policies; raises the
    agent's own ValueError when n exceeds its ``max_policies`` (it would refuse the run)."""
    from privrl.rl.policies import DEFAULT_MAX_POLICIES, check_enumerable

    n = check_enumerable(H, S, A, params.get("max_policies", DEFAULT_MAX_POLICIES))
    return n * (H * S + 1 + FLOAT_BYTES * (H * (S + 1) + 1))


def _policy_table_agents() -> tuple[str, ...]:
    from privrl.agents import sdp_pe

    return tuple(sdp_pe.PRESETS)


#: agent -> bytes of its tables beyond the transition arrays, (H, S, A, resolved params) -> int
AGENT_TABLES: dict[str, Callable[[int, int, int, Mapping[str, Any]], int]] = {
    name: policy_table_bytes for name in _policy_table_agents()}


def cell_memory_error(where: str, agent: str, agent_params: Mapping[str, Any], env_name: str,
                      env_params: Mapping[str, Any], limit: int | None = None) -> str | None:
    """A one-line refusal (naming ``where``) if ``agent`` on this environment needs more than ``limit``
    bytes (default: physical memory) for its transition arrays plus its own tables
    (:data:`AGENT_TABLES`), or would refuse the instance itself; None otherwise or if unknown."""
    table = AGENT_TABLES.get(agent)
    shape = env_shape(env_name, env_params)
    if table is None or shape is None:
        return None
    limit = memory_limit_bytes() if limit is None else limit
    from privrl.agents import REGISTRY

    params = {**REGISTRY[agent].defaults, **agent_params}
    try:
        own = table(*shape, params)
    except ValueError as e:
        return f"{where}: {agent}: {str(e).splitlines()[0]}"
    need = (run_bytes(env_name, env_params) or 0) + own
    if need <= limit:
        return None
    return (f"{where}: {agent} on {env_name} (H, S, A = {shape}) needs {_gb(need)} ({_gb(own)} of its own tables, "
            f"e.g. SDP-PE's A^(S*H) policy table), more than this machine's {_gb(limit)}")


def bootstrap_bytes(n_boot: int, seeds: int, n_checkpoints: int) -> int:
    """Memory of the batched bootstrap of one cell (module docstring)."""
    return n_boot * seeds * (n_checkpoints + 1) * FLOAT_BYTES + n_boot * seeds * 8


def _gb(n: float) -> str:
    return f"{n / 1e9:.3g} GB"


def env_memory_error(where: str, name: str, params: Mapping[str, Any], limit: int | None = None) -> str | None:
    """A one-line refusal (naming ``where``) if a run on this environment needs more than ``limit``
    bytes (default: physical memory); checked before the environment is built."""
    limit = memory_limit_bytes() if limit is None else limit
    need = run_bytes(name, params)
    if need is None or need <= limit:
        return None
    return (f"{where}: a run needs {_gb(need)} ({TRANSITION_ARRAYS} transition arrays of H*S^2*A*8 bytes), "
            f"more than this machine's {_gb(limit)}")


def bootstrap_memory_errors(config: Mapping[str, Any], limit: int | None = None) -> list[str]:
    """One line per experiment whose bootstrap (``bootstrap.n`` x seeds x checkpoints) would need
    more than ``limit`` bytes (default: physical memory), with the computed need."""
    limit = memory_limit_bytes() if limit is None else limit
    n_boot = (config.get("bootstrap") or {}).get("n", 1000)
    n_ck = config.get("n_checkpoints", 120)
    errs = []
    for name, exp in (config.get("experiments") or {}).items():
        seeds = exp.get("seeds", 1)
        if all(isinstance(x, int) and not isinstance(x, bool) for x in (n_boot, seeds, n_ck)):
            need = bootstrap_bytes(n_boot, seeds, n_ck)
            if need > limit:
                errs.append(f"bootstrap.n: {n_boot} resamples of experiments.{name} ({seeds} seeds x {n_ck + 1} "
                            f"checkpoints) need {_gb(need)}, more than this machine's {_gb(limit)}")
    return errs
