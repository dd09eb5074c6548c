"""Bai et al. App. Alg. 4, Lemma 42 as a theorem check: the shuffle binary summation is unbiased,
its error variance scales as eps^-2 in both regimes (n users below and above tau), and its exact
eps at delta = beta stays within the claimed eps (:data:`BITSUM`, registered by
:mod:`privrl.papers.bai_sdp_pe`)."""
from __future__ import annotations

import math
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from privrl.mechanisms.bitsum import bitsum_release, bitsum_tau
from privrl.mechanisms.bounds import bitsum_variance
from privrl.papers.common import as_generator, check_axes, check_legend, save_check_figure
from privrl.papers.registry import TheoremCheck


def check_bitsum_lemma42(rng, eps_grid: Iterable[float] = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9), beta: float = 0.01,
                         n_trials: int = 20000, ratios: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Bai et al. Lemma 42: unbiasedness, variance ~ eps^-2 in both regimes, exact eps vs claim.

    For each eps, ``n_users = ratio * tau`` (small regime ratio < 1, large > 1) so each regime
    is kept across the grid. ``n_trials`` counters with random true sums. Columns include the
    bias z-score, empirical and exact variance, the per-regime fitted exponent of
    ``var ~ eps^b`` and the exact eps at ``delta = beta``.
    """
    from privrl.mechanisms import exact_epsilon as exact_eps

    rng = as_generator(rng)
    ratios = dict(ratios or {"small": 0.25, "large": 4.0})
    rows = []
    for regime, ratio in ratios.items():
        for eps in eps_grid:
            tau = bitsum_tau(eps, beta)
            n = max(1, int(round(ratio * tau)))
            ysum = rng.binomial(n, 0.3, size=n_trials).astype(np.float64)
            z = np.empty(n_trials)
            bitsum_release(ysum, n, tau, rng, z)
            err = z - ysum
            var_exact = bitsum_variance(n, tau)
            rows.append({"regime": regime, "epsilon": eps, "beta": beta, "tau": tau, "n_users": n,
                         "n_trials": int(n_trials), "bias": float(err.mean()),
                         "bias_z": float(err.mean() / math.sqrt(var_exact / n_trials)),
                         "var_empirical": float(err.var(ddof=1)), "var_exact": var_exact,
                         "exact_epsilon": exact_eps.bitsum_exact_epsilon(n, tau, beta), "claimed_epsilon": eps})
    df = pd.DataFrame(rows)
    df["fitted_exponent"] = np.nan
    for regime, g in df.groupby("regime"):
        b = np.polyfit(np.log(g["epsilon"]), np.log(g["var_empirical"]), 1)[0] if len(g) > 1 else np.nan
        df.loc[g.index, "fitted_exponent"] = b
    df["holds"] = (df["bias_z"].abs() < 4.0) & (df["exact_epsilon"] <= df["claimed_epsilon"]) & (
        (df["fitted_exponent"] - (-2.0)).abs() < 0.25)
    return df


def figure_bitsum(df: pd.DataFrame, path) -> None:
    """Left: error variance vs eps (log-log, fitted exponents); right: exact vs claimed eps."""
    import matplotlib.ticker

    fig, (a1, a2) = check_axes(2)
    for regime, g in df.groupby("regime"):
        a1.loglog(g["epsilon"], g["var_empirical"], "o", label=f"{regime}: b={g['fitted_exponent'].iloc[0]:.2f}")
        a1.loglog(g["epsilon"], g["var_exact"], "k:", lw=1)
        a2.plot(g["epsilon"], g["exact_epsilon"], "o-", label=f"exact, {regime} regime")
    claim = df.drop_duplicates("epsilon").sort_values("epsilon")
    a2.plot(claim["epsilon"], claim["claimed_epsilon"], "k--", label="claimed (Lemma 42)")
    a1.set(xlabel="eps", ylabel="Var(Z - sum y)", title="Bai et al. Lemma 42: variance")
    a2.set(xlabel="eps", ylabel=f"eps at delta=beta={df['beta'].iloc[0]}", title="exact vs claimed")
    eps = sorted(df["epsilon"].unique())
    for a in (a1, a2):  # the run's eps as ticks (a log axis under a decade prints crowded minor labels)
        a.set_xticks(eps, [f"{e:g}" for e in eps], minor=False)
        a.set_xticks([], minor=True)
    a1.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    check_legend(a1), check_legend(a2)
    save_check_figure(fig, path)


def _bitsum_measured(d: pd.DataFrame) -> str:
    ex = ", ".join(f"{g}: b = {v:.2f}" for g, v in d.groupby("regime")["fitted_exponent"].first().items())
    return (f"max abs(bias z) = {d['bias_z'].abs().max():.2f}; {ex}; "
            f"max exact/claimed eps = {(d['exact_epsilon'] / d['claimed_epsilon']).max():.3f}")


BITSUM = TheoremCheck(
    name="bitsum_lemma42",
    statement="shuffle bit-sum unbiased, variance ~ eps^-2 in both regimes, exact eps <= eps",
    source="Bai et al. App. Alg. 4, Lemma 42",
    run=check_bitsum_lemma42, figure=figure_bitsum, measured=_bitsum_measured,
    sizes={"eps_grid": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                        "minItems": 2},
           "beta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
           "n_trials": {"type": "integer", "minimum": 10},
           "ratios": {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}}},
)
