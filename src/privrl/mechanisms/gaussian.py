"""Gaussian perturbation of RLSVI (Lu, Gajane, Bai, Talebi 2026, Alg. 1, line 10).

``Q~_h^k(s, a) = R^_h^k(s, a) + P^_h^k(.|s, a) . V~_{h+1}^k + w_h^k(s, a)`` with
``w_h^k(s, a) ~ N(0, beta_k / (N_h^k(s, a) + 1))`` and ``beta_k = (1/2) S H^3 log(2 H S A k)``.
The noise of a whole layer (or any block of counters) is drawn at once:
``w = sqrt(beta / (N + 1)) * Z`` with ``Z`` standard normal (numpy's ziggurat).

Privacy (Lemma 11): with reward sensitivity ``1/N`` the per-(h, s, a) Gaussian is
``(alpha, alpha (N+1) / (2 beta N^2))``-RDP; see :mod:`privrl.mechanisms.accounting`.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def rlsvi_beta(k, H, S, A):
    """Lu et al. Alg. 1 tuning: ``beta_k = (1/2) S H^3 log(2 H S A k)``."""
    return 0.5 * S * H**3 * math.log(2.0 * H * S * A * k)


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
def rlsvi_noise(beta, counts, rng, out):
    """RLSVI perturbation block: ``out[i] ~ N(0, beta / (counts[i] + 1))``.

    counts[n] float64 (visit counts N_h^k(s, a) of the block), out[n] float64.
    """
    for i in range(counts.shape[0]):
        out[i] = math.sqrt(beta / (counts[i] + 1.0)) * rng.standard_normal()


@njit(cache=True)
def rlsvi_perturb(values, beta, counts, rng, out):
    """``out[i] = values[i] + N(0, beta / (counts[i] + 1))`` (Alg. 1 line 10); out may alias values."""
    for i in range(counts.shape[0]):
        out[i] = values[i] + math.sqrt(beta / (counts[i] + 1.0)) * rng.standard_normal()


def gaussian(x, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Python convenience: ``x + N(0, sigma^2)`` as a new float64 array."""
    x = np.ascontiguousarray(x, dtype=np.float64).ravel()
    noise = np.empty_like(x)
    gaussian_noise(float(sigma), rng, noise)
    return x + noise
