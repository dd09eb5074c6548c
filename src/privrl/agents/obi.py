"""LDP-OBI with the Laplace mechanism and Shuffled-OBI (Garcelon, Perchet, Pike-Burke, Pirotta).

Both agents keep a *stationary* model (counts summed over h, as in the papers) and plan
with Eq. 17 of the ICML-21 workshop note (:func:`optimism.stationary_plan`) from the
estimators of Eq. 16 and the widths of Prop. 7 (note, App. B)::

    r~ = R~ / (N~^r + alpha c2),     p~(s'|s,a) = N~^p(s,a,s') / (N~^p(s,a) + alpha c3)
    beta^r = sqrt(2 L_k / (N~^r + alpha c2)) + ((alpha+1) c2 + c1) / (N~^r + alpha c2)
    beta^p = sqrt(14 S L_k / (N~^p + alpha c3)) + (S c4 + (alpha+1) c3) / (N~^p + alpha c3)
    b_{h,k} = bonus_scale ((H - h + 1) beta^p + beta^r),   L_k = ln(4 pi^2 S A H k^3 / (3 delta))

with c1..c4 the deviation bounds of R~, N~^r, N~^p(s,a) = sum_s' N~^p(s,a,s') and N~^p(s,a,s')
(the printed Prop. 7 lists c3 and c4 for the same quantity; decisions, "Prop. 7 typo"),
each at confidence ``delta_k = 3 delta / (2 pi^2 k^2)`` (Alg. 4) split over the four
families and union-bounded over their counters. N^p counts the transitions h = 1..H-1
(Prop. 7), N^r and R the steps h = 1..H.

* ``ldp-obi`` (Garcelon et al. 2021 as summarised in the note's App. B / Table 1 --
  a *reconstruction*: the note does not print the mechanism): every user adds i.i.d.
  Laplace((6H - 2)/eps) to each coordinate of its count vector [N^r | R | N^p] (l1
  sensitivity 2H + 2H + 2(H-1)) through the ``local-laplace`` privatizer: eps-LDP.
  c_{k,i} = :func:`privrl.mechanisms.bounds.laplace_sum_bound` of the (k-1) (or S (k-1)) noise terms.
* ``shuffled-obi`` (note Alg. 1-4): tau burn-in episodes with uniformly random
  deterministic policies; every user applies M_sh (Alg. 3: one-hot x, y of Eq. 4, unary
  reward code of Eq. 5 with m bits) with per-bit eps = eps0/((4 + 2m) H) (Lemma 4) through
  the ``shuffle-rr`` privatizer (R_p, shuffler, unbiased Eq. 6 analyzer); c_{k,i} from
  Eq. 7-8 as printed (ln(1/delta) read one-sided: applied at delta/2 per tail). Reports
  eps0-LDP and eps0-JDP for the whole sequence of releases: every user's messages are released
  after its episode, so Prop. 5's amplified (eps_{c,tau}, delta0)-JDP is not delivered (named in
  the guarantee's note only).

``z`` > 0 (matched coverage; default 0 = the paper): every deviation bound c_i is replaced by
``z`` standard deviations of the realised noise of its statistic
(:func:`privrl.mechanisms.bounds.laplace_sum_sd`; ``rr_count_sd`` / ``rr_reward_sd`` for the
debiased R_p sums), and ``bonus_scale`` multiplies only the statistical parts of beta^r, beta^p.

``noise = 0``: exact counts, all c = 0 (and no M_sh / unary rounding): both agents reduce
to the same non-private OBI. Episode k (0-based) plans from the k users released so far.

Parameters (vector order) -- ldp-obi: epsilon, bonus_scale, delta, alpha, noise, z;
shuffled-obi: epsilon (= eps0), bonus_scale, delta, alpha, m, tau, tau_power, delta0, noise, z
(tau_power > 0 sets tau = ceil(K^tau_power), e.g. 1/3 for Table 1's tau = K^(1/3)).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms import accounting, events, release_guarantees
from privrl.rl import engine
from privrl.mechanisms.bounds import (laplace_sum_bound, laplace_sum_bound_ln, laplace_sum_sd, rr_count_sd,
                                      rr_count_width, rr_count_width_lg, rr_reward_sd, rr_reward_width,
                                      rr_reward_width_lg)
from privrl.mechanisms.privatizer import (
    LOCAL_LAPLACE,
    NONE,
    SHUFFLE_RR,
    door,
    rr_p_from_epsilon,
    unary_count,
)
from privrl.agents.optimism import obi_width_parts, obi_widths, stationary_plan_1
from privrl.agents.audit_probe import AuditProbe
from privrl.agents.crossover import optimism_rule, uniform_visits
from privrl.agents.registry import (
    COUNT, HALF_OPEN_UNIT, NONNEGATIVE, NONNEGATIVE_INTEGER, OPEN_UNIT, POSITIVE, SWITCH, AgentSpec, register)

# each kernel's privatizer door restricted to the kinds it uses (numba compiles only those: the general door
# would inline every kind's release into each of Shuffled-OBI's three release sites); the spy tests replace
# ``privatizer_release`` (LDP-OBI) and ``shuffled_release``
_LDP_DOOR, _SHUFFLED_DOOR = door("none", "local-laplace"), door("none", "shuffle-rr")
privatizer_new, privatizer_release = _LDP_DOOR.new, _LDP_DOOR.release
shuffled_new, shuffled_release = _SHUFFLED_DOOR.new, _SHUFFLED_DOOR.release

# ldp-obi parameter indices
L_EPS, L_SCALE, L_DELTA, L_ALPHA, L_NOISE, L_Z = 0, 1, 2, 3, 4, 5
#: Shuffled-OBI's shortest horizon: its transition messages y encode steps h = 1..H-1 (Garcelon note Alg. 4)
SHUFFLED_MIN_HORIZON = 2
# shuffled-obi parameter indices
S_EPS, S_SCALE, S_DELTA, S_ALPHA, S_M, S_TAU, S_TAU_POWER, S_DELTA0, S_NOISE, S_Z = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9


@njit(cache=True, inline="always")
def _model(nr, rs, nps, c1, c2, c3, c4, alpha, Lk, scale, split, p1, r_plus, bp):
    """Eq. 16 + Prop. 7 for all (s, a): nr[S, A] = N~^r, rs[S, A] = R~, nps[S, A, S] = N~^p.

    Fills p1[0, S, A, S] = p~, r_plus[S, A] = r~ + scale beta^r, bp[S, A] = scale beta^p; with
    ``split`` (matched coverage, z > 0) ``scale`` multiplies only the statistical parts.
    Inlined into the episode loops, which are fastmath-free as it is (so the same numbers).
    """
    S, A = nr.shape
    for s in range(S):
        for a in range(A):
            np_sa = 0.0
            for s2 in range(S):
                np_sa += nps[s, a, s2]
            if split:
                sr, pr, sp, pp, den_r, den_p = obi_width_parts(nr[s, a], np_sa, c1, c2, c3, c4, alpha, Lk, S)
                br_s, bp_s = scale * sr + pr, scale * sp + pp
            else:
                br, bpp, den_r, den_p = obi_widths(nr[s, a], np_sa, c1, c2, c3, c4, alpha, Lk, S)
                br_s, bp_s = scale * br, scale * bpp
            if den_r > 0.0 and den_p > 0.0:
                r_plus[s, a] = rs[s, a] / den_r + br_s
                bp[s, a] = bp_s
                inv = 1.0 / den_p
                for s2 in range(S):
                    p1[0, s, a, s2] = nps[s, a, s2] * inv
            else:
                r_plus[s, a] = np.inf
                bp[s, a] = np.inf


@njit(cache=True)
def _planning_buffers(H, S, A):
    """Both OBI kernels' work arrays: p1[1, S, A, S] (p~), r_plus, bp [S, A], pi[H, S], V[H + 1, S],
    trajectory, eval cache."""
    return (np.zeros((1, S, A, S)), np.zeros((S, A)), np.zeros((S, A)), np.zeros((H, S), np.int64),
            np.zeros((H + 1, S)), engine.new_trajectory(H), engine.new_eval_cache(H, S))


@njit(cache=True, inline="always")
def _lk(S, A, H, k1, delta):
    """L_k = ln(4 pi^2 S A H k^3 / (3 delta)) for the 1-based episode k1 (Prop. 7). LDP-OBI's loop takes it
    as ``ln(4 pi^2 S A H / (3 delta)) + 3 ln k1``, sharing ln k1 with its deviation bounds (the same number up
    to rounding)."""
    return math.log(4.0 * math.pi ** 2 * S * A * H * float(k1) ** 3 / (3.0 * delta))


def ldp_init_state(env, params, K):
    """LDP-OBI's state: (privatizer state, x, c, *planning buffers); x, c [S A (S + 2)] the user's
    count vector and the released sums [N^r | R | N^p]."""
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    n_cnt = S * A * (S + 2)  # [N^r (SA) | R (SA) | N^p (SAS)]
    noise = params[L_NOISE] > 0.5
    code = LOCAL_LAPLACE if noise else NONE
    state = privatizer_new(code, n_cnt, K, params[L_EPS] if noise else 1.0, 6.0 * H - 2.0, 0.0, np.int64(1))
    return (state, np.zeros(n_cnt), np.zeros(n_cnt)) + _planning_buffers(H, S, A)


@njit(cache=True, inline="always")
def _ldp_bounds(k, b, A12, lS, S):
    """LDP-OBI's c12, c3, c4 after ``k`` users (the paper's c_{k,i}, Prop. 7): :func:`laplace_sum_bound`
    of the k, S k and k noise terms of N~^r / R~, N~^p(s, a) and N~^p(s, a, s') at
    ``delta_k / (4 S A)``, ``/ (4 S A)``, ``/ (4 S A S)``, given ``A12 = ln(2 / (delta_k / (4 S A)))``
    and ``lS = ln S``; with S = 1 the three coincide and one is solved."""
    c12 = laplace_sum_bound_ln(float(k), b, A12)
    if S == 1:
        return c12, c12, c12
    return c12, laplace_sum_bound_ln(float(S * k), b, A12), laplace_sum_bound_ln(float(k), b, A12 + lS)


@njit(cache=True)
def ldp_kernel(env, params, K, k0, k1, rng, rec, st):
    """The registry's entry point: :func:`ldp_run_episodes` (the arguments' owner, so numba's
    reference counting stays on here and off in the loop; engine.py)."""
    ldp_run_episodes(env, params, K, k0, k1, rng, rec, st)


@njit(cache=True, _nrt=False, error_model="numpy")  # see the docstring
def ldp_run_episodes(env, params, K, k0, k1, rng, rec, st):
    """LDP-OBI with the Laplace mechanism (reconstruction; see module docstring), episodes k0..k1-1.

    Compiled without reference counting (its owner :func:`ldp_kernel` holds the arrays); the model
    is inlined, the planner is one call (:func:`stationary_plan_1`, the planners' flags), the
    deviation bounds are :func:`_ldp_bounds` (a fixed cost once k >= 100 ln(2 / d)). ``error_model="numpy"``: a
    float division by zero would give inf / nan instead of raising (none occurs: every divisor is
    guarded or a positive parameter), so the divisions carry no zero test; the numbers are the same."""
    state, x, c, p1, r_plus, bp, pi, V, traj, evc = st
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    SA = S * A
    eps, scale, delta, alpha = params[L_EPS], params[L_SCALE], params[L_DELTA], params[L_ALPHA]
    noise = params[L_NOISE] > 0.5
    z = params[L_Z]
    split = z > 0.0
    b = (6.0 * H - 2.0) / eps if noise else 0.0
    code = LOCAL_LAPLACE if noise else NONE
    nr = c[:SA].reshape((S, A))  # views of the released sums, made once per call
    rs = c[SA:2 * SA].reshape((S, A))
    nps = c[2 * SA:].reshape((S, A, S))
    states, actions, rewards = traj
    # the episode's logarithms from one ln(k + 1): L_k = lk0 + 3 ln(k + 1) (:func:`_lk`) and, with
    # delta_k = 3 delta / (2 pi^2 (k + 1)^2) (Alg. 4), ln(2 / (delta_k / (4 S A))) = la0 + 2 ln(k + 1)
    lk0 = math.log(4.0 * math.pi ** 2 * S * A * H / (3.0 * delta))
    la0 = math.log(16.0 * math.pi ** 2 * SA / (3.0 * delta))
    lS = math.log(float(S))
    for k in range(k0, k1):
        l1 = math.log(k + 1.0)
        if split:  # matched coverage: z sd of the Laplace sums
            c12 = z * laplace_sum_sd(k, b)
            c3 = z * laplace_sum_sd(S * k, b)
            c4 = c12
        elif noise:
            c12, c3, c4 = _ldp_bounds(k, b, la0 + 2.0 * l1, lS, S)
        else:
            c12 = c3 = c4 = 0.0
        _model(nr, rs, nps, c12, c12, c3, c4, alpha, lk0 + 3.0 * l1, scale, split, p1, r_plus, bp)
        aux = stationary_plan_1(p1, r_plus, bp, nr, pi, V)
        engine.step(env, pi, k, aux, rng, traj, evc, rec)
        for h in range(H):
            i = states[h] * A + actions[h]
            x[i] += 1.0
            x[SA + i] += rewards[h]
            if h < H - 1:
                x[2 * SA + i * S + states[h + 1]] += 1.0
        privatizer_release(code, state, x, rng, c)
        for h in range(H):  # x back to 0 (only the entries this user touched are nonzero)
            i = states[h] * A + actions[h]
            x[i] = 0.0
            x[SA + i] = 0.0
            if h < H - 1:
                x[2 * SA + i * S + states[h + 1]] = 0.0


@njit(cache=True)
def shuffled_tau(params, K):
    """Burn-in length: ceil(K^tau_power) if tau_power > 0, else the tau parameter."""
    if params[S_TAU_POWER] > 0.0:
        return int(math.ceil(K ** params[S_TAU_POWER] - 1e-9))
    return int(params[S_TAU])


def shuffled_init_state(env, params, K):
    """Shuffled-OBI's state: (st_x, st_y, st_r, xx, xy, xr, nr, rs_ones, rs, nps, r1, o1, *planning
    buffers): the three R_p privatizers (visits [S A], transitions [S A S], unary rewards [S A]),
    the user's messages, the released N~^r [S, A], unary-reward sums [S A], R~ [S, A], N~^p
    [S, A, S], and one-element work arrays of the unary coding."""
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    if H < SHUFFLED_MIN_HORIZON:
        raise ValueError(f"shuffled-obi needs H >= {SHUFFLED_MIN_HORIZON} (the y encoding has H - 1 steps)")
    SA = S * A
    m = int(params[S_M])
    noise = params[S_NOISE] > 0.5
    eps_bit = params[S_EPS] / ((4.0 + 2.0 * m) * H)  # Lemma 4
    code = SHUFFLE_RR if noise else NONE
    e_arg = eps_bit if noise else 1.0
    st_x = shuffled_new(code, SA, K, e_arg, 1.0, 0.0, H)
    st_y = shuffled_new(code, SA * S, K, e_arg, 1.0, 0.0, H - 1)
    st_r = shuffled_new(code, SA, K, e_arg, 1.0, 0.0, m * H)
    return (st_x, st_y, st_r, np.zeros(SA), np.zeros(SA * S), np.zeros(SA), np.zeros((S, A)), np.zeros(SA),
            np.zeros((S, A)), np.zeros((S, A, S)), np.zeros(1), np.zeros(1)) + _planning_buffers(H, S, A)



@njit(cache=True, inline="always")
def shuffled_deviation_bounds(k, H, S, m, p, d_sa, d_sas):
    """Shuffled-OBI's c1..c4 (Garcelon note Prop. 7) after ``k`` released users, from Eq. 7-8 as
    printed: c1 of R~ (Eq. 8 at k + 1), c2 of N~^r (k H bits), c3 of N~^p(s, a) (S k H bits), c4 of
    N~^p(s, a, s') (k H bits), at ``d_sa`` (families of S A counters) and ``d_sas`` (S A S).
    ``ln(1/d_sa)`` is taken once for c1..c3; with S = 1 (then d_sas = d_sa) c3 and c4 are c2."""
    lg = math.log(1.0 / d_sa)
    c2 = rr_count_width_lg(k * H, p, lg)
    if S == 1:
        c3 = c4 = c2
    else:
        c3 = rr_count_width_lg(S * k * H, p, lg)
        c4 = rr_count_width_lg(k * H, p, math.log(1.0 / d_sas))
    return rr_reward_width_lg(k + 1.0, H, m, p, d_sa, lg), c2, c3, c4


@njit(cache=True, _nrt=True)  # numba's rng.integers allocates: reference counting on here, set explicitly
def _random_policy(pi, A, rng):  # (a callee inherits the loop's _nrt=False otherwise)
    """Alg. 4's burn-in: a uniformly random deterministic policy, pi[h, s] ~ U{0..A-1} in (h, s) order."""
    for h in range(pi.shape[0]):
        for s in range(pi.shape[1]):
            pi[h, s] = rng.integers(0, A)


@njit(cache=True)
def shuffled_kernel(env, params, K, k0, k1, rng, rec, st):
    """The registry's entry point: :func:`shuffled_run_episodes` (the arguments' owner, so numba's
    reference counting stays on here and off in the loop; engine.py)."""
    shuffled_run_episodes(env, params, K, k0, k1, rng, rec, st)


@njit(cache=True, _nrt=False, error_model="numpy")  # see ldp_run_episodes
def shuffled_run_episodes(env, params, K, k0, k1, rng, rec, st):
    """Shuffled-OBI (Garcelon note Alg. 4 with M_sh of Alg. 3; see module docstring), episodes k0..k1-1.

    Compiled without reference counting (its owner :func:`shuffled_kernel` holds the arrays); the
    model inlined, the planner one call (:func:`stationary_plan_1`)."""
    st_x, st_y, st_r, xx, xy, xr, nr, rs_ones, rs, nps, r1, o1, p1, r_plus, bp, pi, V, traj, evc = st
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    SA = S * A
    eps0, scale, delta, alpha = params[S_EPS], params[S_SCALE], params[S_DELTA], params[S_ALPHA]
    m = int(params[S_M])
    noise = params[S_NOISE] > 0.5
    z = params[S_Z]
    split = z > 0.0
    tau = shuffled_tau(params, K)
    eps_bit = eps0 / ((4.0 + 2.0 * m) * H)  # Lemma 4
    p = rr_p_from_epsilon(eps_bit) if noise else 0.0
    code = SHUFFLE_RR if noise else NONE
    rs_flat, nr_flat, nps_flat = rs.reshape(SA), nr.reshape(SA), nps.reshape(SA * S)  # views, made once
    states, actions, rewards = traj
    for k in range(k0, k1):
        if k < tau:
            _random_policy(pi, A, rng)
            aux = 1.0
        else:
            dk = 3.0 * delta / (2.0 * math.pi ** 2 * (k + 1.0) ** 2)
            d_sa = dk / (8.0 * SA)  # 4 families, two tails
            d_sas = dk / (8.0 * SA * S)
            if noise and split:  # matched coverage: z sd of the debiased R_p sums
                c1 = z * rr_reward_sd(k + 1.0, H, m, p)
                c2 = z * rr_count_sd(k * H, p)
                c3 = z * rr_count_sd(S * k * H, p)
                c4 = c2
            elif noise:
                c1, c2, c3, c4 = shuffled_deviation_bounds(k, H, S, m, p, d_sa, d_sas)
            else:
                c1 = c2 = c3 = c4 = 0.0
            for j in range(SA):
                rs_flat[j] = rs_ones[j] / m
            _model(nr, rs, nps, c1, c2, c3, c4, alpha, _lk(S, A, H, k + 1, delta), scale, split, p1, r_plus, bp)
            aux = stationary_plan_1(p1, r_plus, bp, nr, pi, V)
        engine.step(env, pi, k, aux, rng, traj, evc, rec)
        for h in range(H):
            i = states[h] * A + actions[h]
            xx[i] += 1.0
            if noise:
                r1[0] = rewards[h]
                unary_count(r1, m, rng, o1)  # Eq. 5: number of ones of the unary code
                xr[i] += o1[0]
            else:
                xr[i] += m * rewards[h]
            if h < H - 1:
                xy[i * S + states[h + 1]] += 1.0
        shuffled_release(code, st_x, xx, rng, nr_flat)
        shuffled_release(code, st_y, xy, rng, nps_flat)
        shuffled_release(code, st_r, xr, rng, rs_ones)
        for h in range(H):  # the messages back to 0 (only this user's entries are nonzero)
            i = states[h] * A + actions[h]
            xx[i] = 0.0
            xr[i] = 0.0
            if h < H - 1:
                xy[i * S + states[h + 1]] = 0.0


def _ldp_guarantees(p, mdp, K):
    """eps-LDP (Garcelon et al. Table 1); an eps-LDP protocol is also eps-JDP (Table 1's JDP column)."""
    if p["noise"] < 0.5:
        return []
    return [accounting.ldp_obi_guarantee(p["epsilon"], mdp.H),
            accounting.Guarantee("JDP", p["epsilon"], 0.0, "implied by eps-LDP (Garcelon et al. note, Table 1)",
                                 "every output is post-processing of eps-LDP messages", events.REPLACEMENT)]


def shuffled_tau_py(p, K: int) -> int:
    return int(math.ceil(K ** p["tau_power"] - 1e-9)) if p["tau_power"] > 0 else int(p["tau"])


def _shuffled_guarantees(p, mdp, K):
    """The whole sequence of releases: eps0-LDP (Lemma 4) and eps0-JDP. Each user's messages are
    released with its own episode's counts (a shuffled batch of one), so Prop. 5's amplified
    eps_{c,tau} is not delivered (reported in the JDP note only; decisions, "Guarantees that follow
    the release pattern")."""
    if p["noise"] < 0.5:
        return []
    return release_guarantees.shuffled_obi_guarantees(p["epsilon"], int(p["m"]), mdp.H, shuffled_tau_py(p, K), p["delta0"],
                                              shuffled_batch=1)


def _obi_width(p, mdp, K, c1, c2, c3, c4):
    """Eq. 17's bonus averaged over h, ``s (beta^r + (H + 1)/2 beta^p)`` (Prop. 7), at the
    counts of K episodes of uniform visitation (N^r over H steps, N^p over H - 1); with z > 0
    (the c's are then z sd) s multiplies only the statistical parts."""
    H, S, A = mdp.H, mdp.S, mdp.A
    nr = uniform_visits(K, mdp, stationary=True)
    sr, pr, sp, pp, _dr, _dp = obi_width_parts(nr, nr * (H - 1.0) / H, c1, c2, c3, c4, p["alpha"],
                                               _lk(S, A, H, K, p["delta"]), S)
    s = p["bonus_scale"]
    if p.get("z", 0.0) > 0.0:
        return s * sr + pr + 0.5 * (H + 1.0) * (s * sp + pp)
    return s * ((sr + pr) + 0.5 * (H + 1.0) * (sp + pp))


def _delta_k(p, K):
    return 3.0 * p["delta"] / (2.0 * math.pi ** 2 * K ** 2)


def ldp_step_width(p, mdp, K):
    """LDP-OBI's per-step bonus at K (the c's of ``ldp_run_episodes``)."""
    SA, S = mdp.S * mdp.A, mdp.S
    b = (6.0 * mdp.H - 2.0) / p["epsilon"] if p["noise"] > 0.5 else 0.0
    z = p.get("z", 0.0)
    if z > 0.0:
        c12 = z * laplace_sum_sd(K, b)
        return _obi_width(p, mdp, K, c12, c12, z * laplace_sum_sd(S * K, b), c12)
    dk = _delta_k(p, K)
    c12 = laplace_sum_bound(K, b, dk / (4.0 * SA))
    return _obi_width(p, mdp, K, c12, c12, laplace_sum_bound(S * K, b, dk / (4.0 * SA)),
                      laplace_sum_bound(K, b, dk / (4.0 * SA * S)))


def shuffled_step_width(p, mdp, K):
    """Shuffled-OBI's per-step bonus at K (Eq. 7-8 c's of ``shuffled_run_episodes``); inf during the burn-in."""
    H, SA, S, m = mdp.H, mdp.S * mdp.A, mdp.S, int(p["m"])
    if K <= shuffled_tau_py(p, int(K)):
        return math.inf
    if p["noise"] < 0.5:
        return _obi_width(p, mdp, K, 0.0, 0.0, 0.0, 0.0)
    q = rr_p_from_epsilon(p["epsilon"] / ((4.0 + 2.0 * m) * H))
    z = p.get("z", 0.0)
    if z > 0.0:
        c2 = z * rr_count_sd(K * H, q)
        return _obi_width(p, mdp, K, z * rr_reward_sd(K, H, m, q), c2, z * rr_count_sd(S * K * H, q), c2)
    dk = _delta_k(p, K)
    d_sa, d_sas = dk / (8.0 * SA), dk / (8.0 * SA * S)
    return _obi_width(p, mdp, K, rr_reward_width(K, H, m, q, d_sa), rr_count_width(K * H, q, d_sa),
                      rr_count_width(S * K * H, q, d_sa), rr_count_width(K * H, q, d_sas))


def ldp_count_deviation(p, mdp, K):
    """LDP-OBI: deviation of N~^r at K the planner assumes, ``s c2`` (paper) or ``z sd`` (z > 0)."""
    b = (6.0 * mdp.H - 2.0) / p["epsilon"] if p["noise"] > 0.5 else 0.0
    if p.get("z", 0.0) > 0.0:
        return p["z"] * laplace_sum_sd(K, b)
    return p["bonus_scale"] * laplace_sum_bound(K, b, _delta_k(p, K) / (4.0 * mdp.S * mdp.A))


def shuffled_count_deviation(p, mdp, K):
    """Shuffled-OBI: deviation of N~^r at K the planner assumes, ``s c2`` (Eq. 7) or ``z sd`` (z > 0)."""
    if p["noise"] < 0.5:
        return 0.0
    q = rr_p_from_epsilon(p["epsilon"] / ((4.0 + 2.0 * p["m"]) * mdp.H))
    if p.get("z", 0.0) > 0.0:
        return p["z"] * rr_count_sd(K * mdp.H, q)
    return p["bonus_scale"] * rr_count_width(K * mdp.H, q, _delta_k(p, K) / (8.0 * mdp.S * mdp.A))


OBI_FORMULA = "s (beta^r + (H+1)/2 beta^p), Prop. 7 widths"
OBI_DOMAINS = {"epsilon": POSITIVE, "bonus_scale": NONNEGATIVE, "delta": OPEN_UNIT, "alpha": POSITIVE,
               "noise": SWITCH, "z": NONNEGATIVE}

LDP_SPEC = register(AgentSpec(
    name="ldp-obi",
    init_state=ldp_init_state,
    run_episodes=ldp_kernel,
    defaults={"epsilon": 1.0, "bonus_scale": 1.0, "delta": 0.05, "alpha": 2.0, "noise": 1.0, "z": 0.0},
    domains=OBI_DOMAINS,
    privacy_model="LDP",
    reference="Garcelon et al. 2021 (LDP-OBI, Laplace mechanism) as summarised in App. B of the "
              "Garcelon et al. ICML-21 note: Eq. 16, Prop. 7, Eq. 17",
    description="RECONSTRUCTION. Stationary OBI on user counts noised with Lap((6H-2)/eps) "
                "per coordinate; c_{k,i} = Laplace-sum concentration bounds (decisions doc)",
    privatizer="local-laplace",
    reconstruction=True,
    guarantees=_ldp_guarantees,
    crossover_rule=optimism_rule(ldp_step_width, OBI_FORMULA + " with Laplace-sum c's"),
))

SHUFFLED_SPEC = register(AgentSpec(
    name="shuffled-obi",
    init_state=shuffled_init_state,
    run_episodes=shuffled_kernel,
    defaults={"epsilon": 1.0, "bonus_scale": 1.0, "delta": 0.05, "alpha": 2.0, "m": 1.0, "tau": 0.0,
              "tau_power": 0.0, "delta0": 1e-3, "noise": 1.0, "z": 0.0},
    domains={**OBI_DOMAINS, "m": COUNT, "tau": NONNEGATIVE_INTEGER, "tau_power": HALF_OPEN_UNIT, "delta0": OPEN_UNIT},
    privacy_model="SDP",
    reference="Garcelon, Perchet, Pike-Burke & Pirotta (ICML-21 RL-theory workshop), Alg. 1-4, "
              "Lemma 4, Eq. 6-8, Prop. 5, Thm 6",
    description="Shuffled-OBI: tau random-policy burn-in, M_sh at eps0/((4+2m)H) per bit, "
                "unbiased Eq. 6 counters, Eq. 7-8 widths, Eq. 17 planning; eps0-LDP and eps0-JDP "
                "(messages released per user: no shuffle amplification)",
    privatizer="shuffle-rr",
    reconstruction=False,
    guarantees=_shuffled_guarantees,
    audit_probe=AuditProbe(audit_params={"tau": 0.0}),
    crossover_rule=optimism_rule(shuffled_step_width, OBI_FORMULA + " with Eq. 7-8 c's"),
    min_horizon=SHUFFLED_MIN_HORIZON,
))
