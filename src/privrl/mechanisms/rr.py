"""Randomized response R_p, the trajectory randomizer M_sh, a shuffler and the analyzer.

Garcelon, Perchet, Pike-Burke, Pirotta (ICML-21 RL-theory workshop), Sec. 3.1:

* Alg. 2, local randomizer ``R_p^{0/1}``: with probability ``p`` output a fair coin, else the
  input bit. It is ``ln(2/p - 1)``-LDP; ``p = 2/(e^eps + 1)`` gives eps (Alg. 3).
* Eq. 4: one-hot encodings x (visits) and y (transitions); here a message is given by the
  *flat* indices of its ones, so the module knows nothing of (h, s, a).
* Eq. 5: m-bit unary reward encoding. The printed ``mu = [m r]`` is read as the ceiling
  (then ``p_{h,s,a} = m r - mu + 1`` lies in (0, 1] and the bit sum has mean ``m r``);
  the number of ones is therefore ``floor(m r) + Ber(m r - floor(m r))`` (decisions D4).
* Alg. 3, ``M_sh``: R_p on every bit of x, y and the unary reward codes.
* Shuffler: a uniform random permutation of a batch of messages (Alg. 1).
* Analyzer, Eq. 6: the printed ``1/(1-p) sum R_p(.) - p/2`` is biased as written; the
  unbiased estimator of the number of ones among ``nbits`` randomized bits is
  ``(sum - nbits p / 2) / (1 - p)`` (rewards: further divided by ``m``) (decisions D3).

Aggregated sampling: the sum of R_p over ``nbits`` bits of which ``c`` are ones is exactly
``Bin(c, 1 - p/2) + Bin(nbits - c, p/2)`` (independent bits); ``rr_sum_counts`` draws it so
(per bit when ``nbits`` is small, by two binomials otherwise), tested equal in law to the
per-bit ``rr_randomize_bits``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.events import RREvent
from privrl.mechanisms.kinds import (
    F_P,
    I_BITS,
    ROW_LAST,
    MechanismKind,
    check_epsilon,
    commit_release,
    register_kind,
)

#: largest per-bit epsilon of R_p: ``p = 2/(e^eps + 1) >= 2^-52``, the resolution of the uniforms it is drawn with
RR_EPSILON_MAX = math.log(2.0**53 - 1.0)
#: below this many bits per entry, draw one uniform per bit instead of two binomials
_PER_BIT_MAX = 12


@njit(cache=True)
def rr_p_from_epsilon(epsilon):
    """``p = 2/(e^eps + 1)`` (Garcelon Alg. 3): R_p is then eps-LDP per bit."""
    return 2.0 / (math.exp(epsilon) + 1.0)


@njit(cache=True)
def rr_epsilon_from_p(p):
    """Per-bit LDP level ``ln(2/p - 1)`` of R_p (Garcelon Sec. 3.1)."""
    return math.log(2.0 / p - 1.0)


@njit(cache=True)
def rr_randomize_bits(x, p, rng, out):
    """Alg. 2 literally, bit by bit: x[n] in {0,1} -> out[n] in {0,1} (any numeric dtypes).

    For each bit: ``b ~ Ber(p)``; if ``b == 0`` return the bit, else return ``Ber(1/2)``.
    """
    for i in range(x.shape[0]):
        if rng.random() < p:
            out[i] = 1 if rng.random() < 0.5 else 0
        else:
            out[i] = x[i]


@njit(cache=True)
def _inversion_table(n, p):
    """numba's ``Generator.binomial(n, p)`` inversion branch, its per-call set-up done once:
    returns ``(table, bound, flip)`` with table[X] the probabilities ``px`` its loop visits
    (the same recurrence, so the same floats), or an empty table where ``binomial`` would not
    use inversion (n == 0, p == 0, or min(p, 1-p) n > 30: BTPE). ``flip``: the draw is n - X."""
    flip = p > 0.5
    pp = 1.0 - p if flip else p
    if n == 0 or p == 0.0 or pp * n > 30.0:
        return np.empty(0), 0.0, flip
    q = 1.0 - pp
    qn = np.exp(n * np.log(q))
    _np = n * pp
    bound = min(n, _np + 10.0 * np.sqrt(_np * q + 1))
    table = np.empty(int(bound) + 1)
    table[0] = qn
    for X in range(1, table.shape[0]):
        table[X] = ((n - X + 1) * pp * table[X - 1]) / (X * q)
    return table, bound, flip


@njit(cache=True, inline="always")
def _binomial_from_table(table, bound, n, flip, rng):
    """One ``Generator.binomial(n, p)`` draw from :func:`_inversion_table` (same uniforms, same value)."""
    X = 0
    px = table[0]
    U = rng.random()
    while U > px:
        X += 1
        if X > bound:
            X = 0
            px = table[0]
            U = rng.random()
        else:
            U -= px
            px = table[X]
    return n - X if flip else X


@njit(cache=True, _nrt=True)  # its table is allocated and freed here, also when the caller runs without
def rr_sum_counts(ones, nbits, p, rng, out):  # reference counting (an option a callee inherits unless set)
    """Sum of R_p outputs over ``nbits`` bits per entry, ``ones[i]`` of which are 1.

    ones[n] float64 (integers in [0, nbits]); nbits int; out[n] float64 receives the raw
    (biased) sums. Exactly ``Bin(c, 1-p/2) + Bin(nbits-c, p/2)`` per entry: up to
    ``_PER_BIT_MAX`` bits one uniform per bit (:func:`rr_sum_counts_per_bit`, which allocates
    nothing); above, the entries with no ones (most of them) draw ``Bin(nbits, p/2)`` from
    a table set up once per call (:func:`_inversion_table`: the values and uniforms of
    ``rng.binomial``, without its exp/log/divisions per draw).
    """
    if nbits <= _PER_BIT_MAX:
        rr_sum_counts_per_bit(ones, nbits, p, rng, out)
        return
    q1 = 1.0 - 0.5 * p
    q0 = 0.5 * p
    table, bound, flip = _inversion_table(nbits, q0)
    for i in range(ones.shape[0]):
        c = _entry_ones(ones[i], nbits)
        if c == 0 and table.shape[0] > 0:
            out[i] = _binomial_from_table(table, bound, nbits, flip, rng)
        else:
            out[i] = rng.binomial(c, q1) + rng.binomial(nbits - c, q0)


@njit(cache=True, inline="always")
def _entry_ones(v, nbits):
    """int(v) for an entry of :func:`rr_sum_counts`, refused unless an integer in [0, nbits]."""
    c = int(v)
    if c < 0 or c > nbits or c != v:
        raise ValueError("rr_sum_counts: entry not an integer in [0, nbits]")
    return c


@njit(cache=True, inline="always")
def rr_sum_counts_per_bit(ones, nbits, p, rng, out):
    """:func:`rr_sum_counts` one uniform per bit (entry by entry: its ``c`` ones through R_p, then
    its ``nbits - c`` zeros), summed without a branch."""
    q1 = 1.0 - 0.5 * p
    q0 = 0.5 * p
    for i in range(ones.shape[0]):
        c = _entry_ones(ones[i], nbits)
        s = 0
        for _ in range(c):
            s += rng.random() < q1
        for _ in range(nbits - c):
            s += rng.random() < q0
        out[i] = s


@njit(cache=True, inline="always")
def rr_debias(sums, nbits, p, out):
    """Unbiased analyzer (Eq. 6, corrected): ``out = (sums - nbits p/2) / (1 - p)``.

    sums[n] raw sums of ``nbits`` randomized bits per entry; out[n] may alias sums.
    """
    half = 0.5 * p * nbits
    inv = 1.0 / (1.0 - p)
    for i in range(sums.shape[0]):
        out[i] = (sums[i] - half) * inv


@njit(cache=True)
def unary_encode(r, m, rng, bits):
    """Eq. 5 literally for one reward ``r in [0, 1]``: bits[m] <- the unary code.

    ``mu = ceil(m r)``; ``b_j = 1`` for ``j < mu``, ``Ber(m r - mu + 1)`` for ``j = mu``, 0 after
    (``j = 1..m``).
    """
    mr = m * r
    mu = math.ceil(mr)
    pj = mr - mu + 1.0
    for j in range(1, m + 1):
        if j < mu:
            bits[j - 1] = 1
        elif j == mu:
            bits[j - 1] = 1 if rng.random() < pj else 0
        else:
            bits[j - 1] = 0


@njit(cache=True, inline="always")
def unary_count(r, m, rng, out):
    """Number of ones of the Eq. 5 code of each reward: ``floor(m r) + Ber(frac(m r))``.

    r[n] float64 in [0, 1] (refused otherwise, NaN included); out[n] float64. Equal in law to
    ``unary_encode(...).sum()``.
    """
    for i in range(r.shape[0]):
        if not (r[i] >= 0.0 and r[i] <= 1.0):
            raise ValueError("unary_count: a reward is outside [0, 1] (the unary code's domain)")
        mr = m * r[i]
        f = math.floor(mr)
        out[i] = f + (1.0 if rng.random() < mr - f else 0.0)


@njit(cache=True)
def onehot_encode(idx, out):
    """Eq. 4 with flat indices: out[n_cells] <- 0, then ``out[idx[h]] += 1`` for each h."""
    for i in range(out.shape[0]):
        out[i] = 0
    for h in range(idx.shape[0]):
        out[idx[h]] += 1


@njit(cache=True)
def msh_randomize(x_idx, n_x, y_idx, n_y, r_idx, rewards, m, n_r, p, rng):
    """Alg. 3 (M_sh) for one trajectory, bit by bit; returns ``(xq[n_x], yq[n_y], bq[n_r, m])``.

    x_idx[H] int64: flat index of each visited (h, s, a) (Eq. 4, x); y_idx[H-1] int64: flat
    index of each (h, s, a, s') (Eq. 4, y); r_idx[H], rewards[H]: flat (h, s, a) index and
    reward of each step (Eq. 5). Every bit then goes through R_p (Alg. 2). int64 outputs.
    """
    x = np.zeros(n_x, np.int64)
    y = np.zeros(n_y, np.int64)
    onehot_encode(x_idx, x)
    onehot_encode(y_idx, y)
    b = np.zeros((n_r, m), np.int64)
    code = np.zeros(m, np.int64)
    for h in range(r_idx.shape[0]):
        unary_encode(rewards[h], m, rng, code)
        for j in range(m):
            b[r_idx[h], j] = code[j]
    xq = np.empty(n_x, np.int64)
    yq = np.empty(n_y, np.int64)
    bq = np.empty((n_r, m), np.int64)
    rr_randomize_bits(x, p, rng, xq)
    rr_randomize_bits(y, p, rng, yq)
    rr_randomize_bits(b.reshape(n_r * m), p, rng, bq.reshape(n_r * m))
    return xq, yq, bq


@njit(cache=True)
def shuffle_rows(messages, rng):
    """The shuffler: uniform random permutation of the rows of messages[k, d], in place.

    Fisher-Yates with ``rng.integers``; returns the permutation applied (``perm[k]``: new row
    ``i`` is old row ``perm[i]``).
    """
    k = messages.shape[0]
    perm = np.arange(k)
    for i in range(k - 1, 0, -1):
        j = rng.integers(0, i + 1)
        if j != i:
            tmp = perm[i]
            perm[i] = perm[j]
            perm[j] = tmp
            for c in range(messages.shape[1]):
                v = messages[i, c]
                messages[i, c] = messages[j, c]
                messages[j, c] = v
    return perm


@njit(cache=True)
def rr_analyzer(messages, bits_per_coord, p, out):
    """Analyzer (Eq. 6, unbiased): debiased column sums of shuffled messages[k, d].

    Each coordinate of each message carries ``bits_per_coord`` randomized bits summed;
    out[d] = (sum_rows - k * bits_per_coord * p/2) / (1 - p). Permutation-invariant.
    """
    k = messages.shape[0]
    d = messages.shape[1]
    for c in range(d):
        s = 0.0
        for i in range(k):
            s += messages[i, c]
        out[c] = s
    rr_debias(out, k * bits_per_coord, p, out)


# ----------------------------------------------------------------------------- kind "shuffle-rr"
@njit(cache=True)
def rr_kind_setup(istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
    """shuffle-rr: ``p = rr_p_from_epsilon(epsilon)`` per bit, ``bits_per_entry >= 1``; two rows."""
    check_epsilon(epsilon)
    if epsilon > RR_EPSILON_MAX:
        raise ValueError("privatizer_new: shuffle-rr needs epsilon <= 36.7 (p = 2/(e^eps + 1) >= 2^-52)")
    if bits_per_entry < 1:
        raise ValueError("privatizer_new: shuffle-rr needs bits_per_entry >= 1")
    fparams[F_P] = rr_p_from_epsilon(epsilon)
    return 2


@njit(cache=True, inline="always")
def rr_kind_release(fstate, istate, fparams, t, x, m, rng, out):
    """shuffle-rr: all ``m * bits_per_entry`` bits of each counter through R_p, x[n] of them
    ones (integers in [0, m bits_per_entry], checked by :func:`rr_sum_counts`); the released
    counts are the unbiased Eq. 6 sums. The shuffle is omitted (the analyzer only sums)."""
    bits = istate[I_BITS] * m
    p = fparams[F_P]
    last = fstate[ROW_LAST]
    if bits <= _PER_BIT_MAX:  # inlined: allocates nothing (the OBI loops run without reference counting)
        rr_sum_counts_per_bit(x, bits, p, rng, last)
    else:
        rr_sum_counts(x, bits, p, rng, last)
    rr_debias(last, bits, p, last)
    commit_release(fstate, out)


RR_KIND = register_kind(MechanismKind(
    name="shuffle-rr", code=4, model="SDP", module=__name__, setup="rr_kind_setup", release="rr_kind_release",
    event=lambda d: RREvent(d["epsilon"]),
    reference="randomized response R_p + shuffler + Eq. 6 analyzer, Garcelon et al. note Alg. 2-3",
    bounds={"count (Eq. 7)": "rr_count_width", "unary reward (Eq. 8)": "rr_reward_width"}))
