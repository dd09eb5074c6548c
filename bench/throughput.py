"""Throughput of the numba agent engine, measured side by side in one run.

    python bench/throughput.py [--episodes 2000] [--seeds 16] [--parts-only] [--lean-only]

0. privrl's fixed per-episode cost: UCBVI through the registry (``AgentSpec.kernel``: recorder,
   tie-breaking, state tuples, resumable chunks) against ``bench/lean_kernel.py`` (the same
   algorithm in one function, same regret bit for bit) and the numpy reference, on RiverSwim S=2
   H=3 (target: privrl <= 1.5x the lean kernel) and S=6 H=20, K = 1e5 episodes; the three
   interleaved in ``--rounds`` rounds of process CPU time, each one's fastest round kept; and
   rlberry 0.5.0's numba UCBVIAgent (stage-dependent, its simplified-Bernstein bonus: 0.5.0 has no
   Hoeffding one) on the same MDP as an rlberry FiniteMDP, if rlberry is importable (it is not a
   project requirement: e.g. ``pip install --target DIR rlberry==0.5.0 gymnasium==0.29.1 ...`` and
   DIR on PYTHONPATH).
1. UCBVI on RiverSwim (S=6, H=20) and (S=20, H=20), K episodes: episodes x seeds / s of
   the numba engine and of a straightforward per-seed numpy implementation of the same
   algorithm (privrl.rl.reference.ucbvi_numpy) on the same MDP, and their ratio.
2. Every registered agent at S=6, H=20 (defaults, epsilon=1 where it has one): episodes x
   seeds / s and the slowdown relative to UCBVI.
3. The policy-elimination agents (SDP-PE family) on the small instance they can enumerate.
4. Where one UCBVI episode's time goes at S=6, H=20 (optimistic planning, exact policy
   evaluation, sampling the episode), each part timed alone, cycling through the statistics
   of the last 48 episodes of a K-episode run; the rest is count updates and call overhead.
All on one core (one process, seeds run sequentially); compile time excluded (warm-up run).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from privrl.rl import engine, envs, reference, seeding
from lean_kernel import lean_seconds  # bench/ is on sys.path when this script runs
from privrl.agents import REGISTRY
from privrl.rl.planning import optimistic_plan
from privrl.agents.ucbvi import observe
from privrl.runs.run import DEFAULT_ALPHAS


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


LEAN_TARGET = 1.5  # privrl UCBVI's time per episode over the lean kernel's, at RiverSwim S=2 H=3


def rlberry_seconds(mdp, K: int) -> float | None:
    """CPU seconds per episode of rlberry's UCBVIAgent.fit over K episodes (None: rlberry not installed)."""
    try:
        import logging

        from rlberry.agents.ucbvi import UCBVIAgent
        from rlberry.envs.finite import FiniteMDP
    except ImportError:
        return None
    logging.getLogger("rlberry_logger").setLevel(logging.ERROR)
    env = FiniteMDP(mdp.R[0], mdp.P[0], initial_state_distribution=mdp.rho)  # RiverSwim's layers are equal
    agent = UCBVIAgent(env, horizon=mdp.H, gamma=1.0, stage_dependent=True, bonus_scale_factor=1.0, seeder=0)
    agent.fit(20)  # compile
    t0 = time.process_time()
    agent.fit(K)
    return (time.process_time() - t0) / K


def lean_comparison(K: int = 100_000, rounds: int = 3, numpy_K: int = 5_000, rlberry_K: int = 1_000) -> None:
    """Section 0: privrl UCBVI vs the lean kernel vs the numpy reference, ns per episode (CPU time)."""
    print(f"# fixed per-episode cost: privrl UCBVI vs lean kernel vs numpy reference (K={K:g}; numpy K={numpy_K}; "
          f"best of {rounds} interleaved rounds, CPU time)")
    print(f"{'instance':22s} {'privrl ns/ep':>12s} {'lean ns/ep':>10s} {'numpy ns/ep':>11s} {'rlberry ns/ep':>13s} "
          f"{'privrl/lean':>11s} {'numpy/privrl':>12s} {'rlberry/privrl':>14s} {'target':>8s}")
    spec = REGISTRY["ucbvi"]
    for S, H in ((2, 3), (6, 20)):
        mdp = envs.riverswim(S=S, H=H)
        env = engine.env_arrays(mdp)
        pv = spec.param_vector({})
        spec.kernel(env, pv, 50, seeding.generator("bench", "lean", 999), engine.new_recorder(50, np.array([0.1])))
        best = {"privrl": np.inf, "lean": np.inf, "numpy": np.inf, "rlberry": np.inf}
        for _ in range(rounds):
            t0 = time.process_time()
            rec = engine.new_recorder(K, np.array(DEFAULT_ALPHAS))
            spec.kernel(env, pv, K, seeding.generator("bench", "lean", 0), rec)
            best["privrl"] = min(best["privrl"], (time.process_time() - t0) / K)
            lean = lean_seconds(env, K, 1, lambda s: seeding.generator("bench", "lean", s)) / K
            best["lean"] = min(best["lean"], lean)
            t0 = time.process_time()
            reference.ucbvi_numpy(mdp, numpy_K, seeding.generator("bench", "numpy", 0))
            best["numpy"] = min(best["numpy"], (time.process_time() - t0) / numpy_K)
            rl = rlberry_seconds(mdp, rlberry_K)
            best["rlberry"] = min(best["rlberry"], rl if rl is not None else np.nan)
        ratio = best["privrl"] / best["lean"]
        verdict = ("met" if ratio <= LEAN_TARGET else "NOT met") if (S, H) == (2, 3) else ""
        rlb = best["rlberry"]
        rlb_cols = (f"{rlb * 1e9:13.0f}", f"{rlb / best['privrl']:13.0f}x") if np.isfinite(rlb) else \
            (f"{'not installed':>13s}", f"{'':>14s}")
        print(f"riverswim S={S:<2d} H={H:<2d}     {best['privrl'] * 1e9:12.1f} {best['lean'] * 1e9:10.1f} "
              f"{best['numpy'] * 1e9:11.0f} {rlb_cols[0]} {ratio:10.2f}x {best['numpy'] / best['privrl']:11.0f}x "
              f"{rlb_cols[1]} {verdict:>8s}")
    print(f"(target: privrl <= {LEAN_TARGET}x the lean kernel at S=2 H=3; the lean kernel's regret equals privrl's "
          "bit for bit, tests/agents/test_lean_kernel.py)\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=16)
    ap.add_argument("--parts-only", action="store_true", help="only section 4 (where an episode's time goes)")
    ap.add_argument("--lean-only", action="store_true", help="only section 0 (privrl vs the lean kernel)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds of section 0 (best of)")
    args = ap.parse_args()
    K = args.episodes
    if args.parts_only:
        episode_parts(K, args.seeds)
        return
    lean_comparison(rounds=args.rounds)
    if args.lean_only:
        return
    print(f"# UCBVI engine vs numpy reference, K={K} (1 core)")
    print(f"{'instance':22s} {'bonus_scale':>11s} {'numba eps*seeds/s':>18s} {'numpy eps/s':>12s} {'ratio':>7s}")
    at_s6 = []
    for S in (6, 20):
        mdp = envs.riverswim(S=S, H=20)
        for scale in (1.0, 0.003):
            fast = engine_rate("ucbvi", {"bonus_scale": scale}, mdp, K, args.seeds)
            slow = numpy_rate(mdp, K, scale)
            print(f"riverswim S={S:<2d} H=20    {scale:11g} {fast:18,.0f} {slow:12,.0f} {fast / slow:6.0f}x")
            if S == 6:
                at_s6.append((fast, fast / slow))
    rate_ok = all(f >= 1e6 for f, _ in at_s6)
    ratio_ok = all(r >= 50 for _, r in at_s6)
    print(f"throughput targets at S=6: >= 1e6 eps*seeds/s per core: {'met' if rate_ok else 'NOT met'} "
          f"(measured {min(f for f, _ in at_s6):,.0f}-{max(f for f, _ in at_s6):,.0f}); "
          f">= 50x numpy: {'met' if ratio_ok else 'NOT met'}")
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
    episode_parts(K, args.seeds)


@njit
def _ucbvi_snapshots(env, K, rng, scale, n_snap):
    """UCBVI's statistics and policy at each of its last n_snap episodes out of K (the
    kernel's own update rule, no recording): p_hat[n, H, S, A, S], q_base, n_sa, pi[n, H, S]."""
    H, S, A = env[0].shape[0], env[0].shape[1], env[0].shape[2]
    L = np.log(5.0 * S * A * K * H / 0.05)
    n_sa, n_sas, r_sum = np.zeros((H, S, A)), np.zeros((H, S, A, S)), np.zeros((H, S, A))
    p_hat, q_base = np.zeros((H, S, A, S)), np.full((H, S, A), np.inf)
    pi, V, traj = np.zeros((H, S), np.int64), np.zeros((H + 1, S)), engine.new_trajectory(H)
    P_s, Q_s = np.zeros((n_snap, H, S, A, S)), np.zeros((n_snap, H, S, A))
    N_s, PI_s = np.zeros((n_snap, H, S, A)), np.zeros((n_snap, H, S), np.int64)
    for k in range(K):
        optimistic_plan(p_hat, q_base, n_sa, pi, V)
        j = k - (K - n_snap)
        if j >= 0:
            P_s[j], Q_s[j], N_s[j], PI_s[j] = p_hat, q_base, n_sa, pi
        engine.play_episode(env, pi, rng, traj)
        observe(traj, n_sa, n_sas, r_sum, p_hat, q_base, L, scale)
    return P_s, Q_s, N_s, PI_s


@njit
def _repeat_plan(P_s, Q_s, N_s, reps):
    H, S = P_s.shape[1], P_s.shape[2]
    pi, V = np.zeros((H, S), np.int64), np.zeros((H + 1, S))
    x = 0.0
    for r in range(reps):
        j = r % P_s.shape[0]
        x += optimistic_plan(P_s[j], Q_s[j], N_s[j], pi, V)
    return x


@njit
def _repeat_eval(env, PI_s, reps):
    V = np.zeros((PI_s.shape[1] + 1, PI_s.shape[2]))
    x = 0.0
    for r in range(reps):
        x += engine.policy_start_value(env[0], env[2], env[5], PI_s[r % PI_s.shape[0]], V)
    return x


@njit
def _repeat_play(env, PI_s, rng, reps):
    traj = engine.new_trajectory(PI_s.shape[1])
    for r in range(reps):
        engine.play_episode(env, PI_s[r % PI_s.shape[0]], rng, traj)


def episode_parts(K: int, seeds: int, reps: int = 100_000, n_snap: int = 48) -> None:
    mdp = envs.riverswim(S=6, H=20)
    env = engine.env_arrays(mdp)
    print(f"\n# where a UCBVI episode's time goes, riverswim S=6 H=20 (the last {n_snap} of K={K} episodes)")
    print(f"{'bonus_scale':>11s} {'episode':>9s} {'planning':>9s} {'policy eval':>12s} {'sampling':>9s} {'rest':>7s}   (us)")
    for scale in (1.0, 0.003):
        rng = seeding.generator("bench", "parts", 0)
        P_s, Q_s, N_s, PI_s = _ucbvi_snapshots(env, K, rng, scale, n_snap)
        timed = []
        for fn, args in ((_repeat_plan, (P_s, Q_s, N_s)), (_repeat_eval, (env, PI_s)), (_repeat_play, (env, PI_s, rng))):
            fn(*args, 10)
            t0 = time.perf_counter()
            fn(*args, reps)
            timed.append((time.perf_counter() - t0) / reps * 1e6)
        total = 1e6 / engine_rate("ucbvi", {"bonus_scale": scale}, mdp, K, seeds)
        print(f"{scale:11g} {total:9.2f} {timed[0]:9.2f} {timed[1]:12.2f} {timed[2]:9.2f} {total - sum(timed):7.2f}")
    print("(each part timed alone, cycling through the snapshots so that data-dependent branches vary as in a run;\n"
          " UCBVI evaluates the played policy every episode (engine.evaluated_step);\n"
          " 'rest' = count updates, recording, call overhead)")


if __name__ == "__main__":
    main()
