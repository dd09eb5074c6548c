"""Private batch counts and model estimates of SDP-PE (Bai et al. Sec. III-A, Sec. V, Def. 5).

One *batch* (a crude-exploration layer D^h, Alg. 2 line 7, or the whole fine-exploration set
D, Alg. 3 line 5) is released once through a fresh privatizer (the forgetting principle:
no state is shared between batches). Each counter gets ``eps' = eps / (3H)`` (Bai Sec. V-A).

Privatizers (codes of :mod:`privrl.mechanisms.privatizer`), all fed the batch's column sums:

* ``shuffle-bitsum`` (SDP, the paper's): Alg. 4 per counter with ``n_users`` = batch size;
* ``central-tree`` (JDP): a fresh binary mechanism of horizon 1 = the Laplace mechanism
  ``Lap(1/eps')`` on the batch counts (a reconstruction: Bai et al. only name the model);
* ``local-laplace`` (LDP): every user's count vector gets ``Lap(2/eps')`` per coordinate
  (sensitivity 2: two trajectories differ by <= 2 per layer and family in l1; reconstruction);
* ``none``: exact counts (non-private policy elimination, APEVE of Qiao et al. 2022).

:func:`release_counts` releases the batch's column sums through a fresh privatizer's
``release_sums`` (``privatizer_release_batch`` would need the users' rows X[m, n], ~230 MB at
m ~ 2.4e5 users; docs/decisions/agents.md S6); tests/agents/test_sdp_pe.py checks the outputs against
``privatizer_release_batch`` bit for bit.

Error level E (Assumption 4 needs ``|N.. - N| <= E/4`` for Eq. 4-5) is computed from each
mechanism's tail, union-bounded over ``n_rel`` counter releases per family at level delta
(:func:`error_level`); ``none`` uses ``E = 1`` (APEVE's thresholds) and skips post-processing.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.privatizer import (
    CENTRAL_TREE,
    LOCAL_LAPLACE,
    NONE,
    SHUFFLE_BITSUM,
    bitsum_tau,
    door,
    laplace_sum_release,
    postprocess_counts,
)

# the privatizer door restricted to the kinds SDP-PE uses (numba compiles only those)
_DOOR = door("none", "central-tree", "local-laplace", "shuffle-bitsum")


@njit(cache=True)
def sensitivity_of(code):
    """Per-counter sensitivity at eps' (local: 2, any two trajectories; else 1, one user's bit)."""
    return 2.0 if code == LOCAL_LAPLACE else 1.0


@njit(cache=True)
def error_level(code, eps_c, beta, n_users, delta, n_rel):
    """E with ``Pr[max_counters |noise| > E/4] <= delta`` over ``n_rel`` releases of one family.

    shuffle-bitsum: ``Q - E[Q]``, Chernoff as in Lemma 42 with ``E[Q] <= tau``:
    ``E/4 = sqrt(3 tau log(2 n_rel/delta))``. central: ``Lap(b)``, ``b = 1/eps'``:
    ``E/4 = b log(n_rel/delta)``. local: sum of ``m`` ``Lap(b)``, ``b = 2/eps'`` (sub-exponential
    with nu^2 = 4 m b^2, alpha = sqrt(2) b): ``E/4 = max(sqrt(8 m b^2 L), 2 sqrt(2) b L)``,
    ``L = log(2 n_rel/delta)``. none: 1.
    """
    if code == NONE:
        return 1.0
    L = math.log(2.0 * n_rel / delta)
    if code == SHUFFLE_BITSUM:
        return 4.0 * math.sqrt(3.0 * bitsum_tau(eps_c, beta) * L)
    b = sensitivity_of(code) / eps_c
    if code == CENTRAL_TREE:
        return 4.0 * b * math.log(n_rel / delta)
    if code == LOCAL_LAPLACE:
        m = max(n_users, 1)
        return 4.0 * max(math.sqrt(8.0 * m * b * b * L), 2.0 * math.sqrt(2.0) * b * L)
    raise ValueError("SDP-PE supports privatizers none, central-tree, local-laplace, shuffle-bitsum")


@njit(cache=True)
def release_counts(code, eps_c, beta, x, n_users, rng, out):
    """out[n] <- private sums of x[n] (column sums of one batch of ``n_users`` users) through a
    fresh privatizer of kind ``code`` (horizon 1: central-tree is the Laplace mechanism)."""
    state = _DOOR.new(code, x.shape[0], 1, eps_c, sensitivity_of(code), beta, np.int64(1))
    _DOOR.release_sums(code, state, x, n_users, rng, out)


@njit(cache=True)
def private_batch(code, eps_c, beta, delta, n_rel, n_sas, n_sa, r_sa, n_users, rng, o_sas, o_sa, o_r, summed=False):
    """Private N~(x,a,x') [m, X], N~(x,a) [m] (Eq. 4-5 post-processed) and R~ [m]; returns E.

    Rows are (h, x, a) tuples; ``r_sa`` may be empty (crude batches release no rewards).
    With ``n_users == 0`` nothing is released (no data): all outputs are zero.
    ``summed`` (the aggregate simulation): the local-laplace noise of the ``n_users`` users is
    drawn as one sum per counter (:func:`~privrl.mechanisms.laplace_sum.laplace_sum_release`,
    the same law); the other kinds already draw one variate per counter.
    """
    m, X = n_sas.shape
    nr = r_sa.shape[0]
    E = error_level(code, eps_c, beta, n_users, delta, n_rel)
    if n_users == 0:
        o_sas[:, :] = 0.0
        o_sa[:] = 0.0
        if nr > 0:
            o_r[:] = 0.0
        return E
    if code == NONE:
        for i in range(m):  # explicit copies: array-to-array slice assignment is slow to compile
            for j in range(X):
                o_sas[i, j] = n_sas[i, j]
            o_sa[i] = n_sa[i]
        for i in range(nr):
            o_r[i] = r_sa[i]
        return E
    x = np.empty(m * X + m + nr)
    for i in range(m):
        for j in range(X):
            x[i * X + j] = n_sas[i, j]
        x[m * X + i] = n_sa[i]
    for i in range(nr):
        x[m * X + m + i] = r_sa[i]
    y = np.empty_like(x)
    if summed and code == LOCAL_LAPLACE:
        laplace_sum_release(x, sensitivity_of(code), eps_c, n_users, rng, y)
    else:
        release_counts(code, eps_c, beta, x, n_users, rng, y)
    noisy_sas = y[: m * X].copy().reshape((m, X))
    noisy_sa = y[m * X: m * X + m].copy()
    t = np.empty(m)
    postprocess_counts(noisy_sas, noisy_sa, E, o_sas, o_sa, t)
    for i in range(nr):
        o_r[i] = y[m * X + m + i]
    return E


@njit(cache=True)
def mark_infrequent(Nt_sas, thr, W_h):
    """Alg. 2 line 9: W_h[x, a, x'] = N~_h(x, a, x') <= thr (``thr = C1 E H^2 iota``). Nt_sas[X*A, X]."""
    XA, X = Nt_sas.shape
    A = XA // X
    for x in range(X):
        for a in range(A):
            for x2 in range(X):
                W_h[x, a, x2] = Nt_sas[x * A + a, x2] <= thr


@njit(cache=True)
def estimate_layer(Nt_sas, Nt_sa, W_h, P_h):
    """"Estimate Transition" (Alg. 2 line 10, Alg. 3 line 8; Def. 5 with P~ of Eq. 2).

    P_h[x, a, x'] = N~(x,a,x') / N~(x,a) off W, 0 on W, the rest to x-dagger (index X);
    x-dagger is absorbing. Nt_sas[X*A, X], Nt_sa[X*A] (one layer), P_h[X+1, A, X+1].
    """
    XA, X = Nt_sas.shape
    A = XA // X
    P_h[:, :, :] = 0.0
    for x in range(X):
        for a in range(A):
            n = Nt_sa[x * A + a]
            kept = 0.0
            for x2 in range(X):
                if n > 0.0 and not W_h[x, a, x2]:
                    p = Nt_sas[x * A + a, x2] / n
                    P_h[x, a, x2] = p
                    kept += p
            P_h[x, a, X] = max(0.0, 1.0 - kept)
    for a in range(A):
        P_h[X, a, X] = 1.0


@njit(cache=True)
def estimate_rewards(Rt, Nt_sa, r_h):
    """"Estimate Rewards" (Alg. 3 line 9, Eq. 2): r~ = R~ / N~ clipped to [0, 1]; 0 where N~ = 0
    and at x-dagger. Rt, Nt_sa [X*A] (one layer); r_h[X+1, A]. The clip is ours (docs/decisions/agents.md S7)."""
    Xe, A = r_h.shape
    r_h[:, :] = 0.0
    for x in range(Xe - 1):
        for a in range(A):
            n = Nt_sa[x * A + a]
            if n > 0.0:
                r_h[x, a] = min(1.0, max(0.0, Rt[x * A + a] / n))


@njit(cache=True)
def initial_distribution(Nt_sa, d1):
    """d1[X+1] <- the private layer-1 visit frequencies sum_a N~_1(x, a) (uniform if none); d1[X] = 0."""
    Xe = d1.shape[0]
    X = Xe - 1
    A = Nt_sa.shape[0] // X
    tot = 0.0
    for x in range(X):
        v = 0.0
        for a in range(A):
            v += max(Nt_sa[x * A + a], 0.0)
        d1[x] = v
        tot += v
    for x in range(X):
        d1[x] = d1[x] / tot if tot > 0.0 else 1.0 / X
    d1[X] = 0.0


def preset_guarantees(privatizer: str, model: str):
    """The guarantees of an SDP-PE preset (privrl.agents.sdp_pe.PRESETS) with this Privatizer:
    ``guarantees(params, mdp, K) -> [Guarantee]`` as AgentSpec takes it (none for plain PE)."""
    def guarantees(params, mdp, K):
        from privrl.mechanisms import accounting, events, release_guarantees  # lazily: scipy costs ~1 s of import in every run job

        if model == "none":
            return []
        if model == "SDP":
            return [release_guarantees.sdp_pe_guarantee(params["epsilon"], params["beta"], mdp.H)]
        note = ("reconstruction: Bai et al. name the model only; per-counter eps/(3H) as Sec. V-A, "
                + ("central Laplace on each batch (add/remove neighbours)" if model == "JDP"
                   else "each user's counts + Lap(2 * 3H/eps) per coordinate"))
        src = f"Bai et al. Alg. 1 with the {privatizer} Privatizer"
        eps, H = params["epsilon"], mdp.H
        if model == "JDP":
            return [accounting.central_counters_jdp(eps, H, events.LaplaceEvent(3.0 * H / eps), src, note)]
        return [accounting.laplace_ldp_guarantee(eps, 6.0 * H, src, note)]
    return guarantees
