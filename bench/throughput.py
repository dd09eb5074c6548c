"""Throughput of the numba agent engine, measured side by side in one run.

    python bench/throughput.py [--episodes 2000] [--seeds 16]

1. UCBVI on RiverSwim (S=6, H=20) and (S=20, H=20), K episodes: episodes x seeds / s of
   the numba engine and of a straightforward per-seed numpy implementation of the same
   algorithm (privrl.reference.ucbvi_numpy) on the same MDP, and their ratio.
2. Every registered agent at S=6, H=20 (defaults, epsilon=1 where it has one): episodes x
   seeds / s and the slowdown relative to UCBVI.
3. The policy-elimination agents (SDP-PE family) on the small instance they can enumerate.
All on one core (one process, seeds run sequentially); compile time excluded (warm-up run).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from privrl import engine, envs, reference, seeding
from privrl.agents import REGISTRY


def engine_rate(agent: str, params: dict, mdp, K: int, seeds: int) -> float:
    spec = REGISTRY[agent]
    env = engine.env_arrays(mdp)
    pv = spec.param_vector(params)
    spec.kernel(env, pv, min(K, 50), seeding.generator("bench", agent, 999), engine.new_recorder(min(K, 50), np.array([0.1])))
    t0 = time.perf_counter()
    for s in range(seeds):
        rec = engine.new_recorder(K, np.array([0.1]))
        spec.kernel(env, pv, K, seeding.generator("bench", agent, s), rec)
    return K * seeds / (time.perf_counter() - t0)


def numpy_rate(mdp, K: int, bonus_scale: float) -> float:
    t0 = time.perf_counter()
    reference.ucbvi_numpy(mdp, K, seeding.generator("bench", "numpy", 0), bonus_scale=bonus_scale)
    return K / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=16)
    args = ap.parse_args()
    K = args.episodes
    print(f"# UCBVI engine vs numpy reference, K={K} (1 core)")
    print(f"{'instance':22s} {'bonus_scale':>11s} {'numba eps*seeds/s':>18s} {'numpy eps/s':>12s} {'ratio':>7s}")
    for S in (6, 20):
        mdp = envs.riverswim(S=S, H=20)
        for scale in (1.0, 0.003):
            fast = engine_rate("ucbvi", {"bonus_scale": scale}, mdp, K, args.seeds)
            slow = numpy_rate(mdp, K, scale)
            print(f"riverswim S={S:<2d} H=20    {scale:11g} {fast:18,.0f} {slow:12,.0f} {fast / slow:6.0f}x")
    print(f"\n# every registered agent, riverswim S=6 H=20, K={K}, {args.seeds} seeds")
    mdp = envs.riverswim(S=6, H=20)
    base = engine_rate("ucbvi", {}, mdp, K, args.seeds)
    print(f"{'agent':24s} {'privacy':7s} {'eps*seeds/s':>12s} {'slowdown vs ucbvi':>18s}")
    for name, spec in sorted(REGISTRY.items()):
        params = {"epsilon": 1.0} if "epsilon" in spec.defaults else {}
        try:
            rate = engine_rate(name, params, mdp, K, args.seeds)
        except ValueError as exc:  # e.g. an agent that refuses this instance size
            print(f"{name:24s} {spec.privacy_model:7s} {'refused':>12s}  ({exc})")
            continue
        print(f"{name:24s} {spec.privacy_model:7s} {rate:12,.0f} {base / rate:17.1f}x")
    # policy elimination enumerates A^(S*H) policies: it runs on the Bai et al. Table I instance
    small = envs.garnet(S=3, A=2, branching=2, H=4, seed=1)
    Ks = 20 * K
    print(f"\n# policy-elimination agents on garnet S=3 A=2 H=4 (4096 policies), K={Ks}, {args.seeds} seeds")
    base_small = engine_rate("ucbvi", {}, small, Ks, args.seeds)
    print(f"{'ucbvi':24s} {'none':7s} {base_small:12,.0f} {1.0:17.1f}x")
    for name in ("pe", "sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp"):
        if name in REGISTRY:
            rate = engine_rate(name, {}, small, Ks, args.seeds)
            print(f"{name:24s} {REGISTRY[name].privacy_model:7s} {rate:12,.0f} {base_small / rate:17.1f}x")


if __name__ == "__main__":
    main()
