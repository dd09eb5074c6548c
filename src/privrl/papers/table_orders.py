"""The regret forms of Garcelon et al. Table 1 and Bai et al. Table I, and where an order of two
of them is about privacy.

Both tables rank privacy models by O~ upper bounds, a statistical term plus a privacy term
(constants 1, logs dropped). "JDP costs less regret than LDP" is a statement about the privacy
terms (1/eps additive vs sqrt(K)/eps); where they are negligible (large eps) the two forms differ
by the constants of their sqrt(K) terms only, which the tables do not compare. An order row is
therefore scored only where the forms themselves predict it by a margin: the slower form at
least :data:`MARGIN` x the faster one at the eps and K of the row (:func:`dominance`); elsewhere
it is labelled context (docs/decisions/claims.md, "Table orders where the privacy term dominates").

Garcelon et al. print Table 1 without S, A, H (footnote 4): JDP (PUCB) ``sqrt(K) + 1/eps0``,
LDP (LDP-OBI) ``sqrt(K)/eps0``; their ratio reaches m exactly for
``eps0 <= 1/m - 1/sqrt(K)`` (:func:`garcelon_eps_threshold`), i.e. eps0 < 1/2 at m = 2: at eps0 >= 1
the forms themselves put LDP at or below JDP. Bai et al. Table I: JDP (DP-UCBVI)
``sqrt(XAH^3K) + X^2AH^3/eps``, LDP ``sqrt(XAH^3K) + X^2AH^3 sqrt(K)/eps``, SDP (their PBPE /
SDP-PE) ``sqrt(X^2AH^5K) + X^3A^2H^6/eps``.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from privrl.results import verdicts as V

MARGIN = V.THRESHOLDS.strong_ratio  # the slower form must be >= this x the faster one (the "A << B" line)

Form = Callable[[float, float, int, int, int], float]  # (eps, K, X, A, H) -> regret bound, constants 1
FORMS: dict[tuple[str, str], tuple[Form, str]] = {
    ("garcelon2021", "JDP"): (lambda e, K, X, A, H: math.sqrt(K) + 1.0 / e, "sqrt(K) + 1/eps0"),
    ("garcelon2021", "LDP"): (lambda e, K, X, A, H: math.sqrt(K) / e, "sqrt(K)/eps0"),
    ("bai_sdp_pe", "JDP"): (lambda e, K, X, A, H: math.sqrt(X * A * H**3 * K) + X**2 * A * H**3 / e,
                            "sqrt(XAH^3K) + X^2AH^3/eps"),
    ("bai_sdp_pe", "LDP"): (lambda e, K, X, A, H: math.sqrt(X * A * H**3 * K) + X**2 * A * H**3 * math.sqrt(K) / e,
                            "sqrt(XAH^3K) + X^2AH^3 sqrt(K)/eps"),
    ("bai_sdp_pe", "SDP"): (lambda e, K, X, A, H: math.sqrt(X**2 * A * H**5 * K) + X**3 * A**2 * H**6 / e,
                            "sqrt(X^2AH^5K) + X^3A^2H^6/eps"),
}


def form_ratio(paper: str, slower: str, faster: str, eps: float, K: float, X: int, A: int, H: int) -> float:
    """The slower model's form over the faster one's at (eps, K) on an X x A x H instance."""
    return FORMS[(paper, slower)][0](eps, K, X, A, H) / FORMS[(paper, faster)][0](eps, K, X, A, H)


def dominance(paper: str, slower: str, faster: str, eps: float, K: float, mdp, margin: float = MARGIN
              ) -> tuple[float, float, str]:
    """(ratio of the forms at K, first K at which it is >= ``margin`` (inf: at no K <= k_max),
    note). The order is a claim about privacy at this eps only from that K on."""
    X, A, H = int(mdp.S), int(mdp.A), int(mdp.H)
    r = form_ratio(paper, slower, faster, eps, K, X, A, H)
    k_from = V.first_k(1.0, lambda k: form_ratio(paper, slower, faster, eps, k, X, A, H) >= margin)
    note = (f"Table forms at eps = {eps:g}: {slower} {FORMS[(paper, slower)][1]} / {faster} "
            f"{FORMS[(paper, faster)][1]} = {r:.3g} at K = {K:.3g} (privacy term dominant where >= {margin:g}"
            + (f", from K = {k_from:.3g})" if math.isfinite(k_from) else ": at no K at this eps)"))
    return r, k_from, note


def eps_threshold(paper: str, slower: str, faster: str, K: float, mdp, margin: float = MARGIN) -> float:
    """The eps below which the forms' ratio at K is >= ``margin`` (bisection on log eps over
    [1e-6, 1e6]; 0 if none). Assumes the ratio falls with eps, as it does for the pairs of
    :data:`FORMS` once sqrt(K) exceeds the ratio of their privacy constants (tests check it)."""
    X, A, H = int(mdp.S), int(mdp.A), int(mdp.H)
    f = lambda e: form_ratio(paper, slower, faster, e, K, X, A, H) - margin  # noqa: E731
    lo, hi = 1e-6, 1e6
    if f(lo) < 0:
        return 0.0
    if f(hi) >= 0:
        return math.inf
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if f(mid) >= 0 else (lo, mid)
    return float(np.sqrt(lo * hi))


def garcelon_eps_threshold(K: float, margin: float = MARGIN) -> float:
    """Closed form of :func:`eps_threshold` for Table 1's JDP/LDP: sqrt(K)/eps >= m (sqrt(K) + 1/eps)
    <=> eps <= 1/m - 1/sqrt(K)."""
    return max(1.0 / margin - 1.0 / math.sqrt(K), 0.0)
