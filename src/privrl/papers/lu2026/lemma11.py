"""Lu et al. (2026) Lemma 11 as an algebra row (theorem check ``lu_lemma11``, kind "check").

Lemma 11: given the next layer's output, one step's mechanism Q~_h(s, a) = f + w, w ~ N(0,
beta_k / (N + 1)), with f's sensitivity 1/N to one episode's rewards (Remark-2 neighbours), has
Renyi divergence ``alpha (N + 1) / (2 beta_k N^2)`` (Gaussian, Lemma 6); the proof bounds it by
``alpha / (beta_k N) <= 2 alpha / (S H^3 log(2HSAk)) <= 2 alpha / (S H^3 log(2HSA))`` for N >= 1,
and composes the S A pairs of a layer to ``(alpha, 2 alpha A / (H^3 log(2HSA)))``-RDP (Lemma 7).
Lemma 12 composes K H layers to rho = 2AK / (H^2 log(2HSA)) (``accounting.lu_rho``).

The check evaluates each step exactly on a grid of (S, A, H, k, N) with beta_k of Alg. 1
(``rlsvi.rlsvi_beta``) and confirms every inequality and the composition identity.
Table: one row per (S, A, H), with the worst ratio of each inequality over k and N.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privrl.agents.rlsvi import rlsvi_beta
from privrl.mechanisms.accounting import lu_rho
from privrl.papers.common import check_axes, check_legend, save_check_figure
from privrl.papers.registry import TheoremCheck, sah_grid_sizes

K_GRID = (1, 2, 10, 1000, 10**6)
N_GRID = (1, 2, 3, 10, 100, 10**4)


def check_lemma11(rng, grid=({"S": 2, "A": 2, "H": 3}, {"S": 6, "A": 2, "H": 20}, {"S": 10, "A": 4, "H": 5})
                  ) -> pd.DataFrame:
    """Lemma 11's chain at alpha = 1 (every term is linear in alpha); ``rng`` unused (algebra)."""
    rows = []
    for g in grid:
        S, A, H = int(g["S"]), int(g["A"]), int(g["H"])
        layer = 2.0 * A / (H ** 3 * math.log(2 * H * S * A))          # Lemma 11's per-layer RDP slope
        worst = 0.0
        for k in K_GRID:
            b = rlsvi_beta(k, H, S, A)
            for N in N_GRID:
                exact = (N + 1) / (2.0 * b * N * N)                    # Gaussian RDP (Lemma 6)
                chain = (exact, 1.0 / (b * N), 2.0 / (S * H ** 3 * math.log(2 * H * S * A * k)),
                         2.0 / (S * H ** 3 * math.log(2 * H * S * A)))
                worst = max(worst, max(chain[i] / chain[i + 1] for i in range(3)))
        K = 10 ** 6
        compose = K * H * layer / lu_rho(K, H, S, A)                  # Lemma 12 = K H x Lemma 11
        per_pair_sum = S * A * 2.0 / (S * H ** 3 * math.log(2 * H * S * A)) / layer
        rows.append({"S": S, "A": A, "H": H, "worst_step_ratio": worst, "layer_rdp_slope": layer,
                     "pairs_sum_over_layer": per_pair_sum, "lemma12_over_KH_layers": compose,
                     "holds": bool(worst <= 1 + 1e-12 and np.isclose(per_pair_sum, 1) and np.isclose(compose, 1))})
    return pd.DataFrame(rows)


def figure_lemma11(df: pd.DataFrame, path) -> None:
    """Worst ratio of consecutive terms of Lemma 11's chain per instance (<= 1: each step holds)."""
    from privrl.results.facets import category_ticks

    fig, (ax,) = check_axes()
    x = np.arange(len(df))
    ax.bar(x, df["worst_step_ratio"], label="max over k, N of term / next term")
    ax.axhline(1.0, color="k", ls="--", label="1 (each inequality holds)")
    ax.set(ylabel="ratio", title="Lu et al. Lemma 11: the RDP chain")
    category_ticks(ax, [f"S={r.S}, A={r.A}, H={r.H}" for r in df.itertuples()])  # wrapped to fit between ticks
    check_legend(ax)
    save_check_figure(fig, path)


def _measured(d: pd.DataFrame) -> str:
    return (f"worst term/next-term ratio {d['worst_step_ratio'].max():.3g} (<= 1) over k in {K_GRID}, N in {N_GRID}; "
            "S A pairs sum to the layer slope 2A/(H^3 log 2HSA); K H layers give Lemma 12's rho")


LEMMA11 = TheoremCheck(
    name="lu_lemma11",
    statement=("Lemma 11: one step of RLSVI is (alpha, 2 alpha A / (H^3 log 2HSA))-RDP w.r.t. rewards (the chain "
               "alpha (N+1)/(2 beta_k N^2) <= alpha/(beta_k N) <= 2 alpha/(S H^3 log 2HSAk) holds for N >= 1); the "
               "level sums the S A pairs of a layer while one episode changes the rewards of one (s, a) per step: "
               "valid, over-counted by up to S A (the check confirms the chain, not its tightness)"),
    source="Lu et al. Lemma 11 (2026; with Lemmas 6, 7, 12)",
    run=check_lemma11, figure=figure_lemma11, measured=_measured, kind="check",
    sizes=sah_grid_sizes(),
)
