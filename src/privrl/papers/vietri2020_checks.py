"""Vietri et al. (ICML 2020) Claim 1 under both neighbour relations (theorem check, kind "check").

Claim 1 (Sec. 4): for two t-neighbouring user sequences the visit streams n^(s, a, h) differ in
total l1 by at most H, "since a user visits at most H states". That is the add/remove reading (one
user's trajectory present or absent: H unit counts). Def. 3's neighbours *replace* the user of
episode t: the two trajectories may share no (s, a, h) at all, and the l1 distance is 2H. PUCB's
recorded guarantee carries both (``accounting.pucb_guarantee``: eps under add/remove, 2 eps under
replacement); the check enumerates every trajectory of small (S, A, H) and compares.

Table shape: one row per (S, A, H): ``l1_add_remove`` (max over trajectories of ||c(tau)||_1),
``l1_replacement`` (max over pairs of ||c(tau) - c(tau')||_1), the accounting's eps under each
relation for eps = 1, ``holds``.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from privrl.mechanisms import accounting
from privrl.mechanisms import events as ev
from privrl.papers.common import check_axes, check_legend, save_check_figure
from privrl.papers.registry import TheoremCheck


def visit_counts(S: int, A: int, H: int) -> np.ndarray:
    """int8[S^H A^H, H S A]: the one-hot (h, s, a) visit vector of every state-action sequence."""
    rows = []
    for traj in itertools.product(range(S * A), repeat=H):
        c = np.zeros((H, S * A), np.int8)
        c[np.arange(H), traj] = 1
        rows.append(c.ravel())
    return np.array(rows)


def check_claim1(rng, grid=({"S": 2, "A": 2, "H": 1}, {"S": 2, "A": 2, "H": 2}, {"S": 2, "A": 2, "H": 3},
                            {"S": 3, "A": 2, "H": 2})) -> pd.DataFrame:
    """Claim 1's l1 sensitivity of the visit streams, exactly, under add/remove and replacement
    (``rng`` unused: the check is an enumeration)."""
    rows = []
    for g in grid:
        S, A, H = int(g["S"]), int(g["A"]), int(g["H"])
        c = visit_counts(S, A, H).astype(np.int16)
        add_remove = int(np.abs(c).sum(1).max())
        replacement = int(max(np.abs(c[i] - c).sum(1).max() for i in range(c.shape[0])))
        rel = dict((r[0], r[1]) for r in accounting.pucb_guarantee(1.0, H, 2).relations)
        rows.append({"S": S, "A": A, "H": H, "l1_add_remove": add_remove, "l1_replacement": replacement,
                     "claim1_bound": H, "pucb_eps_add_remove": rel[ev.ADD_REMOVE],
                     "pucb_eps_replacement": rel[ev.REPLACEMENT],
                     "holds": bool(add_remove == H and replacement == 2 * H
                                   and rel[ev.REPLACEMENT] == 2 * rel[ev.ADD_REMOVE])})
    return pd.DataFrame(rows)


def figure_claim1(df: pd.DataFrame, path) -> None:
    """l1 distance of the visit streams vs H, under each relation, beside Claim 1's H."""
    fig, (ax,) = check_axes()
    d = df.sort_values("H")
    ax.plot(d["H"], d["l1_add_remove"], "o-", label="add/remove (max over users)")
    ax.plot(d["H"], d["l1_replacement"], "s-", label="replacement, Def. 3 (max over pairs)")
    ax.plot(d["H"], d["claim1_bound"], "k--", label="Claim 1: H")
    ax.set(xlabel="H", ylabel="total l1 distance of the streams", title="Vietri Claim 1: visit-stream sensitivity")
    check_legend(ax)
    save_check_figure(fig, path)


def _measured(d: pd.DataFrame) -> str:
    return ("max l1 = H under add/remove, 2H under replacement for (S, A, H) in "
            + ", ".join(f"({r.S}, {r.A}, {r.H})" for r in d.itertuples())
            + "; PUCB's accounting: eps (add/remove), 2 eps (replacement)")


CLAIM1_SENSITIVITY = TheoremCheck(
    name="vietri_claim1",
    statement=("Claim 1: the visit streams' total l1 sensitivity is H for add/remove neighbours and 2H for "
               "Def. 3's replacement neighbours (PUCB is eps-JDP for add/remove, 2 eps for replacement)"),
    source="Vietri et al. Sec. 4, Claim 1 and Def. 3",
    run=check_claim1, figure=figure_claim1, measured=_measured, kind="check",
    sizes={"grid": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["S", "A", "H"], "additionalProperties": False,
        "properties": {k: {"type": "integer", "minimum": 1, "maximum": 4} for k in ("S", "A", "H")}}}},
)
