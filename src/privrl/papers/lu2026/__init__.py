"""Lu, Gajane, Bai & Talebi (2026), *Randomized Least Squares Value Iteration itself is Joint
Differentially Private*: what reproduces it.

* analysis ``rlsvi_privacy`` -- RLSVI's computed privacy and its regret cost (below);
* theorem check ``lu_cor14`` -- Cor. 14 vs the numeric minimum of Thm 13 and tighter conversions
  (:mod:`privrl.papers.lu2026.cor14`).

RLSVI privacy analysis.

Sections of the table (column ``section``):

* ``epsilon_vs_K`` -- for every env of the experiment and every RLSVI ``beta_scale`` in it,
  eps(delta) over K in [10, 1e7]: Cor. 14, the numeric minimum of Thm 13 over alpha,
  dp_accounting's RDP conversion of the same curve (Lemma 12) and the exact eps of that
  curve read as a Gaussian (:func:`privrl.agents.rlsvi.privacy_table`). The guarantee covers
  **rewards only**: neighbouring users share states and actions (Lu et al. Remark 2).
* ``regret`` -- regret at K of every RLSVI and UCBVI cell (mean, 95% CI), fitted K-exponent
  and the eps(delta) the RLSVI cell certifies at K (its beta_scale included).
* ``matched`` -- cells tagged ``match_K: K_i`` (PUCB, dp-ucbvi-jdp) run at the eps that RLSVI
  (beta_scale 1) certifies at K_i by Cor. 14; their regret at K_i beside RLSVI's (and UCBVI's).
  A tagged cell whose epsilon differs from Cor. 14 at K_i by > 1e-4 relative is a config
  error (raised). Regret at K_i is read from the K-episode runs (a prefix of an eps-JDP run
  is eps-JDP), interpolated in log K between bracketing checkpoints; the matched agents are
  run with horizon K, not K_i (slightly conservative for them; docs/decisions/agents.md, M2).

Claims, scored by :mod:`privrl.results.verdicts`. Algebra and metadata are kind ``check``
(verdict "checked", never a reproduction): Cor. 14 = numeric min of Thm 13; the library never
looser than Cor. 14 (where it can use Cor. 14's order, alpha* > 1.01); eps(delta) linear in K;
the Remark-2 note on every RLSVI run. "No privacy cost" (RLSVI beta_scale 1 vs UCBVI bonus 1)
and the matched-privacy comparisons are kind ``order``
(:func:`~privrl.results.verdicts.score_order` on R_other / R_RLSVI), scored only when both
agents are past 10 x their crossover K (``AgentSpec.crossover``); else "not reached" with that K. The fixed-eps comparison and RLSVI's worst-case rate are in
:mod:`privrl.papers.lu2026.comparisons`, the end-to-end audit in :mod:`privrl.papers.lu2026.audit`.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from privrl.agents.rlsvi import REMARK_2, privacy_table
from privrl.results import claims as C
from privrl.results import verdicts as V
from privrl.results.stats import mean_ci
from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.planned import NO_K, Row
from privrl.papers.scoring import crossover_of, frame, save_pdf
from privrl.papers.lu2026.audit import RLSVI_AUDIT
from privrl.papers.lu2026.cor14 import COR14
from privrl.papers.lu2026.lemma11 import LEMMA11
from privrl.papers.lu2026.comparisons import ANALYSES as COMPARISONS, order_no_larger
from privrl.papers.common import (
    at_episode,
    curves,
    env_mdp,
    fmt_ci,
    infos_of,
    rng_for,
)
from privrl.papers.registry import Paper
from privrl.papers.lu2026.dimensions import ANALYSES as DIMENSIONS
from privrl.results.labels import env_title

PAPER_ID = "lu2026"
SOURCE = "Lu, Gajane, Bai & Talebi (2026)"
K_GRID = np.unique(np.round(np.logspace(1, 7, 25)).astype(np.int64))
MATCH_RTOL = 1e-4
NOTE_AGENT = {"rlsvi": " (certifies this eps)", "ucbvi": " (non-private)"}


def epsilon_rows(ctx: AnalysisContext) -> pd.DataFrame:
    rows = []
    for env in sorted({i["env_key"] for i in ctx.infos}):
        m = env_mdp(ctx, env)
        for info in infos_of(ctx, "rlsvi", env):
            p = info["params"]
            Ks = np.unique(np.append(K_GRID, info["episodes"]))
            for K in Ks:
                t = privacy_table(p["delta"], int(K), m.H, m.S, m.A, p["beta_scale"])
                rows.append({"section": "epsilon_vs_K", "env": env, "cell": info["cell"], "H": m.H, "S": m.S,
                             "A": m.A, **t, "is_run_K": bool(K == info["episodes"])})
    return pd.DataFrame(rows)


def regret_rows(ctx: AnalysisContext) -> pd.DataFrame:
    rows = []
    for info in ctx.infos:
        if info["agent"] not in ("rlsvi", "ucbvi") or (info.get("tags") or {}).get("match_K"):
            continue
        env, cell = info["env_key"], info["cell"]
        ep, R = curves(ctx, env, cell)
        m, lo, hi = mean_ci(R[:, -1], rng_for(ctx, f"regret/{env}/{cell}"), ctx.n_boot)
        f = ctx.fits[(ctx.fits.env == env) & (ctx.fits.cell == cell)].iloc[0]
        g = info.get("guarantees") or []
        rows.append({"section": "regret", "env": env, "cell": cell, "label": info.get("label", cell),
                     "agent": info["agent"], "K": int(ep[-1]), "regret": m, "regret_lo": lo, "regret_hi": hi,
                     "exponent": f.exponent, "exponent_lo": f.exponent_lo, "exponent_hi": f.exponent_hi,
                     "aux_fit_window": f.saturated_fraction,
                     "eps_cor14": g[0]["epsilon"] if g else np.nan, "delta": g[0]["delta"] if g else np.nan,
                     **{k: info["params"][k] for k in ("beta_scale", "bonus_scale") if k in info["params"]}})
    return pd.DataFrame(rows)


def matched_rows(ctx: AnalysisContext) -> pd.DataFrame:
    tagged = [i for i in ctx.infos if (i.get("tags") or {}).get("match_K")]
    if not tagged:
        return pd.DataFrame()
    rows = []
    for env in sorted({i["env_key"] for i in tagged}):
        m = env_mdp(ctx, env)
        ref = infos_of(ctx, "rlsvi", env, {"beta_scale": 1.0})
        if len(ref) != 1:
            raise ValueError(f"{ctx.experiment}/{env}: matched cells need exactly one rlsvi cell with beta_scale=1")
        ref = ref[0]
        delta = ref["params"]["delta"]
        base = {"rlsvi": ref, **{i["agent"]: i for i in infos_of(ctx, "ucbvi", env, {"bonus_scale": 1.0})}}
        for info in sorted(tagged, key=lambda i: (float(i["tags"]["match_K"]), i["agent"])):
            if info["env_key"] != env:
                continue
            Ki = float(info["tags"]["match_K"])
            eps_i = privacy_table(delta, int(Ki), m.H, m.S, m.A)
            if not np.isclose(info["params"]["epsilon"], eps_i["eps_cor14"], rtol=MATCH_RTOL, atol=0):
                raise ValueError(f"{ctx.experiment}/{env}/{info['cell']}: epsilon {info['params']['epsilon']:g} is "
                                 f"not RLSVI's Cor. 14 eps at K={Ki:g}, delta={delta:g}: {eps_i['eps_cor14']:.6g}")
            for who, inf in [(info["agent"], info)] + list(base.items()):
                ep, R = curves(ctx, env, inf["cell"])
                x = at_episode(ep, R, Ki)
                mu, lo, hi = mean_ci(x, rng_for(ctx, f"matched/{env}/{inf['cell']}/{Ki:g}"), ctx.n_boot)
                a_loc = _local_exponent(ep, R, Ki)
                rows.append({"section": "matched", "env": env, "K_i": Ki, "pair": info["agent"], "agent": who,
                             "cell": inf["cell"], "epsilon": info["params"]["epsilon"],
                             "eps_cor14": eps_i["eps_cor14"], "eps_library_rdp": eps_i["eps_library_rdp"],
                             "eps_exact_gaussian": eps_i["eps_exact_gaussian"], "delta_rlsvi": delta,
                             "regret": mu, "regret_lo": lo, "regret_hi": hi, "a_local": a_loc, "_seeds": x})
    return pd.DataFrame(rows)


def _local_exponent(ep: np.ndarray, R: np.ndarray, K: float) -> float:
    """Slope of log mean regret on log K over the decade ending at K (NaN if it starts before episode 1)."""
    if K / 10.0 < ep[0]:
        return float("nan")
    hi, lo = np.mean(at_episode(ep, R, K)), np.mean(at_episode(ep, R, K / 10.0))
    return float(np.log10(hi / lo)) if hi > 0 and lo > 0 else float("nan")


CHECK_RTOL = 1e-9  # algebra checks: equal up to floating point (not a verdict threshold)


def _info(ctx: AnalysisContext, env: str, cell: str) -> dict:
    return next(i for i in ctx.infos if i["env_key"] == env and i["cell"] == cell)


def _claim(ctx, item, claim_id, statement, kind, score, source=SOURCE) -> V.Claim:
    """A row of ``rlsvi_privacy`` under its declared id (:func:`privacy_declaration`)."""
    return V.make_claim(PAPER_ID, item, claim_id, statement, kind,
                        ctx.artifact("rlsvi_privacy", "md"), score, ctx.experiment, source)


def privacy_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``rlsvi_privacy``, declared from the run infos alone (no data): per env with RLSVI cells its
    three Cor. 14 checks; Remark 2 once; per env with RLSVI (beta_scale 1) and UCBVI (bonus_scale 1) the
    "no privacy cost" order (context: Lu et al. compare RLSVI with no other agent; K needed 10 x the larger
    crossover, :func:`privrl.papers.lu2026.comparisons.order_no_larger`); per matched (env, K_i, agent) the
    matched-eps order (context)."""
    from privrl.papers.lu2026.comparisons import order_need

    out = [Row(f"{experiment}_{name}_{env}", "check", (), NO_K, args={"key": (name, env)})
           for env in sorted({i["env_key"] for i in infos_of(infos, "rlsvi")})
           for name in ("cor14_equals_thm13_min", "library_not_looser", "eps_linear_in_K")]
    out.append(Row(f"{experiment}_remark2_rewards_only", "check", (), NO_K, args={"key": ("remark2",)}))
    unmatched = [i for i in infos if i["agent"] in ("rlsvi", "ucbvi") and not (i.get("tags") or {}).get("match_K")]
    for env in sorted({i["env_key"] for i in unmatched}):
        a = [i for i in infos_of(infos, "rlsvi", env, {"beta_scale": 1.0}) if not (i.get("tags") or {}).get("match_K")]
        b = infos_of(infos, "ucbvi", env, {"bonus_scale": 1.0})
        if a and b:
            out.append(Row(f"{experiment}_rlsvi_no_privacy_cost_{env}", "order: 10 x max crossover (context)",
                           ((env, a[0]["cell"]), (env, b[0]["cell"])),
                           order_need([crossover_of(i, mdps[env]) for i in (a[0], b[0])]), "context",
                           args={"key": ("no_privacy_cost", env)}))
    tagged = [i for i in infos if (i.get("tags") or {}).get("match_K")]
    for env, Ki, pair in sorted({(i["env_key"], float(i["tags"]["match_K"]), i["agent"]) for i in tagged}):
        ref = infos_of(infos, "rlsvi", env, {"beta_scale": 1.0})
        cells = [i for i in tagged if (i["env_key"], float(i["tags"]["match_K"]), i["agent"]) == (env, Ki, pair)]
        out.append(Row(f"{experiment}_matched_{pair}_K{int(Ki)}_{env}", "order at K_i (context)",
                       tuple((env, i["cell"]) for i in ref[:1] + cells[:1]),
                       order_need([crossover_of(i, mdps[env]) for i in ref[:1] + cells[:1]]), "context",
                       args={"key": ("matched", env, Ki, pair)}))
    return out


def _claims(ctx: AnalysisContext, eps: pd.DataFrame, reg: pd.DataFrame, mat: pd.DataFrame) -> list[V.Claim]:
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    ids = {r.args["key"]: r.id for r in privacy_declaration(ctx.experiment, ctx.infos, mdps, ctx.config)}
    out = []
    for env, d in eps.groupby("env"):
        d1 = d[d.beta_scale == 1.0] if (d.beta_scale == 1.0).any() else d[d.beta_scale == d.beta_scale.iloc[0]]
        hsa = f"H={d1.H.iloc[0]}, S={d1.S.iloc[0]}, A={d1.A.iloc[0]}, delta={d1.delta.iloc[0]:g}"
        rel = float(np.max(np.abs(d1.eps_thm13_min / d1.eps_cor14 - 1.0)))
        out.append(_claim(ctx, "Cor. 14", ids[("cor14_equals_thm13_min", env)], f"Cor. 14 equals the numeric minimum "
                          f"over alpha of Thm 13 ({env}: {hsa}, K in [10, 1e7])", "check",
                          V.score_check(rel <= CHECK_RTOL, f"max relative difference {rel:.2e} over {len(d1)} K")))
        ind = d1[d1.library_in_domain]
        r = ind.eps_library_rdp / ind.eps_cor14
        gx = float(np.max(d1.eps_exact_gaussian / d1.eps_cor14))
        out_dom = int((~d1.library_in_domain).sum())
        meas = (f"max eps_library / eps_Cor14 = {r.max():.6f} over {len(ind)} K (library up to "
                f"{100 * (1 - r.min()):.1f}% tighter); exact Gaussian / Cor. 14 <= {gx:.6f}"
                + (f"; {out_dom} K with alpha* <= 1.01 outside dp_accounting's order range" if out_dom else ""))
        out.append(_claim(ctx, "Lemma 12 / Cor. 14", ids[("library_not_looser", env)], f"dp_accounting's conversion of "
                          f"Lemma 12's RDP curve is never looser than Cor. 14 ({env})", "check",
                          V.score_check(bool(len(ind)) and r.max() <= 1 + CHECK_RTOL, meas)))
        last = d1[d1.K >= d1.K.max() / 10]
        s = float(np.polyfit(np.log(last.K), np.log(last.eps_cor14), 1)[0])
        lin = 2 * d1.A.iloc[0] / (d1.H.iloc[0] ** 2 * np.log(2 * d1.H.iloc[0] * d1.S.iloc[0] * d1.A.iloc[0]))
        top = d1.iloc[int(np.argmax(d1.K))]
        out.append(_claim(ctx, "Cor. 14", ids[("eps_linear_in_K", env)], f"eps(delta) of RLSVI grows linearly in K ({env}; "
                          "the 2AK/(H^2 log 2HSA) term dominates at large K): the certified eps, which inherits "
                          "Lemma 11's over-count by up to S A (its 2A sums the S A pairs of a layer while one episode "
                          "changes one pair per step), not a lower bound on RLSVI's privacy loss", "check",
                          V.score_check(abs(top.eps_cor14 / top.K / lin - 1) < 0.1 and s > 0.9,
                                        f"slope of log eps on log K over [{last.K.min():g}, {last.K.max():g}] = "
                                        f"{s:.3f}; eps/K at K={top.K:g}: {top.eps_cor14 / top.K:.3g} vs "
                                        f"2A/(H^2 log 2HSA) = {lin:.3g}")))
    runs = infos_of(ctx, "rlsvi")
    ok = sum(all("Remark 2" in g.get("note", "") and "rewards only" in g.get("note", "") for g in i["guarantees"])
             and len(i["guarantees"]) > 0 for i in runs)
    on = ", ".join(sorted({i["env_key"] for i in runs}))  # each experiment checks its own runs: named by instance
    out.append(_claim(ctx, "Remark 2", ids[("remark2",)], f"Every RLSVI run ({on}) reports its guarantee as "
                      "covering rewards only (neighbouring users share states and actions)", "check",
                      V.score_check(bool(runs) and ok == len(runs), f"{ok}/{len(runs)} RLSVI runs carry the note")))
    for env in sorted(set(reg.env)) if len(reg) else []:
        m = env_mdp(ctx, env)
        a = [i for i in infos_of(ctx, "rlsvi", env, {"beta_scale": 1.0}) if not (i.get("tags") or {}).get("match_K")]
        b = infos_of(ctx, "ucbvi", env, {"bonus_scale": 1.0})
        if ("no_privacy_cost", env) not in ids:
            continue
        xa, xb = curves(ctx, env, a[0]["cell"])[1][:, -1], curves(ctx, env, b[0]["cell"])[1][:, -1]
        ra = reg[(reg.env == env) & (reg.cell == a[0]["cell"])].iloc[0]
        cross = {"rlsvi": crossover_of(a[0], m), "ucbvi": crossover_of(b[0], m)}
        sc = order_no_larger(ctx, f"nocost/{env}", xa, xb, cross, float(ra.K))
        # context: Lu et al. compare RLSVI with no other agent; "no privacy cost" (Sec. 5) means no noise
        # is added, so RLSVI's own guarantees stand -- not an order against UCBVI (docs/decisions/claims.md)
        out.append(dataclasses.replace(_claim(
            ctx, "Sec. 4", ids[("no_privacy_cost", env)], f"RLSVI (JDP with no added noise; certifies "
            f"eps = {ra.eps_cor14:.4g} at delta = {ra.delta:g}) has regret at K no larger than non-private UCBVI, "
            f"both at their papers' constants ({env}; context: Lu et al. compare RLSVI with no other agent, their "
            "'no privacy cost' is that no noise is added)", "order", sc,
            f"{SOURCE}, Sec. 4-5 (no privacy cost: the exploration noise is the privacy noise)"),
            scope="context", crossovers=C.crossover_text(cross)))
    if len(mat):
        for (env, Ki, pair), d in mat.groupby(["env", "K_i", "pair"]):
            m = env_mdp(ctx, env)
            r_row, p_row = d[d.agent == "rlsvi"].iloc[0], d[d.agent == pair].iloc[0]
            cross = {"rlsvi": crossover_of(_info(ctx, env, r_row.cell), m),
                     pair: crossover_of(_info(ctx, env, p_row.cell), m)}
            sc = order_no_larger(ctx, f"matched/{env}/{pair}/{Ki:g}", r_row._seeds, p_row._seeds, cross, float(Ki))
            e = d.epsilon.iloc[0]
            out.append(dataclasses.replace(_claim(ctx, "Cor. 14", ids[("matched", env, float(Ki), pair)], f"At the eps RLSVI certifies at "
                              f"K={int(Ki)} (Cor. 14: eps={e:.4g}, delta={d.delta_rlsvi.iloc[0]:g}), RLSVI's regret "
                              f"is no larger than {pair}'s at (eps, 0)-JDP ({env})", "order", sc,
                              f"{SOURCE}, Cor. 14 (matched-privacy comparison)"),
                scope="context", crossovers=C.crossover_text(cross)))  # not a comparison the paper makes (Remark 2)
    return out


def _markdown(ctx: AnalysisContext, eps: pd.DataFrame, reg: pd.DataFrame, mat: pd.DataFrame) -> str:
    L = [f"# RLSVI's privacy and its cost: {ctx.experiment}", "",
         f"**The guarantee {REMARK_2}.** RLSVI adds no privacy noise: its exploration noise "
         "w ~ N(0, beta_k/(N+1)) makes each Q-table release an RDP Gaussian (Lu et al. Lemma 11-12); "
         "eps(delta) is computed, never added. With `beta_scale` c the RDP slope is divided by c.", "",
         "## eps(delta) at the run's K", "",
         "| env | cell | K | delta | Cor. 14 | Thm 13 numeric min (alpha*) | dp_accounting RDP | exact Gaussian |",
         "|---|---|---|---|---|---|---|---|"]
    for r in eps[eps.is_run_K].itertuples():
        L.append(f"| {r.env} | {r.cell} | {r.K} | {r.delta:g} | {r.eps_cor14:.5g} | {r.eps_thm13_min:.5g} "
                 f"({r.alpha_opt:.4g}) | {r.eps_library_rdp:.5g} | {r.eps_exact_gaussian:.5g} |")
    L += ["", "## Regret at K (mean, 95% seed-bootstrap CI) beside UCBVI", "",
          "| env | cell | K | regret | K-exponent a | aux in fit window | eps(delta) certified |",
          "|---|---|---|---|---|---|---|"]
    for r in reg.itertuples():
        e = "non-private" if r.agent == "ucbvi" else f"{r.eps_cor14:.4g} (delta {r.delta:g})"
        L.append(f"| {r.env} | {r.label} | {r.K} | {fmt_ci(r.regret, r.regret_lo, r.regret_hi)} | "
                 f"{fmt_ci(r.exponent, r.exponent_lo, r.exponent_hi, 3)} | {r.aux_fit_window:.2f} | {e} |")
    L += ["", "aux: RLSVI = fraction of (h, s, a) whose noise sd exceeds the value range H - h; "
          "UCBVI = fraction of saturated bonuses."]
    if len(mat):
        L += ["", "## Matched privacy: agents run at the eps RLSVI certifies at K_i (Cor. 14)", "",
              "| env | K_i | eps (Cor. 14) | library / exact | agent | regret at K_i |", "|---|---|---|---|---|---|"]
        for r in mat.drop_duplicates(["env", "K_i", "agent"]).itertuples():
            L.append(f"| {r.env} | {r.K_i:g} | {r.epsilon:.5g} | "
                     f"{r.eps_library_rdp:.4g} / {r.eps_exact_gaussian:.4g} | "
                     f"{r.agent}{NOTE_AGENT.get(r.agent, '')} | "
                     f"{fmt_ci(r.regret, r.regret_lo, r.regret_hi)} |")
        L += ["", "PUCB / dp-ucbvi-jdp give (eps, 0)-JDP of all data; RLSVI gives (eps, delta)-JDP of rewards only. "
              "Regret at K_i interpolated in log K between checkpoints of the K-episode runs."]
    return "\n".join(L) + "\n"


def _figure(eps: pd.DataFrame, mat: pd.DataFrame, env_names: dict | None = None):
    """Through the figure layer: per env, RLSVI's eps(delta) vs K under the four accountants (the
    run's K grey); and the matched-privacy regret at K_i of each agent (eps = RLSVI's at K_i)."""
    from privrl.results import facets, style  # matplotlib: imported only to draw

    env_names = env_names or {}
    parts, ylabels, run_K = [], {}, {}
    accountants = (("eps_cor14", "Cor. 14"), ("eps_thm13_min", "Thm 13, numeric min"),
                   ("eps_library_rdp", "dp_accounting RDP"), ("eps_exact_gaussian", "exact (Gaussian)"))
    for env in (sorted(set(eps.env)) if len(eps) else []):
        d = eps[(eps.env == env) & (eps.beta_scale == eps[eps.env == env].beta_scale.max())].sort_values("K")
        panel = env_names.get(env, env)
        ylabels[panel] = f"RLSVI's ε at δ = {facets.sci(d.delta.iloc[0])}\n(rewards only)"
        run_K[panel] = list(d[d.is_run_K].K)
        for col, name in accountants:
            parts.append(pd.DataFrame({"x": d.K.to_numpy(float), "y": d[col].to_numpy(float), "panel": panel,
                                       "line": facets.human(name), "curve": f"{panel}|{col}"}))
    if len(mat):
        d = mat.drop_duplicates(["env", "K_i", "agent"])
        for env, de in d.groupby("env", sort=True):
            panel = f"matched privacy: {env_names.get(env, env)}"
            ylabels[panel] = "regret at $K_i$ (ε = RLSVI's at $K_i$)"
            for agent, g in de.groupby("agent", sort=False):
                g = g.sort_values("K_i")
                parts.append(pd.DataFrame({"x": g.K_i.to_numpy(float), "y": g.regret.to_numpy(float),
                                           "lo": g.regret_lo.to_numpy(float), "hi": g.regret_hi.to_numpy(float),
                                           "panel": panel, "line": style.agent_name(agent), "curve": f"{panel}|{agent}"}))
    if not parts:
        return None

    def run(ax, name, _rows):
        for K in run_K.get(name, []):
            ax.axvline(K, color="0.6", lw=0.8, label="_guide")

    from matplotlib.lines import Line2D

    extra = [(Line2D([], [], color="0.6", lw=0.8), "K of the runs", [p for p, k in run_K.items() if k])] \
        if any(run_K.values()) else []
    return facets.line_grid(pd.concat(parts, ignore_index=True), xlabel="episodes K", ylabel="", sharey=False,
                            ylabels=ylabels, decorate=run, extra_legend=extra)


def rlsvi_privacy(ctx: AnalysisContext) -> AnalysisResult:
    eps, reg, mat = epsilon_rows(ctx), regret_rows(ctx), matched_rows(ctx)
    claims = frame(_claims(ctx, eps, reg, mat))
    table = pd.concat([eps, reg, mat.drop(columns=["_seeds"], errors="ignore")], ignore_index=True)
    fig = _figure(eps, mat, {e: env_title(s) for e, s in (ctx.config.get("envs") or {}).items()})
    save_pdf(fig, ctx, "rlsvi_privacy")
    return AnalysisResult(table=table, markdown=_markdown(ctx, eps, reg, mat), figure=fig, claims=claims)


PAPER = Paper(
    key="lu2026",
    title="Randomized Least Squares Value Iteration itself is Joint Differentially Private",
    authors=("Haiyang Lu", "Pratik Gajane", "Shaojie Bai", "Mohammad Sadegh Talebi"),
    year=2026, venue="arXiv preprint (cs.LG)", link="https://arxiv.org/abs/2606.01952",
    file="003_dc371eb3b7a8685a.txt",
    analyses={"rlsvi_privacy": rlsvi_privacy, **COMPARISONS, **DIMENSIONS},
    theorem_checks=(COR14, RLSVI_AUDIT, LEMMA11),
)
