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

from privrl.rl import engine
from privrl.mechanisms.privatizer import CENTRAL_TREE, LOCAL_LAPLACE, NONE, SHUFFLE_BITSUM
from privrl.agents.crossover import CrossoverRule, max_policy_gap
from privrl.agents.registry import AgentSpec, register
from privrl.agents.pe_privacy import (
    error_level,
    estimate_layer,
    estimate_rewards,
    initial_distribution,
    mark_infrequent,
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
def block_sizes(n, nblk):
    """n episodes over nblk blocks: n // nblk each, the first n % nblk blocks one more."""
    out = np.full(nblk, n // nblk, np.int64)
    for j in range(n % nblk):
        out[j] += 1
    return out


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


@njit(cache=True)
def _visit_blocks(env, pols, idx, sizes, h, pi, k, aux, rng, traj, evc, rec, layer, c_sas, c_sa, c_r):
    """Play the users of step h (Alg. 2 crude / Alg. 3 fine exploration) and count their data.

    For every (x, a), sizes[h XA + x A + a] episodes of the best visitor idx[x, a] of (h, x, a).
    layer >= 0 (crude): count only the transition at that layer, into row x A + a of
    c_sas[XA, X], c_sa[XA]. layer < 0 (fine): count every layer h2 into row h2 XA + x A + a of
    c_sas[H XA, X], c_sa[H XA], with rewards into c_r[H XA]. Returns the next episode index.
    """
    X, A = idx.shape
    XA = X * A
    H = pi.shape[0]
    states, actions, rewards = traj
    for x in range(X):
        for a in range(A):
            m = sizes[h * XA + x * A + a]
            if m == 0:
                continue
            _set_policy(pols, idx[x, a], pi)
            for _ in range(m):
                engine.step(env, pi, k, aux, rng, traj, evc, rec)
                k += 1
                if layer >= 0:
                    row = states[layer] * A + actions[layer]
                    c_sas[row, states[layer + 1]] += 1.0
                    c_sa[row] += 1.0
                else:
                    for h2 in range(H):
                        row = h2 * XA + states[h2] * A + actions[h2]
                        c_sas[row, states[h2 + 1]] += 1.0
                        c_sa[row] += 1.0
                        c_r[row] += rewards[h2]
    return k


@njit(cache=True)
def run_sdp_pe(env, params, K, rng, rec, code):
    """The whole of Alg. 1 for K episodes; returns (active bool[n_pol], stage log float64[B, 6]).

    Stage log columns: L_b, E (fine batch), threshold, policies active after elimination,
    crude-W fraction, max estimated value.
    """
    P = env[0]
    H, X, A = P.shape[0], P.shape[1], P.shape[2]
    eps, beta, delta, C, C1 = params[EPS], params[BETA], params[DELTA], params[C_], params[C1_]
    pols = enumerate_policies(H, X, A)
    npol = pols.shape[0]
    active = np.ones(npol, np.bool_)
    n_active = npol
    iota = math.log(2.0 * H * A * K / delta)
    sched = stage_schedule(K)
    B = sched.shape[0]
    log = np.zeros((B, 6))
    eps_c = eps / (3.0 * H)
    n_rel = 2.0 * B * H * X * A * X
    Xe, XA = X + 1, X * A
    occ = np.zeros((npol, H, Xe))
    vals = np.zeros(npol)
    Pcru = np.zeros((H, Xe, A, Xe))
    Pref = np.zeros((H, Xe, A, Xe))
    rref = np.zeros((H, Xe, A))
    W = np.zeros((H, X, A, X), np.bool_)
    d1 = np.zeros(Xe)
    d1_ref = np.zeros(Xe)
    idx = np.zeros((X, A), np.int64)
    pi = np.zeros((H, X), np.int64)
    traj = engine.new_trajectory(H)
    evc = engine.new_eval_cache(H, X)
    c_sas, c_sa, no_r = np.zeros((XA, X)), np.zeros(XA), np.zeros(0)
    oc_sas, oc_sa = np.zeros((XA, X)), np.zeros(XA)
    f_sas, f_sa, f_r = np.zeros((H * XA, X)), np.zeros(H * XA), np.zeros(H * XA)
    of_sas, of_sa, of_r = np.zeros((H * XA, X)), np.zeros(H * XA), np.zeros(H * XA)
    k = np.int64(0)  # not a literal 0: that would make numba compile extra specialisations
    for b in range(B):
        Lc, Lf = sched[b, 0], sched[b, 1]
        Lb = 0.5 * (Lc + Lf)
        aux = n_active / npol
        # ---- crude exploration (Alg. 2)
        Pcru[:, :, :, :] = 0.0
        Pcru[:, :, :, X] = 1.0
        W[:, :, :, :] = False
        for x in range(X):
            d1[x] = 1.0 / X
        d1[X] = 0.0
        sizes = block_sizes(Lc, H * XA)
        for h in range(H):
            occupancy(pols, active, Pcru, d1, occ)
            best_visitors(pols, active, occ, h, A, idx)
            c_sas[:, :] = 0.0
            c_sa[:] = 0.0
            k0 = k
            k = _visit_blocks(env, pols, idx, sizes, h, pi, k, aux, rng, traj, evc, rec, h, c_sas, c_sa, no_r)
            n_users = np.int64(k - k0)
            E = private_batch(code, eps_c, beta, delta, n_rel, c_sas, c_sa, no_r, np.int64(n_users), rng, oc_sas, oc_sa,
                              no_r)
            mark_infrequent(oc_sas, C1 * E * H * H * iota, W[h])
            estimate_layer(oc_sas, oc_sa, W[h], Pcru[h])
            if h == 0:
                initial_distribution(oc_sa, d1)
        # ---- fine exploration (Alg. 3)
        occupancy(pols, active, Pcru, d1, occ)
        sizes = block_sizes(Lf, H * XA)
        f_sas[:, :] = 0.0
        f_sa[:] = 0.0
        f_r[:] = 0.0
        for h in range(H):
            best_visitors(pols, active, occ, h, A, idx)
            k = _visit_blocks(env, pols, idx, sizes, h, pi, k, aux, rng, traj, evc, rec, np.int64(-1), f_sas, f_sa, f_r)
        E = private_batch(code, eps_c, beta, delta, n_rel, f_sas, f_sa, f_r, np.int64(Lf), rng, of_sas, of_sa, of_r)
        for h in range(H):
            lo, hi = h * XA, (h + 1) * XA
            estimate_layer(of_sas[lo:hi], of_sa[lo:hi], W[h], Pref[h])
            estimate_rewards(of_r[lo:hi], of_sa[lo:hi], rref[h])
        initial_distribution(of_sa[:XA], d1_ref)
        # ---- elimination (Alg. 1 lines 7-13)
        policy_values(pols, active, Pref, rref, d1_ref, vals)
        vmax = -np.inf
        for i in range(npol):
            if active[i] and vals[i] > vmax:
                vmax = vals[i]
        thr = elimination_threshold(C, H, X, A, iota, Lb, E)
        for i in range(npol):
            if active[i] and vmax - vals[i] >= thr:
                active[i] = False
                n_active -= 1
        log[b, 0] = Lb
        log[b, 1] = E
        log[b, 2] = thr
        log[b, 3] = n_active
        log[b, 4] = W.sum() / W.size
        log[b, 5] = vmax
    if k != K:
        raise RuntimeError("SDP-PE: stage schedule did not cover K episodes")
    return active, log


def kernel(env, params, K, rng, rec):
    """The kernel shared by every preset: params = (epsilon, beta, delta, C, C1, max_policies, code).

    The privatizer code travels as a run-time int64 (not as a constant argument) so that numba
    compiles one specialisation of :func:`run_sdp_pe` for all presets. A plain Python entry
    point: an njit wrapper would cost ~3 s of numba compile (numba re-optimises the whole
    linked ``run_sdp_pe`` inside every caller).
    """
    run_sdp_pe(env, params, K, rng, rec, np.int64(params[CODE]))


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
            E = error_level(code, eps / (3.0 * H), beta, Lf, p["delta"], n_rel)
            best = min(best, elimination_threshold(p["C"], H, X, A, iota, 0.5 * (Lc + Lf), E))
        return best
    return width


FULL_ORDER = ("epsilon", "beta", "delta", "C", "C1", "max_policies")
PLACEHOLDERS = {"epsilon": 1.0, "beta": 0.5}  # unused by the presets that lack them


def _checked(code: int, keys: tuple):
    """Python front door of a preset: refuse too-large instances up front, then run :func:`kernel`.

    ``keys`` is the preset's parameter order; the kernel gets FULL_ORDER plus the code.
    """
    pos = [keys.index(n) if n in keys else -1 for n in FULL_ORDER]

    def preset_kernel(env, params, K, rng, rec):
        H, S, A = env[0].shape[:3]
        full = np.array([params[j] if j >= 0 else PLACEHOLDERS[n] for j, n in zip(pos, FULL_ORDER)] + [float(code)])
        check_enumerable(H, S, A, full[MAXPOL])
        kernel(env, full, K, rng, rec)
    preset_kernel.__doc__ = kernel.__doc__
    return preset_kernel


PRESETS = {  # name: (privatizer, privacy model, privatizer code)
    "sdp-pe": ("shuffle-bitsum", "SDP", SHUFFLE_BITSUM),
    "sdp-pe-jdp": ("central-tree", "JDP", CENTRAL_TREE),
    "sdp-pe-ldp": ("local-laplace", "LDP", LOCAL_LAPLACE),
    "pe": ("none", "none", NONE),
}
PRIVATE_DEFAULTS = {"epsilon": 1.0, "beta": 1e-5, "delta": 0.05, "C": 1.0, "C1": 6.0, "max_policies": 2.0**16}


def _guarantees_for(privatizer: str, model: str):
    def guarantees(params, mdp, K):
        from privrl.mechanisms import accounting, events  # lazily: scipy costs ~1 s of import in every run job

        if model == "none":
            return []
        if model == "SDP":
            return [accounting.sdp_pe_guarantee(params["epsilon"], params["beta"])]
        note = ("reconstruction: Bai et al. name the model only; per-counter eps/(3H) as Sec. V-A, "
                + ("central Laplace on each batch (add/remove neighbours)" if model == "JDP"
                   else "each user's counts + Lap(2 * 3H/eps) per coordinate"))
        src = f"Bai et al. Alg. 1 with the {privatizer} Privatizer"
        eps, H = params["epsilon"], mdp.H
        if model == "JDP":
            return [accounting.central_counters_jdp(eps, H, events.LaplaceEvent(3.0 * H / eps), src, note)]
        return [accounting.laplace_ldp_guarantee(eps, 6.0 * H, src, note)]
    return guarantees


for _name, (_priv, _model, _code) in PRESETS.items():
    _drop = {"none": ("epsilon", "beta"), "SDP": ()}.get(_model, ("beta",))
    _defaults = {k: v for k, v in PRIVATE_DEFAULTS.items() if k not in _drop}
    register(AgentSpec(
        name=_name,
        kernel=_checked(_code, tuple(_defaults)),
        defaults=_defaults,
        privacy_model=_model,
        reference="Bai, Talebi, Zhao, Cheng & Chen, SDP-PE (Alg. 1-3, Def. 5, Sec. V)"
                  + ("" if _model == "none" else f"; {_priv} Privatizer"),
        description=f"policy elimination over all A^(S*H) policies with the {_priv} Privatizer",
        privatizer=_priv,
        reconstruction=_model in ("JDP", "LDP"),
        guarantees=_guarantees_for(_priv, _model),
        crossover_rule=CrossoverRule(threshold_at(_code), max_policy_gap,
                                     "2C (sqrt(H^5 X^2 A iota / L) + X^3 A^2 H^5 E iota / L) <= V* - V^worst"),
    ))
