"""Each kernel is compiled once per numba cache: jobs of one agent starting together on a cold
cache wait for the first one's compilation and load the kernels (privrl.runs.run.compile_once),
and the warm-up leaves every result unchanged."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from privrl.rl import envs
from privrl.runs import run

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
JOB = """
from privrl.runs import run
from privrl.rl import envs
run.run("ucbvi", {}, envs.riverswim(S=2, H=3), 30, [0])
"""


@pytest.mark.slow
def test_two_jobs_on_a_cold_cache_compile_each_kernel_once(tmp_path):
    env = {**os.environ, "PRIVRL_CACHE": str(tmp_path / "numba"), "NUMBA_DEBUG_CACHE": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)}
    env.pop("NUMBA_CACHE_DIR", None)
    jobs = [subprocess.Popen([sys.executable, "-c", JOB], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True) for _ in range(2)]
    outs = [j.communicate(timeout=600)[0] for j in jobs]
    assert all(j.returncode == 0 for j in jobs), outs
    saved = [o.count("data saved") for o in outs]
    assert min(saved) == 0 and max(saved) > 0, saved  # one compiled and saved, the other loaded


def test_the_warm_up_changes_no_result(tmp_path, monkeypatch):
    mdp = envs.riverswim(S=2, H=3)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    warm, _ = run.run("pucb", {"epsilon": 1.0}, mdp, 300, [0, 1])
    assert list(tmp_path.glob(".compiled-pucb-episode-*"))
    monkeypatch.delenv("NUMBA_CACHE_DIR")  # no cache directory: no warm-up
    plain, _ = run.run("pucb", {"epsilon": 1.0}, mdp, 300, [0, 1])
    assert warm.equals(plain)


def test_a_read_only_cache_skips_the_lock_and_runs(tmp_path, monkeypatch):
    """A shared, pre-filled cache the job cannot write (or lock): no warm-up, the run goes on."""
    mdp = envs.riverswim(S=2, H=3)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(run.os, "access", lambda path, mode: False)
    df, _ = run.run("ucbvi", {}, mdp, 50, [0])
    assert len(df) and not list(tmp_path.glob(".compile*"))


def test_a_cache_without_flock_skips_the_lock_and_runs(tmp_path, monkeypatch):
    def no_flock(*_):
        raise OSError(38, "Function not implemented")

    mdp = envs.riverswim(S=2, H=3)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(run.fcntl, "flock", no_flock)
    df, _ = run.run("ucbvi", {}, mdp, 50, [0])
    assert len(df) and not list(tmp_path.glob(".compiled-*"))
