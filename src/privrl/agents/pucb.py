"""PUCB: Private Upper Confidence Bound (Vietri, Balle, Krishnamurthy & Wu, ICML 2020).

Alg. 2 (PUCB) with Alg. 3 (PrivQ), time-inhomogeneous statistics per (s, a, h):

* private counters r~(s,a,h), n~(s,a,h), m~(s,a,s',h) -- one binary mechanism (App. A,
  Alg. 5) per counter, each eps' = eps/(3H)-DP, horizon T = K releases (one per episode);
  all through ``privatizers.privatizer_release`` (kind ``central-tree``);
* E_eps *as printed* (Sec. 3 and Alg. 3): ``(3/eps) H ln((2SAH + S^2AH)/beta') ln(T)^{5/2}``
  with beta' = beta/T (App. B.2); both logarithms natural (decisions, "PUCB E_eps");
* PrivQ (Alg. 3): if n~ >= 2 E_eps, ``conf = (H+1) phi~ + psi~`` with
  ``phi~ = sqrt(2 ln(T/beta') / max(n~ - E_eps, 1))``,
  ``psi~ = (1 + SH)(3 E_eps/n~ + 2 E_eps^2/n~^2)``,
  ``Q~ = (r~ + sum_s' V~_{h+1}(s') m~(s')) / n~``, ``Q+ = min(H, Q~ + conf)``; otherwise
  ``Q+ = H`` (App. B.4 Eq. after (29): Alg. 3's ``min(H, Q~ + H)`` is undefined for n~ <= 0
  and the proof uses Q+ = H). Note the cap is H at every step h, as printed.

``bonus_scale`` s (default 1 = the paper): the planner assumes the error level ``s E_eps``
(threshold, psi~, phi~) and uses ``conf = s (H+1) phi~ + psi~``; the injected noise never
changes. ``z`` > 0 (matched coverage; default 0 = the paper): the planner's error level is
``z`` standard deviations of the counters' realised release noise instead of ``s E_eps``,
``E_k = z sd_tree(k)`` (``mechanisms.bounds.tree_release_sd``: popcount(k) Laplace nodes of
scale L 3H/eps), in the threshold, phi~ and psi~; ``bonus_scale`` then scales only
``(H+1) phi~``. ``noise = 0`` switches the privatizer to exact counts and E_eps to 0 (the
non-private counterpart: UBEV-style PrivQ on exact counts).

Array layout of the counter vector c[(S + 2) H S A]: [r~ (HSA) | n~ (HSA) | m~ (HSAS)],
index of (h, s, a) is ``(h S + s) A + a`` and of (h, s, a, s') ``2HSA + ((h S + s) A + a) S + s'``.

Parameters (vector order): epsilon, bonus_scale, beta, noise, z.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.mechanisms import accounting
from privrl.mechanisms.bounds import tree_release_sd_levels, tree_release_sd_max
from privrl.rl import engine
from privrl.mechanisms.privatizer import CENTRAL_TREE, I_LEVELS, NONE, door
from privrl.agents.crossover import optimism_rule, uniform_visits
from privrl.agents.registry import NONNEGATIVE, OPEN_UNIT, POSITIVE, SWITCH, AgentSpec, register
from privrl.rl.planning import privq_backup as privq  # Alg. 3 (PrivQ), inlined

EPSILON, BONUS_SCALE, BETA, NOISE, Z = 0, 1, 2, 3, 4
# Integer constants handed to njit callees go as I64(..): a literal argument makes numba compile
# one extra specialisation of the callee per distinct value (seconds each).
I64 = np.int64
# the privatizer door restricted to the kinds PUCB uses (numba compiles only those)
_DOOR = door("none", "central-tree")
privatizer_new, privatizer_release = _DOOR.new, _DOOR.release


@njit(cache=True)
def pucb_error_level(eps, H, S, A, T, beta):
    """E_eps of Vietri et al. Sec. 3 / Alg. 3, as printed, with beta' = beta / T."""
    if T < 2:
        return 0.0
    beta_p = beta / T
    return 3.0 / eps * H * math.log((2.0 * S * A * H + S * S * A * H) / beta_p) * math.log(T) ** 2.5


def init_state(env, params, K):
    """(privatizer state, x, c, pi, V, traj, evc): the private counters' mechanism (horizon T = K
    releases), the episode's increments x and the released counters c [(S + 2) H S A] (layout in
    the module docstring), policy int64[H, S], values [H + 1, S]."""
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    n_cnt = H * S * A * (S + 2)
    if params[NOISE] > 0.5:
        state = privatizer_new(I64(CENTRAL_TREE), n_cnt, K, per_counter_epsilon(params[EPSILON], H), 1.0, 0.0, I64(1))
    else:
        state = privatizer_new(I64(NONE), n_cnt, K, 1.0, 1.0, 0.0, I64(1))
    return (state, np.zeros(n_cnt), np.zeros(n_cnt), np.zeros((H, S), np.int64), np.zeros((H + 1, S)),
            engine.new_trajectory(H), engine.new_eval_cache(H, S))


@njit(cache=True)
def run_episodes(env, params, K, k0, k1, rng, rec, st):
    """The registry's entry point: :func:`episode_loop` (the arguments' owner, so numba's
    reference counting stays on here and off in the loop; engine.py)."""
    episode_loop(env, params, K, k0, k1, rng, rec, st)


@njit(cache=True, _nrt=False)
def episode_loop(env, params, K, k0, k1, rng, rec, st):
    """PUCB (Alg. 2), episodes k0..k1-1: PrivQ -> engine.step -> feed the private counters.

    Per episode nothing but the door's tree release and, when the policy changed, the engine's
    evaluation is a call: PrivQ (:func:`privrl.rl.planning.privq_backup`, fastmath-free) and the
    matched-coverage level (``tree_release_sd_levels``, the tree's levels computed once) are inlined
    (a numba call passes every array as its 7-13 words: docs/decisions/performance.md)."""
    state, x, c, pi, V, traj, evc = st
    H, S = pi.shape
    A = env[0].shape[2]
    HSA = H * S * A
    if (env[0].shape != (H, S, A, S) or V.shape != (H + 1, S) or x.shape != (HSA * (S + 2),)
            or c.shape != x.shape or traj[0].shape != (H + 1,) or traj[1].shape != (H,) or traj[2].shape != (H,)):
        raise ValueError("pucb: state and environment arrays of different (H, S, A)")
    noise = params[NOISE] > 0.5
    eps = params[EPSILON]
    scale = params[BONUS_SCALE]
    beta = params[BETA]
    z = params[Z]
    matched = z > 0.0 and noise
    if noise:
        code = CENTRAL_TREE
        E = pucb_error_level(eps, H, S, A, K, beta)
    else:
        code = NONE
        E = 0.0
    Es = scale * E
    levels = state[1][I_LEVELS]  # of the central-tree privatizer (K releases): tree_levels(K)
    ep = per_counter_epsilon(eps, H)
    ln_tb = math.log(K / (beta / K))
    states, actions, rewards = traj
    for k in range(k0, k1):
        # matched coverage: z sd of the release the planner reads (k releases so far)
        Ek = z * tree_release_sd_levels(k, levels, ep, 1.0) if matched else Es
        aux = privq(c, H, S, A, Ek, ln_tb, scale, pi, V)
        engine.step(env, pi, k, aux, rng, traj, evc, rec)
        for h in range(H):
            i = (h * S + states[h]) * A + actions[h]
            x[i] = rewards[h]
            x[HSA + i] = 1.0
            x[2 * HSA + i * S + states[h + 1]] = 1.0
        privatizer_release(code, state, x, rng, c)
        for h in range(H):
            i = (h * S + states[h]) * A + actions[h]
            x[i] = 0.0
            x[HSA + i] = 0.0
            x[2 * HSA + i * S + states[h + 1]] = 0.0


def _guarantees(p, mdp, K):
    if p["noise"] < 0.5:
        return []
    return [accounting.pucb_guarantee(p["epsilon"], mdp.H, K)]


def step_width(p, mdp, K):
    """PrivQ's conf after K episodes of uniform visitation: ``s (H+1) phi~ + psi~`` with the
    planner's error level ``s E_eps`` (Alg. 3), or ``z`` sd of the release noise (all tree levels
    used: the largest sd) when z > 0; inf while ``n < 2 E`` (Q+ = H)."""
    H, S, A = mdp.H, mdp.S, mdp.A
    s = p["bonus_scale"]
    E = count_deviation(p, mdp, K)
    n = uniform_visits(K, mdp)
    if n <= 0.0 or n < 2.0 * E:
        return math.inf
    phi = math.sqrt(2.0 * math.log(K / (p["beta"] / K)) / max(n - E, 1.0))
    psi = (1.0 + S * H) * (3.0 * E / n + 2.0 * E * E / (n * n))
    return s * (H + 1.0) * phi + psi


def count_deviation(p, mdp, K):
    """The deviation of a released count that the planner assumes at K: ``s E_eps`` (paper), or
    ``z sd`` of the tree's release noise (all levels used) when z > 0."""
    if p["noise"] < 0.5:
        return 0.0
    if p.get("z", 0.0) > 0.0:
        return p["z"] * tree_release_sd_max(int(K), p["epsilon"] / (3.0 * mdp.H), 1.0)
    return p["bonus_scale"] * pucb_error_level(p["epsilon"], mdp.H, mdp.S, mdp.A, K, p["beta"])


SPEC = register(AgentSpec(
    name="pucb",
    init_state=init_state,
    run_episodes=run_episodes,
    defaults={"epsilon": 1.0, "bonus_scale": 1.0, "beta": 0.05, "noise": 1.0, "z": 0.0},
    domains={"epsilon": POSITIVE, "bonus_scale": NONNEGATIVE, "beta": OPEN_UNIT, "noise": SWITCH, "z": NONNEGATIVE},
    privacy_model="JDP",
    reference="Vietri et al. 2020, Alg. 2 (PUCB) + Alg. 3 (PrivQ); binary mechanism App. A Alg. 5",
    description="PUCB: per-(s,a,h) binary-mechanism counters at eps/(3H), E_eps as printed, "
                "conf = (H+1) phi + psi if n >= 2E else Q+ = H; noise=0 gives the exact-count counterpart; "
                "z > 0: E = z sd of the release noise (matched coverage)",
    privatizer="central-tree",
    reconstruction=False,
    guarantees=_guarantees,
    crossover_rule=optimism_rule(step_width, "s (H+1) phi~ + psi~, psi~ = (1 + SH)(3E/n + 2E^2/n^2), E = s E_eps (Alg. 3)"),
))
