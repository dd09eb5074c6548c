"""Garcelon et al. (note, App. B) Prop. 7 as a theorem check (``garcelon_prop7``): the widths
beta^r, beta^p of the Eq. 16 estimators hold for every (s, a) with probability >= 1 - 2 delta.

Setting: ``k - 1`` users of a fixed small MDP (stationary P[S, A, S] ~ Dirichlet(1), Bernoulli
rewards of means r[S, A] ~ U(0, 1), initial state uniform) play uniformly random actions; their
counts (N^r and R over h = 1..H, N^p over h = 1..H-1, Prop. 7's definitions) go through M_sh
(Alg. 3: R_p on every bit at the per-bit eps of Lemma 4, the unbiased analyzer of Eq. 6; rewards
in {0, 1} are coded exactly by Eq. 5's m bits). The estimators of Eq. 16 and the widths of
Prop. 7 are the agent's own (:func:`privrl.agents.optimism.obi_widths`, c1..c4 from
:func:`privrl.agents.obi.shuffled_deviation_bounds` at the agent's ``delta_k``). A seed fails when
|r - r~| > beta^r or ||p - p~||_1 > beta^p for some (s, a). Verdict: one-sided test of the failure
rate against 2 delta (:mod:`privrl.results.coverage_verdicts`). Random actions are not Shuffled-OBI's
optimistic policies: the check tests the concentration statement, which holds for any policy.

Table: one row per k: failure fractions (r, p, either), the worst |dev| / width ratios'
(1 - 2 delta)-quantile, ``holds``.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import pandas as pd

from privrl.agents.optimism import obi_widths
from privrl.mechanisms import accounting as acc
from privrl.agents.obi import shuffled_deviation_bounds
from privrl.mechanisms.rr import rr_debias, rr_p_from_epsilon, rr_sum_counts
from privrl.papers.common import as_generator, check_axes, check_legend, save_check_figure
from privrl.papers.registry import TheoremCheck
from privrl.results.coverage_verdicts import failure_rate_lower, within_stated


def _private_sums(ones: np.ndarray, nbits: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """Debiased shuffled-RR sums of ``nbits`` bits per entry, ``ones`` of them 1 (any shape)."""
    flat = np.ascontiguousarray(ones, dtype=np.float64).ravel()
    out = np.empty_like(flat)
    rr_sum_counts(flat, int(nbits), p, rng, out)
    rr_debias(out, int(nbits), p, out)
    return out.reshape(ones.shape)


def _user_counts(P, r, n_users, H, n_trials, rng):
    """True counts of ``n_users`` random-action users per trial: N^r, R [n_trials, S, A] and
    N^p [n_trials, S, A, S] (transitions h = 1..H-1)."""
    S, A = r.shape
    nr = np.zeros((n_trials, S * A))
    rs = np.zeros((n_trials, S * A))
    npp = np.zeros((n_trials, S * A * S))
    cum = np.cumsum(P, axis=2)
    rows = np.arange(n_trials)[:, None]
    s = rng.integers(0, S, size=(n_trials, n_users))
    for h in range(H):
        a = rng.integers(0, A, size=(n_trials, n_users))
        sa = s * A + a
        rew = rng.random((n_trials, n_users)) < r[s, a]
        np.add.at(nr, (rows, sa), 1.0)
        np.add.at(rs, (rows, sa), rew.astype(np.float64))
        if h < H - 1:
            u = rng.random((n_trials, n_users))
            s2 = (u[..., None] > cum[s, a]).sum(-1).clip(max=S - 1)
            np.add.at(npp, (rows, sa * S + s2), 1.0)
            s = s2
    return nr.reshape(n_trials, S, A), rs.reshape(n_trials, S, A), npp.reshape(n_trials, S, A, S)


def check_garcelon_prop7(rng, k_grid: Iterable[int] = (30, 300, 3000), S: int = 2, A: int = 2, H: int = 3,
                         m: int = 1, eps0: float = 1.0, delta: float = 0.05, alpha: float = 2.0,
                         n_trials: int = 200) -> pd.DataFrame:
    """Coverage of Prop. 7's widths at episode k (``k - 1`` released users), per k of ``k_grid``."""
    rng = as_generator(rng)
    P = rng.dirichlet(np.ones(S), size=(S, A))
    r = rng.random((S, A))
    eps_bit = acc.garcelon_lemma4_epsilon(eps0, m, H)
    p = rr_p_from_epsilon(eps_bit)
    rows = []
    for k in k_grid:
        n_users = int(k) - 1
        nr, rs, npp = _user_counts(P, r, n_users, H, n_trials, rng)
        nr_t = _private_sums(nr, n_users * H, p, rng)
        rs_t = _private_sums(m * rs, n_users * H * m, p, rng) / m
        np_t = _private_sums(npp, n_users * (H - 1), p, rng)
        dk = 3.0 * delta / (2.0 * math.pi ** 2 * k ** 2)  # Alg. 4's c_{k,i}(eps0, delta0, 3 delta/(2 k^2 pi^2))
        c1, c2, c3, c4 = shuffled_deviation_bounds(n_users, H, S, m, p, dk / (8.0 * S * A), dk / (8.0 * S * A * S))
        Lk = math.log(4.0 * math.pi ** 2 * S * A * H * float(k) ** 3 / (3.0 * delta))
        ratio_r = np.zeros(n_trials)
        ratio_p = np.zeros(n_trials)
        for t in range(n_trials):
            for s in range(S):
                for a in range(A):
                    np_sa = float(np_t[t, s, a].sum())
                    br, bp, den_r, den_p = obi_widths(nr_t[t, s, a], np_sa, c1, c2, c3, c4, alpha, Lk, S)
                    if den_r > 0 and np.isfinite(br):
                        ratio_r[t] = max(ratio_r[t], abs(r[s, a] - rs_t[t, s, a] / den_r) / br)
                    if den_p > 0 and np.isfinite(bp):
                        ratio_p[t] = max(ratio_p[t], np.abs(P[s, a] - np_t[t, s, a] / den_p).sum() / bp)
        fail = (ratio_r > 1) | (ratio_p > 1)
        n_fail = int(fail.sum())
        rows.append({"k": int(k), "S": S, "A": A, "H": H, "m": m, "eps0": eps0, "p": p, "delta": delta,
                     "alpha": alpha, "n_trials": int(n_trials), "stated_failure": 2 * delta,
                     "fail_r": float((ratio_r > 1).mean()), "fail_p": float((ratio_p > 1).mean()),
                     "fail_fraction": n_fail / n_trials, "fail_lower95": failure_rate_lower(n_fail, n_trials),
                     "quantile_ratio_r": float(np.quantile(ratio_r, 1 - 2 * delta)),
                     "quantile_ratio_p": float(np.quantile(ratio_p, 1 - 2 * delta)),
                     "holds": within_stated(n_fail, n_trials, 2 * delta)})
    return pd.DataFrame(rows)


def figure_prop7(df: pd.DataFrame, path) -> None:
    """(1 - 2 delta)-quantile of the worst |dev| / width over (s, a), for r and p, vs k (<= 1: covered)."""
    fig, (ax,) = check_axes()
    ax.semilogx(df["k"], df["quantile_ratio_r"], "o-", label=r"$|r-\tilde r|/\beta^r$")
    ax.semilogx(df["k"], df["quantile_ratio_p"], "s-", label=r"$\|p-\tilde p\|_1/\beta^p$")
    ax.axhline(1.0, color="k", ls="--", label="1 (width holds)")
    ax.set(xlabel="k (episode)", ylabel="worst |dev| / width", ylim=(0, 1.1),
           title="Garcelon et al. Prop. 7\n" + r"$(1-2\delta)$-quantile over seeds")
    check_legend(ax)
    save_check_figure(fig, path)


def _measured(d: pd.DataFrame) -> str:
    return (f"max failure fraction {d['fail_fraction'].max():.3g} (one-sided 95% lower bound "
            f"{d['fail_lower95'].max():.3g}; stated 2 delta = {d['stated_failure'].iloc[0]:g}); worst ratio quantiles "
            f"r {d['quantile_ratio_r'].max():.2g}, p {d['quantile_ratio_p'].max():.2g} (k <= {d['k'].max()})")


PROP7 = TheoremCheck(
    name="garcelon_prop7",
    statement=("Prop. 7: with probability >= 1 - 2 delta, |r - r~_k| <= beta^r_k and ||p - p~_k||_1 <= beta^p_k for "
               "every (s, a) (Eq. 16 estimators from the shuffled counts, c1..c4 from Eq. 7-8)"),
    source="Garcelon et al. App. B, Eq. 16 and Prop. 7",
    run=check_garcelon_prop7, figure=figure_prop7, measured=_measured,
    sizes={"k_grid": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 1},
           "S": {"type": "integer", "minimum": 1, "maximum": 6}, "A": {"type": "integer", "minimum": 1, "maximum": 6},
           "H": {"type": "integer", "minimum": 2, "maximum": 10}, "m": {"type": "integer", "minimum": 1},
           "eps0": {"type": "number", "exclusiveMinimum": 0},
           "delta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.5},
           "alpha": {"type": "number", "exclusiveMinimum": 1},
           "n_trials": {"type": "integer", "minimum": 10}},
)
