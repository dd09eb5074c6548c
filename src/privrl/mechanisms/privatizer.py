"""One privatizer interface for all agents: none, central-tree, local-laplace, shuffle-bitsum, shuffle-rr.

An agent never draws privacy noise itself: it holds a privatizer *state* and hands each
episode's (or batch's) count increments to ``privatizer_release`` / ``privatizer_release_batch``,
getting back private cumulative counts. All functions are numba kernels callable from
Python and from njit agent kernels; ``make_privatizer`` is the Python constructor
(``privatizer_new`` is the same inside numba).

State -- the same array structure for every kind, ``state = (fstate, istate, fparams)``:

    fstate[R, n] float64   row 0 (ROW_CUM): private cumulative counts released so far
                           row 1 (ROW_LAST): private counts of the last release alone
                           central-tree only, L = horizon.bit_length() levels:
                           rows 2..2+L exact p-sums, 2+L..2+2L noisy p-sums,
                           2+2L..3+3L partial sums (see tree.py); R = 3 + 3L (else R = 2)
    istate[8] int64        I_KIND code, I_N counters, I_T releases so far, I_LEVELS L,
                           I_HORIZON max releases (tree), I_BITS bits per entry (rr),
                           I_USERS users absorbed so far, [7] reserved
    fparams[8] float64     F_EPS epsilon, F_SCALE Laplace scale (per node / coordinate),
                           F_P R_p probability, F_TAU bit-sum tau, F_BETA bit-sum beta,
                           F_SENS sensitivity, [6], [7] reserved

Kinds (``epsilon`` means, per kind):

* ``none`` (0): exact counts.
* ``central-tree`` (1, JDP; Vietri et al. Alg. 2 + App. A Alg. 5): one binary-mechanism step
  per release; each counter is ``epsilon``-DP for stream elements changing by at most
  ``sensitivity`` (node scale ``L * sensitivity / epsilon``). PUCB passes
  ``epsilon = eps / (3H)`` (``accounting.vietri_counter_epsilon``).
* ``local-laplace`` (2, LDP; reconstruction of LDP-OBI's Laplace mechanism): each user's
  increment vector gets i.i.d. ``Lap(sensitivity / epsilon)`` per coordinate -- ``epsilon``-LDP
  when one user's vector changes by at most ``sensitivity`` in l1.
* ``shuffle-bitsum`` (3, SDP; Bai et al. Sec. V + App. Alg. 4): per counter, the (eps, beta)
  shuffle binary summation over the users of the batch (``tau = 96 log(2/beta)/eps^2``);
  entries are the users' bits (0/1; an integer c is summed as c ones). Bai et al. pass
  ``epsilon = eps / (3H)``. A single-user ``privatizer_release`` is a batch of one.
* ``shuffle-rr`` (4, SDP; Garcelon et al. Alg. 2-3, Eq. 6): every one of the ``bits_per_entry``
  bits of an entry goes through R_p with ``p = 2/(e^epsilon + 1)`` (``epsilon`` = the per-bit
  M_sh parameter, Lemma 4: ``eps0 / ((4 + 2m) H)``); entries are counts of ones in
  ``[0, bits_per_entry]`` (e.g. ``bits_per_entry = H`` for Eq. 6's per-(s, a) counters
  summed over h, ``m H`` for the unary reward codes); the released counts are the unbiased
  debiased sums. The shuffle is omitted: the analyzer only sums, so it is invariant.

Batch releases (``privatizer_release_batch`` on rows X[m, n], or ``privatizer_release_sums`` on
the batch's column sums alone) add the batch's private counts (also left in row ROW_LAST, for algorithms
that forget past batches such as Bai et al.'s SDP-PE) to the cumulative row.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.bitsum import bitsum_release, bitsum_tau
from privrl.mechanisms.laplace import laplace_release
from privrl.mechanisms.rr import rr_debias, rr_p_from_epsilon, rr_sum_counts
from privrl.mechanisms.tree import tree_levels, tree_step

NONE = 0
CENTRAL_TREE = 1
LOCAL_LAPLACE = 2
SHUFFLE_BITSUM = 3
SHUFFLE_RR = 4

KIND_CODES: dict[str, int] = {
    "none": NONE,
    "central-tree": CENTRAL_TREE,
    "local-laplace": LOCAL_LAPLACE,
    "shuffle-bitsum": SHUFFLE_BITSUM,
    "shuffle-rr": SHUFFLE_RR,
}
KIND_NAMES: dict[int, str] = {v: k for k, v in KIND_CODES.items()}
KIND_MODELS: dict[str, str] = {
    "none": "none",
    "central-tree": "JDP",
    "local-laplace": "LDP",
    "shuffle-bitsum": "SDP",
    "shuffle-rr": "SDP",
}

ROW_CUM, ROW_LAST = 0, 1
I_KIND, I_N, I_T, I_LEVELS, I_HORIZON, I_BITS, I_USERS = 0, 1, 2, 3, 4, 5, 6
F_EPS, F_SCALE, F_P, F_TAU, F_BETA, F_SENS = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def privatizer_new(code, n, horizon, epsilon, sensitivity, beta, bits_per_entry):
    """Fresh state ``(fstate[R, n], istate[8], fparams[8])`` of kind ``code`` for n counters.

    horizon: max number of releases (tree levels); beta: bit-sum confidence (shuffle-bitsum);
    bits_per_entry: bits behind each entry (shuffle-rr). Unused arguments are ignored.
    """
    istate = np.zeros(8, np.int64)
    fparams = np.zeros(8)
    istate[I_KIND] = code
    istate[I_N] = n
    istate[I_HORIZON] = horizon
    istate[I_BITS] = bits_per_entry
    fparams[F_EPS] = epsilon
    fparams[F_SENS] = sensitivity
    fparams[F_BETA] = beta
    R = 2
    if code != NONE and not epsilon > 0.0:
        raise ValueError("privatizer_new: epsilon must be > 0")
    if code == CENTRAL_TREE:
        L = tree_levels(horizon)
        istate[I_LEVELS] = L
        fparams[F_SCALE] = L * sensitivity / epsilon
        R = 3 + 3 * L
    elif code == LOCAL_LAPLACE:
        fparams[F_SCALE] = sensitivity / epsilon
    elif code == SHUFFLE_BITSUM:
        if not (beta > 0.0 and beta < 1.0):
            raise ValueError("privatizer_new: shuffle-bitsum needs 0 < beta < 1")
        fparams[F_TAU] = bitsum_tau(epsilon, beta)
    elif code == SHUFFLE_RR:
        if bits_per_entry < 1:
            raise ValueError("privatizer_new: shuffle-rr needs bits_per_entry >= 1")
        fparams[F_P] = rr_p_from_epsilon(epsilon)
    elif code != NONE:
        raise ValueError("privatizer_new: unknown privatizer code")
    fstate = np.zeros((R, n))
    return fstate, istate, fparams


@njit(cache=True)
def _tree_views(fstate, L):
    return fstate[2 : 2 + L], fstate[2 + L : 2 + 2 * L], fstate[2 + 2 * L : 3 + 3 * L]


@njit(cache=True)
def _finish(fstate, out):
    cum = fstate[ROW_CUM]
    last = fstate[ROW_LAST]
    for c in range(cum.shape[0]):
        cum[c] += last[c]
        out[c] = cum[c]


@njit(cache=True)
def privatizer_release(code, state, x, rng, out):
    """Release one user's (episode's) increment x[n]; out[n] <- private cumulative counts.

    ``code`` must equal the state's kind (checked). Cost per call: O(n) (tree: amortised).
    """
    fstate, istate, fparams = state
    if istate[I_KIND] != code:
        raise ValueError("privatizer_release: code does not match the state's kind")
    n = fstate.shape[1]
    t = istate[I_T] + 1
    istate[I_T] = t
    istate[I_USERS] += 1
    last = fstate[ROW_LAST]
    if code == NONE:
        for c in range(n):
            last[c] = x[c]
    elif code == CENTRAL_TREE:
        exact, noisy, psum = _tree_views(fstate, istate[I_LEVELS])
        tree_step(exact, noisy, psum, t, x, fparams[F_SCALE], rng, out)
        cum = fstate[ROW_CUM]
        for c in range(n):
            last[c] = out[c] - cum[c]
            cum[c] = out[c]
        return
    elif code == LOCAL_LAPLACE:
        laplace_release(x, fparams[F_SCALE], rng, last)
    elif code == SHUFFLE_BITSUM:
        bitsum_release(x, np.int64(1), fparams[F_TAU], rng, last)  # int64, not a literal: one specialisation
    elif code == SHUFFLE_RR:
        bits = istate[I_BITS]
        p = fparams[F_P]
        rr_sum_counts(x, bits, p, rng, last)
        rr_debias(last, bits, p, last)
    else:
        raise ValueError("privatizer_release: unknown privatizer code")
    _finish(fstate, out)


@njit(cache=True)
def privatizer_release_sums(code, state, colsum, m, rng, out):
    """Release a batch of ``m`` users given only its column sums colsum[n]; out[n] <- cumulative.

    Equal in law to ``privatizer_release_batch`` on any X[m, n] with these column sums (every
    kind's output depends on X only through them; local-laplace adds the m users' independent
    ``Lap(scale)`` vectors, i.e. m draws per counter). The batch's own private counts are left
    in ``state[0][ROW_LAST]``. Avoids materialising X for large batches.
    """
    fstate, istate, fparams = state
    if istate[I_KIND] != code:
        raise ValueError("privatizer_release_sums: code does not match the state's kind")
    n = fstate.shape[1]
    last = fstate[ROW_LAST]
    t = istate[I_T] + 1
    istate[I_T] = t
    istate[I_USERS] += m
    if code == NONE:
        for c in range(n):
            last[c] = colsum[c]
    elif code == CENTRAL_TREE:
        exact, noisy, psum = _tree_views(fstate, istate[I_LEVELS])
        tree_step(exact, noisy, psum, t, colsum, fparams[F_SCALE], rng, out)
        cum = fstate[ROW_CUM]
        for c in range(n):
            last[c] = out[c] - cum[c]
            cum[c] = out[c]
        return
    elif code == LOCAL_LAPLACE:
        scale = fparams[F_SCALE]
        for c in range(n):
            last[c] = colsum[c]
        for _ in range(m):
            for c in range(n):
                e = rng.standard_exponential()
                if rng.random() < 0.5:
                    last[c] -= scale * e
                else:
                    last[c] += scale * e
    elif code == SHUFFLE_BITSUM:
        bitsum_release(colsum, m, fparams[F_TAU], rng, last)
    elif code == SHUFFLE_RR:
        bits = istate[I_BITS] * m
        p = fparams[F_P]
        rr_sum_counts(colsum, bits, p, rng, last)
        rr_debias(last, bits, p, last)
    else:
        raise ValueError("privatizer_release_sums: unknown privatizer code")
    _finish(fstate, out)


@njit(cache=True)
def privatizer_release_batch(code, state, X, rng, out):
    """Release a batch X[m, n] of m users (rows); out[n] <- private cumulative counts.

    The batch's own private counts are left in ``state[0][ROW_LAST]``. central-tree takes one
    tree step with the batch's column sums; local-laplace noises every user's row;
    shuffle-bitsum runs Alg. 4 with ``n_users = m``; shuffle-rr randomizes all
    ``m * bits_per_entry`` bits of each counter. (= ``privatizer_release_sums`` on the column sums.)
    """
    m = X.shape[0]
    n = X.shape[1]
    colsum = np.zeros(n)
    for r in range(m):
        for c in range(n):
            colsum[c] += X[r, c]
    privatizer_release_sums(code, state, colsum, m, rng, out)


@njit(cache=True)
def privatizer_cumulative(state, out):
    """out[n] <- the private cumulative counts released so far (no new release, no noise)."""
    cum = state[0][ROW_CUM]
    for c in range(cum.shape[0]):
        out[c] = cum[c]


@njit(cache=True)
def privatizer_last(state, out):
    """out[n] <- the private counts of the last release alone (e.g. the last batch)."""
    last = state[0][ROW_LAST]
    for c in range(last.shape[0]):
        out[c] = last[c]


def make_privatizer(
    kind: str,
    n_counters: int,
    horizon: int,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    beta: float = 0.0,
    bits_per_entry: int = 1,
):
    """Python constructor: ``(fstate, istate, fparams)`` of privatizer ``kind`` (see module doc).

    kind: a key of KIND_CODES; horizon: max number of releases (central-tree needs it);
    epsilon: the per-kind epsilon documented above (ignored by ``none``); beta: bit-sum
    confidence (shuffle-bitsum); bits_per_entry: bits behind each entry (shuffle-rr).
    """
    if kind not in KIND_CODES:
        raise ValueError(f"unknown privatizer kind {kind!r}; choose one of {sorted(KIND_CODES)}")
    code = KIND_CODES[kind]
    if code == NONE and not (epsilon > 0 and math.isfinite(epsilon)):
        epsilon = 1.0
    return privatizer_new(
        np.int64(code), np.int64(n_counters), np.int64(max(int(horizon), 1)), float(epsilon),
        float(sensitivity), float(beta), np.int64(bits_per_entry),
    )


def describe_privatizer(state) -> dict:
    """Human-readable parameters of a privatizer state (for logs and outputs)."""
    fstate, istate, fparams = state
    kind = KIND_NAMES[int(istate[I_KIND])]
    return {
        "kind": kind,
        "model": KIND_MODELS[kind],
        "n_counters": int(istate[I_N]),
        "releases": int(istate[I_T]),
        "users": int(istate[I_USERS]),
        "levels": int(istate[I_LEVELS]),
        "horizon": int(istate[I_HORIZON]),
        "bits_per_entry": int(istate[I_BITS]),
        "epsilon": float(fparams[F_EPS]),
        "scale": float(fparams[F_SCALE]),
        "p": float(fparams[F_P]),
        "tau": float(fparams[F_TAU]),
        "beta": float(fparams[F_BETA]),
        "sensitivity": float(fparams[F_SENS]),
    }
