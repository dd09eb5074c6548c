"""The lean kernels compiled with the instance's shape (H, S, A) as compile-time constants, against the same
kernels taking it from the arrays: ns per episode, the speed-up, the compile time, and whether the regret is the
same bit for bit.

    python bench/shape_constants.py [--episodes 1000000] [--rounds 3]

Each lean kernel (``bench/lean_kernel.py``'s UCBVI, ``lean_pucb`` (also at z = 3, the design's
matched-coverage cells, and noise off), ``lean_dp_ucbvi`` as DP-UCBVI and Private-UCBVI JDP (also at z = 3),
``lean_obi``'s LDP-OBI and Shuffled-OBI) reads its shape once, ``H, S, A = R.shape``. Here that line
becomes ``H, S, A = H_, S_, A_`` with the instance's numbers as globals of a copy of the kernel, which numba
freezes as constants (and a check that the arrays have that shape), compiled with the kernel's own decorator
options (its fastmath flags and error model): LLVM then knows every loop's trip count and can unroll the tiny loops
of the design's instances (the two-armed bandits have S = 1, A = 2). Nothing else changes: the same operations in
the same order, so the same numbers by construction for the flag-free kernels (PUCB, the OBI kernels); under
``contract`` (UCBVI, DP-UCBVI) a fusion is allowed, not required, so equality is checked per build, as privrl's
own planners rely on (tests/rl/test_cpu_targets.py): every cumulative regret is compared.
The price is one compilation per (kernel, shape), printed. Timings: one process, the generic and specialised
kernels interleaved, the fastest of the rounds kept, compilation excluded; compare only the ratios of one run.
"""
from __future__ import annotations

import argparse
import inspect
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_throughput import INSTANCES as THROUGHPUT_INSTANCES  # noqa: E402
import lean_dp_ucbvi  # noqa: E402
import lean_kernel  # noqa: E402
import lean_obi  # noqa: E402
import lean_pucb  # noqa: E402

from privrl.agents import REGISTRY  # noqa: E402
from privrl.agents.obi import shuffled_tau_py  # noqa: E402
from privrl.rl import engine, envs, seeding  # noqa: E402

SHAPE_LINE = "    H, S, A = R.shape\n"
INSTANCES = {k: THROUGHPUT_INSTANCES[k] for k in ("bandit H=1", "bandit H=2", "riverswim S=2 H=2", "riverswim S=2 H=3")}


def with_shape_constants(module, name: str, H: int, S: int, A: int):
    """A copy of ``module.name`` (an njit kernel whose body reads ``H, S, A = R.shape`` once) compiled with
    (H, S, A) as constants; it refuses arrays of another shape."""
    src = inspect.getsource(getattr(module, name).py_func)
    src = src[src.index("def "):]  # without the decorator
    if src.count(SHAPE_LINE) != 1:
        raise ValueError(f"{module.__name__}.{name}: expected one line {SHAPE_LINE.strip()!r}")
    src = src.replace(SHAPE_LINE, "    H, S, A = H_, S_, A_\n    if R.shape != (H_, S_, A_):\n"
                                  "        raise ValueError('arrays of another shape than the compiled one')\n")
    namespace = dict(vars(module), H_=H, S_=S, A_=A)
    exec(compile(src, f"<{name} H={H} S={S} A={A}>", "exec"), namespace)
    kernel = getattr(module, name)  # its decorator's options (fastmath flags, error model), as audit/probe.py's clone
    options = {k: v for k, v in kernel.targetoptions.items() if k not in ("cache", "nopython")}
    return njit(**options)(namespace[name])


def defaults(agent: str) -> dict:
    return dict(REGISTRY[agent].defaults)


#: label -> (module, kernel name, run(kernel, env, K, rng) -> cumulative regret)
def _ucbvi(f, env, K, rng):
    a = lean_kernel.lean_args(env)
    return f(*a[:-1], np.int64(K), 0.05, 1.0, a[-1], rng)


def _pucb(z: float = 0.0, noise: bool = True):
    def run(f, env, K, rng):
        p = defaults("pucb")
        return f(*lean_pucb.lean_args(env), np.int64(K), p["epsilon"], p["bonus_scale"], p["beta"], noise, z, rng)
    return run


def _dp_ucbvi(ldp: bool, bernstein: bool, agent: str, z: float = 0.0):
    def run(f, env, K, rng):
        p = defaults(agent)
        return f(*lean_dp_ucbvi.lean_args(env), np.int64(K), p["epsilon"], p["bonus_scale"], p["delta"], z,
                 ldp, bernstein, rng)
    return run


def _ldp_obi(f, env, K, rng):
    p = defaults("ldp-obi")
    return f(*lean_obi.lean_args(env), np.int64(K), p["epsilon"], p["bonus_scale"], p["delta"], p["alpha"], rng)


def _shuffled_obi(f, env, K, rng):
    p = defaults("shuffled-obi")
    return f(*lean_obi.lean_args(env), np.int64(K), p["epsilon"], p["bonus_scale"], p["delta"], p["alpha"],
             int(p["m"]), shuffled_tau_py(p, int(K)), rng)


KERNELS = {
    "ucbvi": (lean_kernel, "lean_ucbvi", _ucbvi, 1),
    "pucb": (lean_pucb, "lean_pucb", _pucb(), 1),
    "pucb z=3": (lean_pucb, "lean_pucb", _pucb(z=3.0), 1),
    "pucb noise off": (lean_pucb, "lean_pucb", _pucb(noise=False), 1),
    "dp-ucbvi-jdp": (lean_dp_ucbvi, "lean_dp_ucbvi", _dp_ucbvi(False, True, "dp-ucbvi-jdp"), 1),
    "dp-ucbvi-jdp z=3": (lean_dp_ucbvi, "lean_dp_ucbvi", _dp_ucbvi(False, True, "dp-ucbvi-jdp", 3.0), 1),
    "private-ucbvi-jdp": (lean_dp_ucbvi, "lean_dp_ucbvi", _dp_ucbvi(False, False, "private-ucbvi-jdp"), 1),
    "private-ucbvi-jdp z=3": (lean_dp_ucbvi, "lean_dp_ucbvi", _dp_ucbvi(False, False, "private-ucbvi-jdp", 3.0), 1),
    "ldp-obi": (lean_obi, "lean_ldp_obi", _ldp_obi, 1),
    "shuffled-obi": (lean_obi, "lean_shuffled_obi", _shuffled_obi, 2),  # its transition messages need H >= 2
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--episodes", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the fastest of each is kept")
    args = ap.parse_args()
    K = args.episodes
    print(f"# lean kernels, generic vs (H, S, A) compile-time constants; K = {K:g}, agents' defaults, ns per episode, "
          f"fastest of {args.rounds} interleaved rounds, compile excluded (its CPU s printed)")
    print(f"{'instance':<19}{'kernel':<23}{'generic':>9}{'shape':>9}{'speed-up':>10}{'compile s':>11}  same regret")
    for label, (env_name, env_params) in INSTANCES.items():
        env = engine.env_arrays(envs.make(env_name, **env_params))
        H, S, A = env[2].shape
        for kname, (module, fname, run, min_h) in KERNELS.items():
            if H < min_h:
                continue
            generic = getattr(module, fname)
            t0 = time.process_time()
            fixed = with_shape_constants(module, fname, H, S, A)
            run(fixed, env, 10, np.random.Generator(np.random.PCG64(999)))
            compile_s = time.process_time() - t0
            run(generic, env, 10, np.random.Generator(np.random.PCG64(999)))
            best, same = {"generic": np.inf, "shape": np.inf}, True
            for r in range(args.rounds):
                regrets = {}
                for which, f in (("generic", generic), ("shape", fixed)) if r % 2 == 0 else \
                        (("shape", fixed), ("generic", generic)):
                    rng = seeding.generator("bench", "shape", r)
                    t0 = time.process_time()
                    regrets[which] = run(f, env, K, rng)
                    best[which] = min(best[which], time.process_time() - t0)
                same &= regrets["generic"] == regrets["shape"]
            g, s = best["generic"] / K * 1e9, best["shape"] / K * 1e9
            print(f"{label:<19}{kname:<23}{g:>9.1f}{s:>9.1f}{g / s:>9.2f}x{compile_s:>11.1f}  {same}", flush=True)


if __name__ == "__main__":
    main()
