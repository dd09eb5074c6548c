"""A test-only agent that releases noisy counts and may plan on exact ones (a fixture of the agent audit).

Count-UCB: per (h, s, a) a reward sum r and a visit count n, released after every episode through the
privatizer door (central tree, each counter at eps/(3H): PUCB's accounting, Vietri et al. 2020 Thm 1,
whose claim it inherits -- it releases 2H of PUCB's 3H counters per user). Its policy is
``argmax_a r/max(n, 1) + 4/sqrt(n + 1)`` per (h, s), computed from

* the released counts (episodes before ``exact_from``): post-processing of the releases, eps-JDP by
  the billboard lemma (Vietri et al. 2020 Lemma 2) -- the honest twin never leaves them;
* the exact counts (episodes from ``exact_from`` on): the same releases, but the actions every later
  user receives depend on the earlier users' data without noise -- not private at all (JDP, their
  Def. 3, bounds the law of those actions). An audit of the door's releases alone cannot tell the
  twins apart; an agent exact only from episode 8 on looks honest to an audit of 4 users.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.agents.registry import NONNEGATIVE, POSITIVE, AgentSpec
from privrl.mechanisms import accounting
from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.mechanisms.privatizer import CENTRAL_TREE, door
from privrl.rl import engine

EPSILON, EXACT_FROM = 0, 1
HONEST = 1e9  # exact_from of the honest twin: never
_DOOR = door("none", "central-tree")
privatizer_new, privatizer_release = _DOOR.new, _DOOR.release


def init_state(env, params, K):
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    n_cnt = 2 * H * S * A
    state = privatizer_new(np.int64(CENTRAL_TREE), n_cnt, K, per_counter_epsilon(params[EPSILON], H), 1.0, 0.0,
                           np.int64(1))
    return (state, np.zeros(n_cnt), np.zeros(n_cnt), np.zeros(n_cnt), np.zeros((H, S), np.int64),
            engine.new_trajectory(H), engine.new_eval_cache(H, S))


@njit
def run_episodes(env, params, K, k0, k1, rng, rec, st):
    state, x, released, exact, pi, traj, evc = st
    H, S = pi.shape
    A = env[0].shape[2]
    HSA = H * S * A
    states, actions, rewards = traj
    for k in range(k0, k1):
        c = exact if k >= params[EXACT_FROM] else released
        for h in range(H):
            for s in range(S):
                best, arg = -math.inf, 0
                for a in range(A):
                    i = (h * S + s) * A + a
                    n = max(c[HSA + i], 0.0)
                    q = c[i] / max(n, 1.0) + 4.0 / math.sqrt(n + 1.0)
                    if q > best:
                        best, arg = q, a
                pi[h, s] = arg
        engine.step(env, pi, k, 0.0, rng, traj, evc, rec)
        for h in range(H):
            i = (h * S + states[h]) * A + actions[h]
            x[i] = rewards[h]
            x[HSA + i] = 1.0
        for j in range(x.shape[0]):
            exact[j] += x[j]
        privatizer_release(np.int64(CENTRAL_TREE), state, x, rng, released)
        for j in range(x.shape[0]):
            x[j] = 0.0


def _guarantees(p, mdp, K):
    return [accounting.pucb_guarantee(p["epsilon"], mdp.H, K)]


def spec(name: str, exact_from: float) -> AgentSpec:
    """The count-UCB agent under ``name``, planning on its exact counts from episode ``exact_from`` on
    (0: always; :data:`HONEST`: never) and on its releases before."""
    return AgentSpec(name=name, init_state=init_state, run_episodes=run_episodes,
                     defaults={"epsilon": 1.0, "exact_from": float(exact_from)},
                     domains={"epsilon": POSITIVE, "exact_from": NONNEGATIVE}, privacy_model="JDP",
                     reference="test fixture: count-UCB on the central tree (PUCB's accounting)",
                     privatizer="central-tree", guarantees=_guarantees)
