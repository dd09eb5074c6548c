"""Laplace mechanism on vectors of counters (numba kernels).

Used by the local (LDP) privatizer -- the Laplace mechanism that LDP-OBI applies to each
user's counts (Garcelon et al. 2021, as summarised in Garcelon et al. ICML-21 workshop,
Table 1 "LDP-OBI (with Laplace Mechanism)"; *reconstruction*, the note does not print it)
-- and by the nodes of the binary mechanism (Vietri et al. 2020, App. A, Alg. 5:
``alpha_hat_i <- alpha_i + Lap(1/eps')``).

Sampling (:func:`laplace_unit`): ``Lap(b) = b * sign * E`` from *one* 64-bit word of the
generator: its top 53 bits (``Generator.random`` returns exactly ``(w >> 11) 2^-53``), bit 0 the
sign, bits 1-8 the layer and bits 9-52 the 44-bit uniform of numpy's own 256-layer exponential
ziggurat (numpy's tables, as numba's ``standard_exponential`` uses them; the rare wedge and tail
steps draw further uniforms, as numpy's do). Exactly Laplace(0, b) up to the resolution of the
uniform (docs/decisions/mechanisms.md, D13); one generator call per variate instead of two.

Every function takes a ``numpy.random.Generator``; none touches a global RNG.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from numba.np.random._constants import fe_double, ke_double, we_double, ziggurat_exp_r

from privrl.mechanisms.events import LaplaceEvent
from privrl.mechanisms.kinds import (
    F_SCALE,
    F_SENS,
    ROW_CUM,
    ROW_LAST,
    MechanismKind,
    check_bounded_counts,
    check_epsilon,
    commit_release,
    register_kind,
)


TWO_53 = 9007199254740992.0
U1 = np.uint64(1)
BYTE = np.uint64(0xFF)
LOW9 = np.uint64(9)


@njit(cache=True, inline="always")
def laplace_unit(rng):
    """One Laplace(0, 1) variate from one 64-bit word w of ``rng`` (more only in the ziggurat's wedges
    and tail: ~0.034 words per variate): k = w >> 11 (53 bits, exactly ``random() * 2^53``);
    sign = bit 0 of k; numpy's exponential ziggurat on bits 1-52: layer i = bits 1-8, uniform
    r = bits 9-52 as a 53-bit integer with its low 9 bits zero (``(k >> 9) << 9``), x = r we[i],
    accepted if r < ke[i]; else the base layer's tail ``x_r - log1p(-U)`` (i = 0) or the wedge
    test ``(fe[i-1] - fe[i]) U + fe[i] < exp(-x)``, U fresh uniforms, a new word on rejection.
    The sign bit is independent of the bits (and draws) that decide E, so sign * E ~ Laplace(0, 1).
    """
    while True:
        k = np.uint64(rng.random() * TWO_53)
        i = (k >> U1) & BYTE
        r = (k >> LOW9) << LOW9
        x = r * we_double[i]
        if r < ke_double[i]:
            break
        if i == 0:
            x = ziggurat_exp_r - np.log1p(-rng.random())
            break
        if (fe_double[i - U1] - fe_double[i]) * rng.random() + fe_double[i] < np.exp(-x):
            break
    return -x if k & U1 else x


@njit(cache=True)
def laplace_draw(scale, rng):
    """One Laplace(0, ``scale``) variate (float). ``scale == 0`` returns 0 without drawing."""
    if scale == 0.0:
        return 0.0
    return scale * laplace_unit(rng)


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
        out[i] += scale * laplace_unit(rng)


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


@njit(cache=True, inline="always")
def laplace_kind_release(fstate, istate, fparams, t, x, m, rng, out):
    """local-laplace: each of the ``m`` users' vectors gets i.i.d. ``Lap(scale)`` per coordinate,
    i.e. the batch's column sums x[n] get ``m`` draws per counter (user by user).

    One user (every agent's episode): one pass over the counters, ``last = x + Lap``, ``cum += last``,
    ``out = cum``, the draws in counter order; the same operations, in the same order per counter, as
    the general path (copy, :func:`laplace_add_noise`, :func:`commit_release`), so the same numbers.
    Inlined into the generated door, hence into the agents' loops (as the tree's release)."""
    check_bounded_counts(x, m * fparams[F_SENS])
    scale = fparams[F_SCALE]
    if m == 1 and scale != 0.0:
        for c in range(x.shape[0]):
            v = x[c] + scale * laplace_unit(rng)
            fstate[ROW_LAST, c] = v
            cum = fstate[ROW_CUM, c] + v
            fstate[ROW_CUM, c] = cum
            out[c] = cum
        return
    last = fstate[ROW_LAST]
    for c in range(x.shape[0]):
        last[c] = x[c]
    for _ in range(m):
        laplace_add_noise(scale, rng, last)
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
