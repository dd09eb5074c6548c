"""Resumable chunks (privrl.runs.run, agents' init_state / run_episodes): a seed's K episodes run as a
chain of chunks, the agent state, recorder and RNG carried or saved between them, are
bit-identical to the unchunked run; a killed run resumes from its last saved state."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privrl import io
from privrl.runs import run
from privrl.plan import validate
from privrl.agents import REGISTRY
from privrl.rl import engine, envs, seeding

ROOT = Path(__file__).resolve().parents[2]
MDPS = {  # name: (MDP, K)
    "riverswim S=2 H=3": (envs.riverswim(S=2, H=3), 400),
    "garnet S=3 A=2 H=4": (envs.garnet(S=3, A=2, branching=2, H=4, seed=11), 600),
    "riverswim S=6 H=20": (envs.riverswim(S=6, H=20), 150),  # the policy-elimination agents refuse it
}
CASES = [(a, p) for a in sorted(REGISTRY) for p in ([{}, {"noise": 0.0}] if "noise" in REGISTRY[a].defaults else [{}])]


def _layouts(K: int) -> list[list[int]]:
    """Chunk lengths covering K: 1-episode chunks, uneven splits, an empty chunk, two halves."""
    return [[1] * K, [7, 1, 250, 3] * (K // 261 + 1), [0, K // 3, 1, K], [K // 2, K - K // 2]]


def _chained(spec, env, pv, K, lengths):
    """(recorder, final RNG state) of K episodes run as chunks of ``lengths`` on one carried state."""
    rec = engine.new_recorder(K, np.array([0.1, 0.3]))
    rng = seeding.generator("chunks", "test", 4)
    state, k = spec.init_state(env, pv, np.int64(K)), 0
    for n in lengths:
        k1 = min(K, k + n)
        spec.run_episodes(env, pv, np.int64(K), np.int64(k), np.int64(k1), rng, rec, state)
        k = k1
    assert k == K
    return rec, rng.bit_generator.state


@pytest.mark.parametrize("agent,params", CASES, ids=[f"{a}{'-noise0' if p else ''}" for a, p in CASES])
def test_chunked_kernel_is_bit_identical_to_one_call(agent, params):
    spec = REGISTRY[agent]
    pv = spec.param_vector(params)
    ran = 0
    for name, (mdp, K) in MDPS.items():
        env = engine.env_arrays(mdp)
        try:
            ref, ref_rng = _chained(spec, env, pv, K, [K])
        except ValueError:  # SDP-PE family on S=6, H=20: too many policies to enumerate
            continue
        ran += 1
        for lengths in _layouts(K):
            got, got_rng = _chained(spec, env, pv, K, lengths)
            for a, b in zip(ref, got):
                np.testing.assert_array_equal(a, b, err_msg=f"{agent} {params} on {name}, chunks {lengths[:4]}...")
            assert got_rng == ref_rng, f"{agent} on {name}: RNG state differs after chunks {lengths[:4]}..."
    assert ran >= 2


class _Killed(Exception):
    pass


@pytest.mark.parametrize("agent", sorted(REGISTRY))
def test_resume_from_saved_state_is_bit_identical(tmp_path, monkeypatch, agent):
    """Stop a chunked run right after its 2nd saved state; a new run resumes from the file."""
    mdp, K = MDPS["garnet S=3 A=2 H=4"]
    ref = run.run_seed(agent, {}, mdp, K, 3)
    path, saves = tmp_path / "state.npz", []
    real_save = run.save_state

    def save_then_stop(*args):
        real_save(*args)
        saves.append(args[3])
        if len(saves) == 2:
            raise _Killed

    monkeypatch.setattr(run, "save_state", save_then_stop)
    with pytest.raises(_Killed):
        run.run_seed(agent, {}, mdp, K, 3, chunk_episodes=97, state_path=path, run_id="r")
    monkeypatch.setattr(run, "save_state", real_save)
    assert saves == [97, 194] and path.exists()
    df, k0 = run.run_seed_resumable(agent, {}, mdp, K, 3, chunk_episodes=250, state_path=path, run_id="r")
    assert k0 == 194
    pd.testing.assert_frame_equal(df, ref)


def test_time_chunks_and_unusable_states_give_the_same_result(tmp_path):
    mdp, K = envs.riverswim(S=3, H=5), 3000
    ref = run.run_seed("pucb", {}, mdp, K, 0)
    path = tmp_path / "s.npz"
    df, k0 = run.run_seed_resumable("pucb", {}, mdp, K, 0, chunk_seconds=1e-3, state_path=path, run_id="a")
    assert k0 == 0 and path.exists()  # timed chunks: saved after the speed-measuring first chunk
    pd.testing.assert_frame_equal(df, ref)
    meta, _ = io.read_state(path)
    assert 1000 < meta["k"] < K and meta["run_id"] == "a"
    for run_id in ("b", "a"):  # another run's state is ignored, this run's is resumed
        df, k0 = run.run_seed_resumable("pucb", {}, mdp, K, 0, state_path=path, run_id=run_id)
        assert k0 == (meta["k"] if run_id == "a" else 0)
        pd.testing.assert_frame_equal(df, ref)
    path.write_bytes(b"not a state")  # unreadable: start from episode 0
    df, k0 = run.run_seed_resumable("pucb", {}, mdp, K, 0, state_path=path, run_id="a")
    assert k0 == 0
    pd.testing.assert_frame_equal(df, ref)
    with pytest.raises(ValueError, match="chunk_episodes must be an integer >= 0"):
        run.run_seed("pucb", {}, mdp, K, 0, chunk_episodes=-1)


def test_shard_files_seeds_and_deletes_their_states(tmp_path):
    mdp, K = envs.riverswim(S=3, H=4), 2000
    key = run.run_key("dp-ucbvi-jdp", {"epsilon": 5.0}, mdp, K, "chunks_test", "riverswim/x", 100, "code0")
    assert not any("chunk" in f for f in key)  # the chunking is not part of the run key
    whole, _ = run.run_shard(key, mdp, [0, 1], str(tmp_path / "plain"))
    state_dir = tmp_path / "state"
    s1 = run.state_file(state_dir, key, 1)  # a state left by a killed job for seed 1
    spec = REGISTRY["dp-ucbvi-jdp"]
    env, pv = engine.env_arrays(mdp), spec.param_vector(key["params"])
    rec = engine.new_recorder(K, np.asarray(key["alphas"]), 100)
    rng = seeding.generator("chunks_test", "riverswim/x", 1)
    state = spec.init_state(env, pv, np.int64(K))
    spec.run_episodes(env, pv, np.int64(K), np.int64(0), np.int64(700), rng, rec, state)
    run.save_state(s1, s1.stem, "dp-ucbvi-jdp", 700, K, state, rec, rng)
    df, info = run.run_shard(key, mdp, [0, 1], str(tmp_path / "seeds"), state_dir=state_dir, chunk_episodes=300)
    pd.testing.assert_frame_equal(df, whole)
    assert info["resumed_from"] == {"1": 700} and not any(state_dir.iterdir())
    assert sorted(p.name for p in (tmp_path / "seeds").iterdir()) == sorted(
        f"{run.key_digest(key, [s])}{ext}" for s in (0, 1) for ext in (".parquet", ".sha256"))  # privrl.runs.store


def test_chunk_options_are_validated():
    assert validate.run_option_errors({"chunk_episodes": 1000, "chunk_minutes": 30}) == []
    assert validate.run_option_errors({"chunk_episodes": -1, "chunk_minutes": float("nan")}) == [
        "chunk_episodes: -1 is not an integer >= 0", "chunk_minutes: nan is not a finite number >= 0"]
    assert validate.chunking_of({"chunk_minutes": 0.5}) == {"chunk_episodes": 0, "chunk_seconds": 30.0}


def _cli(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-m", "privrl.cli.main", "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)


def test_sigkilled_run_resumes_from_its_last_state(tmp_path):
    """`privrl run` with chunks, SIGKILLed once a state is saved; the rerun resumes from that state
    (not from episode 0) and its results equal the unchunked run's."""
    K, state_dir, out = 1_500_000, tmp_path / "state", tmp_path / "r.parquet"
    args = ["--env", "riverswim", "--agent", "ucbvi", "--episodes", str(K), "--seeds", "1", "--progress", "off",
            "--state-dir", str(state_dir), "--chunk-episodes", "20000", "--out", str(out)]
    def states():  # saved states; not the hidden temporaries of a write in progress (io.atomic_path)
        return [p for p in state_dir.glob("*.npz") if not p.name.startswith(".")] if state_dir.is_dir() else []

    proc = _cli(args)
    deadline = time.monotonic() + 120
    while not states():
        assert proc.poll() is None, f"the run ended before saving a state:\n{proc.stdout.read()}"
        assert time.monotonic() < deadline, "no state saved within 120 s"
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL and not out.exists()
    (state,) = states()
    k_saved = io.read_state(state)[0]["k"]
    assert 0 < k_saved < K and k_saved % 20000 == 0
    rerun = _cli(args)
    text = rerun.communicate(timeout=300)[0]
    assert rerun.returncode == 0, text
    assert f"resumed seed 0 from episode {k_saved} " in text, text
    assert not any(state_dir.iterdir())  # the state deleted once the seed was done, a killed write's temporary too
    ref, _ = run.run("ucbvi", {}, envs.riverswim(), K, [0], experiment="cli", setting="riverswim/ucbvi")
    pd.testing.assert_frame_equal(pd.read_parquet(out), ref)
