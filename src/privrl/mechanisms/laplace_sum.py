"""The local Laplace mechanism of a whole batch, drawn as one variate per counter.

The ``local-laplace`` kind (:mod:`.laplace`) adds i.i.d. ``Lap(b)`` to every coordinate of each
of the batch's m users, i.e. the batch's column sums get the sum of m ``Lap(b)`` per counter,
drawn user by user (m draws per counter). The same sum in law with two draws:
``Lap(b) = b (E - E')`` with E, E' i.i.d. Exp(1), and a sum of m i.i.d. Exp(1) is Gamma(m, 1),
so ``sum_{i<=m} Lap_i(b) = b (G - G')``, G, G' i.i.d. Gamma(m, 1). Same mechanism, same privacy
(each user's report is unchanged in law; the analyzer sees only the sum), another random stream.
Used by the aggregate simulation of SDP-PE (docs/decisions/aggregate_simulation.md).

Its domain is the door's local-laplace kind's (:func:`.laplace.laplace_kind_setup` /
``laplace_kind_release``): epsilon in [1e-9, 1e4] (``check_epsilon``) and column sums in
``[0, m * sensitivity]`` (``check_bounded_counts``: each user's count per coordinate lies in
``[0, sensitivity]``); anything else is refused. Audited like the door's kinds
(:func:`privrl.mechanisms.audit.audit_laplace_sum`).
"""
from __future__ import annotations

from numba import njit

from privrl.mechanisms.kinds import check_bounded_counts, check_epsilon


@njit(cache=True)
def laplace_sum_release(x, sensitivity, epsilon, m, rng, out):
    """out[c] = x[c] + sum of m i.i.d. Lap(b) = x[c] + b (Gamma(m) - Gamma(m)), b = sensitivity / epsilon,
    for the column sums x[n] of ``m`` users each holding counts in [0, sensitivity] per coordinate.

    ``m == 0`` adds nothing (no users, no noise; x must then be 0). eps-LDP per user for l1
    distance ``sensitivity`` between two users' vectors (the local-laplace kind's guarantee)."""
    check_epsilon(epsilon)
    if not (sensitivity > 0.0 and sensitivity < float("inf")):
        raise ValueError("laplace_sum_release: sensitivity must be finite and > 0")
    if m < 0:
        raise ValueError("laplace_sum_release: m must be >= 0")
    check_bounded_counts(x, m * sensitivity)
    scale = sensitivity / epsilon
    for c in range(x.shape[0]):
        out[c] = x[c]
        if m > 0:
            out[c] += scale * (rng.standard_gamma(float(m)) - rng.standard_gamma(float(m)))
