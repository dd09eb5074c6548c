import subprocess
import sys

import numpy as np
import pytest

from privrl.rl import engine, envs, reference, seeding
from privrl.runs import run
from privrl.rl.planning import FP_FLAGS


def test_checkpoints_log_spaced_and_include_K():
    c = engine.checkpoints(20000)
    assert c.size >= 100 and c[0] == 1 and c[-1] == 20000 and np.all(np.diff(c) > 0)
    assert np.array_equal(engine.checkpoints(50), np.arange(1, 51))


def test_seed_identical_alone_and_in_batch():
    m = envs.riverswim(S=4, H=5)
    alone, _ = run.run("ucbvi", {"bonus_scale": 0.01}, m, 3000, [3], experiment="e", setting="s")
    batch, _ = run.run("ucbvi", {"bonus_scale": 0.01}, m, 3000, range(8), experiment="e", setting="s")
    pd_alone = alone.reset_index(drop=True)
    pd_batch = batch[batch.seed == 3].reset_index(drop=True)
    assert pd_alone.equals(pd_batch)
    # and different seeds differ
    assert not np.array_equal(batch[batch.seed == 2].cum_regret.values, pd_batch.cum_regret.values)


def test_seed_stream_independent_of_python_hash_seed():
    code = "from privrl.rl import seeding; print(seeding.generator('e', 'riverswim/ucbvi', 5).random())"
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": h, "PATH": ""}).stdout for h in ("0", "123")}
    assert len(outs) == 1


def test_numba_kernel_matches_numpy_reference():
    """Same algorithm, same random stream consumed in the same order -> same regret.
    (garnet: continuous rewards make exact Q ties, whose resolution could depend on
    floating-point summation order, practically impossible.)"""
    for m in (envs.garnet(S=5, A=3, branching=3, H=4, seed=2), envs.garnet(S=4, A=2, branching=2, H=6, seed=5)):
        K = 400
        gaps = reference.ucbvi_numpy(m, K, seeding.generator("adhoc", "default", 3), bonus_scale=0.01)
        df = run.run_seed("ucbvi", {"bonus_scale": 0.01}, m, K, 3, n_checkpoints=100)
        np.testing.assert_allclose(df.cum_regret.values, np.cumsum(gaps)[df.episode.values - 1], rtol=1e-9, atol=1e-9)


def test_regret_and_mistakes_monotone():
    m = envs.garnet(S=5, A=2, H=5, seed=0)
    df, info = run.run("ucbvi", {"bonus_scale": 0.01}, m, 2000, range(2))
    for _, d in df.groupby("seed"):
        assert np.all(np.diff(d.cum_regret.values) >= -1e-12)
        for col in [c for c in df.columns if c.startswith("mistakes_")]:
            assert np.all(np.diff(d[col].values) >= 0)
            assert d[col].values[-1] <= 2000
        # mistakes at a larger alpha never exceed those at a smaller one
        assert np.all(d["mistakes_0.01"].values >= d["mistakes_1"].values)
    assert info["privacy_model"] == "none" and info["episodes"] == 2000


def test_unknown_agent_and_param_named():
    m = envs.riverswim(S=3, H=3)
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        run.run("nope", {}, m, 10, [0])
    with pytest.raises(ValueError, match=r"agent 'ucbvi' has no parameter\(s\) \['epsilon'\]"):
        run.run("ucbvi", {"epsilon": 1}, m, 10, [0])


def test_inlined_helpers_share_their_callers_fastmath_flags():
    """The per-episode and per-layer helpers are numba-IR inlined (``inline="always"``), so they
    take the caller's fastmath flags; they keep their numbers only if every function that calls
    them has the same flags as they have (docs/decisions/performance.md, "Throughput"): the fastmath-free
    helpers are never called under fastmath, the planning layers only under their own flags.
    Checks every njit function of the package."""
    import importlib
    import inspect
    import pkgutil
    import re

    import privrl
    from numba.core.registry import CPUDispatcher

    def flags(f):
        fm = f.targetoptions.get("fastmath")
        return frozenset(fm) if isinstance(fm, (set, frozenset, list, tuple)) else frozenset({"fast"} if fm else ())

    modules = [importlib.import_module(m.name) for m in pkgutil.walk_packages(privrl.__path__, "privrl.")]
    dispatchers = {id(f): (mod.__name__, name, f) for mod in modules for name, f in vars(mod).items()
                   if isinstance(f, CPUDispatcher)}
    inlined = {name: f for _, name, f in dispatchers.values() if f.targetoptions.get("inline") == "always"}
    assert {"step", "record", "observe", "refresh_row", "count_step"} <= set(inlined)
    assert {"plus_expected_next", "clip_and_compare", "optimistic_layer", "evaluation_layer"} <= set(inlined)
    assert any(flags(f) for _, _, f in dispatchers.values()), "expected some fastmath planners"
    neutral = set(engine.CONTRACT_NEUTRAL)  # fastmath-free, no product added: may run under contract too
    assert neutral <= set(inlined)
    for mod, name, f in dispatchers.values():
        body = inspect.getsource(f.py_func).split(":", 1)[1]
        wrong = {c for c, g in inlined.items() if re.search(rf"\b{c}\(", body) and flags(g) != flags(f)
                 and not (c in neutral and flags(f) == frozenset(FP_FLAGS))}
        assert not wrong, f"{mod}.{name} (fastmath {set(flags(f))}) inlines helper(s) with other flags: {wrong}"


def _contractible_pairs(llvm_ir: str) -> list[str]:
    """Lines of an LLVM module where a ``contract`` product feeds a ``contract`` sum: what FMA
    contraction may fuse (the only thing the planners' flags change)."""
    import re

    products = set(re.findall(r"(%[\w.]+) = fmul contract", llvm_ir))
    return [ln for ln in llvm_ir.splitlines() if re.search(r"= f(add|sub) contract", ln)
            and products & set(re.findall(r"%[\w.]+", ln.split("=", 1)[1]))]


def test_contract_neutral_helpers_add_no_product():
    """engine.CONTRACT_NEUTRAL helpers, inlined into a function compiled with the planners' flags
    (UCBVI's episode loop), leave contraction nothing to fuse: no product of theirs feeds a sum,
    so their numbers are those of their fastmath-free build (docs/decisions/performance.md, "A
    lean engine"). The check is not vacuous: ``a * b + c`` under the same flags is caught."""
    from numba import njit

    from privrl.agents import ucbvi

    @njit(fastmath=FP_FLAGS)
    def control(a, b, c):
        return a * b + c

    @njit(fastmath=FP_FLAGS)
    def record_under_contract(rec, k, gap, aux):
        engine.record(rec, k, gap, aux)

    @njit(fastmath=FP_FLAGS)
    def play_under_contract(env, pi, rng, traj):
        engine.play_episode(env, pi, rng, traj)

    @njit(fastmath=FP_FLAGS)
    def observe_under_contract(traj, n_sa, n_sas, r_sum, p_hat, q_base, L, scale):
        ucbvi.observe(traj, n_sa, n_sas, r_sum, p_hat, q_base, L, scale)

    mdp = envs.riverswim(S=2, H=3)
    env = engine.env_arrays(mdp)
    n_sa, n_sas, r_sum, p_hat, q_base, pi, V, traj, evc = ucbvi.init_state(env, np.array([1.0, 0.05]), 10)
    control(1.0, 2.0, 3.0)
    record_under_contract(engine.new_recorder(10, np.array([0.1])), 0, 0.5, 0.0)
    play_under_contract(env, pi, np.random.default_rng(0), traj)
    observe_under_contract(traj, n_sa, n_sas, r_sum, p_hat, q_base, 1.0, 1.0)
    assert _contractible_pairs(next(iter(control.inspect_llvm().values())))
    assert "fmul contract" in next(iter(observe_under_contract.inspect_llvm().values()))  # its arithmetic is there
    for f in (record_under_contract, play_under_contract, observe_under_contract):
        for ir in f.inspect_llvm().values():
            assert not _contractible_pairs(ir), f.__name__
