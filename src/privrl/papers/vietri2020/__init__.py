"""Vietri, Balle, Krishnamurthy & Wu (ICML 2020), *Private Reinforcement Learning with PAC and
Regret Guarantees*: what reproduces it.

* theorem check ``binary_mechanism`` -- Thm 12 (App. A): the binary-mechanism counter's error;
* analyses ``vietri2020_pac`` (Thm 3), ``vietri2020_thm4`` (Thm 4's explicit bound and rate),
  ``vietri2020_lower_bound`` (Thm 5-6 on the hard family): :mod:`privrl.papers.vietri2020.bounds`;
* PUCB (Alg. 2-3) also runs in the Garcelon Table 1 analysis (:mod:`privrl.papers.garcelon2021`) and
  its privacy cost (Thm 4: additive 1/eps) in :mod:`privrl.papers.cross_paper`.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

from privrl.mechanisms.bounds import thm12_bound
from privrl.mechanisms.tree import tree_levels, tree_max_error
from privrl.papers.common import as_generator, check_axes, check_legend, save_check_figure
from privrl.papers.registry import Paper, TheoremCheck
from privrl.papers.vietri2020.minimax import ANALYSES as MINIMAX
from privrl.papers.vietri2020.bounds import ANALYSES
from privrl.papers.vietri2020.checks import CLAIM1_SENSITIVITY, COUNTERS_WITHIN_E, LEMMA8
from privrl.papers.vietri2020.dimensions import ANALYSES as DIMENSIONS


def check_binary_mechanism(rng, T_grid: Iterable[int] = tuple(2**j for j in range(6, 17)),
                           n_trials: int = 1000, epsilon: float = 1.0, beta: float = 0.05) -> pd.DataFrame:
    """Vietri et al. Thm 12: ``max_t |B(t) - c(t)|`` over ``t <= T`` vs ``(4/eps) log(1/beta) log^{2.5} T``.

    ``n_trials`` independent eps-DP counters (node scale ``L/eps``) on Bernoulli(1/2) streams;
    ``holds`` iff the empirical ``(1 - beta)``-quantile of the max error is below the bound
    with ``log T`` read both as log2 and as ln (docs/decisions/mechanisms.md, D2).
    """
    rng = as_generator(rng)
    rows = []
    for T in T_grid:
        L = tree_levels(int(T))
        err = tree_max_error(int(T), int(n_trials), 0.5, L / epsilon, rng)
        q = float(np.quantile(err, 1.0 - beta))
        b2, be = thm12_bound(epsilon, beta, int(T), "log2"), thm12_bound(epsilon, beta, int(T), "ln")
        rows.append({"T": int(T), "levels": L, "epsilon": epsilon, "beta": beta, "n_trials": int(n_trials),
                     "quantile_max_error": q, "mean_max_error": float(err.mean()),
                     "bound_log2": b2, "bound_ln": be, "holds": bool(q <= min(b2, be))})
    return pd.DataFrame(rows)


def figure_binary_mechanism(df: pd.DataFrame, path) -> None:
    """Max prefix error quantile vs T (log-log) beside the Thm 12 bounds."""
    fig, (ax,) = check_axes()
    ax.loglog(df["T"], df["quantile_max_error"], "o-", label=f"empirical {1 - df['beta'].iloc[0]:.2f}-quantile")
    ax.loglog(df["T"], df["mean_max_error"], ".:", label="mean max error")
    ax.loglog(df["T"], df["bound_log2"], "k--", label=r"Thm 12, $\log_2 T$")
    ax.loglog(df["T"], df["bound_ln"], "k-.", label=r"Thm 12, $\ln T$")
    ax.set(xlabel="T", ylabel=r"$\max_{t\leq T}|B(t)-c(t)|$", title=f"Binary mechanism, eps={df['epsilon'].iloc[0]}")
    check_legend(ax)
    save_check_figure(fig, path)


def _measured(d: pd.DataFrame) -> str:
    r = (d["quantile_max_error"] / d[["bound_log2", "bound_ln"]].min(axis=1)).max()
    return f"max quantile/bound = {r:.3f} (T <= {d['T'].max()})"


BINARY_MECHANISM = TheoremCheck(
    name="binary_mechanism",
    statement="binary-mechanism prefix error below (4/eps) log(1/beta) log^2.5 T",
    source="Vietri et al. App. A, Thm 12",
    run=check_binary_mechanism, figure=figure_binary_mechanism, measured=_measured,
    sizes={"T_grid": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 1},
           "n_trials": {"type": "integer", "minimum": 10},
           "epsilon": {"type": "number", "exclusiveMinimum": 0},
           "beta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
)

PAPER = Paper(
    key="vietri2020",
    title="Private Reinforcement Learning with PAC and Regret Guarantees",
    authors=("Giuseppe Vietri", "Borja Balle", "Akshay Krishnamurthy", "Zhiwei Steven Wu"),
    year=2020, venue="ICML 2020", link="",
    file="001_62dda6bb64c1eaea.txt",
    analyses={**ANALYSES, **MINIMAX, **DIMENSIONS},
    theorem_checks=(BINARY_MECHANISM, CLAIM1_SENSITIVITY, COUNTERS_WITHIN_E, LEMMA8),
)
