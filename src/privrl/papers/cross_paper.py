"""Claims that span the papers: the privacy cost of every private agent, and the privacy audit.

* analysis ``privacy_cost`` -- exponents (b, c) per agent against each paper's prediction (below);
* :func:`privacy_audit_claim` -- the claim row of the privacy audit of every mechanism
  (:mod:`privrl.mechanisms.audit`; the ``privacy_audit`` rule builds the table).

Analysis ``privacy_cost``: exponents b, c of D(K, eps) = R(K, eps) - R(K, non-private) ~ K^b eps^-c.

For every environment and every private agent of the experiment, the cells are grouped by
agent and by all parameters except ``epsilon`` and ``noise``; the group's baseline is its
``noise = 0`` cell (the same algorithm on exact counts), the private cells are its
``noise = 1`` cells over the epsilon sweep. :func:`privrl.results.privacy_fits.fit_privacy_cost`
gives b, c with seed-bootstrap CIs; each is scored against the papers' prediction:

* JDP (PUCB: Vietri et al. Thm 4; DP-UCBVI/Private-UCB-VI JDP rows of Bai et al. Table I)
  and SDP (Bai et al. Lemma 10 / Thm 11): additive ``polylog(K)/eps`` -> b ~ 0, c ~ 1;
* LDP (LDP-OBI: Garcelon et al. Table 1; LDP rows of Bai et al. Table I) and Shuffled-OBI
  at fixed eps0 (Garcelon Thm 6: sqrt(2K) e^{eps/2}/(e^eps - 1)): multiplicative
  ``sqrt(K)/eps`` -> b ~ 0.5, c ~ 1.

Verdict (fixed before any run): 'reproduced' if the 95% CI lies within target +/- 0.2 (b)
or +/- 0.3 (c), 'not reproduced' if disjoint from it, else 'inconclusive'; always
'inconclusive' when the private cells' bonus is saturated in > 90% of the fit window (the
agents are still exploring, so D(K, eps) measures exploration, not privacy cost). The measured
text always carries the fraction of dropped points (D <= 0) and the mean bonus saturation
of the private cells in the fit window. Theorems bound worst-case regret; on a fixed
instance with a gap, the asymptotic regret of an optimistic agent is logarithmic in K, so
b below the worst-case value is possible once every agent has converged (see
docs/decisions/agents.md).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from privrl.rl import seeding
from privrl.results.fits import SATURATED_FRACTION
from privrl.results.privacy_fits import fit_privacy_cost, interval_verdict
from privrl.results.stats import seed_matrix
from privrl.papers.analysis import CLAIM_COLUMNS, AnalysisContext, AnalysisResult
from privrl.papers.registry import Paper

TOL_B, TOL_C = 0.2, 0.3
TARGETS = {  # agent -> (b, c, source)
    "pucb": (0.0, 1.0, "Vietri et al. 2020, Thm 4 (additive O~((SAH^3 + S^2AH^3)/eps))"),
    "private-ucbvi-jdp": (0.0, 1.0, "Bai et al. Table I, JDP row (additive X^2AH^3/eps); Chowdhury & Zhou 2022"),
    "dp-ucbvi-jdp": (0.0, 1.0, "Bai et al. Table I, DP-UCBVI eps-JDP row (additive X^2AH^3/eps)"),
    "private-ucbvi-sdp": (0.0, 1.0, "Bai et al. Lemma 10 / Thm 11 (SDP error level O~(H/eps), additive)"),
    "private-ucbvi-ldp": (0.5, 1.0, "Bai et al. Table I, LDP row (X^2AH^3 sqrt(K)/eps); Chowdhury & Zhou 2022"),
    "dp-ucbvi-ldp": (0.5, 1.0, "Bai et al. Table I, DP-UCBVI eps-LDP row (X^2AH^3 sqrt(K)/eps)"),
    "ldp-obi": (0.5, 1.0, "Garcelon et al. note, Table 1, LDP-OBI row (O~(sqrt(K)/eps0))"),
    "shuffled-obi": (0.5, 1.0, "Garcelon et al. note, Thm 6 (sqrt(2K) e^{eps0/2}/(e^eps0 - 1) ~ sqrt(K)/eps0)"),
}
MODEL_TARGETS = {"JDP": 0.0, "SDP": 0.0, "LDP": 0.5}
FIXED = ("epsilon", "noise")


def _groups(ctx: AnalysisContext) -> dict:
    """(env, agent, other params) -> {'base': info or None, 'private': {eps: info}}."""
    out: dict = {}
    for info in ctx.infos:
        p = info["params"]
        if "noise" not in p or "epsilon" not in p:
            continue
        key = (info["env_key"], info["agent"], tuple(sorted((k, v) for k, v in p.items() if k not in FIXED)))
        g = out.setdefault(key, {"base": None, "private": {}})
        if p["noise"] < 0.5:
            g["base"] = info
        else:
            g["private"][float(p["epsilon"])] = info
    return out


def _fmt_params(items) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in items if k in ("bonus_scale", "tau", "tau_power")) or "defaults"


def _sat(ctx: AnalysisContext, env: str, cells: list[str]) -> float:
    f = ctx.fits[(ctx.fits.env == env) & (ctx.fits.cell.isin(cells))]
    return float(f.saturated_fraction.mean()) if len(f) else float("nan")


def privacy_cost_rows(ctx: AnalysisContext) -> tuple[pd.DataFrame, dict]:
    """One row per (env, agent group) with the fit; also returns the D curves for the figure."""
    rows, curves = [], {}
    decades = float(ctx.config.get("fit_decades", 2))
    for (env, agent, items), g in sorted(_groups(ctx).items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        if g["base"] is None or len(g["private"]) < 1:
            continue
        _, ep0, base = seed_matrix(ctx.runs(env, g["base"]["cell"]))
        priv = {}
        for eps, info in g["private"].items():
            _, ep, cur = seed_matrix(ctx.runs(env, info["cell"]))
            if not np.array_equal(ep, ep0):
                raise ValueError(f"{env}/{info['cell']}: checkpoints differ from the baseline's")
            priv[eps] = cur
        rng = seeding.generator("privacy_cost", f"{ctx.experiment}/{env}/{agent}/{items}", 0)
        fit = fit_privacy_cost(ep0, priv, base, rng, decades=decades, n_boot=ctx.n_boot)
        model = g["base"]["privacy_model"]
        tb, tc, src = TARGETS.get(agent, (MODEL_TARGETS.get(model, np.nan), 1.0, f"{model} theory"))
        sat = _sat(ctx, env, [i["cell"] for i in g["private"].values()])
        rows.append({
            "env": env, "agent": agent, "privacy_model": model, "reconstruction": g["base"]["reconstruction"],
            "params": _fmt_params(items), "n_eps": fit["n_eps"], "n_seeds": int(base.shape[0]),
            "b": fit["b"], "b_lo": fit["b_lo"], "b_hi": fit["b_hi"], "b_target": tb,
            "b_verdict": "inconclusive" if sat > SATURATED_FRACTION else interval_verdict(fit["b_lo"], fit["b_hi"], tb, TOL_B),
            "c": fit["c"], "c_lo": fit["c_lo"], "c_hi": fit["c_hi"], "c_target": tc,
            "c_verdict": "inconclusive" if sat > SATURATED_FRACTION else interval_verdict(fit["c_lo"], fit["c_hi"], tc, TOL_C),
            "c_at_K": fit["c_at_K"], "c_at_K_lo": fit["c_at_K_lo"], "c_at_K_hi": fit["c_at_K_hi"],
            "n_points": fit["n_points"], "frac_dropped": fit["frac_dropped"],
            "window_lo": fit["window_lo"], "window_hi": fit["window_hi"], "saturated_private": sat,
            "b_per_eps": "; ".join(f"{e:g}: {v[0]:.2f} [{v[1]:.2f}, {v[2]:.2f}]" for e, v in fit["b_eps"].items()),
            "D_at_K": "; ".join(f"{e:g}: {d:.4g}" for e, d in fit["D_at_K"].items()),
            "source": src, "label": g["base"].get("label", agent),
        })
        curves[(env, agent, items)] = (ep0, {e: c.mean(axis=0) - base.mean(axis=0) for e, c in priv.items()}, fit)
    return pd.DataFrame(rows), curves


def _measured(r, which: str) -> str:
    est, lo, hi = getattr(r, which), getattr(r, f"{which}_lo"), getattr(r, f"{which}_hi")
    txt = (f"{which} = {est:.2f} [{lo:.2f}, {hi:.2f}] ({r.n_eps} eps, K in [{r.window_lo:g}, {r.window_hi:g}], "
           f"{r.n_seeds} seeds; {r.frac_dropped:.0%} of points with D <= 0 dropped; "
           f"private cells' bonus saturated {r.saturated_private:.0%} of the fit window)")
    if which == "b" and r.b_per_eps:
        txt += f"; per-eps b (eps: b [CI]) {r.b_per_eps}"
    if r.saturated_private > SATURATED_FRACTION:
        txt += "; rate not observable: bonus saturated"
    return txt


def _claims(ctx: AnalysisContext, table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    art = ctx.artifact("privacy_cost", "md")
    for r in table.itertuples():
        tag = f"{r.agent}_{r.env}_{r.params.replace('=', '').replace(', ', '_').replace('.', 'p')}"
        kind = "additive (b ~ 0)" if r.b_target == 0.0 else "multiplicative (b ~ 0.5)"
        rows.append({"experiment": ctx.experiment, "id": f"{tag}_b",
                     "statement": f"{r.agent} ({r.privacy_model}, {r.params}) on {r.env}: privacy cost is {kind}: "
                                  f"D(K, eps) ~ K^b, b in {r.b_target:g} +/- {TOL_B}",
                     "source": r.source, "artifact": art, "measured": _measured(r, "b"), "verdict": r.b_verdict})
        rows.append({"experiment": ctx.experiment, "id": f"{tag}_c",
                     "statement": f"{r.agent} ({r.privacy_model}, {r.params}) on {r.env}: D(K, eps) ~ eps^-c, "
                                  f"c in {r.c_target:g} +/- {TOL_C}",
                     "source": r.source, "artifact": art, "measured": _measured(r, "c"), "verdict": r.c_verdict})
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def _markdown(ctx: AnalysisContext, table: pd.DataFrame) -> str:
    lines = [f"# Privacy cost D(K, eps) = R(K, eps) - R(K, non-private): {ctx.experiment}", "",
             "Joint fit log D = log C + b log K - c log eps over the fit window and the eps sweep; "
             "baseline = the same agent with noise off. 95% seed-bootstrap CIs. `sat` = mean bonus "
             "saturation of the private cells in the fit window; `dropped` = points with D <= 0. "
             f"Verdict: CI inside target +/- {TOL_B} (b), +/- {TOL_C} (c).", "",
             "| env | agent | privacy | params | b [CI] | target | verdict | c [CI] | target | verdict | "
             "c at K [CI] | b per eps | dropped | sat |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        rec = " (reconstruction)" if r.reconstruction else ""
        lines.append(f"| {r.env} | {r.agent}{rec} | {r.privacy_model} | {r.params} | {r.b:.2f} [{r.b_lo:.2f}, {r.b_hi:.2f}] "
                     f"| {r.b_target:g} | {r.b_verdict} | {r.c:.2f} [{r.c_lo:.2f}, {r.c_hi:.2f}] | {r.c_target:g} "
                     f"| {r.c_verdict} | {r.c_at_K:.2f} [{r.c_at_K_lo:.2f}, {r.c_at_K_hi:.2f}] | {r.b_per_eps} "
                     f"| {r.frac_dropped:.0%} | {r.saturated_private:.2f} |")
    if table.empty:
        lines.append("| (no agent with both a noise-off baseline and private cells) |||||||||||||")
    return "\n".join(lines) + "\n"


def _figure(curves: dict):
    if not curves:
        return None
    import matplotlib.pyplot as plt

    keys = list(curves)
    ncol = min(4, len(keys))
    nrow = int(np.ceil(len(keys) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.4 * ncol, 2.8 * nrow), squeeze=False)
    for ax, key in zip(axes.flat, keys):
        ep, D, fit = curves[key]
        for eps, d in sorted(D.items()):
            ok = d > 0
            ax.plot(ep[ok], d[ok], lw=1.1, label=f"eps={eps:g}")
        ax.axvspan(fit["window_lo"], fit["window_hi"], color="0.9", zorder=0)
        ax.set_xscale("log")
        if any(np.any(d > 0) for d in D.values()):  # D <= 0 everywhere: nothing to draw on a log axis
            ax.set_yscale("log")
        else:
            ax.text(0.5, 0.5, "D(K, eps) <= 0 at every K", transform=ax.transAxes, ha="center", fontsize=7)
        ax.set_title(f"{key[0]}: {key[1]}\nb={fit['b']:.2f} c={fit['c']:.2f}", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=5)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    fig.supxlabel("episodes K", fontsize=8)
    fig.supylabel("D(K, eps) = R(eps) - R(noise off)", fontsize=8)
    fig.tight_layout()
    return fig


def privacy_cost(ctx: AnalysisContext) -> AnalysisResult:
    table, curves = privacy_cost_rows(ctx)
    return AnalysisResult(table=table, markdown=_markdown(ctx, table), figure=_figure(curves),
                          claims=_claims(ctx, table))


def privacy_audit_claim(audit: pd.DataFrame, artifact: str) -> dict:
    """The audit table's claim row: every mechanism passes (:mod:`privrl.mechanisms.audit`)."""
    bad = audit.loc[audit["verdict"] != "pass", "mechanism"].tolist()
    return {"id": "privacy_audit", "statement": "no mechanism's empirical or exact eps exceeds its claimed eps",
            "source": "privacy audit of every mechanism (privrl.mechanisms.audit)", "artifact": artifact,
            "measured": f"{len(audit) - len(bad)}/{len(audit)} pass" + (f"; failing: {', '.join(bad)}" if bad else ""),
            "verdict": "not reproduced" if bad else "reproduced"}


PAPER = Paper(
    key="cross_paper",
    title="Privacy cost across the papers (Vietri et al. 2020, Garcelon et al. 2021, Bai et al.)",
    authors=(), year=None, venue="", link="", file="",
    note="no single paper: scores each private agent's privacy cost against the paper that predicts it",
    analyses={"privacy_cost": privacy_cost},
)
