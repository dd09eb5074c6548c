"""Worst-case (minimax) rates on a gap-indexed family: Vietri et al.'s hard family (Sec. 6) with the
gap as parameter, one cell per gap of a pre-registered grid.

A rate over a worst case (Thm 4's O~(sqrt K) upper bound, Thm 6's Omega(sqrt(HSAK)) lower
bound) is a statement about ``max_gap R(K; gap)``: on one fixed gap a good agent's regret turns
O(log K). Its empirical counterpart on a grid: the seed-mean regret of every gap at each
checkpoint, maximised over the grid (:func:`minimax_curve`); its K-exponent is fitted on a window
pre-registered from the agent's crossover formula (:func:`minimax_window`): from regime_factor x
the crossover of the largest gap (before it every gap still explores and the maximum is linear)
to the crossover of the smallest gap (beyond it every gap of the grid is resolved and the maximum
turns O(log K)); in between, the worst gap lies inside the grid. Under a decade: "not reached".

Scored one-sided: the upper bound (exponent <= 0.5 + allowance) by ``score_rate_upper``; the
lower bound (exponent >= 0.5 - allowance) by ``score_rate_lower``, where a smaller exponent is
"inconclusive", never "contradicted" (the grid's maximum is below the family's supremum).

Shapes: ``curves`` {gap: float64[n_seeds, C]} on common checkpoints ``ep`` int64[C].
"""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd

from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.common import curves as cell_curves, env_mdp, rng_for
from privrl.papers.planned import Row
from privrl.papers.scoring import crossover_of, frame
from privrl.results.bound_verdicts import minimax_k_needed, score_minimax
from privrl.results import verdicts as V
from privrl.results.fits import loglog_slope

PAPER = "vietri2020"
SRC = "Vietri et al. ICML 2020"


def minimax_curve(curves: Mapping[float, np.ndarray]) -> np.ndarray:
    """float64[C]: max over gaps of the seed-mean cumulative regret at each checkpoint."""
    return np.max(np.stack([np.asarray(R, float).mean(axis=0) for R in curves.values()]), axis=0)


def minimax_window(crossovers: Mapping[float, float], K_run: float, th: V.Thresholds = V.THRESHOLDS
                   ) -> tuple[float, float]:
    """(lo, hi): regime_factor x the largest gap's crossover, and the smallest gap's crossover
    (capped at the K run)."""
    lo = th.regime_factor * crossovers[max(crossovers)]
    return lo, min(float(K_run), crossovers[min(crossovers)])


def minimax_fit(ep: np.ndarray, curves: Mapping[float, np.ndarray], lo: float, hi: float,
                rng: np.random.Generator, n_boot: int) -> V.RateFit:
    """K-exponent of :func:`minimax_curve` on the checkpoints in [lo, hi], with a percentile CI
    from resampling every gap's seeds independently (``n_boot`` resamples)."""
    ep = np.asarray(ep, float)
    m = (ep >= lo) & (ep <= hi)
    if m.sum() < 2:
        return V.RateFit(math.nan, math.nan, math.nan, lo, hi)
    est = loglog_slope(ep[m], minimax_curve(curves)[m])[0]
    boots = []
    for _ in range(n_boot):
        res = {g: R[rng.integers(0, R.shape[0], R.shape[0])] for g, R in curves.items()}
        boots.append(loglog_slope(ep[m], minimax_curve(res)[m])[0])
    blo, bhi = np.quantile(boots, [0.025, 0.975])
    return V.RateFit(float(est), float(blo), float(bhi), float(ep[m][0]), float(ep[m][-1]),
                     int(min(R.shape[0] for R in curves.values())))


def _groups(infos: list[dict], config) -> dict[tuple, list[dict]]:
    """(agent, eps) -> its private cells on the experiment's hard-family envs (one per gap)."""
    groups: dict[tuple, list[dict]] = {}
    for info in infos:
        if config["envs"][info["env_key"]]["name"] == "hard_instance" and info["params"].get("noise", 1.0) > 0.5:
            groups.setdefault((info["agent"], float(info["params"].get("epsilon", math.nan))), []).append(info)
    return groups


def minimax_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``vietri2020_minimax``, declared from the run infos alone (no data): per (agent, eps) with
    at least two gaps, the upper (Thm 4) and lower (Thm 6) minimax rows, K needed a decade of window past
    10 x the largest gap's crossover while the smallest gap is unresolved (:func:`minimax_k_needed`)."""
    out = []
    for (agent, eps), cells in sorted(_groups(infos, config).items()):
        cross = {float(mdps[i["env_key"]].params["gap"]): crossover_of(i, mdps[i["env_key"]]) for i in cells}
        if len(cross) < 2:
            continue
        lo, _ = minimax_window(cross, math.inf)  # its start does not depend on the K run
        tag = f"{agent}_eps{eps:g}".replace(".", "p")
        out += [Row(f"vietri2020_minimax_{kind}_{tag}", "minimax: a decade past 10 x the largest gap's crossover",
                    tuple((i["env_key"], i["cell"]) for i in cells), minimax_k_needed(lo, cross[min(cross)]),
                    args={"key": (kind, agent, eps)}) for kind in ("upper", "lower")]
    return out


def vietri2020_minimax(ctx: AnalysisContext) -> AnalysisResult:
    """Per (agent, eps): the minimax regret over the experiment's hard-family envs (one per gap)."""
    rng = rng_for(ctx, "minimax")
    art = ctx.artifact("vietri2020_minimax", "md")
    groups = _groups(ctx.infos, ctx.config)
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    ids = {r.args["key"]: r.id for r in minimax_declaration(ctx.experiment, ctx.infos, mdps, ctx.config)}
    rows, claims = [], []
    for (agent, eps), infos in sorted(groups.items()):
        cur, cross, ep = {}, {}, None
        for info in infos:
            mdp = env_mdp(ctx, info["env_key"])
            gap = float(mdp.params["gap"])
            ep, cur[gap] = cell_curves(ctx, info["env_key"], info["cell"])
            cross[gap] = crossover_of(info, mdp)
        if ("upper", agent, eps) not in ids:  # fewer than two gaps: no row
            continue
        lo, hi = minimax_window(cross, ep[-1])
        fit = minimax_fit(ep, cur, lo, hi, rng, ctx.n_boot)
        up, low = score_minimax(fit, lo, hi, cross[min(cross)])
        grid = ", ".join(f"{g:g}" for g in sorted(cur))
        note = f"gaps {{{grid}}}; crossovers " + ", ".join(f"{g:g}: {cross[g]:.3g}" for g in sorted(cross))
        claims.append(V.make_claim(PAPER, "Thm 4", ids[("upper", agent, eps)],
                                   f"{agent} eps={eps:g}: worst-case regret over the hard family, max_gap R(K; gap), "
                                   "grows at most like K^0.5 (O~(H^2 sqrt(SAK)); one-sided)", "rate", art,
                                   V.Score(up.verdict, up.measured, "; ".join((up.regime, note)), up.k_needed),
                                   ctx.experiment, f"{SRC}, Thm 4 (worst case over the family of Sec. 6)"))
        claims.append(V.make_claim(PAPER, "Thm 6", ids[("lower", agent, eps)],
                                   f"{agent} eps={eps:g}: worst-case regret over the hard family grows at least like "
                                   "K^0.5 (Omega(sqrt(HSAK)); one-sided)", "rate", art,
                                   V.Score(low.verdict, low.measured, "; ".join((low.regime, note)), low.k_needed),
                                   ctx.experiment, f"{SRC}, Thm 6, Sec. 6"))
        rows.append({"agent": agent, "epsilon": eps, "gaps": grid, "window_lo": lo, "window_hi": hi,
                     "exponent": fit.exponent, "exponent_lo": fit.lo, "exponent_hi": fit.hi,
                     "upper_verdict": up.verdict, "lower_verdict": low.verdict})
    t = pd.DataFrame(rows)
    md = (f"# Vietri et al.: worst-case rate over the hard family ({ctx.experiment})\n\n"
          "max over the gap grid of the seed-mean regret; K-exponent on the window pre-registered from the "
          "crossovers (10 x the largest gap's, to the smallest gap's).\n\n"
          + (t.to_markdown(index=False, floatfmt=".4g") if not t.empty else "(no cells)") + "\n")
    return AnalysisResult(t, md, None, frame(claims))


ANALYSES = {"vietri2020_minimax": vietri2020_minimax}
