"""Vietri et al. (ICML 2020): Claim 1 under both neighbour relations (theorem check ``vietri_claim1``,
kind "check"), Sec. 3's error level E_eps for all counters at once (``vietri_counters``) and Lemma 8's
explicit constant at the hard instance's first step (``vietri_lemma8``, kind "check").

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
import math

import numpy as np
import pandas as pd

from privrl.mechanisms.accounting import per_counter_epsilon
from privrl.mechanisms import accounting
from privrl.mechanisms import events as ev
from privrl.mechanisms.tree import tree_levels, tree_max_error
from privrl.papers.common import check_axes, check_legend, save_check_figure
from privrl.papers.registry import TheoremCheck, sah_grid_sizes
from privrl.results.coverage_verdicts import failure_rate_lower, within_stated


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
    ax.set(xlabel="H", ylabel="ℓ1 distance of streams", title="Vietri Claim 1:\nvisit-stream sensitivity")
    check_legend(ax)
    save_check_figure(fig, path)


def _measured(d: pd.DataFrame) -> str:
    return ("max l1 = H under add/remove, 2H under replacement for (S, A, H) in "
            + ", ".join(f"({r.S}, {r.A}, {r.H})" for r in d.itertuples())
            + "; PUCB's accounting: eps (add/remove), 2 eps (replacement)")


CLAIM1_SENSITIVITY = TheoremCheck(
    name="vietri_claim1",
    statement=("Claim 1 states the visit streams' total l1 sensitivity is <= H for t-neighbouring user sequences "
               "(episode t's data replaced); checked exactly: H under add/remove, but 2H under replacement (the "
               "proof counts one user's H visits, a swap moves 2H), so PUCB is eps-JDP for add/remove neighbours "
               "and 2 eps-JDP for Def. 3's replacement (docs/decisions/mechanisms.md D7)"),
    source="Vietri et al. Sec. 4, Claim 1 and Def. 3",
    run=check_claim1, figure=figure_claim1, measured=_measured, kind="check",
    sizes=sah_grid_sizes(maximum=4),
)


# ----------------------------------------------------------------------------- Sec. 3: E_eps
def check_counters_within_e(rng, S: int = 2, A: int = 2, H: int = 2, T_grid=(64, 1024, 8192), epsilon: float = 1.0,
                            beta: float = 0.05, n_trials: int = 200) -> pd.DataFrame:
    """Vietri et al. Sec. 3 / Alg. 3: with probability >= 1 - beta every one of PUCB's
    2SAH + S^2AH counters (binary mechanism at eps' = eps / (3H), noise Lap(L / eps') per node)
    stays within E_eps of its true count at every t <= T, E_eps = (3/eps) H log((2SAH + S^2AH)/beta')
    log^2.5 T, beta' = beta / T (:func:`privrl.agents.pucb.pucb_error_level`). Per T: the fraction
    of ``n_trials`` independent runs whose max error over all counters and t <= T exceeds E_eps,
    tested one-sided against beta (:mod:`privrl.results.coverage_verdicts`)."""
    from privrl.agents.pucb import pucb_error_level

    n_cnt = 2 * S * A * H + S * S * A * H
    rows = []
    for T in T_grid:
        L = tree_levels(int(T))
        err = tree_max_error(int(T), n_trials * n_cnt, 0.5, L / (per_counter_epsilon(epsilon, H)), rng).reshape(n_trials, n_cnt)
        worst = err.max(axis=1)
        E = pucb_error_level(epsilon, H, S, A, float(T), beta)
        n_fail = int((worst > E).sum())
        rows.append({"T": int(T), "S": S, "A": A, "H": H, "counters": n_cnt, "epsilon": epsilon, "beta": beta,
                     "n_trials": n_trials, "E_eps": E, "quantile_max_error": float(np.quantile(worst, 1 - beta)),
                     "fail_fraction": n_fail / n_trials, "fail_lower95": failure_rate_lower(n_fail, n_trials),
                     "holds": within_stated(n_fail, n_trials, beta)})
    return pd.DataFrame(rows)


def figure_counters(df: pd.DataFrame, path) -> None:
    """Max error over all counters ((1 - beta)-quantile over runs) vs T beside E_eps."""
    fig, (ax,) = check_axes()
    ax.loglog(df["T"], df["quantile_max_error"], "o-", label="max over counters, (1−β)-quantile")
    ax.loglog(df["T"], df["E_eps"], "k--", label=r"$E_\varepsilon$ (Sec. 3)")
    ax.set(xlabel="T", ylabel="count error", title=r"Vietri Sec. 3: every counter within $E_\varepsilon$")
    import matplotlib.ticker

    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # decades only: no crowded minor labels
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    check_legend(ax)
    save_check_figure(fig, path)


def _measured_counters(d: pd.DataFrame) -> str:
    return (f"max fail fraction {d['fail_fraction'].max():.3g} (one-sided 95% lower bound "
            f"{d['fail_lower95'].max():.3g}; "
            f"stated beta = {d['beta'].iloc[0]:g}); "
            f"quantile / E_eps <= {(d['quantile_max_error'] / d['E_eps']).max():.3g} (T <= {d['T'].max()})")


COUNTERS_WITHIN_E = TheoremCheck(
    name="vietri_counters",
    statement="with probability >= 1 - beta all of PUCB's 2SAH + S^2AH private counters stay within E_eps at every t <= T",
    source="Vietri et al. Sec. 3 (E_eps), Alg. 3, Thm 12",
    run=check_counters_within_e, figure=figure_counters, measured=_measured_counters,
    sizes={"S": {"type": "integer", "minimum": 1, "maximum": 4}, "A": {"type": "integer", "minimum": 1, "maximum": 4},
           "H": {"type": "integer", "minimum": 1, "maximum": 4},
           "T_grid": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 1},
           "epsilon": {"type": "number", "exclusiveMinimum": 0},
           "beta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
           "n_trials": {"type": "integer", "minimum": 10}},
)


# ----------------------------------------------------------------------------- Sec. 6.1: Lemma 8
def lemma8_pulls(eps: float, alpha: float, beta: float) -> float:
    """Lemma 8's explicit bound on E[n_a]: ``ln(1/(4 beta)) / (24 eps alpha)``."""
    return math.log(1.0 / (4.0 * beta)) / (24.0 * eps * alpha)


def hard_instance_first_step(S: int, A: int, H: int, eps: float, alpha: float, beta: float) -> float:
    """App. (proof of Lemma 10): Lemma 8 at the first step of the hard MDP (n = S initial states,
    A - 1 alpha'-suboptimal arms each, alpha' = 14 alpha / H, beta_s = 1 - (6/7)(1 - beta)):
    ``E[n_M] >= H S (A - 1) ln(7 / (4 + 24 beta)) / (336 eps alpha)``."""
    return H * S * (A - 1) * math.log(7.0 / (4.0 + 24.0 * beta)) / (336.0 * eps * alpha)


def check_lemma8(rng, grid=({"S": 2, "A": 2, "H": 2}, {"S": 3, "A": 3, "H": 5}, {"S": 10, "A": 4, "H": 20}),
                 betas=(1e-4, 1e-3, 0.01, 0.05, 0.1, 0.12, 0.124), eps_alpha=((1.0, 0.1), (0.1, 0.01), (4.0, 0.5))
                 ) -> pd.DataFrame:
    """Lemma 8's constants and their use at the hard instance's first step, evaluated exactly
    (``rng`` unused: algebra). Per beta in (0, 1/8) and (eps, alpha):

    * the proof's t_a = ln((1 - 2 beta)/(2 beta)) / (24 eps alpha) makes Eq. (4)'s right side
      e^{6 eps alpha 4 t_a} beta equal 1/2 - beta, strictly below the left side 3/4 (3/4 - beta)
      (the contradiction); the statement's ln(1/(4 beta)) is at most the proof's logarithm
      (beta <= 1/4), so the stated bound is implied;
    * Lemma 10's proof: phi = 1 - 2 alpha/(H alpha') = 6/7 at alpha' = 14 alpha/H (Eq. 46),
      beta_s = 1 - phi (1 - beta) < 1/4 for beta < 1/8, the per-state (A - 1)/(24 eps alpha')
      = H (A - 1)/(336 eps alpha), and S states at beta_s give the last line's
      H S (A - 1) ln(7/(4 + 24 beta)) / (336 eps alpha).

    Table: one row per (S, A, H, beta), the worst relative error of each identity over (eps,
    alpha) and the slack of each inequality; ``holds``.
    """
    rows = []
    for g in grid:
        S, A, H = int(g["S"]), int(g["A"]), int(g["H"])
        for beta in betas:
            worst_id, min_gap, min_log_slack, ok = 0.0, math.inf, math.inf, True
            for eps, alpha in eps_alpha:
                t_a = math.log((1 - 2 * beta) / (2 * beta)) / (24 * eps * alpha)
                rhs4 = math.exp(6 * eps * alpha * 4 * t_a) * beta
                lhs4 = 0.75 * (0.75 - beta)
                alpha_p = 14 * alpha / H
                phi = 1 - 2 * alpha / (H * alpha_p)
                beta_s = 1 - phi * (1 - beta)
                per_state = (A - 1) * lemma8_pulls(eps, alpha_p, beta_s)
                total = S * per_state
                ids = (rhs4 / (0.5 - beta), phi / (6 / 7), per_state * 336 * eps * alpha
                       / (H * (A - 1) * math.log(1 / (4 * beta_s))) if A > 1 else 1.0,
                       total / hard_instance_first_step(S, A, H, eps, alpha, beta) if A > 1 else 1.0)
                worst_id = max(worst_id, max(abs(x - 1) for x in ids))
                min_gap = min(min_gap, lhs4 - rhs4)
                min_log_slack = min(min_log_slack, math.log((1 - 2 * beta) / (2 * beta)) - math.log(1 / (4 * beta)))
                ok &= beta_s < 0.25
            rows.append({"S": S, "A": A, "H": H, "beta": beta, "worst_identity_error": worst_id,
                         "eq4_gap": min_gap, "statement_log_slack": min_log_slack,
                         "beta_s": 1 - (6 / 7) * (1 - beta),
                         "first_step_bound_eps1_alpha0.1": hard_instance_first_step(S, A, H, 1.0, 0.1, beta),
                         "holds": bool(ok and worst_id <= 1e-9 and min_gap > 0 and min_log_slack >= -1e-12)})
    return pd.DataFrame(rows)


def figure_lemma8(df: pd.DataFrame, path) -> None:
    """Eq. (4)'s gap 3/4 (3/4 - beta) - (1/2 - beta) and beta_s vs beta (both must stay positive / below 1/4)."""
    fig, (a1, a2) = check_axes(2)
    d = df.drop_duplicates("beta").sort_values("beta")
    a1.semilogx(d["beta"], d["eq4_gap"], "o-", label="Eq. (4): left − right side")
    a1.axhline(0.0, color="k", ls="--", label="0 (no contradiction)")
    a1.set(xlabel=r"$\beta$", ylabel="gap", title="Vietri Lemma 8: Eq. (4)")
    a2.semilogx(d["beta"], d["beta_s"], "s-", label=r"$\beta_s = 1-\frac{6}{7}(1-\beta)$")
    a2.axhline(0.25, color="k", ls="--", label="1/4 (Lemma 8's range)")
    a2.set(xlabel=r"$\beta$", ylabel=r"$\beta_s$", title="hard instance, first step")
    check_legend(a1), check_legend(a2)
    save_check_figure(fig, path)


def _measured_lemma8(d: pd.DataFrame) -> str:
    return (f"worst identity error {d['worst_identity_error'].max():.2g}; Eq. (4) gap >= {d['eq4_gap'].min():.3g} "
            f"> 0; beta_s <= {d['beta_s'].max():.4f} < 1/4 for beta <= {d['beta'].max():g}; "
            "E[n_M] >= H S (A-1) ln(7/(4+24 beta)) / (336 eps alpha)")


LEMMA8 = TheoremCheck(
    name="vietri_lemma8",
    statement=("Lemma 8: an eps-DP best-arm identifier succeeding w.p. 1 - beta pulls an alpha-suboptimal arm "
               "E[n_a] > ln(1/(4 beta)) / (24 eps alpha) times; at the hard instance's first step (alpha' = 14 "
               "alpha / H, phi = 6/7) E[n_M] >= H S (A - 1) ln(7/(4 + 24 beta)) / (336 eps alpha)"),
    source="Vietri et al. Sec. 6.1, Lemma 8 (proof Eq. 2-4) and the proof of Lemma 10 (Eq. 46)",
    run=check_lemma8, figure=figure_lemma8, measured=_measured_lemma8, kind="check",
    sizes={**sah_grid_sizes(),
           "betas": {"type": "array", "minItems": 1,
                     "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.125}},
           "eps_alpha": {"type": "array", "minItems": 1, "items": {
               "type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number", "exclusiveMinimum": 0}}}},
)
