"""The private UCBVI family: UCBVI on private counts that satisfy Assumption 4 of Bai et al.

RECONSTRUCTIONS. DP-UCBVI (Qiao & Wang 2023; the DP-UCBVI rows of Bai et al. Table I) and
Private-UCB-VI (Chowdhury & Zhou 2022) are named but not specified in the papers of this
repository; they are rebuilt here from what those papers do specify:

* statistics per (h, s, a) -- R_h(s,a), N_h(s,a), N_h(s,a,s') -- released through one
  privatizer (``privatizers.privatizer_release``) in the layout
  [R (HSA) | N_sa (HSA) | N_sas (HSAS)], index of (h, s, a) ``(h S + s) A + a``;
* the post-processing of Bai et al. Sec. V-A, Eq. 4-5 (``postprocess.postprocess_row``) with
  error level E (the Assumption-4 level: the raw counts are within E/4 of the truth with
  probability 1 - delta, uniformly), so that N~(s,a) = sum_s' N~(s,a,s') >= N(s,a) and
  P~ = N~(s,a,.)/N~(s,a) is a distribution; r~ = R~/N~(s,a) (Bai et al. Eq. 2);
* privatizers (``epsilon`` = the agent's privacy parameter):
  - ``central-tree`` (JDP): binary mechanism per counter at eps/(3H) (as PUCB / Bai Sec. V);
    E = 4 * laplace_sum_bound(L, L/eps', delta/(n K)) (a release sums <= L nodes);
  - ``local-laplace`` (LDP): each user adds Lap(6H/eps) to every coordinate (l1 sensitivity
    2H per family); after k users E_k = 4 * laplace_sum_bound(k, 6H/eps, delta/(n K));
  - ``shuffle-bitsum`` (SDP, Bai et al. App. Alg. 4 per counter at eps/(3H), confidence
    ``beta``): users are released in doubling batches (episodes 1, 2, 3-4, 5-8, ...), the
    policy changes only between batches (so each batch can be drawn at once, in law:
    :mod:`privrl.agents.private_ucbvi_aggregate`); E = 4 * Bernstein bound of the summed bit-sum noise;
* bonus (times ``bonus_scale``), with N = N~_h(s,a), L = ln(5 S A K H / delta):
  - ``hoeffding`` (private-ucbvi-*): 7 H L / sqrt(N) (Azar et al. bonus_1, exactly as the
    ``ucbvi`` agent) + privacy term 2 (S H + 1) E / N;
  - ``bernstein`` (dp-ucbvi-*): sqrt(8 L Var_{P~}(V_{h+1}) / N) + 14 H L / (3 N) (Azar et al.
    bonus_2 without its third, lower-order correction term) + 2 (S H + 1) E / N.
  The privacy term bounds |(P~ - P^)V| + |r~ - r^| <= (2 S E H + 2 E)/N under Assumption 4.

Matched coverage, ``z`` > 0 (default 0 = the above): the per-counter deviation bound E/4 is
replaced by ``z`` standard deviations of the current release's noise
(:mod:`privrl.mechanisms.bounds`: ``tree_release_sd`` at the release's step,
``laplace_sum_sd`` of the k users' Laplace terms, ``binomial_sum_sd`` of the bit-sum noise),
i.e. E = 4 z sd, in the post-processing and the privacy term; ``bonus_scale`` then multiplies
only the statistical bonus.

Computation: every episode releases all counters, but post-processing all H S A rows every
episode would cost ~35x UCBVI at S=6, H=20. So each episode post-processes and refreshes
ceil(H/2) rows in a fixed round robin (every row at least every ~2 S A episodes; ~7x UCBVI
in total at S=6, H=20); the other rows keep their last post-processed release.
The schedule is data-independent -- refreshing the *visited* rows instead would make the
next policy depend on the last user's raw trajectory and break JDP/LDP (caught by the
privatizer-spy test) -- and a stale row is post-processing of an earlier release with the
same Assumption-4 guarantee (E is uniform over releases). ``noise = 0`` gives exact counts,
E = 0, no post-processing and the visited-row refresh of ``ucbvi``: private-ucbvi-jdp/ldp
then equal ``ucbvi`` exactly.

Parameters (vector order): epsilon, bonus_scale, delta, noise, z[, beta (SDP only)].
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.mechanisms import accounting, events, release_guarantees
from privrl.rl import engine
from privrl.mechanisms.bounds import (
    binomial_sum_bound,
    binomial_sum_sd,
    bitsum_variance,
    laplace_sum_bound,
    laplace_sum_bound_ln,
    laplace_sum_sd,
    tree_error_bound,
    tree_release_sd_max,
)
from privrl.mechanisms.privatizer import (
    CENTRAL_TREE,
    F_TAU,
    LOCAL_LAPLACE,
    NONE,
    SHUFFLE_BITSUM,
    bitsum_tau,
    door,
    postprocess_row,
)
from privrl.agents.audit_probe import AuditProbe
from privrl.agents.optimism import bernstein_plan
from privrl.agents.crossover import optimism_rule, uniform_visits
from privrl.agents.registry import NONNEGATIVE, OPEN_UNIT, POSITIVE, SWITCH, AgentSpec, register
from privrl.rl.planning import optimistic_plan, refresh_row
from privrl.agents.ucbvi import hoeffding_bonus

EPSILON, BONUS_SCALE, DELTA, NOISE, Z, BETA = 0, 1, 2, 3, 4, 5
# Integer constants handed to njit callees go as I64(..): a literal argument makes numba compile
# one extra specialisation of the callee per distinct value (seconds each).
I64 = np.int64
# the privatizer door restricted to the kinds used here (numba compiles only those)
_DOOR = door("none", "central-tree", "local-laplace", "shuffle-bitsum")
privatizer_new, privatizer_release, privatizer_release_sums = _DOOR.new, _DOOR.release, _DOOR.release_sums


@njit(cache=True, inline="always")
def _refresh(c, h, s, a, H, S, A, E, scale, pscale, L, bern, nt_sas, nt_sa, p_hat, q, coef):
    """Post-process (Eq. 4-5) and refresh the model and bonus of one (h, s, a) from release c;
    ``pscale`` multiplies the privacy term (``scale``, or 1 at matched coverage). Inlined (a numba
    call with 17 arguments costs about as much as the refresh of a small row)."""
    HSA = H * S * A
    i = (h * S + s) * A + a
    base = 2 * HSA + i * S
    if E > 0.0:
        tot, _t = postprocess_row(c[base:base + S], c[HSA + i], E, nt_sas[h, s, a])
        n = tot
    else:
        for s2 in range(S):
            nt_sas[h, s, a, s2] = c[base + s2]
        n = c[HSA + i]
    nt_sa[h, s, a] = n
    if not n > 0.0:
        q[h, s, a] = np.inf
        return
    refresh_row(nt_sas[h, s, a], n, p_hat[h, s, a])
    if bern:
        q[h, s, a] = c[i] / n + scale * 14.0 * H * L / (3.0 * n)
        coef[h, s, a] = scale * math.sqrt(8.0 * L / n)
    else:
        q[h, s, a] = c[i] / n + hoeffding_bonus(n, H, L, scale)
    if E > 0.0:
        q[h, s, a] += pscale * 2.0 * (S * H + 1.0) * E / n


@njit(cache=True)
def _refresh_call(c, h, s, a, H, S, A, E, scale, pscale, L, bern, nt_sas, nt_sa, p_hat, q, coef):
    """:func:`_refresh` as a numba call: for the cold paths (exact counts, SDP batches), so that only
    the per-episode round robin carries an inlined copy (each copy costs compile time)."""
    _refresh(c, h, s, a, H, S, A, E, scale, pscale, L, bern, nt_sas, nt_sa, p_hat, q, coef)


_M1, _M2, _M4, _H01 = (np.uint64(0x5555555555555555), np.uint64(0x3333333333333333), np.uint64(0x0F0F0F0F0F0F0F0F),
                      np.uint64(0x0101010101010101))
_U1, _U2, _U4, _U56 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(56)


@njit(cache=True, inline="always")
def _popcount(t):
    """Number of set bits of ``t >= 0`` (``bounds.popcount``, a bit loop, in a few operations: the
    SWAR count of Warren, Hacker's Delight Sec. 5-1), as a uint64."""
    v = np.uint64(t)
    v = v - ((v >> _U1) & _M1)
    v = (v & _M2) + ((v >> _U2) & _M2)
    v = (v + (v >> _U4)) & _M4
    return (v * _H01) >> _U56


# Indices of the loop's carried scalars: fvars = [E, summed bit-sum noise variance, aux],
# ivars = [next SDP release (1-based episode), users in the open batch, replan flag, round-robin cursor].
F_E, F_NOISE_VAR, F_AUX = 0, 1, 2
I_NEXT_RELEASE, I_BATCH_USERS, I_REPLAN, I_CURSOR = 0, 1, 2, 3


def init_state(env, params, K, kind):
    """(privatizer state, x, c, nt_sas, nt_sa, p_hat, q, coef, pi, V, traj, evc, fvars[3], ivars[4]):
    the privatizer of ``kind`` (horizon T = K releases), the increments x and released counters c
    [(S + 2) H S A] (layout above), the post-processed counts [H, S, A(, S)], model p_hat
    [H, S, A, S], q = r~ + bonus and the Bernstein coefficient [H, S, A], policy int64[H, S],
    values [H + 1, S], and the loop's carried scalars (F_*, I_* above)."""
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    HSA = H * S * A
    n_cnt = HSA * (S + 2)
    eps, delta = params[EPSILON], params[DELTA]
    noise = params[NOISE] > 0.5
    d_one = delta / (n_cnt * K)  # per counter and release
    ep = per_counter_epsilon(eps, H)  # central-tree: per-counter eps
    fvars = np.zeros(3)
    fvars[F_AUX] = 1.0
    if not noise:
        state = privatizer_new(I64(NONE), n_cnt, K, 1.0, 1.0, 0.0, I64(1))
    elif kind == CENTRAL_TREE:
        state = privatizer_new(I64(CENTRAL_TREE), n_cnt, K, ep, 1.0, 0.0, I64(1))
        fvars[F_E] = 4.0 * tree_error_bound(K, ep, 1.0, d_one)
    elif kind == LOCAL_LAPLACE:
        state = privatizer_new(I64(LOCAL_LAPLACE), n_cnt, K, eps, 6.0 * H, 0.0, I64(1))
    else:
        state = privatizer_new(I64(SHUFFLE_BITSUM), n_cnt, K, per_counter_epsilon(eps, H), 1.0, params[BETA], I64(1))
    ivars = np.zeros(4, np.int64)
    ivars[I_NEXT_RELEASE] = 1  # SDP: release after episodes 1, 2, 4, 8, ... (1-based)
    ivars[I_REPLAN] = 1
    return (state, np.zeros(n_cnt), np.zeros(n_cnt), np.zeros((H, S, A, S)), np.zeros((H, S, A)),
            np.zeros((H, S, A, S)), np.full((H, S, A), np.inf), np.zeros((H, S, A)), np.zeros((H, S), np.int64),
            np.zeros((H + 1, S)), engine.new_trajectory(H), engine.new_eval_cache(H, S), fvars, ivars)


# The five presets below are plain Python entry points into the one njit ``run_owned``
# (compiled once for all presets): an njit wrapper per preset would cost ~3 s of numba compile
# each, as numba re-optimises the whole linked ``run_episodes`` inside every caller.
@njit(cache=True)
def run_owned(env, params, K, k0, k1, rng, rec, st, kind, bern):
    """:func:`run_episodes` for the registry's entry points: the arguments' owner, so numba's reference
    counting stays on here (an argument unboxed for a function compiled without it, the Generator,
    would leak a reference per call) and off in the loop (engine.py)."""
    run_episodes(env, params, K, k0, k1, rng, rec, st, kind, bern)


@njit(cache=True, _nrt=False)
def run_episodes(env, params, K, k0, k1, rng, rec, st, kind, bern):
    """Episodes k0..k1-1 of the preset (kind, bern) on the state of :func:`init_state`.

    JDP / LDP (and every preset's exact-count twin but SDP's): plan -> engine.step -> release every
    counter through the door -> E of this release -> post-process and refresh ceil(H/2) rows in the
    round robin (exact counts: the visited rows). SDP: the policy is replanned only when a doubling
    batch closes (:func:`close_batch`). Compiled without numba's reference counting
    (docs/decisions/performance.md, "A lean engine"): it only reads and writes arrays its caller owns
    (:func:`run_owned`); the calls it makes that allocate (the bit-sum release, a sort of more than 15
    entries) are compiled with the counting on."""
    state, x, c, nt_sas, nt_sa, p_hat, q, coef, pi, V, traj, evc, fvars, ivars = st
    H, S, A = nt_sa.shape
    if (nt_sas.shape != (H, S, A, S) or p_hat.shape != (H, S, A, S) or q.shape != (H, S, A)
            or coef.shape != (H, S, A) or pi.shape != (H, S) or V.shape != (H + 1, S)
            or env[0].shape != (H, S, A, S) or traj[0].shape != (H + 1,) or traj[1].shape != (H,)
            or x.shape != (H * S * A * (S + 2),) or c.shape != x.shape):
        raise ValueError("private_ucbvi: state and environment arrays of different (H, S, A)")
    # (past this check LLVM indexes every array with the one H, S, A)
    HSA = H * S * A
    n_cnt = HSA * (S + 2)
    eps, scale, delta = params[EPSILON], params[BONUS_SCALE], params[DELTA]
    noise = params[NOISE] > 0.5
    z = params[Z]
    matched = z > 0.0 and noise
    pscale = 1.0 if matched else scale
    L = math.log(5.0 * S * A * K * H / delta)
    d_one = delta / (n_cnt * K)  # per counter and release
    code = kind if noise else NONE
    ep = per_counter_epsilon(eps, H)  # central-tree: per-counter eps
    b_ldp = 6.0 * H / eps  # local-laplace: scale per coordinate and user
    ln_ldp = math.log(2.0 / d_one)  # laplace_sum_bound's A, taken once
    levels = 1  # tree.tree_levels(K) = K.bit_length(): the central-tree privatizer's levels (tree_release_sd)
    while (K >> levels) > 0:
        levels += 1
    E, noise_var, aux = fvars[F_E], fvars[F_NOISE_VAR], fvars[F_AUX]
    next_release, batch_users = ivars[I_NEXT_RELEASE], ivars[I_BATCH_USERS]
    replan = ivars[I_REPLAN] != 0
    n_refresh = (H + 1) // 2  # rows post-processed per episode (round robin), data-independent
    cursor = ivars[I_CURSOR]
    j = cursor % HSA  # the cursor's row as (h, s, a), advanced by carries (no integer division per row)
    ch, cs, ca = j // (S * A), (j // A) % S, j % A
    states, actions, rewards = traj
    if kind == SHUFFLE_BITSUM:  # doubling batches (noise or not)
        for k in range(k0, k1):
            if replan:
                if bern:
                    aux = bernstein_plan(p_hat, q, coef, nt_sa, pi, V)
                else:
                    aux = optimistic_plan(p_hat, q, nt_sa, pi, V)
            engine.step(env, pi, k, aux, rng, traj, evc, rec)
            for h in range(H):
                i = (h * S + states[h]) * A + actions[h]
                x[i] += rewards[h]
                x[HSA + i] += 1.0
                x[2 * HSA + i * S + states[h + 1]] += 1.0
            batch_users += 1
            replan = k + 1 == next_release
            if not replan:
                continue
            E, noise_var = close_batch(params, K, st, batch_users, E, noise_var, rng, bern)
            batch_users = 0
            next_release *= 2
    else:
        for k in range(k0, k1):
            if bern:
                aux = bernstein_plan(p_hat, q, coef, nt_sa, pi, V)
            else:
                aux = optimistic_plan(p_hat, q, nt_sa, pi, V)
            engine.step(env, pi, k, aux, rng, traj, evc, rec)
            for h in range(H):
                i = (h * S + states[h]) * A + actions[h]
                x[i] += rewards[h]
                x[HSA + i] += 1.0
                x[2 * HSA + i * S + states[h + 1]] += 1.0
            privatizer_release(code, state, x, rng, c)
            if noise:
                if matched and kind == LOCAL_LAPLACE:  # E/4 = z sd of the current release (k + 1 users / steps)
                    E = 4.0 * z * laplace_sum_sd(k + 1.0, b_ldp)
                elif matched:  # tree_release_sd(k + 1, K, ep, 1.0): the same products, levels taken once
                    E = 4.0 * z * (math.sqrt(_popcount(k + 1)) * math.sqrt(2.0) * levels * 1.0 / ep)
                elif kind == LOCAL_LAPLACE:
                    E = 4.0 * laplace_sum_bound_ln(k + 1.0, b_ldp, ln_ldp)  # = laplace_sum_bound(k + 1, b, d_one)
                for t in range(n_refresh):  # data-independent round robin over the rows
                    _refresh(c, ch, cs, ca, H, S, A, E, scale, pscale, L, bern, nt_sas, nt_sa, p_hat, q, coef)
                    cursor += 1
                    ca += 1
                    if ca == A:
                        ca = 0
                        cs += 1
                        if cs == S:
                            cs = 0
                            ch = 0 if ch == H - 1 else ch + 1
            for h in range(H):
                if not noise:  # exact counts: refresh the visited rows, as ucbvi does
                    _refresh_call(c, h, states[h], actions[h], H, S, A, E, scale, pscale, L, bern, nt_sas, nt_sa,
                                  p_hat, q, coef)
                i = (h * S + states[h]) * A + actions[h]
                x[i] = 0.0
                x[HSA + i] = 0.0
                x[2 * HSA + i * S + states[h + 1]] = 0.0
    fvars[F_E], fvars[F_NOISE_VAR], fvars[F_AUX] = E, noise_var, aux
    ivars[I_NEXT_RELEASE], ivars[I_BATCH_USERS], ivars[I_REPLAN], ivars[I_CURSOR] = \
        next_release, batch_users, 1 if replan else 0, cursor


@njit(cache=True, _nrt=True)  # allocates (the bit-sum release): counting on, explicitly
def close_batch(params, K, st, users, E, noise_var, rng, bern):
    """SDP: release the closed doubling batch of ``users`` users (its summed increments x) through the
    shuffle Privatizer (noise = 0: exact counts), update the error level E (Bernstein bound, or
    ``4 z sd``, of the summed bit-sum noise) and refresh every row; x is reset. Returns (E, summed
    noise variance), from the carried (E, noise_var); the state's fvars are not written (the caller
    carries them). Shared by the episode kernel and the aggregate simulation
    (:mod:`privrl.agents.private_ucbvi_aggregate`)."""
    state, x, c, nt_sas, nt_sa, p_hat, q, coef, pi, V, traj, evc, fvars, ivars = st
    H, S, A = nt_sa.shape[0], nt_sa.shape[1], nt_sa.shape[2]
    n_cnt = H * S * A * (S + 2)
    scale, delta = params[BONUS_SCALE], params[DELTA]
    noise = params[NOISE] > 0.5
    z = params[Z]
    matched = z > 0.0 and noise
    pscale = 1.0 if matched else scale
    L = math.log(5.0 * S * A * K * H / delta)
    n_batches = 2.0 + math.log2(K)  # doubling batches released over K episodes: a union bound over them
    if noise:
        privatizer_release_sums(I64(SHUFFLE_BITSUM), state, x, users, rng, c)
        noise_var += bitsum_variance(users, state[2][F_TAU])
        if matched:
            E = 4.0 * z * binomial_sum_sd(noise_var)
        else:
            E = 4.0 * binomial_sum_bound(noise_var, delta / (n_cnt * n_batches))
    else:
        privatizer_release(I64(NONE), state, x, rng, c)
    for h in range(H):
        for s in range(S):
            for a in range(A):
                _refresh_call(c, h, s, a, H, S, A, E, scale, pscale, L, bern, nt_sas, nt_sa, p_hat, q, coef)
    x[:] = 0.0
    return E, noise_var


def _preset(kind, bern):
    """(init_state, run_episodes) of one preset with the generic signatures of the registry."""
    kind = np.int64(kind)

    def preset_init_state(env, params, K):
        return init_state(env, params, K, kind)

    def preset_run_episodes(env, params, K, k0, k1, rng, rec, state):
        run_owned(env, params, K, k0, k1, rng, rec, state, kind, bern)
    return preset_init_state, preset_run_episodes


def _guarantees_for(model):
    def g(p, mdp, K):
        if p["noise"] < 0.5:
            return []
        eps, H = p["epsilon"], mdp.H
        src = "reconstruction of Chowdhury & Zhou 2022 / Qiao & Wang 2023"
        if model == "JDP":
            ep = per_counter_epsilon(eps, H)
            return [accounting.central_counters_jdp(
                eps, H, events.TreeEvent(max(int(K).bit_length(), 1) / ep, K),
                "binary mechanism at eps/(3H) per counter, Vietri et al. Thm 1 argument (billboard lemma)", src)]
        if model == "LDP":
            return [accounting.laplace_ldp_guarantee(eps, 6.0 * H, "Laplace(6H/eps) per coordinate, l1 sensitivity 6H",
                                                     src)]
        return [release_guarantees.sdp_counters_guarantee(eps, p["beta"], H, "Bai et al. Lemma 10 counters (Alg. 4 per counter "
                                                  "at eps/(3H)), counter accounting",
                                                  "reconstruction: UCBVI on doubling batches; a replacement flips 2H bits "
                                                  "per family")]
    return g


def error_level_at(kind, p, H, S, A, K):
    """The E that ``_run`` holds after K episodes (same formulas and confidence split); with
    z > 0, ``4 z sd`` (central-tree: all levels used, the largest sd)."""
    if p["noise"] < 0.5:
        return 0.0
    eps, z = p["epsilon"], p.get("z", 0.0)
    d_one = p["delta"] / (H * S * A * (S + 2) * K)
    if kind == CENTRAL_TREE:
        if z > 0.0:
            return 4.0 * z * tree_release_sd_max(int(K), per_counter_epsilon(eps, H), 1.0)
        return 4.0 * tree_error_bound(int(K), per_counter_epsilon(eps, H), 1.0, d_one)
    if kind == LOCAL_LAPLACE:
        if z > 0.0:
            return 4.0 * z * laplace_sum_sd(float(K), 6.0 * H / eps)
        return 4.0 * laplace_sum_bound(float(K), 6.0 * H / eps, d_one)
    tau = bitsum_tau(per_counter_epsilon(eps, H), p["beta"])  # doubling batches released after episodes 1, 2, 4, ...
    var, release, done = 0.0, 1, 0
    while release <= K:
        var += bitsum_variance(release - done, tau)
        done, release = release, 2 * release
    if z > 0.0:
        return 4.0 * z * binomial_sum_sd(var)
    return 4.0 * binomial_sum_bound(var, p["delta"] / (H * S * A * (S + 2) * (2.0 + math.log2(K))))


def count_deviation_for(kind):
    """Deviation of a released count the planner assumes at K: ``s E/4`` (paper) or ``z sd`` (z > 0)."""
    def count_deviation(p, mdp, K):
        ps = 1.0 if p.get("z", 0.0) > 0.0 else p["bonus_scale"]
        return ps * error_level_at(kind, p, mdp.H, mdp.S, mdp.A, K) / 4.0
    return count_deviation


def width_for(kind, bern):
    """Per-step bonus after K episodes of uniform visitation (crossover rule): bonus_1, or
    bonus_2 at the largest variance of a [0, H] value (H^2/4), plus 2 (SH + 1) E / N, all times s."""
    def step_width(p, mdp, K):
        H, S, A, s = mdp.H, mdp.S, mdp.A, p["bonus_scale"]
        n = uniform_visits(K, mdp)
        L = math.log(5.0 * S * A * K * H / p["delta"])
        ps = 1.0 if p.get("z", 0.0) > 0.0 and p["noise"] > 0.5 else s  # matched coverage: privacy term unscaled
        priv = ps * 2.0 * (S * H + 1.0) * error_level_at(kind, p, H, S, A, K) / n
        if bern:
            return s * (math.sqrt(8.0 * L * H * H / 4.0 / n) + 14.0 * H * L / (3.0 * n)) + priv
        return hoeffding_bonus(n, H, L, s) + priv
    return step_width


_COMMON = {"epsilon": 1.0, "bonus_scale": 1.0, "delta": 0.05, "noise": 1.0, "z": 0.0}
_DOMAINS = {"epsilon": POSITIVE, "bonus_scale": NONNEGATIVE, "delta": OPEN_UNIT, "noise": SWITCH, "z": NONNEGATIVE,
            "beta": OPEN_UNIT}
_PRESETS = [
    ("private-ucbvi-jdp", _preset(CENTRAL_TREE, False), "JDP", "central-tree", "hoeffding",
     "Chowdhury & Zhou 2022 (Private-UCB-VI) style; Bai et al. Assumption 4, Sec. V-A Eq. 4-5"),
    ("private-ucbvi-ldp", _preset(LOCAL_LAPLACE, False), "LDP", "local-laplace", "hoeffding",
     "Chowdhury & Zhou 2022 (Private-UCB-VI) style; Bai et al. Assumption 4, Sec. V-A Eq. 4-5"),
    ("private-ucbvi-sdp", _preset(SHUFFLE_BITSUM, False), "SDP", "shuffle-bitsum", "hoeffding",
     "Bai et al. Sec. V (shuffle Privatizer, App. Alg. 4) + Assumption 4 under UCBVI-Hoeffding"),
    ("dp-ucbvi-jdp", _preset(CENTRAL_TREE, True), "JDP", "central-tree", "bernstein",
     "DP-UCBVI (Qiao & Wang 2023) row of Bai et al. Table I; Assumption 4, Eq. 4-5"),
    ("dp-ucbvi-ldp", _preset(LOCAL_LAPLACE, True), "LDP", "local-laplace", "bernstein",
     "DP-UCBVI (Qiao & Wang 2023) row of Bai et al. Table I; Assumption 4, Eq. 4-5"),
]
_KIND = {"central-tree": CENTRAL_TREE, "local-laplace": LOCAL_LAPLACE, "shuffle-bitsum": SHUFFLE_BITSUM}
SPECS = {}
for _name, (_init, _episodes), _model, _priv, _bonus, _ref in _PRESETS:
    _defaults = dict(_COMMON)
    if _priv == "shuffle-bitsum":
        _defaults["beta"] = 0.05
    SPECS[_name] = register(AgentSpec(
        name=_name, init_state=_init, run_episodes=_episodes, defaults=_defaults, privacy_model=_model, reference=_ref,
        domains={k: _DOMAINS[k] for k in _defaults},
        description=f"RECONSTRUCTION. UCBVI-{_bonus} on post-processed {_priv} counts "
                    f"(+ privacy term 2(SH+1)E/N); noise=0 gives the exact-count counterpart; "
                    f"z > 0: E = 4 z sd of the release noise (matched coverage)",
        privatizer=_priv, reconstruction=True, guarantees=_guarantees_for(_model),
        audit_probe=AuditProbe(init_state, run_episodes, lambda p, k=_KIND[_priv], b=_bonus == "bernstein": (k, b), 1,
                               power_multiplier=0.05 if _priv == "shuffle-bitsum" else 0.5),
        crossover_rule=optimism_rule(width_for(_KIND[_priv], _bonus == "bernstein"),
                                     f"UCBVI-{_bonus} bonus + 2(SH+1)E/N, E of the {_priv} privatizer"),
        # doubling batches of one policy: aggregate simulation (privrl.agents.private_ucbvi_aggregate),
        # ~log2 K batches per seed; the JDP/LDP presets replan every episode
        simulations={"episode": ("K", "1"), **({"aggregate": ("1", "L")} if _priv == "shuffle-bitsum" else {})}))
BERNSTEIN = {_name: _bonus == "bernstein" for _name, _k, _m, _p, _bonus, _r in _PRESETS}  # name -> Bernstein bonus
