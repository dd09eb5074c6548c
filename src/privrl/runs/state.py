"""Saved state of a run in chunks (privrl.runs.run's resumable chunks): the agent state's arrays, the
recorder's and the RNGs' states after k episodes, filed atomically, and loaded back in place
only for the same run (run id, agent, K, array layout), else ignored with a warning."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("privrl.runs.run")
STATE_FORMAT = 1  # layout of a saved state (meta + flattened arrays); bump on any change


def _leaves(tree: Any) -> list[np.ndarray]:
    """The arrays of a nested tuple of arrays (an agent state), depth first."""
    if isinstance(tree, tuple):
        return [a for t in tree for a in _leaves(t)]
    return [tree]


def save_state(path: str | Path, run_id: str, agent: str, k: int, K: int, state: tuple, rec: tuple,
               rng: np.random.Generator, env_rng: np.random.Generator | None = None) -> None:
    """File a run's state after k episodes: the agent state's arrays, the recorder's and the RNG's
    state (numba's Generator shares the bit generator with Python; the environment stream's too
    under common random numbers), atomically."""
    from privrl import io

    arrays = _leaves(state) + list(rec)
    meta = {"format": STATE_FORMAT, "run_id": run_id, "agent": agent, "k": int(k), "K": int(K),
            "n_arrays": len(arrays), "n_state": len(arrays) - len(rec), "rng": rng.bit_generator.state}
    if env_rng is not None:
        meta["env_rng"] = env_rng.bit_generator.state
    io.write_state(path, meta, arrays)


def resume_state(path: str | Path, run_id: str, agent: str, K: int, state: tuple, rec: tuple,
                 rng: np.random.Generator, env_rng: np.random.Generator | None = None) -> int:
    """Load a state saved by :func:`save_state` for the same run into ``state``, ``rec`` and ``rng``
    (in place); returns the episodes it had done, or 0 (nothing changed) if there is no readable
    state of this run at ``path`` (a mismatch is logged and the file ignored)."""
    from privrl import io

    saved = io.read_state(path)
    if saved is None:
        if Path(path).exists():
            log.warning("%s: unreadable saved state ignored; the seed starts from episode 0", path)
        return 0
    meta, arrays = saved
    targets = _leaves(state) + list(rec)
    want = {"format": STATE_FORMAT, "run_id": run_id, "agent": agent, "K": int(K), "n_arrays": len(targets)}
    bad = [f for f in want if meta.get(f) != want[f]]
    bad += ["environment stream"] if (env_rng is None) != ("env_rng" not in meta) else []
    bad += [f"array {i}" for i, (a, b) in enumerate(zip(arrays, targets)) if a.shape != b.shape or a.dtype != b.dtype]
    if bad or not 0 < meta.get("k", 0) <= K:
        log.warning("%s: saved state of another run (%s) ignored; the seed starts from episode 0", path,
                    ", ".join(bad) or "episode count")
        return 0
    for a, b in zip(arrays, targets):
        np.copyto(b, a)
    rng.bit_generator.state = meta["rng"]
    if env_rng is not None:
        env_rng.bit_generator.state = meta["env_rng"]
    return int(meta["k"])
