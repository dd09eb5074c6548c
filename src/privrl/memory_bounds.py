"""Sizes that cannot fit in memory, refused before any job with the memory they would need.

The bound is derived from the data structures a job holds, float64 (8 bytes) each:

* a run job: the MDP's transition array P[H, S, A, S], the engine's cumulative copy P_cdf
  (privrl.rl.engine.env_arrays) and the agent's transition counts and empirical model
  (e.g. UCBVI's n_sas and p_hat, privrl.agents.ucbvi.init_state): :data:`TRANSITION_ARRAYS` x
  H * S^2 * A * 8 bytes; the environment's (H, S, A) come from its parameters
  (:data:`ENV_SHAPES`), before anything is built.
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

# environment -> (H, S, A) from its resolved parameters (privrl.rl.envs)
ENV_SHAPES: dict[str, Callable[[Mapping[str, Any]], tuple[int, int, int]]] = {
    "riverswim": lambda p: (p["H"], p["S"], 2),
    "garnet": lambda p: (p["H"], p["S"], p["A"]),
    "hard_instance": lambda p: (p["H"], p["n"] + 2, p["m"] + 1),
}


def memory_limit_bytes() -> int:
    """The machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def run_bytes(name: str, params: Mapping[str, Any]) -> int | None:
    """Memory of one run job on this environment (module docstring), or None if unknown."""
    from privrl.rl import envs

    if name not in ENV_SHAPES or name not in envs.ENVS:
        return None
    sig = inspect.signature(envs.ENVS[name])
    full = {k: v.default for k, v in sig.parameters.items() if v.default is not inspect.Parameter.empty}
    full.update(params)
    try:
        H, S, A = (int(x) for x in ENV_SHAPES[name](full))
    except (KeyError, TypeError, ValueError):
        return None  # the environment's own checks name the bad parameter
    return TRANSITION_ARRAYS * H * S * S * A * FLOAT_BYTES


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
