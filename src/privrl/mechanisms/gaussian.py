"""Gaussian perturbation (numba kernels): ``x + N(0, sigma^2)`` and count-scaled variants.

Used by RLSVI (Lu, Gajane, Bai, Talebi 2026, Alg. 1 line 10), whose perturbation of
(h, s, a) is ``N(0, beta / (N + 1))`` for the visit count N: the agent draws a standard
normal block through the door (``privatizer.gaussian_noise(1.0, ...)``) and scales it; the
RL formula for beta lives in the agent. Sampling: numpy's ziggurat ``standard_normal``.

Privacy: a Gaussian of standard deviation sigma on a statistic of l2 sensitivity Delta is
``Delta/sigma``-GDP (:class:`.events.GaussianEvent`); Lu et al. Lemma 11 gives the RDP of
RLSVI's steps (:mod:`privrl.mechanisms.accounting`).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def gaussian_noise(sigma, rng, out):
    """Fill out[n] with i.i.d. N(0, sigma^2) (``sigma == 0``: zeros, nothing drawn)."""
    if sigma == 0.0:
        for i in range(out.shape[0]):
            out[i] = 0.0
        return
    for i in range(out.shape[0]):
        out[i] = sigma * rng.standard_normal()


@njit(cache=True)
def count_scaled_noise(beta, counts, rng, out):
    """Count-scaled Gaussian noise: ``out[i] ~ N(0, beta / (counts[i] + 1))``.

    counts[n] float64 (e.g. visit counts), out[n] float64.
    """
    for i in range(counts.shape[0]):
        out[i] = math.sqrt(beta / (counts[i] + 1.0)) * rng.standard_normal()


@njit(cache=True)
def count_scaled_perturb(values, beta, counts, rng, out):
    """``out[i] = values[i] + N(0, beta / (counts[i] + 1))`` (Lu et al. Alg. 1 line 10's form); out may alias values."""
    for i in range(counts.shape[0]):
        out[i] = values[i] + math.sqrt(beta / (counts[i] + 1.0)) * rng.standard_normal()


def gaussian(x, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Python convenience: ``x + N(0, sigma^2)`` as a new float64 array."""
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    noise = np.empty_like(x)
    gaussian_noise(float(sigma), rng, noise)
    return x + noise
