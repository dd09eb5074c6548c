"""numba building blocks the runner and the agent kernels share.

The runner owns the environment, seeding, regret evaluation and output; an agent kernel
only sequences ``plan -> engine.step -> observe`` over K episodes (numba cannot cache a
loop that receives functions as arguments, so each agent binds this fixed skeleton to
its own plan/observe; see docs/decisions/engine.md).

Environment tuple ``env`` (built by :func:`env_arrays`)
    P         float64[H, S, A, S]  transitions
    P_cdf     float64[H, S, A, S]  cumulative rows (for sampling)
    R         float64[H, S, A]     mean rewards
    det_next  int64[H, S, A]       the successor of a deterministic row, else -1
    bern      int64[1]             1 if rewards are Bernoulli(R), 0 if deterministic
    rho       float64[S]           initial distribution
    rho_cdf   float64[S]
    v_star    float64[1]           rho^T V*_1
    env_rng   Generator            the environment's own stream (common random numbers), else unused
    common    int64[1]             1: common random numbers (:func:`with_environment_stream`), 0: off
Recorder tuple ``rec`` (built by :func:`new_recorder`)
    ckpts int64[C] (1-based episode numbers), alphas float64[J], cum float64[C],
    aux float64[C], mistakes int64[C, J], acc float64[2 + J], cursor int64[1]
Trajectory tuple ``traj``: states int64[H + 1], actions int64[H], rewards float64[H].

Common random numbers (docs/decisions/engine.md): by default the episode is sampled from the
kernel's ``rng``, the stream the agent's own noise comes from, drawing a uniform only where the
environment is random (:func:`play_episode`). With an environment stream
(:func:`with_environment_stream`) the episode is sampled from ``env_rng`` with exactly ``1 + 2H``
uniforms per episode (:func:`play_episode_common`): episode k's draw for its start state, and for
step h's reward and transition, is the same uniform for every agent on that stream.

Per-episode helpers without fastmath arithmetic are ``inline="always"``: a numba call passes
every array of its tuple arguments field by field, which cost more than the work inside
(docs/decisions/performance.md, "Throughput"); inlining does not change a single number as long as
no fastmath function calls them (an inlined body takes its caller's flags; tested), or, for those of
``CONTRACT_NEUTRAL`` (no product added), none but one with the planners' ``contract`` flag (UCBVI's
loop, which inlines its planner and evaluation: :func:`evaluated_step`).

Reference counting: an agent may run its episodes in a loop compiled with ``_nrt=False`` (numba's
reference-counting runtime off), called from the registry's ``run_episodes``, which keeps it on and
owns the arguments for the call: the atomic counts of the arrays these helpers unpack were most of
a small instance's episode (docs/decisions/performance.md, "A lean engine"). Such a loop must not
allocate (numba refuses) nor receive a new array from a call (it would never be freed; tested).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from privrl.rl.mdp import TabularMDP, optimal_return
from privrl.rl.planning import FP_FLAGS, policy_start_value, start_value


def env_arrays(mdp: TabularMDP) -> tuple:
    """Pack an MDP into the plain-array tuple the kernels take."""
    P = np.ascontiguousarray(mdp.P)
    P_cdf = np.cumsum(P, axis=3)
    P_cdf[..., -1] = 1.0
    det = np.where(np.isclose(P.max(axis=3), 1.0, atol=0.0, rtol=0.0), P.argmax(axis=3), -1).astype(np.int64)
    rho_cdf = np.cumsum(mdp.rho)
    rho_cdf[-1] = 1.0
    bern = np.array([1 if mdp.reward_noise == "bernoulli" else 0], dtype=np.int64)
    return (P, P_cdf, np.ascontiguousarray(mdp.R), det, bern, np.ascontiguousarray(mdp.rho), rho_cdf,
            np.array([optimal_return(mdp)]), np.random.Generator(np.random.PCG64(0)), np.zeros(1, np.int64))


def with_environment_stream(env: tuple, env_rng: np.random.Generator) -> tuple:
    """``env`` whose episodes are sampled from ``env_rng`` (common random numbers), not the kernel's rng."""
    return env[:8] + (env_rng, np.ones(1, np.int64))


def checkpoints(K: int, n: int = 120) -> np.ndarray:
    """At least ``min(n, K)`` distinct log-spaced episode numbers in [1, K], always including K."""
    if K < 1:
        raise ValueError(f"K must be >= 1; got {K}")
    if K <= n:
        return np.arange(1, K + 1, dtype=np.int64)
    m = n
    while True:
        c = np.unique(np.round(np.logspace(0.0, np.log10(K), m)).astype(np.int64))
        if c.size >= n:
            break
        m += n // 4
    c[-1] = K
    return np.unique(c)


def new_recorder(K: int, alphas: np.ndarray, n_checkpoints: int = 120) -> tuple:
    ck = checkpoints(K, n_checkpoints)
    alphas = np.asarray(alphas, dtype=np.float64)
    C, J = ck.size, alphas.size
    return (ck, alphas, np.zeros(C), np.zeros(C), np.zeros((C, J), np.int64), np.zeros(2 + J),
            np.zeros(1, np.int64))


@njit(cache=True)
def new_trajectory(H):
    """(states int64[H + 1], actions int64[H], rewards float64[H])."""
    return (np.zeros(H + 1, np.int64), np.zeros(H, np.int64), np.zeros(H))


@njit(cache=True)
def new_eval_cache(H, S):
    """(last policy int64[H, S], value buffer float64[H + 1, S], [last value, valid flag])."""
    return (np.full((H, S), -1, np.int64), np.zeros((H + 1, S)), np.zeros(2))


@njit(cache=True)
def sample_index(cdf, u):
    """Smallest i with u < cdf[i] (linear search; rows are short)."""
    n = cdf.shape[0]
    i = 0
    while i < n - 1 and u >= cdf[i]:
        i += 1
    return i


@njit(cache=True, inline="always")
def policy_gap(env, pi, evc):
    """V*_1 - V^pi_1 averaged over rho; re-evaluated only when pi changed (exact either way)."""
    P, R, rho, v_star = env[0], env[2], env[5], env[7]
    last_pi, V, memo = evc
    H, S = pi.shape
    changed = 0
    for h in range(H):  # compare and copy in one pass (explicit loops: an array-to-array
        for s in range(S):  # slice assignment costs numba seconds of compile time per kernel)
            changed |= last_pi[h, s] != pi[h, s]
            last_pi[h, s] = pi[h, s]
    if changed or memo[1] < 0.5:
        memo[0] = policy_start_value(P, R, rho, pi, V)
        memo[1] = 1.0
    gap = v_star[0] - memo[0]
    return gap if gap > 0.0 else 0.0


@njit(cache=True, inline="always")
def play_episode(env, pi, rng, traj):
    """Sample one episode of pi[H, S]; fills traj = (states[H + 1], actions[H], rewards[H])."""
    P_cdf, R, det_next, bern, rho_cdf = env[1], env[2], env[3], env[4], env[6]
    states, actions, rewards = traj
    H = pi.shape[0]
    s = sample_index(rho_cdf, rng.random()) if rho_cdf.shape[0] > 1 and rho_cdf[0] < 1.0 else 0
    for h in range(H):
        a = pi[h, s]
        states[h] = s
        actions[h] = a
        mean = R[h, s, a]
        if bern[0] == 1 and 0.0 < mean < 1.0:
            rewards[h] = 1.0 if rng.random() < mean else 0.0
        else:
            rewards[h] = mean
        nxt = det_next[h, s, a]
        if nxt < 0:
            nxt = sample_index(P_cdf[h, s, a], rng.random())
        s = nxt
    states[H] = s


@njit(cache=True)
def play_episode_common(env, pi, rng, traj):
    """:func:`play_episode` on a common stream: exactly 1 + 2H uniforms per episode (the start
    state's, then per step the reward's and the transition's), each drawn whether it is needed or
    not, so the u of (episode, step, purpose) does not depend on the policy."""
    P_cdf, R, det_next, bern, rho_cdf = env[1], env[2], env[3], env[4], env[6]
    states, actions, rewards = traj
    H = pi.shape[0]
    u0 = rng.random()
    s = sample_index(rho_cdf, u0) if rho_cdf.shape[0] > 1 and rho_cdf[0] < 1.0 else 0
    for h in range(H):
        u_r = rng.random()
        u_p = rng.random()
        a = pi[h, s]
        states[h] = s
        actions[h] = a
        mean = R[h, s, a]
        if bern[0] == 1 and 0.0 < mean < 1.0:
            rewards[h] = 1.0 if u_r < mean else 0.0
        else:
            rewards[h] = mean
        nxt = det_next[h, s, a]
        if nxt < 0:
            nxt = sample_index(P_cdf[h, s, a], u_p)
        s = nxt
    states[H] = s


@njit(cache=True, inline="always")
def record(rec, k, gap, aux):
    """Accumulate episode k's (0-based) regret gap, agent diagnostic and PAC mistakes."""
    ckpts, alphas, cum, auxo, mist, acc, cursor = rec
    acc[0] += gap
    acc[1] += aux
    J = alphas.shape[0]
    for j in range(J):
        if gap > alphas[j]:
            acc[2 + j] += 1.0
    c = cursor[0]
    if c < ckpts.shape[0] and k + 1 == ckpts[c]:
        cum[c] = acc[0]
        auxo[c] = acc[1]
        for j in range(J):
            mist[c, j] = np.int64(acc[2 + j])
        cursor[0] = c + 1


@njit(cache=True, inline="always")
def step(env, pi, k, aux, rng, traj, evc, rec):
    """The runner's share of episode k: score pi (exact gap), record, then play it (from the
    environment's stream under common random numbers, else from rng)."""
    record(rec, k, policy_gap(env, pi, evc), aux)
    if env[9][0] == 1:
        play_episode_common(env, pi, env[8], traj)
    else:
        play_episode(env, pi, rng, traj)


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def evaluated_gap(env, pi, V):
    """:func:`policy_gap` without the evaluation cache: pi evaluated every episode, inlined (these
    flags are the evaluation's), in the work buffer V float64[H + 1, S]. Faster than the cache's
    compare, copy and branch at RiverSwim S=2 H=3 and S=6 H=20 alike (docs/decisions/performance.md,
    "A lean engine"); the same number, the evaluation being exact."""
    gap = env[7][0] - start_value(env[0], env[2], env[5], pi, V)
    return gap if gap > 0.0 else 0.0


@njit(cache=True, fastmath=FP_FLAGS, inline="always")
def evaluated_step(env, pi, k, aux, rng, traj, V, rec):
    """:func:`step` for a loop compiled with the planners' flags that inlines its planner (UCBVI),
    the gap from :func:`evaluated_gap`. :func:`record` and :func:`play_episode` are fastmath-free
    helpers inlined here under ``contract``, which changes none of their numbers: no product of
    theirs is added (:data:`CONTRACT_NEUTRAL`; tests/rl/test_engine.py)."""
    record(rec, k, evaluated_gap(env, pi, V), aux)
    if env[9][0] == 1:
        play_episode_common(env, pi, env[8], traj)
    else:
        play_episode(env, pi, rng, traj)


#: fastmath-free helpers that may be inlined into a function compiled with the planners' flags
#: (``contract``: a product may fuse with the sum it feeds): none of them adds a product, so
#: contraction has nothing to fuse and their numbers are the same under either flag set (tested
#: on their LLVM IR, tests/rl/test_engine.py).
CONTRACT_NEUTRAL = ("record", "play_episode", "observe", "count_step", "refresh_row", "hoeffding_bonus")
