"""Binary (tree) mechanism for continual counting of many counters at once.

Vietri et al. 2020, App. A, Alg. 5 and Thm 12 (Dwork-Naor-Pitassi-Rothblum 2010, Thm 4.1;
Chan-Shi-Song 2011). Alg. 5 as printed has index typos -- ``Bin_j(j)`` for the bits of t,
and an output summed over the bits of the horizon ``T`` instead of the current ``t``; we
implement the standard mechanism (see docs/decisions/mechanisms.md, D1):

* node ``j`` ("p-sum" alpha_j) holds the sum of the stream over the dyadic block of length
  ``2^j`` that ends at the last time whose lowest set bit is ``j``;
* at time ``t`` with lowest set bit ``i``: ``alpha_i <- sum_{j<i} alpha_j + sigma(t)``, nodes
  ``j < i`` are cleared, ``alpha_hat_i <- alpha_i + Lap(scale)``;
* the release at ``t`` is ``sum_{j : bit j of t is 1} alpha_hat_j`` -- the noisy nodes of
  ``t``'s own binary expansion.

Privacy: each stream element lies in exactly one node per level, i.e. in at most
``L = T.bit_length()`` nodes, so Laplace noise of scale ``L * Delta / eps`` per node makes each
counter eps-DP for elements that change by at most ``Delta`` (Alg. 5 prints
``eps' = eps / log T``; ``log2 T < L`` always, so we use ``L``, never less noise).

State (plain arrays an agent can hold; ``n`` counters, ``L`` levels):
    exact[L, n]    float64  exact p-sums alpha_j
    noisy[L, n]    float64  noisy p-sums alpha_hat_j (zero once cleared)
    psum[L + 1, n] float64  psum[j] = sum of the noisy nodes of the current t at levels >= j,
                            accumulated from the top level down; psum[L] == 0
    t              int      number of steps taken (the caller keeps it; step ``t`` is 1-based)

Incremental release (amortised O(n) per step): from ``t-1`` to ``t`` the nodes of levels
``< i`` leave and node ``i`` enters, and the levels above ``i`` are unchanged, so
``out_t = psum[i+1] + alpha_hat_i`` where ``psum[i+1]`` is the release at ``t - 2^i``; the
step writes ``psum[0..i] <- out_t`` (cost ``(i+1) n``, amortised ``2n``). The released value
is bit-for-bit the top-down sum of the noisy nodes of ``t``'s binary expansion (tested).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from privrl.mechanisms.events import TreeEvent
from privrl.mechanisms.kinds import (
    F_SCALE,
    F_SENS,
    I_LEVELS,
    ROW_CUM,
    ROW_LAST,
    MechanismKind,
    check_bounded_counts,
    check_epsilon,
    register_kind,
)
from privrl.mechanisms.laplace import laplace_unit


@njit(cache=True)
def tree_levels(T):
    """Number of levels ``L = T.bit_length()`` needed for steps ``t = 1..T`` (``t < 2^L``)."""
    L = 0
    while (T >> L) > 0:
        L += 1
    return max(L, 1)


@njit(cache=True, inline="always")
def lowest_set_bit(t):
    """Index ``i`` of the lowest set bit of ``t >= 1`` (one count-trailing-zeros instruction)."""
    return trailing_zeros(t)


@njit(cache=True, inline="always")
def tree_step_rows(ex, e0, no, n0, ps, p0, L, t, x, scale, rng, out):
    """:func:`tree_step` on rows of 2-D arrays: exact p-sums ``ex[e0 + j]``, noisy p-sums
    ``no[n0 + j]`` (j < L) and partial sums ``ps[p0 + j]`` (j <= L), each row [n]; ``ex``,
    ``no`` and ``ps`` may be one array (the central-tree privatizer's ``fstate``, rows as in the
    module docstring) or three. Indexed in place, no row views (a view of a reference-counted
    array costs two atomic counts; docs/decisions/performance.md). Inlined into its two callers;
    the operations and their order are :func:`tree_step`'s (the reference, tested)."""
    n = x.shape[0]
    if t < 1 or t >= (1 << L):
        raise ValueError("tree_step: t outside 1 .. 2^L - 1 (horizon exceeded)")
    i = lowest_set_bit(t)
    ai = e0 + i
    for c in range(n):
        ex[ai, c] = x[c]
    for j in range(i):  # alpha_i <- sigma(t) + sum_{j<i} alpha_j; the nodes below i are cleared
        for c in range(n):
            ex[ai, c] += ex[e0 + j, c]
            ex[e0 + j, c] = 0.0
            no[n0 + j, c] = 0.0
    ni = n0 + i
    if scale == 0.0:
        for c in range(n):
            no[ni, c] = ex[ai, c]
    else:
        for c in range(n):
            no[ni, c] = ex[ai, c] + scale * laplace_unit(rng)
    up = p0 + i + 1
    for c in range(n):
        out[c] = ps[up, c] + no[ni, c]
    for j in range(i + 1):
        for c in range(n):
            ps[p0 + j, c] = out[c]


@njit(cache=True)
def tree_step(exact, noisy, psum, t, x, scale, rng, out):
    """One step of the binary mechanism for ``n`` counters (Vietri et al. App. A, Alg. 5).

    exact[L, n], noisy[L, n], psum[L+1, n]: the tree state (see module docstring), updated
    in place. ``t``: the new step index, 1-based (``t = number of previous steps + 1``).
    x[n]: this step's stream elements, one per counter. ``scale``: Laplace scale per node
    (``L * Delta / eps``; 0 switches the noise off and draws nothing). out[n]: receives the
    released private prefix sums at ``t``. (:func:`tree_step_rows` on three arrays.)
    """
    tree_step_rows(exact, 0, noisy, 0, psum, 0, exact.shape[0], t, x, scale, rng, out)


@njit(cache=True)
def tree_release_reference(noisy, t, out):
    """Reference release: top-down sum of ``noisy[j]`` over the set bits ``j`` of ``t``.

    noisy[L, n]; out[n]. O(L n); used by tests to check ``tree_step`` bit for bit.
    """
    L = noisy.shape[0]
    n = noisy.shape[1]
    for c in range(n):
        out[c] = 0.0
    for j in range(L - 1, -1, -1):
        if (t >> j) & 1:
            for c in range(n):
                out[c] = out[c] + noisy[j, c]


@njit(cache=True)
def tree_run(X, L, scale, rng, out):
    """Run a fresh tree over a whole stream: X[T, n] float64 -> out[T, n] prefix releases.

    ``L`` levels (``>= T.bit_length()``), node scale ``scale``. Returns the final state
    ``(exact, noisy, psum)``.
    """
    T = X.shape[0]
    n = X.shape[1]
    exact = np.zeros((L, n))
    noisy = np.zeros((L, n))
    psum = np.zeros((L + 1, n))
    for t in range(1, T + 1):
        tree_step(exact, noisy, psum, t, X[t - 1], scale, rng, out[t - 1])
    return exact, noisy, psum


@njit(cache=True)
def tree_max_error(T, n, p_one, scale, rng):
    """Max over ``t <= T`` of |release - exact prefix| per counter, for Bernoulli(p_one) streams.

    Memory O(L n) (the stream is drawn on the fly). Returns err[n] float64. Used by the
    Vietri Thm 12 check.
    """
    L = tree_levels(T)
    exact = np.zeros((L, n))
    noisy = np.zeros((L, n))
    psum = np.zeros((L + 1, n))
    x = np.zeros(n)
    truth = np.zeros(n)
    out = np.zeros(n)
    err = np.zeros(n)
    for t in range(1, T + 1):
        for c in range(n):
            x[c] = 1.0 if rng.random() < p_one else 0.0
            truth[c] += x[c]
        tree_step(exact, noisy, psum, t, x, scale, rng, out)
        for c in range(n):
            d = abs(out[c] - truth[c])
            if d > err[c]:
                err[c] = d
    return err


def tree_node_scale(epsilon: float, horizon: int, sensitivity: float = 1.0) -> float:
    """Per-node Laplace scale ``L * Delta / eps`` that makes each counter eps-DP over ``horizon`` steps."""
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0; got {epsilon}")
    return tree_levels(int(horizon)) * float(sensitivity) / float(epsilon)


def tree_init(n: int, horizon: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed state ``(exact[L, n], noisy[L, n], psum[L+1, n])`` for ``horizon`` steps."""
    L = tree_levels(int(horizon))
    return np.zeros((L, n)), np.zeros((L, n)), np.zeros((L + 1, n))


# ----------------------------------------------------------------------------- kind "central-tree"
@njit(cache=True)
def tree_kind_setup(istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
    """central-tree: ``L = tree_levels(horizon)`` levels, node scale ``L sensitivity / epsilon``;
    rows 2..2+L exact p-sums, 2+L..2+2L noisy p-sums, 2+2L..3+3L partial sums (R = 3 + 3L)."""
    check_epsilon(epsilon)
    L = tree_levels(horizon)
    istate[I_LEVELS] = L
    fparams[F_SCALE] = L * sensitivity / epsilon
    return 3 + 3 * L


@njit(cache=True, inline="always")
def tree_kind_release(fstate, istate, fparams, t, x, m, rng, out):
    """central-tree: one binary-mechanism step ``t`` with the batch's column sums x[n] as the
    stream elements (the number of users ``m`` does not enter). Inlined into the generated door,
    hence into the agents' loops (a call passing fstate[R, n], istate, fparams, x, out and the
    generator cost PUCB ~15 ns of a 110 ns bandit episode); no fastmath flags on either side."""
    check_bounded_counts(x, m * fparams[F_SENS])
    L = istate[I_LEVELS]
    tree_step_rows(fstate, 2, fstate, 2 + L, fstate, 2 + 2 * L, L, t, x, fparams[F_SCALE], rng, out)
    for c in range(x.shape[0]):
        fstate[ROW_LAST, c] = out[c] - fstate[ROW_CUM, c]
        fstate[ROW_CUM, c] = out[c]


TREE_KIND = register_kind(MechanismKind(
    name="central-tree", code=1, model="JDP", module=__name__, setup="tree_kind_setup",
    release="tree_kind_release",
    event=lambda d: TreeEvent(d["scale"], d["horizon"], d["sensitivity"]),
    reference="binary mechanism, Vietri et al. 2020 App. A Alg. 5 (Chan-Shi-Song 2011)",
    bounds={"release error": "tree_error_bound", "Thm 12": "thm12_bound"}))
