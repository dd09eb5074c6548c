"""SDP-PE: shuffle differentially private policy elimination (Bai et al., Alg. 1-3).

Stages b = 1, 2, .. with L_b = 2^b (Alg. 1 lines 2-3): stage b plays L_b crude-exploration
and L_b fine-exploration episodes; the last stage is the first b with
``2 sum_{i<=b} L_i >= K`` and takes ``L_b = (K - 2 sum_{i<b} L_i) / 2`` (the printed rule sums
to i = b, which is circular; we read i < b), so the stage lengths sum to K exactly
(:func:`stage_schedule`; an odd remainder gives fine exploration one more episode).

Per stage (phi = the active policies, all A^(S H) deterministic ones at first):

1. **Crude exploration** (Alg. 2), layer by layer: for each (x, a) play
   ``pi_{h,x,a} = argmax_{pi in phi} V^pi(1_{h,x,a}, P~cru)`` for its share of
   ``L0 = L_b / (H X A)`` episodes; the layer's batch D^h goes through the Privatizer once;
   ``W += {(h, x, a, x'): N~_h(x, a, x') <= C1 E H^2 iota}``; P~cru_h by Def. 5 (the rest
   of each row to the absorbing x-dagger).
2. **Fine exploration** (Alg. 3): the same argmax under the final P~cru for every (h, x, a),
   one batch D for the whole step, then P~ref (with the crude W) and r~.
3. **Elimination** (Alg. 1 lines 7-13): drop pi when
   ``max_{pi'} V^pi'(r~, P~ref) - V^pi(r~, P~ref) >= 2C (sqrt(H^5 X^2 A iota / L_b)
   + X^3 A^2 H^5 E iota / L_b)``, ``iota = log(2 H A K / delta)``.

The universal constants are parameters: ``C1 = 6`` (Alg. 2) and ``C = 1`` (unspecified in the
paper; 1 is our default). E is the Privatizer's error level (:mod:`.pe_privacy`). The
initial distribution d1, needed by V^pi but unknown to the agent, is estimated from the same
private layer-1 counts (docs/decisions/agents.md S3). Integer episode counts: a step of n episodes is split
over its H X A blocks as evenly as possible, earlier blocks first.

Presets (registry names): ``sdp-pe`` (shuffle-bitsum, (eps, beta)-SDP, the paper's),
``sdp-pe-jdp`` (central-tree, eps-JDP), ``sdp-pe-ldp`` (local-laplace, eps-LDP), ``pe`` (none).
Parameters (vector order): epsilon, beta, delta, C, C1, max_policies; ``beta`` (the SDP delta of
Alg. 4) only for ``sdp-pe``, neither epsilon nor beta for ``pe``.
Instances with more than ``max_policies`` policies are refused before any work.
Diagnostic ``aux``: fraction of all policies still active when the episode is played.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.rl import engine
from privrl.mechanisms.privatizer import CENTRAL_TREE, LOCAL_LAPLACE, NONE, SHUFFLE_BITSUM
from privrl.agents.audit_probe import AuditProbe
from privrl.agents.crossover import CrossoverRule, max_policy_gap
from privrl.agents.registry import COUNT, OPEN_UNIT, POSITIVE, AgentSpec, register
from privrl.agents.pe_privacy import (
    error_level,
    estimate_layer,
    estimate_rewards,
    initial_distribution,
    mark_infrequent,
    preset_guarantees,
    private_batch,
)
from privrl.rl.policies import best_visitors, check_enumerable, enumerate_policies, occupancy, policy_values

EPS, BETA, DELTA, C_, C1_, MAXPOL, CODE = 0, 1, 2, 3, 4, 5, 6


@njit(cache=True)
def stage_schedule(K):
    """int64[B, 2]: (crude, fine) episodes of each stage; ``sched.sum() == K`` (Alg. 1 lines 2-3)."""
    B = 0
    done = 0  # sum_{i<b} L_i
    while True:
        B += 1
        L = 1 << B
        if 2 * (done + L) >= K:
            break
        done += L
    sched = np.zeros((B, 2), np.int64)
    done = 0
    for b in range(B - 1):
        L = 1 << (b + 1)
        sched[b, 0] = L
        sched[b, 1] = L
        done += L
    rem = K - 2 * done
    sched[B - 1, 0] = rem // 2
    sched[B - 1, 1] = rem - rem // 2
    return sched


@njit(cache=True)
def block_sizes(n, out):
    """n episodes over the nblk blocks of out[nblk]: n // nblk each, the first n % nblk blocks one more."""
    nblk = out.shape[0]
    for j in range(nblk):
        out[j] = n // nblk + (1 if j < n % nblk else 0)


@njit(cache=True)
def elimination_threshold(C, H, X, A, iota, L, E):
    """Alg. 1 line 9: ``2C (sqrt(H^5 X^2 A iota / L) + X^3 A^2 H^5 E iota / L)``."""
    return 2.0 * C * (math.sqrt(H**5 * X * X * A * iota / L) + X**3 * A * A * H**5 * E * iota / L)


@njit(cache=True)
def _set_policy(pols, i, pi):
    H, X = pi.shape
    for h in range(H):
        for x in range(X):
            pi[h, x] = pols[i, h, x]


# Where the run stands, pos int64[8]: stage b, phase (PH_STAGE: stage b not started; PH_CRUDE /
# PH_FINE: playing layer h of crude / fine exploration), layer h, block (x A + a) of the layer,
# episodes left in the block, episodes played, policies still active, the block's size once drawn
# (aggregate simulation only, else 0: privrl.agents.sdp_pe_aggregate). fv float64[1]: aux.
P_B, P_PHASE, P_H, P_BLK, P_LEFT, P_K, P_ACTIVE, P_DRAWN = 0, 1, 2, 3, 4, 5, 6, 7
PH_STAGE, PH_CRUDE, PH_FINE = 0, 1, 2


def init_state(env, params, K):
    """Everything Alg. 1 carries across episodes: (pols int8[n_pol, H, X], active bool[n_pol],
    occ[n_pol, H, X+1], vals[n_pol], Pcru, Pref [H, X+1, A, X+1], rref[H, X+1, A], W bool[H, X, A, X],
    d1, d1_ref [X+1], idx int64[X, A] (best visitors), pi int64[H, X], traj, evc,
    crude counts c_sas[XA, X], c_sa[XA], no_r[0], their releases oc_sas, oc_sa, fine counts f_sas
    [H XA, X], f_sa, f_r [H XA], their releases of_sas, of_sa, of_r, sched int64[B, 2], log[B, 6],
    sizes int64[H XA] (episodes per block of the current phase), pos int64[8], fv[1])."""
    P = env[0]
    H, X, A = P.shape[0], P.shape[1], P.shape[2]
    pols = enumerate_policies(H, X, A)
    npol = pols.shape[0]
    sched = stage_schedule(K)
    Xe, XA = X + 1, X * A
    pos = np.zeros(8, np.int64)
    pos[P_PHASE] = PH_STAGE
    pos[P_ACTIVE] = npol
    return (pols, np.ones(npol, np.bool_), np.zeros((npol, H, Xe)), np.zeros(npol), np.zeros((H, Xe, A, Xe)),
            np.zeros((H, Xe, A, Xe)), np.zeros((H, Xe, A)), np.zeros((H, X, A, X), np.bool_), np.zeros(Xe),
            np.zeros(Xe), np.zeros((X, A), np.int64), np.zeros((H, X), np.int64), engine.new_trajectory(H),
            engine.new_eval_cache(H, X), np.zeros((XA, X)), np.zeros(XA), np.zeros(0), np.zeros((XA, X)),
            np.zeros(XA), np.zeros((H * XA, X)), np.zeros(H * XA), np.zeros(H * XA), np.zeros((H * XA, X)),
            np.zeros(H * XA), np.zeros(H * XA), sched, np.zeros((sched.shape[0], 6)), np.zeros(H * XA, np.int64),
            pos, np.zeros(1))


@njit(cache=True)
def _advance(params, K, rng, st, code, summed):
    """Move to the next block of episodes, doing the work between blocks (Alg. 1-3 in order):
    a stage's start, a crude layer's release and model update (Alg. 2 lines 7-10) and the next
    layer's best visitors, the fine batch's release, the estimates and the elimination
    (Alg. 3, Alg. 1 lines 7-13). Sets the block's policy and episodes (possibly 0).
    ``summed``: batch releases as in the aggregate simulation (:func:`pe_privacy.private_batch`)."""
    (pols, active, occ, vals, Pcru, Pref, rref, W, d1, d1_ref, idx, pi, traj, evc, c_sas, c_sa, no_r, oc_sas,
     oc_sa, f_sas, f_sa, f_r, of_sas, of_sa, of_r, sched, log, sizes, pos, fv) = st
    npol, H, X = pols.shape
    A = idx.shape[1]
    XA = X * A
    eps, beta, delta, C, C1 = params[EPS], params[BETA], params[DELTA], params[C_], params[C1_]
    iota = math.log(2.0 * H * A * K / delta)
    B = sched.shape[0]
    eps_c = per_counter_epsilon(eps, H)
    n_rel = 2.0 * B * H * X * A * X
    b, h = pos[P_B], pos[P_H]
    if pos[P_PHASE] == PH_STAGE:  # ---- a stage starts with crude exploration (Alg. 2) of layer 0
        if b >= B:
            raise RuntimeError("SDP-PE: stage schedule did not cover K episodes")
        fv[0] = pos[P_ACTIVE] / npol
        Pcru[:, :, :, :] = 0.0
        Pcru[:, :, :, X] = 1.0
        W[:, :, :, :] = False
        for x in range(X):
            d1[x] = 1.0 / X
        d1[X] = 0.0
        block_sizes(sched[b, 0], sizes)
        _crude_layer_start(pols, active, Pcru, d1, occ, np.int64(0), idx, c_sas, c_sa, pos)
        return
    blk = pos[P_BLK] + 1
    pos[P_BLK] = blk
    if blk < XA:  # the next block of this layer: the best visitor of (h, x, a)
        m = sizes[h * XA + blk]
        if m > 0:
            _set_policy(pols, idx[blk // A, blk % A], pi)
            pos[P_LEFT] = m
        return
    if pos[P_PHASE] == PH_CRUDE:  # the crude layer's batch D^h is complete
        n_users = np.int64(0)
        for j in range(XA):
            n_users += sizes[h * XA + j]
        E = private_batch(code, eps_c, beta, delta, n_rel, c_sas, c_sa, no_r, n_users, rng, oc_sas, oc_sa, no_r,
                          summed)
        mark_infrequent(oc_sas, C1 * E * H * H * iota, W[h])
        estimate_layer(oc_sas, oc_sa, W[h], Pcru[h])
        if h == 0:
            initial_distribution(oc_sa, d1)
        if h + 1 < H:
            _crude_layer_start(pols, active, Pcru, d1, occ, h + 1, idx, c_sas, c_sa, pos)
            return
        # ---- fine exploration (Alg. 3)
        occupancy(pols, active, Pcru, d1, occ)
        block_sizes(sched[b, 1], sizes)
        f_sas[:, :] = 0.0
        f_sa[:] = 0.0
        f_r[:] = 0.0
        _fine_layer_start(pols, active, occ, np.int64(0), idx, pos)
        return
    if h + 1 < H:
        _fine_layer_start(pols, active, occ, h + 1, idx, pos)
        return
    E = private_batch(code, eps_c, beta, delta, n_rel, f_sas, f_sa, f_r, sched[b, 1], rng, of_sas, of_sa, of_r,
                      summed)
    for h2 in range(H):
        lo, hi = h2 * XA, (h2 + 1) * XA
        estimate_layer(of_sas[lo:hi], of_sa[lo:hi], W[h2], Pref[h2])
        estimate_rewards(of_r[lo:hi], of_sa[lo:hi], rref[h2])
    initial_distribution(of_sa[:XA], d1_ref)
    # ---- elimination (Alg. 1 lines 7-13)
    policy_values(pols, active, Pref, rref, d1_ref, vals)
    vmax = -np.inf
    for i in range(npol):
        if active[i] and vals[i] > vmax:
            vmax = vals[i]
    Lb = 0.5 * (sched[b, 0] + sched[b, 1])
    thr = elimination_threshold(C, H, X, A, iota, Lb, E)
    n_active = pos[P_ACTIVE]
    for i in range(npol):
        if active[i] and vmax - vals[i] >= thr:
            active[i] = False
            n_active -= 1
    pos[P_ACTIVE] = n_active
    log[b, 0] = Lb
    log[b, 1] = E
    log[b, 2] = thr
    log[b, 3] = n_active
    log[b, 4] = W.sum() / W.size
    log[b, 5] = vmax
    pos[P_B] = b + 1
    pos[P_PHASE] = PH_STAGE


@njit(cache=True)
def _crude_layer_start(pols, active, Pcru, d1, occ, h, idx, c_sas, c_sa, pos):
    """Alg. 2 lines 3-4 for layer h: occupancies under P~cru, best visitors, empty batch D^h."""
    occupancy(pols, active, Pcru, d1, occ)
    best_visitors(pols, active, occ, h, idx.shape[1], idx)
    c_sas[:, :] = 0.0
    c_sa[:] = 0.0
    pos[P_PHASE], pos[P_H], pos[P_BLK] = PH_CRUDE, h, -1


@njit(cache=True)
def _fine_layer_start(pols, active, occ, h, idx, pos):
    """Alg. 3 line 2 for layer h: best visitors under the final P~cru."""
    best_visitors(pols, active, occ, h, idx.shape[1], idx)
    pos[P_PHASE], pos[P_H], pos[P_BLK] = PH_FINE, h, -1


@njit(cache=True)
def run_episodes(env, params, K, k0, k1, rng, rec, st, code):
    """Episodes k0..k1-1 of Alg. 1 (stages of crude and fine exploration and elimination).

    Each episode plays the current block's best visitor and counts its data: crude exploration
    counts only the transition at layer h into row x A + a of c_sas[XA, X], c_sa[XA]; fine
    exploration counts every layer h2 into row h2 XA + x A + a of f_sas[H XA, X], f_sa, with
    rewards into f_r. The work between blocks is :func:`_advance`; the last call (k1 = K) also
    finishes the last stage (its fine release and elimination).
    """
    (pols, active, occ, vals, Pcru, Pref, rref, W, d1, d1_ref, idx, pi, traj, evc, c_sas, c_sa, no_r, oc_sas,
     oc_sa, f_sas, f_sa, f_r, of_sas, of_sa, of_r, sched, log, sizes, pos, fv) = st
    if pos[P_K] != k0:
        raise ValueError("SDP-PE: the state is not at episode k0")
    H, X = pi.shape
    XA = c_sa.shape[0]
    A = XA // X
    states, actions, rewards = traj
    for k in range(k0, k1):
        while pos[P_LEFT] == 0:
            _advance(params, K, rng, st, code, False)
        engine.step(env, pi, k, fv[0], rng, traj, evc, rec)
        pos[P_LEFT] -= 1
        if pos[P_PHASE] == PH_CRUDE:
            layer = pos[P_H]
            row = states[layer] * A + actions[layer]
            c_sas[row, states[layer + 1]] += 1.0
            c_sa[row] += 1.0
        else:
            for h2 in range(H):
                row = h2 * XA + states[h2] * A + actions[h2]
                f_sas[row, states[h2 + 1]] += 1.0
                f_sa[row] += 1.0
                f_r[row] += rewards[h2]
    pos[P_K] = k1
    if k1 == K:
        while pos[P_B] < sched.shape[0]:
            _advance(params, K, rng, st, code, False)


def run_sdp_pe(env, params, K, rng, rec, code):
    """The whole of Alg. 1 for K episodes; returns (active bool[n_pol], stage log float64[B, 6]).

    Stage log columns: L_b, E (fine batch), threshold, policies active after elimination,
    crude-W fraction, max estimated value.
    """
    st = init_state(env, params, np.int64(K))
    run_episodes(env, params, np.int64(K), np.int64(0), np.int64(K), rng, rec, st, np.int64(code))
    return st[1], st[26]  # active, log


def threshold_at(code):
    """Smallest elimination threshold (Alg. 1 line 9) over the stages of a K-episode run, with
    the E of each stage's fine batch (:func:`pe_privacy.error_level`, as ``run_sdp_pe``)."""
    def width(p, mdp, K):
        H, X, A = mdp.H, mdp.S, mdp.A
        K = int(K)
        if K < 2:
            return math.inf
        sched = stage_schedule(K)
        iota = math.log(2.0 * H * A * K / p["delta"])
        n_rel = 2.0 * sched.shape[0] * H * X * A * X
        eps, beta = p.get("epsilon", PLACEHOLDERS["epsilon"]), p.get("beta", PLACEHOLDERS["beta"])
        best = math.inf
        for Lc, Lf in sched:
            if Lc + Lf < 2:
                continue
            E = error_level(code, per_counter_epsilon(eps, H), beta, Lf, p["delta"], n_rel)
            best = min(best, elimination_threshold(p["C"], H, X, A, iota, 0.5 * (Lc + Lf), E))
        return best
    return width


FULL_ORDER = ("epsilon", "beta", "delta", "C", "C1", "max_policies")
PLACEHOLDERS = {"epsilon": 1.0, "beta": 0.5}  # unused by the presets that lack them


def _checked(code: int, keys: tuple, episodes_kernel=run_episodes):
    """Python front doors of a preset, (init_state, run_episodes): refuse too-large instances up
    front, then call the njit kernels with FULL_ORDER plus the privatizer code. ``episodes_kernel``:
    another kernel with :func:`run_episodes`' signature (the aggregate simulation's ``run_blocks``).

    ``keys`` is the preset's parameter order. The code travels as a run-time int64 (not as a
    constant argument) so that numba compiles one specialisation of :func:`run_episodes` for all
    presets; plain Python entry points, as an njit wrapper would cost ~3 s of numba compile
    (numba re-optimises the whole linked kernel inside every caller).
    """
    pos = [keys.index(n) if n in keys else -1 for n in FULL_ORDER]

    def full(params):
        return np.array([params[j] if j >= 0 else PLACEHOLDERS[n] for j, n in zip(pos, FULL_ORDER)] + [float(code)])

    def preset_init_state(env, params, K):
        H, S, A = env[0].shape[:3]
        p = full(params)
        check_enumerable(H, S, A, p[MAXPOL])
        return init_state(env, p, K)

    def preset_run_episodes(env, params, K, k0, k1, rng, rec, state):
        episodes_kernel(env, full(params), K, k0, k1, rng, rec, state, np.int64(code))
    return preset_init_state, preset_run_episodes


PRESETS = {  # name: (privatizer, privacy model, privatizer code)
    "sdp-pe": ("shuffle-bitsum", "SDP", SHUFFLE_BITSUM),
    "sdp-pe-jdp": ("central-tree", "JDP", CENTRAL_TREE),
    "sdp-pe-ldp": ("local-laplace", "LDP", LOCAL_LAPLACE),
    "pe": ("none", "none", NONE),
}
PRIVATE_DEFAULTS = {"epsilon": 1.0, "beta": 1e-5, "delta": 0.05, "C": 1.0, "C1": 6.0, "max_policies": 2.0**16}
PRIVATE_DOMAINS = {"epsilon": POSITIVE, "beta": OPEN_UNIT, "delta": OPEN_UNIT, "C": POSITIVE, "C1": POSITIVE,
                   "max_policies": COUNT}


for _name, (_priv, _model, _code) in PRESETS.items():
    _drop = {"none": ("epsilon", "beta"), "SDP": ()}.get(_model, ("beta",))
    _defaults = {k: v for k, v in PRIVATE_DEFAULTS.items() if k not in _drop}
    _init, _episodes = _checked(_code, tuple(_defaults))
    register(AgentSpec(
        name=_name,
        init_state=_init,
        run_episodes=_episodes,
        defaults=_defaults,
        domains={k: PRIVATE_DOMAINS[k] for k in _defaults},
        privacy_model=_model,
        reference="Bai, Talebi, Zhao, Cheng & Chen, SDP-PE (Alg. 1-3, Def. 5, Sec. V)"
                  + ("" if _model == "none" else f"; {_priv} Privatizer"),
        description=f"policy elimination over all A^(S*H) policies with the {_priv} Privatizer",
        privatizer=_priv,
        reconstruction=_model in ("JDP", "LDP"),
        guarantees=preset_guarantees(_priv, _model),
        audit_probe=AuditProbe(init_state, run_episodes, lambda p, c=_code: (np.int64(c),), 0,
                               lambda p, c=_code: np.array([p.get(n, PLACEHOLDERS.get(n)) for n in FULL_ORDER] + [c]),
                               power_multiplier=0.05 if _model == "SDP" else 0.5, users=5),
        crossover_rule=CrossoverRule(threshold_at(_code), max_policy_gap,
                                     "2C (sqrt(H^5 X^2 A iota / L) + X^3 A^2 H^5 E iota / L) <= V* - V^worst"),
        simulations={"episode": ("K", "B"), "aggregate": ("1", "B")},  # aggregate: privrl.agents.sdp_pe_aggregate
    ))
