"""The local Laplace mechanism of a whole batch, drawn as one variate per counter.

The ``local-laplace`` kind (:mod:`.laplace`) adds i.i.d. ``Lap(b)`` to every coordinate of each
of the batch's m users, i.e. the batch's column sums get the sum of m ``Lap(b)`` per counter,
drawn user by user (m draws per counter). The same sum in law with two draws:
``Lap(b) = b (E - E')`` with E, E' i.i.d. Exp(1), and a sum of m i.i.d. Exp(1) is Gamma(m, 1),
so ``sum_{i<=m} Lap_i(b) = b (G - G')``, G, G' i.i.d. Gamma(m, 1). Same mechanism, same privacy
(each user's report is unchanged in law; the analyzer sees only the sum), another random stream.
Used by the aggregate simulation of SDP-PE (docs/decisions/aggregate_simulation.md).
"""
from __future__ import annotations

from numba import njit

from privrl.mechanisms.kinds import check_counts


@njit(cache=True)
def laplace_sum_release(x, scale, m, rng, out):
    """out[c] = x[c] + sum of m i.i.d. Lap(scale) = x[c] + scale (Gamma(m) - Gamma(m)); x[n] >= 0.

    ``m == 0`` adds nothing (no users, no noise); ``scale`` must be finite and > 0."""
    if not (scale > 0.0 and scale < float("inf")):
        raise ValueError("laplace_sum_release: scale must be finite and > 0")
    if m < 0:
        raise ValueError("laplace_sum_release: m must be >= 0")
    check_counts(x)
    for c in range(x.shape[0]):
        out[c] = x[c]
        if m > 0:
            out[c] += scale * (rng.standard_gamma(float(m)) - rng.standard_gamma(float(m)))
