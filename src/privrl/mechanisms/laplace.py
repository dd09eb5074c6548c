"""Laplace mechanism on vectors of counters (numba kernels).

Used by the local (LDP) privatizer -- the Laplace mechanism that LDP-OBI applies to each
user's counts (Garcelon et al. 2021, as summarised in Garcelon et al. ICML-21 workshop,
Table 1 "LDP-OBI (with Laplace Mechanism)"; *reconstruction*, the note does not print it)
-- and by the nodes of the binary mechanism (Vietri et al. 2020, App. A, Alg. 5:
``alpha_hat_i <- alpha_i + Lap(1/eps')``).

Sampling: ``Lap(b) = b * sign * E`` with ``E ~ Exp(1)`` drawn by numpy's ziggurat
(``Generator.standard_exponential``) and an independent fair sign from one uniform.
This is exactly Laplace(0, b) (the Laplace law is the symmetrised exponential) and about
4x faster than numpy's inverse-CDF ``Generator.laplace`` inside numba.

Every function takes a ``numpy.random.Generator``; none touches a global RNG.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from privrl.mechanisms.events import LaplaceEvent
from privrl.mechanisms.kinds import (
    F_SCALE,
    F_SENS,
    ROW_LAST,
    MechanismKind,
    check_bounded_counts,
    check_epsilon,
    commit_release,
    register_kind,
)


@njit(cache=True)
def laplace_draw(scale, rng):
    """One Laplace(0, ``scale``) variate (float). ``scale == 0`` returns 0 without drawing."""
    if scale == 0.0:
        return 0.0
    e = rng.standard_exponential()
    if rng.random() < 0.5:
        return -scale * e
    return scale * e


@njit(cache=True)
def laplace_noise(scale, rng, out):
    """Fill ``out[n]`` (float64) with i.i.d. Laplace(0, ``scale``) noise.

    ``scale == 0`` writes zeros and consumes no randomness (noise switched off).
    """
    for i in range(out.shape[0]):
        out[i] = 0.0
    laplace_add_noise(scale, rng, out)


@njit(cache=True, inline="always")
def laplace_add_noise(scale, rng, out):
    """``out[i] += Lap(scale)`` in place for out[n] float64 (``scale == 0``: nothing drawn)."""
    if scale == 0.0:
        return
    for i in range(out.shape[0]):
        e = rng.standard_exponential()
        if rng.random() < 0.5:
            out[i] -= scale * e
        else:
            out[i] += scale * e


@njit(cache=True)
def laplace_release(x, scale, rng, out):
    """Laplace mechanism: ``out[i] = x[i] + Lap(scale)`` for ``x[n]``, ``out[n]`` float64.

    With ``scale = Delta_1 / eps`` this is eps-DP for inputs whose l1 distance is at most
    ``Delta_1`` (Dwork et al. 2006). ``out`` may alias ``x``.
    """
    for i in range(x.shape[0]):
        out[i] = x[i]
    laplace_add_noise(scale, rng, out)


# ----------------------------------------------------------------------------- kind "local-laplace"
@njit(cache=True)
def laplace_kind_setup(istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
    """local-laplace: scale ``sensitivity / epsilon`` per coordinate and user; two rows."""
    check_epsilon(epsilon)
    fparams[F_SCALE] = sensitivity / epsilon
    return 2


@njit(cache=True)
def laplace_kind_release(fstate, istate, fparams, t, x, m, rng, out):
    """local-laplace: each of the ``m`` users' vectors gets i.i.d. ``Lap(scale)`` per coordinate,
    i.e. the batch's column sums x[n] get ``m`` draws per counter (user by user)."""
    check_bounded_counts(x, m * fparams[F_SENS])
    last = fstate[ROW_LAST]
    for c in range(x.shape[0]):
        last[c] = x[c]
    for _ in range(m):
        laplace_add_noise(fparams[F_SCALE], rng, last)
    commit_release(fstate, out)


LAPLACE_KIND = register_kind(MechanismKind(
    name="local-laplace", code=2, model="LDP", module=__name__, setup="laplace_kind_setup",
    release="laplace_kind_release",
    event=lambda d: LaplaceEvent(d["scale"], d["sensitivity"]),
    reference="Laplace mechanism on each user's counts (LDP-OBI reconstruction, Garcelon et al. 2021)",
    bounds={"sum of k users' noise": "laplace_sum_bound", "Chan-Shi-Song": "laplace_sum_bound_chan_shi_song"}))


def laplace_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    """Noise scale ``b = Delta_1 / eps`` of the eps-DP Laplace mechanism."""
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0; got {epsilon}")
    if sensitivity < 0:
        raise ValueError(f"sensitivity must be >= 0; got {sensitivity}")
    return float(sensitivity) / float(epsilon)


def laplace(x, epsilon: float, rng: np.random.Generator, sensitivity: float = 1.0) -> np.ndarray:
    """Python convenience: ``x + Lap(sensitivity/epsilon)`` as a new float64 array."""
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    out = np.empty_like(x)
    laplace_release(x, laplace_scale(epsilon, sensitivity), rng, out)
    return out
