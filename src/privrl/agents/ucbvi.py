"""Non-private UCBVI with the Hoeffding bonus (Azar, Osband & Munos 2017, Alg. 1, bonus_1).

Time-inhomogeneous statistics per (h, s, a) (the form the private agents build on);
bonus b = bonus_scale * 7 H L sqrt(1 / N(h, s, a)) with L = log(5 S A T / delta), T = K H;
Q_h = min(H - h + 1, r^ + P^ V_{h+1} + b) (1-based h); unvisited pairs are fully optimistic.

Parameters (vector order): bonus_scale, delta.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from privrl.rl import engine
from privrl.agents.crossover import optimism_rule, uniform_visits
from privrl.agents.registry import NONNEGATIVE, OPEN_UNIT, AgentSpec, register
from privrl.rl.planning import FP_FLAGS, count_step, optimistic_backup

BONUS_SCALE, DELTA = 0, 1


@njit(cache=True, inline="always")
def hoeffding_bonus(n, H, L, scale):
    """Azar et al. (2017) bonus_1: 7 H L sqrt(1/n) (times scale); n > 0."""
    return scale * 7.0 * H * L / np.sqrt(n)


def init_state(env, params, K):
    """(n_sa, n_sas, r_sum, p_hat, q_base, pi, V, traj, evc): counts and the model [H, S, A(, S)],
    q_base = r^ + bonus [H, S, A] (inf: unvisited), policy int64[H, S], values [H + 1, S]."""
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    return (np.zeros((H, S, A)), np.zeros((H, S, A, S)), np.zeros((H, S, A)), np.zeros((H, S, A, S)),
            np.full((H, S, A), np.inf), np.zeros((H, S), np.int64), np.zeros((H + 1, S)),
            engine.new_trajectory(H), engine.new_eval_cache(H, S))


@njit(cache=True)
def run_episodes(env, params, K, k0, k1, rng, rec, state):
    """The registry's entry point: :func:`episode_loop` (the arguments' owner, so numba's
    reference counting stays on here and off in the loop; engine.py)."""
    episode_loop(env, params, K, k0, k1, rng, rec, state)


@njit(cache=True, _nrt=False, fastmath=FP_FLAGS)
def episode_loop(env, params, K, k0, k1, rng, rec, state):
    """The planner and the policy's evaluation inlined, hence the planners' flags; the
    fastmath-free helpers it inlines add no product (engine.CONTRACT_NEUTRAL). The played policy is
    evaluated every episode (engine.evaluated_step: of ``evc`` only its value buffer is used)."""
    n_sa, n_sas, r_sum, p_hat, q_base, pi, V, traj, evc = state
    H, S, A = n_sa.shape
    if (n_sas.shape != (H, S, A, S) or p_hat.shape != (H, S, A, S) or r_sum.shape != (H, S, A)
            or q_base.shape != (H, S, A) or pi.shape != (H, S) or V.shape != (H + 1, S)
            or env[0].shape != (H, S, A, S) or env[1].shape != (H, S, A, S) or env[2].shape != (H, S, A)
            or env[3].shape != (H, S, A) or env[5].shape != (S,) or env[6].shape != (S,)
            or traj[0].shape != (H + 1,) or traj[1].shape != (H,) or traj[2].shape != (H,)
            or evc[1].shape != (H + 1, S)):
        raise ValueError("ucbvi: state and environment arrays of different (H, S, A)")
    # (past this check LLVM indexes every array with the one H, S, A: fewer registers spilled)
    L = np.log(5.0 * S * A * K * H / params[DELTA])
    for k in range(k0, k1):
        aux = optimistic_backup(p_hat, q_base, n_sa, pi, V)
        engine.evaluated_step(env, pi, k, aux, rng, traj, evc[1], rec)
        observe(traj, n_sa, n_sas, r_sum, p_hat, q_base, L, params[BONUS_SCALE])


@njit(cache=True, inline="always")
def observe(traj, n_sa, n_sas, r_sum, p_hat, q_base, L, scale):
    """Count one episode's transitions and rewards; refresh p_hat rows and q_base = r^ + bonus."""
    states, actions, rewards = traj
    H = actions.shape[0]
    for h in range(H):
        s, a = states[h], actions[h]
        n = count_step(n_sa, n_sas, r_sum, p_hat, h, s, a, states[h + 1], rewards[h])
        q_base[h, s, a] = r_sum[h, s, a] / n + hoeffding_bonus(n, H, L, scale)


def step_width(p, mdp, K):
    """bonus_1 after K episodes of uniform visitation (crossover rule)."""
    L = np.log(5.0 * mdp.S * mdp.A * K * mdp.H / p["delta"])
    return hoeffding_bonus(uniform_visits(K, mdp), mdp.H, L, p["bonus_scale"])


SPEC = register(AgentSpec(
    name="ucbvi",
    init_state=init_state,
    run_episodes=run_episodes,
    defaults={"bonus_scale": 1.0, "delta": 0.05},
    domains={"bonus_scale": NONNEGATIVE, "delta": OPEN_UNIT},
    privacy_model="none",
    reference="Azar, Osband & Munos (2017), Alg. 1 with bonus_1 (Hoeffding)",
    description="non-private UCBVI-Hoeffding, per-layer statistics",
    crossover_rule=optimism_rule(step_width, "bonus_scale 7 H L / sqrt(n)"),
))
