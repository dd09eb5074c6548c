"""Common random numbers (an experiment's ``common_random_numbers: true``): agents on one instance
and seed sample their episodes from one environment stream with a fixed number of uniforms per
episode, so they see identical environment draws; their own noise keeps the cell's stream; the
default (off) changes nothing."""
import numpy as np
import pytest
import yaml
from pathlib import Path

from privrl.design import experiments
from privrl.runs import run
from privrl.agents import get
from privrl.rl import engine, envs, seeding
from privrl.plan.workflow import WorkflowPlan

ROOT = Path(__file__).resolve().parents[2]
GARNET = {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}  # Bernoulli rewards, random transitions


def _common_env(mdp, seed=0):
    g = seeding.environment_generator("crn_test", "garnet", seed)
    return engine.with_environment_stream(engine.env_arrays(mdp), g), g


@pytest.mark.parametrize("agents", [("ucbvi", "rlsvi"), ("ucbvi", "pucb"), ("pucb", "shuffled-obi")])
def test_two_agents_consume_the_same_environment_draws(agents):
    """Each agent's environment stream ends where 1 + 2H uniforms per episode put it: the draw of
    (episode, step, purpose) is the same uniform for both, whatever their policies."""
    mdp = envs.make("garnet", **GARNET)
    K, ends = 300, []
    for a in agents:
        env, g = _common_env(mdp)
        spec = get(a)
        spec.kernel(env, spec.param_vector(None), K, seeding.generator("crn_test", f"garnet/{a}", 0),
                    engine.new_recorder(K, np.zeros(0)))
        ends.append(g.bit_generator.state)
    ref = seeding.environment_generator("crn_test", "garnet", 0)
    ref.random(K * (1 + 2 * mdp.H))
    assert ends[0] == ends[1] == ref.bit_generator.state


def test_a_step_taken_alike_is_sampled_alike():
    """Two policies that agree on the first step: same start state, reward and successor from the
    same uniforms; afterwards their draws stay aligned by position."""
    mdp = envs.make("garnet", **GARNET)
    H, S = mdp.H, mdp.S
    pi1 = np.zeros((H, S), np.int64)
    pi2 = pi1.copy()
    pi2[1:] = 1
    out = []
    for pi in (pi1, pi2):
        env, _ = _common_env(mdp, seed=7)
        traj = engine.new_trajectory(H)
        for _ in range(50):
            engine.play_episode_common(env, pi, env[8], traj)
            out.append((traj[0].copy(), traj[1].copy(), traj[2].copy()))
    for (s1, a1, r1), (s2, a2, r2) in zip(out[:50], out[50:]):
        assert s1[0] == s2[0] and s1[1] == s2[1] and r1[0] == r2[0]


def test_resumable_chunks_keep_the_environment_stream(tmp_path):
    mdp = envs.make("garnet", **GARNET)
    kw = dict(experiment="crn_test", setting="garnet/pucb", n_checkpoints=100, env_stream="garnet")
    whole, _ = run.run_seed_resumable("pucb", None, mdp, 200, 2, **kw)
    path = tmp_path / "s.npz"
    run.run_seed_resumable("pucb", None, mdp, 200, 2, chunk_episodes=70, state_path=path, run_id="r", **kw)
    resumed, k0 = run.run_seed_resumable("pucb", None, mdp, 200, 2, chunk_episodes=70, state_path=path, run_id="r",
                                         **kw)
    assert k0 == 140 and whole.equals(resumed)
    plain, k1 = run.run_seed_resumable("pucb", None, mdp, 200, 2, state_path=path, run_id="r",
                                       **{**kw, "env_stream": None})  # a state of the CRN run is not resumed
    assert k1 == 0 and not plain.equals(whole)


def test_default_keys_and_results_are_unchanged_and_crn_is_keyed():
    mdp = envs.make("garnet", **GARNET)
    key = run.run_key("ucbvi", None, mdp, 100, "e", "garnet/ucbvi", 100, "code0")
    assert "env_stream" not in key
    crn = run.run_key("ucbvi", None, mdp, 100, "e", "garnet/ucbvi", 100, "code0", env_stream="garnet")
    assert crn == {**key, "env_stream": "garnet"} and run.key_digest(crn, [0]) != run.key_digest(key, [0])
    a = run.run_seed("ucbvi", None, mdp, 100, 0, "e", "garnet/ucbvi", n_checkpoints=100)
    b = run.run_seed("ucbvi", None, mdp, 100, 0, "e", "garnet/ucbvi", n_checkpoints=100, env_stream=None)
    assert a.equals(b)


def test_the_experiment_option_reaches_every_run_key_of_the_experiment():
    config = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    name = next(iter(config["experiments"]))
    config["experiments"][name]["common_random_numbers"] = True
    plan = WorkflowPlan(config, ROOT)
    for sh in plan.shards.values():
        on = sh["key"]["experiment"] == name
        assert (sh["key"].get("env_stream") == sh["key"]["setting"].split("/")[0]) if on else "env_stream" not in sh["key"]


def test_one_algorithm_in_two_cells_gives_one_result_under_crn():
    """A noise-free agent's run is a function of the environment's draws only: two cells of UCBVI
    (two agent streams) give identical results on the common stream, different ones without it."""
    mdp = envs.make("garnet", **GARNET)
    kw = dict(experiment="crn_test", n_checkpoints=100)
    a = run.run_seed("ucbvi", {"bonus_scale": 0.01}, mdp, 300, 4, setting="garnet/cell_a", env_stream="garnet", **kw)
    b = run.run_seed("ucbvi", {"bonus_scale": 0.01}, mdp, 300, 4, setting="garnet/cell_b", env_stream="garnet", **kw)
    c = run.run_seed("ucbvi", {"bonus_scale": 0.01}, mdp, 300, 4, setting="garnet/cell_b", **kw)
    assert a.equals(b) and not b.equals(c)
