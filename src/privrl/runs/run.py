"""The runner: K episodes of one agent on one MDP for each seed, exact regret recorded.

Per seed it stores, at >= 100 log-spaced checkpoints and at K, the cumulative expected
regret sum_k (V*_1 - V^{pi_k}_1) (exact, by policy evaluation — Vietri et al. Def. 2),
the cumulative agent diagnostic ``aux`` (fraction of (h, s, a) whose optimistic value is
clipped, i.e. whose bonus saturates) and, for each alpha in a grid, the number of
episodes with gap > alpha (PAC mistakes, Vietri et al. Def. 1 / Thm 3).

Resumable chunks: a seed's K episodes can run as a chain of chunks (``chunk_episodes``, or
``chunk_seconds`` of run time each). Each chunk continues the agent's state (``init_state``:
counters, mechanism state, policy, values, carried scalars), the recorder and the RNG, and
after it the runner saves all three with the episodes done to ``state_path`` (atomically); a
run that finds a saved state of the same run there resumes from it, never from episode 0. The
result is bit-identical to the unchunked run, so the chunking is not part of the run key.

Common random numbers (``env_stream``, an experiment's ``common_random_numbers: true``): the
episodes are sampled from the environment's own stream of (experiment, env_stream, seed)
(:func:`privrl.rl.seeding.environment_generator`, :func:`privrl.rl.engine.with_environment_stream`),
shared by every agent on that instance and seed, while the agent's noise keeps the cell's stream.
The run key then holds ``env_stream``; without it (the default) nothing changes.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from privrl.rl import engine, seeding
from privrl.agents import get as get_agent
from privrl.agents import simulation as simulations
from privrl.mechanisms.kinds import check_epsilon_range
from privrl.rl.mdp import TabularMDP
from privrl.runs.state import STATE_FORMAT, resume_state, save_state  # noqa: F401 (run.save_state: tests)
from privrl.runs.store import key_digest  # the store's name of a run's seeds (its memos check with it)

DEFAULT_ALPHAS = (0.01, 0.03, 0.1, 0.3, 1.0)
KEY_FIELDS = ("agent", "params", "mdp", "episodes", "experiment", "setting", "n_checkpoints", "alphas", "code")
# (+ "env_stream" under common random numbers only, and "simulation" when it is not "episode":
# privrl.agents.simulation; so episode keys never changed)
RESULT_COLUMNS = ("seed", "episode", "cum_regret", "cum_aux")


FIRST_TIMED_CHUNK = 1000  # episodes of the first chunk when chunking by time (measures the speed)
COMPILE_EPISODES = 2  # the warm-up run that compiles an agent's kernels once per numba cache


def run_seed(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seed: int,
             experiment: str = "adhoc", setting: str = "default", alphas: Iterable[float] = DEFAULT_ALPHAS,
             n_checkpoints: int = 120, env: tuple | None = None, chunk_episodes: int = 0,
             chunk_seconds: float = 0.0, state_path: str | Path | None = None, run_id: str = "",
             env_stream: str | None = None, simulation: str = simulations.EPISODE) -> pd.DataFrame:
    """One seed of one cell: a long DataFrame with one row per checkpoint.

    ``chunk_episodes`` / ``chunk_seconds`` (0 = off): run the K episodes in chunks of at most that
    many episodes / about that much time; with ``state_path``, save the state there after every
    chunk but the last, and resume from a state saved there for ``run_id`` (whatever the chunking).
    ``env_stream`` (None = off): common random numbers, the episodes sampled from the environment
    stream of (experiment, env_stream, seed) (module docstring).
    ``simulation``: ``episode`` (the reference) or ``aggregate`` (:mod:`privrl.agents.simulation`).
    """
    return run_seed_resumable(agent, params, mdp, episodes, seed, experiment, setting, alphas, n_checkpoints, env,
                              chunk_episodes, chunk_seconds, state_path, run_id, env_stream,
                              simulation=simulation)[0]


def compile_once(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, alphas: Iterable[float],
                 n_checkpoints: int, simulation: str = simulations.EPISODE) -> None:
    """Compile the agent's kernels once per numba cache, whatever the number of jobs starting at once.

    On a cold cache, every job of an agent would compile the same kernels side by side. The first
    job to take the lock ``<NUMBA_CACHE_DIR>/.compile-<agent>-<simulation>.lock`` compiles them by
    a warm-up run of :data:`COMPILE_EPISODES` episodes on its own stream (nothing of it is kept;
    numba saves the kernels to the cache) and leaves a marker named by the host CPU; the others
    wait, then load the kernels from the cache. privrl keys the cache directory by the numba
    sources (:data:`privrl.NUMBA_SOURCES`), so a marker describes the code beside it (unless
    ``PRIVRL_KEEP_NUMBA_CACHE_DIR`` keeps a cache of the user's: then a stale marker only skips
    the lock, and numba recompiles what changed as usual). A cache that cannot be written or
    locked (read-only, a file system without flock) skips the lock: the run goes on as before,
    each job compiling for itself. A warm-up that fails (an instance the agent refuses) is left to
    the real run to report. The run info's ``seconds`` include the wait and the warm-up."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if not cache or not os.path.isdir(cache) or not os.access(cache, os.W_OK):
        return
    from llvmlite import binding

    marker = Path(cache, f".compiled-{agent}-{simulation}-{binding.get_host_cpu_name()}")
    if marker.exists():
        return
    try:
        lock = open(Path(cache, f".compile-{agent}-{simulation}.lock"), "a")
    except OSError:
        return
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        except OSError:  # no flock on this file system
            return
        if marker.exists():
            return
        try:
            run_seed(agent, params, mdp, COMPILE_EPISODES, 0, experiment="privrl-compile", alphas=alphas,
                     n_checkpoints=n_checkpoints, simulation=simulation)
        except Exception:  # noqa: BLE001 (the real run raises it with its own context)
            return
        try:
            marker.touch()
        except OSError:
            pass


def check_privacy_parameters(agent: str, params: Mapping[str, Any] | None) -> None:
    """Refuse a private agent's epsilon outside ``[AGENT_EPSILON_MIN, EPSILON_MAX]`` (inf, nan, 1e300,
    1e-300 ...) before any episode, naming the agent, the value and the range."""
    spec = get_agent(agent)
    p = spec.resolve(params)
    if spec.privacy_model != "none" and "epsilon" in p:
        check_epsilon_range(p["epsilon"], f"agent {agent!r}: epsilon")


def run_seed_resumable(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seed: int,
                       experiment: str = "adhoc", setting: str = "default",
                       alphas: Iterable[float] = DEFAULT_ALPHAS, n_checkpoints: int = 120, env: tuple | None = None,
                       chunk_episodes: int = 0, chunk_seconds: float = 0.0, state_path: str | Path | None = None,
                       run_id: str = "", env_stream: str | None = None,
                       on_chunk: Callable[[int, int], None] | None = None,
                       simulation: str = simulations.EPISODE) -> tuple[pd.DataFrame, int]:
    """:func:`run_seed` and the episode it resumed from (0: a fresh run); ``on_chunk(k, K)``, if
    given, is called after each chunk (progress within a seed)."""
    check_privacy_parameters(agent, params)
    if not (isinstance(chunk_episodes, (int, np.integer)) and chunk_episodes >= 0):
        raise ValueError(f"chunk_episodes must be an integer >= 0; got {chunk_episodes!r}")
    if not chunk_seconds >= 0:
        raise ValueError(f"chunk_seconds must be >= 0; got {chunk_seconds!r}")
    spec = get_agent(agent)
    init_state, run_episodes = simulations.kernels(agent, simulation)
    if env_stream is not None and simulation != simulations.EPISODE:
        raise ValueError(f"agent {agent!r}: common random numbers need the episode simulation (an aggregate "
                         "block draws no per-episode environment stream)")
    pv = spec.param_vector(params)
    env = env if env is not None else engine.env_arrays(mdp)
    K = np.int64(episodes)
    rec = engine.new_recorder(int(episodes), np.asarray(tuple(alphas)), n_checkpoints)
    rng = seeding.generator(experiment, setting, seed)
    env_rng = None if env_stream is None else seeding.environment_generator(experiment, env_stream, seed)
    if env_rng is not None:
        env = engine.with_environment_stream(env, env_rng)
    state = init_state(env, pv, K)
    k = resume_state(state_path, run_id, agent, K, state, rec, rng, env_rng) if state_path is not None else 0
    resumed_from, rate = k, 0.0
    while k < K:
        n, save = K - k, chunk_episodes > 0
        if chunk_episodes > 0:
            n = min(n, chunk_episodes)
        if chunk_seconds > 0:  # the first timed chunk only measures the speed (not worth a save)
            n = min(n, max(1, int(chunk_seconds * rate)) if rate > 0 else FIRST_TIMED_CHUNK)
            save = save or rate > 0
        t0 = time.perf_counter()
        run_episodes(env, pv, K, np.int64(k), np.int64(k + n), rng, rec, state)
        rate = n / max(time.perf_counter() - t0, 1e-9)
        k += n
        if on_chunk is not None:
            on_chunk(int(k), int(K))
        if state_path is not None and save and k < K:
            save_state(state_path, run_id, agent, k, K, state, rec, rng, env_rng)
    ckpts, alph, cum, aux, mist, _, cursor = rec
    if cursor[0] != ckpts.size:
        raise RuntimeError(f"agent {agent!r} recorded {cursor[0]} of {ckpts.size} checkpoints")
    df = pd.DataFrame({"seed": np.full(ckpts.size, seed, np.int64), "episode": ckpts, "cum_regret": cum,
                       "cum_aux": aux})
    for j, a in enumerate(alph):
        df[f"mistakes_{a:g}"] = mist[:, j]
    return df, int(resumed_from)


def run(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seeds: Iterable[int],
        experiment: str = "adhoc", setting: str = "default", alphas: Iterable[float] = DEFAULT_ALPHAS,
        n_checkpoints: int = 120, on_seed: Callable[[int, int, float], None] | None = None,
        chunk_episodes: int = 0, chunk_seconds: float = 0.0, state_dir: str | Path | None = None,
        env_stream: str | None = None, on_chunk: Callable[[int, int], None] | None = None,
        simulation: str = simulations.EPISODE) -> tuple[pd.DataFrame, dict]:
    """All seeds of one cell (sequentially, one process). Returns (results, run info).

    ``on_seed(done, total, elapsed_s)``, if given, is called after each seed, ``on_chunk(k, K)``
    after each chunk of a seed (progress display; chunks only with chunk_episodes/chunk_seconds).
    ``chunk_episodes``, ``chunk_seconds``: as :func:`run_seed`; with ``state_dir``, each seed's state
    is saved there (``<key_digest(run key, [seed])>.npz``) after every chunk, resumed from when
    found, and deleted once the seed is done; the run info then lists ``resumed_from`` {seed: episode}.
    ``env_stream``: common random numbers (:func:`run_seed`).
    """
    env = engine.env_arrays(mdp)
    seeds = [int(s) for s in seeds]
    key = None if state_dir is None else run_key(agent, params, mdp, episodes, experiment, setting, n_checkpoints,
                                                 agent_digest(agent, simulation), alphas, env_stream, simulation)
    _clean_state_dir(state_dir)
    t0 = time.perf_counter()
    compile_once(agent, params, mdp, alphas, n_checkpoints, simulation)
    frames, resumed = [], {}
    for s in seeds:
        df, k0, path = _seed_with_state(agent, params, mdp, episodes, s, experiment, setting, alphas, n_checkpoints,
                                        env, chunk_episodes, chunk_seconds, state_dir, key, env_stream, on_chunk,
                                        simulation)
        frames.append(df)
        if path is not None:
            path.unlink(missing_ok=True)
        if k0:
            resumed[str(s)] = k0
        if on_seed is not None:
            on_seed(len(frames), len(seeds), time.perf_counter() - t0)
    info = run_info(agent, params, mdp, episodes, seeds, experiment, setting, env_stream, simulation)
    info["seconds"] = time.perf_counter() - t0
    if key is not None:
        info["resumed_from"] = resumed
    return pd.concat(frames, ignore_index=True), info


def _clean_state_dir(state_dir: str | Path | None) -> None:
    """Remove the temporaries of state writes killed with their process."""
    if state_dir is not None:
        from privrl import io

        io.remove_stale_temps(state_dir)


def _seed_with_state(agent, params, mdp, episodes, seed, experiment, setting, alphas, n_checkpoints, env,
                     chunk_episodes, chunk_seconds, state_dir, key, env_stream=None, on_chunk=None,
                     simulation=simulations.EPISODE) -> tuple[pd.DataFrame, int, Path | None]:
    """One seed, resumable in ``state_dir`` (None: not saved): (results, episode resumed from, the
    state file the caller deletes once the result is safe)."""
    path = None if state_dir is None else state_file(state_dir, key, seed)
    df, k0 = run_seed_resumable(agent, params, mdp, episodes, seed, experiment, setting, alphas, n_checkpoints, env,
                                chunk_episodes, chunk_seconds, path, "" if path is None else path.stem, env_stream,
                                on_chunk, simulation)
    return df, k0, path


def state_file(state_dir: str | Path, key: Mapping[str, Any], seed: int) -> Path:
    """Where one seed's resumable state lives: ``<state_dir>/<key_digest(key, [seed])>.npz`` (the
    name of the seed's result in the seed store, so the state names exactly one run)."""
    return Path(state_dir, f"{key_digest(key, [seed])}.npz")


def run_info(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, seeds: list[int],
             experiment: str, setting: str, env_stream: str | None = None,
             simulation: str = simulations.EPISODE) -> dict:
    """The run info filed next to a run's results: agent, resolved params, guarantees, K, seeds,
    simulation (episode by episode or aggregate), and the environment stream under common random
    numbers."""
    spec = get_agent(agent)
    info = {
        "agent": agent, "params": spec.resolve(params), "privacy_model": spec.privacy_model,
        "reference": spec.reference, "reconstruction": spec.reconstruction, "env": mdp.name,
        "env_params": mdp.params, "episodes": int(episodes), "seeds": seeds, "experiment": experiment,
        "setting": setting, "simulation": simulation,
        "guarantees": [g.__dict__ for g in spec.guarantees(spec.resolve(params), mdp, int(episodes))]
        if spec.guarantees else [],
    }
    if env_stream is not None:
        info["env_stream"] = env_stream
    return info


# --- results keyed by content -------------------------------------------------------------
# A run's result is a function of the agent and its resolved parameters, the MDP's arrays, K,
# the seed stream (experiment, setting, seed: privrl.rl.seeding), the checkpoint grid and the
# code of the kernels; the store (workflow/rules/runs.smk) files a result under the digest of
# exactly these, so any config or workflow that asks for the same run finds it.


def mdp_digest(mdp: TabularMDP) -> str:
    """sha256 (16 hex) of the MDP's content: P[H, S, A, S], R[H, S, A], rho[S], reward noise."""
    h = hashlib.sha256()
    for a in (mdp.P, mdp.R, mdp.rho):
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    h.update(mdp.reward_noise.encode())
    return h.hexdigest()[:16]


def run_key(agent: str, params: Mapping[str, Any] | None, mdp: TabularMDP, episodes: int, experiment: str,
            setting: str, n_checkpoints: int, code: str, alphas: Iterable[float] = DEFAULT_ALPHAS,
            env_stream: str | None = None, simulation: str = simulations.EPISODE) -> dict:
    """What determines one seed's result of a cell, but the seed (KEY_FIELDS; JSON-able, canonical);
    ``env_stream`` only under common random numbers and ``simulation`` only when it is not
    ``episode`` (so every other key is unchanged)."""
    sim = {} if simulations.check(agent, simulation) == simulations.EPISODE else {"simulation": simulation}
    key = {**sim, "agent": agent, "params": get_agent(agent).resolve(params), "mdp": mdp_digest(mdp),
           "episodes": int(episodes), "experiment": experiment, "setting": setting,
           "n_checkpoints": int(n_checkpoints), "alphas": [float(a) for a in alphas], "code": code}
    if env_stream is not None:
        key["env_stream"] = env_stream
    return key


def seed_shards(seeds: Iterable[int], per_job: int) -> list[list[int]]:
    """Seeds split into jobs of ``per_job``, aligned on multiples of ``per_job`` (seed s is in shard
    s // per_job whatever the number of seeds, so adding seeds leaves the full shards unchanged)."""
    if per_job < 1:
        raise ValueError(f"seeds_per_job must be >= 1; got {per_job}")
    shards: dict[int, list[int]] = {}
    for s in sorted(int(x) for x in seeds):
        shards.setdefault(s // per_job, []).append(s)
    return list(shards.values())


def run_shard(key: Mapping[str, Any], mdp: TabularMDP, seeds: Iterable[int], seed_store: str | None = None,
              on_seed: Callable[[int, int, float], None] | None = None, state_dir: str | Path | None = None,
              chunk_episodes: int = 0, chunk_seconds: float = 0.0) -> tuple[pd.DataFrame, dict]:
    """The seeds of one shard of a run key: the same rows, in seed order, as :func:`run` over them.

    ``seed_store``: a directory of per-seed results filed by ``key_digest(key, [seed])``; a seed
    found there whose content matches its recorded sha256, which a merge read (the store's record:
    privrl.runs.store.read_memo), is read, not rerun, and a
    seed run is filed there (atomically, with its sha256), so a shard that grows by a seed reruns
    only the new seed.
    ``state_dir``, ``chunk_episodes``, ``chunk_seconds``: resumable chunks (:func:`run_seed`); a
    seed's state (:func:`state_file`) is deleted once its result is filed in ``seed_store`` (or,
    without one, once the seed is done). The run info lists ``resumed_from`` {seed: episode}.
    """
    from privrl.runs import store

    if mdp_digest(mdp) != key["mdp"]:
        raise ValueError(f"MDP content {mdp_digest(mdp)} differs from the run key's {key['mdp']}")
    seeds = [int(s) for s in seeds]
    env = engine.env_arrays(mdp)
    _clean_state_dir(state_dir)
    t0 = time.perf_counter()
    frames, reused, resumed, compiled = [], [], {}, False
    for s in seeds:
        memo = Path(seed_store, f"{key_digest(key, [s])}.parquet") if seed_store else None
        memo_df = store.read_memo(memo) if memo is not None else None  # None: absent or not its sha256
        if memo_df is not None:
            frames.append(memo_df)
            reused.append(s)
        else:
            if not compiled:  # the first seed this shard runs: the kernels compiled once per cache
                compile_once(key["agent"], key["params"], mdp, key["alphas"], key["n_checkpoints"],
                             key.get("simulation", simulations.EPISODE))
                compiled = True
            df, k0, path = _seed_with_state(key["agent"], key["params"], mdp, key["episodes"], s, key["experiment"],
                                            key["setting"], key["alphas"], key["n_checkpoints"], env, chunk_episodes,
                                            chunk_seconds, state_dir, key, key.get("env_stream"),
                                            simulation=key.get("simulation", simulations.EPISODE))
            frames.append(df)
            if k0:
                resumed[str(s)] = k0
            if memo is not None:
                store.write_memo(memo, frames[-1])  # with its sha256
            if path is not None:
                path.unlink(missing_ok=True)
        if on_seed is not None:
            on_seed(len(frames), len(seeds), time.perf_counter() - t0)
    info = run_info(key["agent"], key["params"], mdp, key["episodes"], seeds, key["experiment"], key["setting"],
                    key.get("env_stream"), key.get("simulation", simulations.EPISODE))
    info.update(seconds=time.perf_counter() - t0, reused_seeds=reused, resumed_from=resumed, key=dict(key),
                digest=key_digest(key, seeds))
    return pd.concat(frames, ignore_index=True), info


def merge_shards(shard_paths: Iterable[str], mdp_path: str, cell: Any, out_results: str, out_info: str) -> None:
    """One cell's files from its shards (in seed order): the results, bit-identical to running all
    seeds in one job (each seed's rows depend on that seed only), and the run info of the cell
    (agent, params, K, seeds, guarantees, label, tags; seconds summed over the shards)."""
    from privrl import io
    from privrl.runs import store
    from privrl.rl import mdp as mdp_io

    shard_paths = [str(p) for p in shard_paths]
    frames, infos = [], []
    for p in shard_paths:
        infos.append(store.verified_shard(p))  # its sha256 first: a changed shard is refused, named
        frames.append(pd.read_parquet(p))
    if shard_paths:  # each shard as its cell's merge record holds it: one edited with its JSON is refused, named
        store.vouch_for_shards(store.store_of(shard_paths), shard_paths, infos)
    if infos and mdp_digest(mdp_io.load(mdp_path)) != infos[0]["key"]["mdp"]:
        raise ValueError(f"{mdp_path}: MDP content differs from the one the shards ran on")
    info = {k: v for k, v in infos[0].items() if k not in ("reused_seeds", "resumed_from", "digest", "key")}
    info.update(seeds=[s for i in infos for s in i["seeds"]], seconds=sum(i["seconds"] for i in infos),
                shards=[i["digest"] for i in infos], cell=cell.cell, label=cell.label, tags=dict(cell.tags))
    df = pd.concat(frames, ignore_index=True)
    written = io.write_run(out_results, out_info, df, info)  # the JSON records the parquet's sha256
    if shard_paths:
        store.record_merge(store.store_of(shard_paths), info["shards"], written[io.HASH_FIELD],
                           {i["digest"]: i[io.HASH_FIELD] for i in infos})
        store.vouch_for_memos(store.store_of(shard_paths), infos, frames)  # the memos a shard job may reuse


def agent_digest(agent: str, simulation: str = simulations.EPISODE) -> str:
    """What one agent's runs depend on: its module, the runner and the environments, closed (and
    the aggregate kernel's module under aggregate simulation; episode digests are unchanged)."""
    from privrl.digests import RUN_MODULES, digest

    extra = simulations.kernel_modules(agent, simulation)
    return digest([get_agent(agent).run_episodes.__module__, *extra, *RUN_MODULES])
