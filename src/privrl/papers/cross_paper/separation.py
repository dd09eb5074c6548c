"""The separation of the trust models as a worst case: D_LDP / D_JDP over a gap family, against sqrt(K).

Analysis ``trust_model_separation`` -- a **context** row, not a paper claim (why, below). The local
model's minimax regret is Omega(sqrt(K)/eps) (Garcelon et al. note, Sec. 1; LDP-OBI's upper bound
O~(sqrt(K)/eps), Garcelon et al. Thm 6), the central one's O~(sqrt(K) + SAH/eps polylog K) (Vietri
et al. Thm 4; Omega(sqrt(HSAK) + SAH log(K)/eps), Thm 6). Read as privacy costs, the local one grows
like sqrt(K)/eps and the central one stays additive, so their ratio would grow like K^(1/2) -- as a
*worst case over instances* (on one fixed gap the local cost turns log(K)/(eps^2 gap) once the gap is
resolved: ``surface.SEPARATION_WHY``). Here it is measured on Vietri et al.'s hard family (Sec. 6)
with the gap as parameter, one env per gap of a grid, as ``vietri2020_minimax`` measures the sqrt(K)
rate:

* per member (the central and the local agent of a pair, ``PAIRS``) and eps: D(K; gap) = the
  seed-mean regret of the private cell minus that of its noise-off twin on the same gap env, and
  its maximum over the grid at every checkpoint, D*(K) (each member's own K-exponent is reported);
* the ratio r(K) = D*_local(K) / D*_central(K) and its K-exponent, fitted on a window fixed in
  advance by the agents' crossover formulas (:func:`separation_window`): from regime_factor x the
  local agent's crossover at the largest gap and regime_factor x the central agent's crossover at
  the smallest gap, to the local agent's crossover at the smallest gap; under a decade: "not
  reached", with the K that gives one;
* read against 1/2 +/- the log allowance on both sides (:func:`score_separation`), beside its wrong
  trust model: a central agent in the local slot, run beside the pair on the same gaps, K and seeds
  (a cell tagged ``control: wrong_model``, e.g. DP-UCBVI JDP), through the same reading on the part
  of the window past its own crossovers (:mod:`privrl.results.controls`). A twin made from the
  pair's own runs (the central member in both slots: r = 1) could never pass, so it is no control.

**Why context** (a referee's finding, accepted): the papers' lower bounds bound the regret, not D;
nothing in them bounds D_JDP from below or makes the central D additive; at eps >= 1 the local
Omega(sqrt(K)/eps) is no larger than the non-private Omega(sqrt(K)), so the papers predict no
separation in regret there (Garcelon et al.'s Table 1 at eps0 = 5 reads O~(sqrt(K)/5) against
O~(sqrt(K) + 1/5)); the widths are tuned (z = 3) and LDP-OBI is a reconstruction. The reading tests
the pipeline's crossover model of where the worst case lies, and shows whether the local worst-case
cost outgrows the central one; a paper claim would need eps < 1, where a decade of window starts past
K = 1e10 (docs/decisions/privacy_surface.md).

Shapes: per member ``curves`` {gap: (private float64[n, C], baseline float64[n0, C])} on common
checkpoints ``ep`` int64[C].
"""
from __future__ import annotations

import dataclasses
import math
from typing import Mapping

import numpy as np
import pandas as pd

from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.common import curves as cell_curves, env_mdp, rng_for
from privrl.papers.planned import Row
from privrl.papers.scoring import crossover_of, frame
from privrl.results import controls
from privrl.results.bound_verdicts import minimax_k_needed
from privrl.results import verdicts as V
from privrl.results.eps_verdicts import BELOW_LOWER
from privrl.results.fits import loglog_slope

PAPER = "cross_paper"
SEPARATION_EXPONENT = 0.5
# (central agent, local agent, the paper whose table compares them, its item)
PAIRS = (("pucb", "ldp-obi", "garcelon2021", "Table 1"),
         ("dp-ucbvi-jdp", "dp-ucbvi-ldp", "bai_sdp_pe", "Table I"),
         ("private-ucbvi-jdp", "private-ucbvi-ldp", "bai_sdp_pe", "Table I"))
SOURCE = ("Garcelon et al. note, Sec. 1 (LDP minimax Omega(sqrt(K)/eps)) and Thm 6 (LDP-OBI O~(sqrt(K)/eps)); "
          "Vietri et al. Thm 4 and Thm 6 (JDP privacy cost O~(SAH/eps polylog K), Omega(SAH log(K)/eps))")


def _costs(curves: Mapping[float, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """float64[G, C]: D(K; gap) = mean private regret - mean noise-off regret, a row per gap (curves' order)."""
    return np.stack([p.mean(axis=0) - b.mean(axis=0) for p, b in curves.values()])


def worst_cost(curves: Mapping[float, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """float64[C]: max over gaps of D(K; gap)."""
    return _costs(curves).max(axis=0)


def worst_gap(curves: Mapping[float, tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """float64[C]: the gap attaining :func:`worst_cost` at each checkpoint."""
    return np.array(list(curves))[_costs(curves).argmax(axis=0)]


def separation_window(central_cross: Mapping[float, float], local_cross: Mapping[float, float], K_run: float,
                      th: V.Thresholds = V.THRESHOLDS) -> tuple[float, float, float]:
    """(lo, hi, the local agent's crossover at the smallest gap): lo = regime_factor x max(the local
    crossover at the largest gap, the central crossover at the smallest gap), hi = min(K run, the
    local crossover at the smallest gap)."""
    g_max, g_min = max(local_cross), min(local_cross)
    lo = th.regime_factor * max(local_cross[g_max], central_cross[g_min])
    return lo, min(float(K_run), local_cross[g_min]), local_cross[g_min]


def _resampled(curves, rng):
    return {g: (p[rng.integers(0, p.shape[0], p.shape[0])], b[rng.integers(0, b.shape[0], b.shape[0])])
            for g, (p, b) in curves.items()}


def ratio_fit(ep: np.ndarray, num: Mapping, den: Mapping, lo: float, hi: float, rng: np.random.Generator,
              n_boot: int) -> V.RateFit:
    """K-exponent of worst_cost(num) / worst_cost(den) on the checkpoints in [lo, hi], CI from
    resampling every cell's seeds independently; nan where a worst cost is <= 0 in the window."""
    ep = np.asarray(ep, float)
    m = (ep >= lo) & (ep <= hi)
    if m.sum() < 3:
        return V.RateFit(math.nan, math.nan, math.nan, lo, hi)

    def slope(a, b):
        dn, dd = worst_cost(a)[m], worst_cost(b)[m]
        if np.any(dn <= 0) or np.any(dd <= 0):
            return math.nan
        return loglog_slope(ep[m], dn / dd)[0]

    est = slope(num, den)
    boots = np.array([slope(_resampled(num, rng), _resampled(den, rng)) for _ in range(n_boot)])
    if not math.isfinite(est) or np.isnan(boots).mean() > 0.05:
        return V.RateFit(math.nan, math.nan, math.nan, float(ep[m][0]), float(ep[m][-1]))
    blo, bhi = np.nanquantile(boots, [0.025, 0.975])
    n = min(p.shape[0] for p, _ in list(num.values()) + list(den.values()))
    return V.RateFit(float(est), float(blo), float(bhi), float(ep[m][0]), float(ep[m][-1]), int(n))


def score_separation(fit: V.RateFit, lo: float, hi: float, local_smallest_cross: float,
                     th: V.Thresholds = V.THRESHOLDS) -> V.Score:
    """The ratio's exponent against 1/2 (+/- the log allowance) on both sides, on a window of >= a
    decade: inside "agrees", above "disagrees", below inconclusive and a failed check
    (``BELOW_LOWER``: what rejects a twin)."""
    if not (hi >= 10.0 * lo):
        need = minimax_k_needed(lo, local_smallest_cross)
        fixed = f"window fixed by the crossovers [{lo:.3g}, {local_smallest_cross:.3g}]"
        ran = (f"the run stops at K = {hi:.3g}, before it" if hi < lo else f"the run covers [{lo:.3g}, {hi:.3g}], "
               "under a decade")
        why = ("run to K = 10 x its start" if math.isfinite(need) else
               "the gap grid is too narrow for a decade of window: add smaller gaps")
        measured = fit.text("r") if hi > lo else "no checkpoint in the window"
        return V.Score(V.NOT_REACHED, measured, f"{fixed}; {ran}: {why}", need)
    down, up = SEPARATION_EXPONENT - th.log_allowance, SEPARATION_EXPONENT + th.log_allowance
    measured = f"{fit.text('r')} vs [{down:.3g}, {up:.3g}]"
    where = f"window [{lo:.3g}, {hi:.3g}] fixed by the crossovers: in regime"
    if not (math.isfinite(fit.lo) and math.isfinite(fit.hi)):
        return V.Score(V.INCONCLUSIVE, measured + " (undefined: a worst cost <= 0 in the window)", where)
    if fit.lo >= down and fit.hi <= up:
        return V.Score(V.REPRODUCED, measured, where)
    if fit.lo > up:
        return V.Score(V.CONTRADICTED, measured, where)
    if fit.hi < down:
        return V.Score(V.INCONCLUSIVE, measured, f"{where}; {BELOW_LOWER}")
    return V.Score(V.INCONCLUSIVE, measured, where)


def _member_cells(infos: list[dict], config, control: bool = False) -> dict[tuple[str, float], list[tuple[dict, dict]]]:
    """{(agent, eps): [(private cell, its noise-off twin), ...]} of every private cell on a hard-family env that
    has its noise-off twin on the same env: the agents (``control`` False) or the control cells tagged
    ``control: wrong_model`` (True). No data: the declaration and the analysis read the same members."""
    out: dict[tuple[str, float], list[tuple[dict, dict]]] = {}
    for info in infos:
        env = info["env_key"]
        if config["envs"][env]["name"] != "hard_instance" or info["params"].get("noise", 1.0) < 0.5:
            continue
        if controls.is_control(info) != control or (control and info["tags"]["control"] != "wrong_model"):
            continue
        base = next((b for b in infos if b["env_key"] == env and b["agent"] == info["agent"]
                     and b["params"].get("noise", 1.0) < 0.5
                     and all(math.isclose(float(b["params"].get(k, 0.0)), float(v)) for k, v in info["params"].items()
                             if k not in ("epsilon", "noise") and isinstance(v, (int, float)))), None)
        if base is not None:
            out.setdefault((info["agent"], float(info["params"]["epsilon"])), []).append((info, base))
    return out


def _members(ctx: AnalysisContext, control: bool = False) -> dict[tuple[str, float], dict]:
    """{(agent, eps): {"curves": {gap: (private, baseline)}, "cross": {gap: K}, "ep": int64[C], "label"}}
    of the members of :func:`_member_cells`."""
    out: dict[tuple[str, float], dict] = {}
    for key, cells in _member_cells(ctx.infos, ctx.config, control).items():
        for info, base in cells:
            env = info["env_key"]
            mdp = env_mdp(ctx, env)
            gap = float(mdp.params["gap"])
            ep, priv = cell_curves(ctx, env, info["cell"])
            _, b = cell_curves(ctx, env, base["cell"])
            m = out.setdefault(key, {"curves": {}, "cross": {}, "ep": ep, "label": info.get("label", info["agent"]),
                                     "reconstruction": bool(info.get("reconstruction"))})
            if gap in m["curves"]:
                raise ValueError(f"{ctx.experiment}: {info['agent']} at eps {info['params']['epsilon']:g} has two cells "
                                 f"on {env}; the separation reads one per (agent, eps, gap)")
            m["curves"][gap] = (priv, b)
            m["cross"][gap] = crossover_of(info, mdp)
    return out


def separation_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``trust_model_separation``, declared from the run infos alone (no data): per pair of
    :data:`PAIRS` and eps both members run on >= 2 common gaps, one context row (the papers bound regret, not
    D), K needed a decade of window from :func:`separation_window`'s start while the local agent's smallest
    gap is unresolved (:func:`privrl.results.bound_verdicts.minimax_k_needed`)."""
    ms, out = _member_cells(infos, config), []
    gap_of = lambda i: float(mdps[i["env_key"]].params["gap"])  # noqa: E731
    for central, local, *_ in PAIRS:
        for eps in sorted(e for a, e in ms if a == central and (local, e) in ms):
            c = {gap_of(i): i for i, _ in ms[(central, eps)]}
            l_ = {gap_of(i): i for i, _ in ms[(local, eps)]}
            gaps = sorted(set(c) & set(l_))
            if len(gaps) < 2:
                continue
            lo, _, need_cross = separation_window({g: crossover_of(c[g], mdps[c[g]["env_key"]]) for g in gaps},
                                                  {g: crossover_of(l_[g], mdps[l_[g]["env_key"]]) for g in gaps}, math.inf)
            tag = f"{central}_{local}_eps{eps:g}".replace(".", "p")
            out.append(Row(f"trust_model_separation_{tag}", "a decade past the separation window's start (context)",
                           tuple((i["env_key"], i["cell"]) for g in gaps for i in (c[g], l_[g])),
                           minimax_k_needed(lo, need_cross), "context", args={"key": (central, local, eps)}))
    return out


def member_exponent(ep: np.ndarray, curves: Mapping, lo: float, hi: float) -> float:
    """The K-exponent of one member's worst cost D* on [lo, hi] (nan where D* <= 0 or no window)."""
    ep = np.asarray(ep, float)
    m = (ep >= lo) & (ep <= hi)
    d = worst_cost(curves)[m]
    return float(loglog_slope(ep[m], d)[0]) if m.sum() >= 3 and np.all(d > 0) else math.nan


def trust_model_separation(ctx: AnalysisContext) -> AnalysisResult:
    rng = rng_for(ctx, "separation")
    twin_rng = rng_for(ctx, "separation_controls")  # the controls' own stream: the pairs' CIs do not depend on them
    from privrl.results import style  # display names (matplotlib comes with it: imported only here)
    art = ctx.artifact("trust_model_separation", "md")
    ms, twins = _members(ctx), _members(ctx, control=True)
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    ids = {r.args["key"]: r.id for r in separation_declaration(ctx.experiment, ctx.infos, mdps, ctx.config)}
    rows, claims, panels = [], [], []
    for central, local, paper, item in PAIRS:
        for eps in sorted(e for a, e in ms if a == central and (local, e) in ms):
            c, l = ms[(central, eps)], ms[(local, eps)]
            gaps = sorted(set(c["curves"]) & set(l["curves"]))
            if len(gaps) < 2 or not np.array_equal(c["ep"], l["ep"]):
                continue
            ep = c["ep"]
            cc = {g: c["curves"][g] for g in gaps}
            lc = {g: l["curves"][g] for g in gaps}
            lo, hi, need_cross = separation_window({g: c["cross"][g] for g in gaps}, {g: l["cross"][g] for g in gaps},
                                                   float(ep[-1]))
            fit = ratio_fit(ep, lc, cc, lo, hi, rng, ctx.n_boot)
            score = score_separation(fit, lo, hi, need_cross)
            # the wrong trust model: a central agent in the local slot, through the same check on the same window
            matching = [(a, tw) for (a, e), tw in sorted(twins.items())  # the control cells on this pair's gaps and K
                        if math.isclose(e, eps) and set(gaps) <= set(tw["curves"]) and np.array_equal(tw["ep"], ep)]
            outcomes = []
            for t_agent, tw in matching:
                # its part of the window: past 10 x its own crossover at the smallest gap (short of a decade:
                # undecided, "a twin short of its own regime")
                t_lo = max(lo, V.THRESHOLDS.regime_factor * tw["cross"][min(gaps)])
                tf = ratio_fit(ep, {g: tw["curves"][g] for g in gaps}, cc, t_lo, hi, twin_rng, ctx.n_boot)
                outcomes.append(controls.TwinOutcome("wrong_model", score_separation(tf, t_lo, hi, need_cross),
                                                     f"{t_agent} (central noise) in the local slot"))
            outcome = next((o for o in outcomes if not o.rejected), outcomes[0]) if outcomes else controls.TwinOutcome(
                "wrong_model", None, "the design runs no central agent in the local slot (tags: {control: wrong_model})")
            score = controls.judge(score, "separation", [outcome])[0]
            inside = (ep >= lo) & (ep <= hi)
            worst = worst_gap(lc)[inside] if inside.any() else np.array([])
            where = (f"the local worst gap over the window: {', '.join(f'{g:g}' for g in sorted(set(worst.tolist())))}"
                     if worst.size else "no checkpoint in the window")
            b_c, b_l = member_exponent(ep, cc, lo, hi), member_exponent(ep, lc, lo, hi)
            note = (f"context, not a paper claim: the papers bound regret, not D, and at eps >= 1 the local "
                    f"Omega(sqrt(K)/eps) is no larger than the non-private sqrt(K); widths tuned (z = 3); "
                    f"gaps {{{', '.join(f'{g:g}' for g in gaps)}}}; crossovers {central} "
                    + ", ".join(f"{g:g}: {c['cross'][g]:.3g}" for g in gaps) + f"; {local} "
                    + ", ".join(f"{g:g}: {l['cross'][g]:.3g}" for g in gaps) + f"; {where}; "
                    f"members' own exponents on the window: central {b_c:.3g}, local {b_l:.3g}")
            name_c = style.agent_name(central, c["reconstruction"])
            name_l = style.agent_name(local, l["reconstruction"])
            claims.append(dataclasses.replace(V.make_claim(
                paper, item, ids[(central, local, eps)],
                f"{name_l} (LDP) over {name_c} (JDP) at eps={eps:g} on the hard family: the worst-case privacy "
                f"cost ratio max_gap D_LDP(K) / max_gap D_JDP(K) against K^0.5 (the local minimax sqrt(K)/eps "
                f"read as a cost, against an additive central cost)",
                "rate", art, V.Score(score.verdict, score.measured, "; ".join((score.regime, note)), score.k_needed,
                                     score.controls), ctx.experiment, SOURCE), scope="context"))
            rows.append({"central": central, "local": local, "epsilon": eps, "gaps": ",".join(f"{g:g}" for g in gaps),
                         "K": int(ep[-1]), "window_lo": lo, "window_hi": hi, "exponent": fit.exponent,
                         "exponent_lo": fit.lo, "exponent_hi": fit.hi, "central_exponent": b_c, "local_exponent": b_l,
                         "k_needed": score.k_needed,
                         "worst_gap_local": ",".join(f"{g:g}" for g in sorted(set(worst.tolist()))),
                         "verdict": score.verdict, "controls": score.controls})
            tw = matching[0] if matching else None
            panels.append((eps, central, local, ep, worst_cost(cc), worst_cost(lc), lo, hi,
                           (tw[0], worst_cost({g: tw[1]["curves"][g] for g in gaps})) if tw else None))
    t = pd.DataFrame(rows)
    md = (f"# The separation of the trust models over the hard family ({ctx.experiment})\n\n"
          "max over the gap grid of D(K; gap) = R_private - R_noise-off per member; the K-exponent of the local "
          "member's over the central member's, on the window fixed by the crossovers (10 x the local crossover "
          "at the largest gap and the central one at the smallest, to the local crossover at the smallest "
          "gap), read against 1/2 on both sides. Context, not a paper claim: the papers bound regret, not D, "
          "and at eps >= 1 predict no separation (docs/decisions/privacy_surface.md).\n\n"
          + (t.to_markdown(index=False, floatfmt=".4g") if not t.empty else "(no pair of a central and a local agent "
             "with noise-off twins on two or more hard-family gaps)") + "\n")
    return AnalysisResult(t, md, _figure(panels), frame(claims))


DECADES_DRAWN = 4  # the figure's K range below the window (or the run's end)


def _figure(panels):
    """Per pair and eps: the two worst-case costs against K (top), their ratio against K with a
    K^(1/2) guide through the ratio at the window's start (bottom); the window shaded."""
    if not panels:
        return None
    from privrl.results import facets, style

    parts, ylabels, windows = [], {}, {}
    for eps, central, local, ep, dc, dl, lo, hi, twin in panels:
        x = np.asarray(ep, float)
        drawn = x >= min(x[-1] / 10.0 ** DECADES_DRAWN, lo)  # early K: exploration noise of either sign
        x, dc, dl = x[drawn], dc[drawn], dl[drawn]
        twin = (twin[0], twin[1][drawn]) if twin is not None else None
        top, bottom = f"worst-case D, ε = {eps:g}", f"D ratio, ε = {eps:g}"
        ylabels[top], ylabels[bottom] = "max over gaps of D(K)", "ratio to the central agent's"
        named = [(dc, f"{style.agent_name(central, False)} (central)"), (dl, f"{style.agent_name(local, False)} (local)")]
        if twin is not None:
            named.append((twin[1], f"{style.agent_name(twin[0], False)} in the local slot (control)"))
        for d, name in named:
            keep = d > 0
            parts.append(pd.DataFrame({"x": x[keep], "y": d[keep], "panel": top, "line": name, "curve": f"{top}|{name}"}))
        for d, name in named[1:]:
            keep = (dc > 0) & (d > 0)
            parts.append(pd.DataFrame({"x": x[keep], "y": d[keep] / dc[keep], "panel": bottom, "line": name,
                                       "curve": f"{bottom}|{name}"}))
        keep = (dc > 0) & (dl > 0)
        inside = keep & (x >= lo) & (x <= hi)
        if inside.any():
            x0, r0 = x[inside][0], (dl[inside] / dc[inside])[0]
            g = x[inside]
            parts.append(pd.DataFrame({"x": g, "y": r0 * (g / x0) ** SEPARATION_EXPONENT, "panel": bottom,
                                       "line": "K^(1/2) from the window's start", "curve": f"{bottom}|guide"}))
        windows[top] = windows[bottom] = (lo, hi)

    def shade(ax, title, _rows):
        lo, hi = windows.get(title, (None, None))
        if lo is not None and hi > lo:
            ax.axvspan(lo, hi, color="0.9", zorder=0)

    data = pd.concat(parts, ignore_index=True)
    return facets.line_grid(data, xlabel="episodes K", ylabel="", sharey=False, ylabels=ylabels, decorate=shade,
                            title="Trust-model separation, hard family")


ANALYSES = {"trust_model_separation": trust_model_separation}
