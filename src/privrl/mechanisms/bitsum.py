"""Shuffle-private binary summation (Cheu et al. 2019) as given by Bai et al., App. Alg. 4.

Bai, Talebi, Zhao, Cheng, Chen, *No-regret exploration in shuffle private RL* (full
version), App. IX-A, Algorithm 4 and Lemma 42; used per counter by the shuffle Privatizer
of Sec. V with ``eps' = eps / (3H)``.

``tau = 96 log(2/beta) / eps^2`` (natural log). With ``n`` users holding bits ``y_i``:

* ``n <= tau`` (small regime): user i sends ``z_i = y_i + sum_{j<=m} nu_j``,
  ``nu_j ~ Ber(1/2)``, ``m = ceil(tau/n)``; analyzer ``Z = sum z_i - ceil(tau/n) n/2``;
* ``n > tau`` (large regime): ``z_i = y_i + nu``, ``nu ~ Ber(tau/(2n))``; ``Z = sum z_i - tau/2``.

So ``Z = sum y_i + Q - E[Q]`` with ``Q ~ Bin(ceil(tau/n) n, 1/2)`` or ``Bin(n, tau/(2n))``,
independent of the input (Lemma 42 proof). Messages are sent as separate bits (Cheu et
al.'s multi-message protocol): the shuffled multiset of bits is then equivalent to its
sum, which is what the proof of Lemma 42 analyses (decisions D5). ``bitsum_release``
draws ``Q`` directly (exactly equal in law to the per-user protocol ``bitsum_local_randomizer``
-> ``shuffle`` -> ``bitsum_analyzer``; tested).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.mechanisms.events import BitSumEvent
from privrl.mechanisms.kinds import (
    F_TAU,
    ROW_LAST,
    MechanismKind,
    check_epsilon,
    check_integer_counts,
    commit_release,
    register_kind,
)
from privrl.mechanisms.rr import shuffle_rows

SMALL_REGIME = 0
LARGE_REGIME = 1


@njit(cache=True)
def bitsum_tau(epsilon, beta):
    """Bai et al. Alg. 4 input: ``tau = 96 log(2/beta) / eps^2``."""
    return 96.0 * math.log(2.0 / beta) / (epsilon * epsilon)


@njit(cache=True)
def bitsum_noise_law(n_users, tau):
    """Law of the total noise ``Q ~ Bin(n_bits, q)``: returns ``(n_bits, q, regime)``.

    Small regime (``n <= tau``): ``n_bits = ceil(tau/n) n``, ``q = 1/2``; large regime:
    ``n_bits = n``, ``q = tau / (2n)`` (Bai et al. Alg. 4, lines 3-6; Lemma 42 proof).
    """
    if n_users < 1:
        raise ValueError("bitsum_noise_law: need at least one user")
    if n_users <= tau:
        m = math.ceil(tau / n_users)
        return m * n_users, 0.5, SMALL_REGIME
    return n_users, tau / (2.0 * n_users), LARGE_REGIME


@njit(cache=True)
def bitsum_local_randomizer(y, tau, rng, z):
    """Alg. 4 local randomizer E for a batch of ``n = len(y)`` users: y[n] bits -> z[n].

    Small regime: ``z_i = y_i + Bin(m, 1/2)`` (the sum of m Ber(1/2) bits), ``m = ceil(tau/n)``;
    large regime: ``z_i = y_i + Ber(tau/(2n))``.
    """
    n = y.shape[0]
    if n <= tau:
        m = math.ceil(tau / n)
        for i in range(n):
            if m <= 64:
                s = 0
                for _ in range(m):
                    if rng.random() < 0.5:
                        s += 1
            else:
                s = rng.binomial(m, 0.5)
            z[i] = y[i] + s
    else:
        q = tau / (2.0 * n)
        for i in range(n):
            z[i] = y[i] + (1 if rng.random() < q else 0)


@njit(cache=True)
def bitsum_analyzer(z, tau):
    """Alg. 4 analyzer G: ``Z = sum z - ceil(tau/n) n/2`` (small) or ``sum z - tau/2`` (large)."""
    n = z.shape[0]
    s = 0.0
    for i in range(n):
        s += z[i]
    if n <= tau:
        return s - math.ceil(tau / n) * n / 2.0
    return s - tau / 2.0


@njit(cache=True)
def bitsum_release(ysum, n_users, tau, rng, out):
    """Aggregated Alg. 4 for many counters: ysum[c] = sum of the users' bits per counter.

    out[c] = ysum[c] + Q_c - E[Q], Q_c i.i.d. ``Bin(n_bits, q)`` from ``bitsum_noise_law``.
    Exactly equal in law to randomizer -> shuffler -> analyzer, counter by counter.
    """
    n_bits, q, _regime = bitsum_noise_law(n_users, tau)
    mean = n_bits * q
    for c in range(ysum.shape[0]):
        out[c] = ysum[c] + rng.binomial(n_bits, q) - mean


def bitsum(y, epsilon: float, beta: float, rng: np.random.Generator) -> float:
    """Python convenience: the full protocol on one batch of bits ``y[n]`` (one counter)."""
    y = np.ascontiguousarray(y, dtype=np.int64)
    tau = bitsum_tau(epsilon, beta)
    z = np.empty_like(y)
    bitsum_local_randomizer(y, tau, rng, z)
    rng.shuffle(z)  # the shuffler; the analyzer is permutation-invariant
    return float(bitsum_analyzer(z, tau))


@njit(cache=True)
def bitsum_protocol_noise(y, tau_used, tau_claim, n_samples, rng):
    """Samples of ``Q = Z - sum(y) + E[Q]`` from Alg. 4 run user by user (randomizer ->
    shuffler -> analyzer) with ``tau_used``; ``E[Q]`` of the claimed ``tau_claim``. y[n] int64.

    The reference protocol the aggregated :func:`bitsum_release` is tested against
    (``tau_used != tau_claim`` is a deliberately broken variant, e.g. half the noise)."""
    n = y.shape[0]
    z = np.empty((n, 1), np.int64)
    res = np.empty(n_samples, np.int64)
    ysum = 0
    for i in range(n):
        ysum += y[i]
    n_bits, q, _ = bitsum_noise_law(n, tau_claim)
    for s in range(n_samples):
        bitsum_local_randomizer(y, tau_used, rng, z[:, 0])
        shuffle_rows(z, rng)
        res[s] = int(round(bitsum_analyzer(z[:, 0], tau_used) - ysum + n_bits * q))
    return res


# ----------------------------------------------------------------------------- kind "shuffle-bitsum"
@njit(cache=True)
def bitsum_kind_setup(istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
    """shuffle-bitsum: ``tau = bitsum_tau(epsilon, beta)`` (needs 0 < beta < 1); two rows."""
    check_epsilon(epsilon)
    if not (beta > 0.0 and beta < 1.0):
        raise ValueError("privatizer_new: shuffle-bitsum needs 0 < beta < 1")
    fparams[F_TAU] = bitsum_tau(epsilon, beta)
    return 2


@njit(cache=True)
def bitsum_kind_release(fstate, istate, fparams, t, x, m, rng, out):
    """shuffle-bitsum: Alg. 4 per counter over the batch's ``m`` users; x[n] = the number of
    ones per counter (non-negative integers; refused otherwise)."""
    check_integer_counts(x, m)
    bitsum_release(x, m, fparams[F_TAU], rng, fstate[ROW_LAST])
    commit_release(fstate, out)


BITSUM_KIND = register_kind(MechanismKind(
    name="shuffle-bitsum", code=3, model="SDP", module=__name__, setup="bitsum_kind_setup",
    release="bitsum_kind_release",
    event=lambda d: BitSumEvent(d["epsilon"], d["beta"]),
    reference="shuffle binary summation, Bai et al. App. Alg. 4, Lemma 42 (Cheu et al. 2019)",
    bounds={"noise variance": "bitsum_variance", "Bernstein": "binomial_sum_bound"}))
