"""Optimistic backward induction shared by the UCB-type agents.

Inputs (per layer, i.e. time-inhomogeneous, as in Vietri et al. Alg. 2):
    p_hat   float64[H, S, A, S]  estimated transition rows (possibly from private counts)
    q_base  float64[H, S, A]     r^ + bonus for the pair; +inf for an unvisited pair
    n_sa    float64[H, S, A]     visit counts (used only to break ties)
Outputs: pi int64[H, S] greedy in the optimistic Q, V float64[H + 1, S].
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, fastmath={"reassoc", "contract"})
def optimistic_plan(p_hat, q_base, n_sa, pi, V):
    """Q_h(s,a) = min(H - h, q_base + p_hat . V_{h+1}) for 0-based h (= H - h' + 1 for 1-based h').

    Ties (typically all-saturated actions) go to the action with the smaller count n_sa,
    then to the lower index, so a fully optimistic agent explores systematically instead
    of repeating action 0 (docs/decisions.md, "Tie-breaking"). Clipping and selection are
    written as selects, not branches (their outcome depends on the data: "Throughput").
    Returns the fraction of (h, s, a) whose Q is clipped at H - h (bonus saturated).
    """
    H, S, A = q_base.shape
    clipped = 0
    for s in range(S):
        V[H, s] = 0.0
    for h in range(H - 1, -1, -1):
        cap = float(H - h)
        for s in range(S):
            best = -1.0
            best_a = 0
            nb = 0.0
            for a in range(A):
                q = q_base[h, s, a]
                if q < cap:
                    for s2 in range(S):
                        q += p_hat[h, s, a, s2] * V[h + 1, s2]
                c = q >= cap  # branch-free from here: these comparisons are data dependent
                clipped += c
                q = cap if c else q
                na = n_sa[h, s, a]
                take = (q > best) | ((q == best) & (na < nb))
                best = q if take else best
                best_a = a if take else best_a
                nb = na if take else nb
            pi[h, s] = best_a
            V[h, s] = best
    return clipped / (H * S * A)


@njit(cache=True, inline="always")
def refresh_row(counts_sas, n, row_out):
    """row_out[:] = counts_sas / n (the empirical transition row of one pair; n > 0)."""
    inv = 1.0 / n
    for s2 in range(row_out.shape[0]):
        row_out[s2] = counts_sas[s2] * inv


@njit(cache=True, inline="always")
def count_step(n_sa, n_sas, r_sum, p_hat, h, s, a, s_next, r):
    """Add one observed step (h, s, a) -> s_next with reward r to the per-layer counts
    n_sa[H, S, A], n_sas[H, S, A, S], r_sum[H, S, A] and refresh the row p_hat[h, s, a].
    Returns the new n_sa[h, s, a]."""
    n_sa[h, s, a] += 1.0
    n_sas[h, s, a, s_next] += 1.0
    r_sum[h, s, a] += r
    n = n_sa[h, s, a]
    refresh_row(n_sas[h, s, a], n, p_hat[h, s, a])
    return n


def unvisited_q_base(H: int, S: int, A: int) -> np.ndarray:
    return np.full((H, S, A), np.inf)
