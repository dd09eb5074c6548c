"""Lu et al. (2026): "no privacy cost" at a fixed eps and at RLSVI's own eps; RLSVI's worst-case rate.

Analysis ``lu2026_fixed_eps`` (cells of one experiment, per env):

* RLSVI cells tagged ``certify_eps: e`` run with the ``beta_scale`` that makes Cor. 14 certify
  (e, delta) after the experiment's K episodes (:func:`beta_scale_for_epsilon`; checked here,
  a mismatch raises). PUCB / dp-ucbvi-jdp cells tagged ``fixed_eps: e`` run at (e, 0)-JDP.
  Claim per (e, rival): RLSVI's regret at K is no larger than the rival's
  (:func:`order_no_larger`). Note: at a fixed eps, beta grows in proportion to K, so RLSVI's
  perturbation sd sqrt(beta_k / (n + 1)) does not shrink with K: its crossover is "never" (inf).
  These orders are **context** (``scope``), not Lu et al.'s claims: the paper compares RLSVI with
  no other agent, and its eps covers rewards only (Remark 2) while the rivals' covers whole
  trajectories.
* RLSVI at its own certified eps: cells marked ``matched`` (the experiment's ``matched_eps``
  block, RLSVI beta_scale 1 at K) against RLSVI beta_scale 1; same claim.
* RLSVI (beta_scale 1) regret against the published worst-case rate O~(sqrt K) (Russo 2019, as
  Lu et al. Sec. 4 cite it; its H, S, A factors are not printed in Lu et al.): one-sided
  :func:`~privrl.results.verdicts.score_rate_upper`, in RLSVI's regime.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from privrl.agents.rlsvi import privacy_table
from privrl.results import verdicts as V
from privrl.results.labels import env_title
from privrl.results.stats import mean_ci, ratio_ci
from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.designs import window_k
from privrl.papers.planned import NO_K, Row, fit_decades
from privrl.papers.scoring import CONVERGES, crossover_of, frame, regime_of, save_pdf
from privrl.papers.common import curves, env_mdp, fmt_ci, infos_of, rng_for

PAPER_ID = "lu2026"
SOURCE = "Lu, Gajane, Bai & Talebi (2026)"
CERTIFY_RTOL = 1e-3  # the config carries beta_scale to 6 significant digits
RIVALS = ("pucb", "dp-ucbvi-jdp")
NAMES = {"rlsvi": "RLSVI", "pucb": "PUCB", "dp-ucbvi-jdp": "DP-UCBVI (JDP, recon.)", "ucbvi": "UCBVI (non-private)"}


def beta_scale_for_epsilon(eps: float, delta: float, K: int, H: int, S: int, A: int) -> float:
    """beta_scale at which Cor. 14 certifies (eps, delta)-JDP after K episodes: Cor. 14 reads
    eps = rho + 2 sqrt(rho log(1/delta)), so sqrt(rho) = sqrt(log(1/delta) + eps) - sqrt(log(1/delta));
    rho = 2 A K_e / (H^2 log(2HSA)) at K_e = K / beta_scale (Lemma 12; ``rlsvi.effective_episodes``)."""
    L = math.log(1.0 / delta)
    rho = (math.sqrt(L + eps) - math.sqrt(L)) ** 2
    Ke = rho * H**2 * math.log(2.0 * H * S * A) / (2.0 * A)
    return K / Ke


def order_no_larger(ctx, what: str, x_rlsvi: np.ndarray, x_other: np.ndarray, cross: dict[str, float], K: float
                    ) -> V.Score:
    """'RLSVI's regret is no larger than the other's' as :func:`~privrl.results.verdicts.score_order`
    on B/A = R_other / R_RLSVI; the regime condition: both past 10 x their own crossover (the
    claim orders two rates; an explorer's regret says nothing of its rate); K needed = 10 x the
    larger crossover."""
    rr = ratio_ci(x_other, x_rlsvi, rng_for(ctx, what), ctx.n_boot)
    need = order_need(cross.values())
    note = "; ".join(f"{a} crossover K = {c:.3g}" for a, c in cross.items()) + f"; K = {K:.3g}"
    s = V.score_order(rr, False, bool(K >= need), note, need)
    return V.Score(s.verdict, s.measured.replace("B/A", "R_other / R_RLSVI") + " (a tie is consistent with the "
                   "claim: inconclusive)", s.regime, s.k_needed)


def order_need(crossovers) -> float:
    """K needed of :func:`order_no_larger`: regime_factor x the largest crossover of its cells."""
    return V.THRESHOLDS.regime_factor * max(crossovers)


def certified_crossover(info: dict, mdp) -> float:
    """A cell's crossover as the comparisons read it. RLSVI run at a fixed certified eps (``certify_eps``):
    beta_scale = K / K_e, so the perturbation sd sqrt(beta_k / (n + 1)) ~ sqrt(beta_scale / n) stays constant
    as K grows and no K brings it below the gap (the agent's rule fits beta at one K): never (inf)."""
    if info["agent"] == "rlsvi" and "certify_eps" in (info.get("tags") or {}):
        return math.inf
    return crossover_of(info, mdp)


def group_of(info: dict) -> str | None:
    """The comparison group of a cell of ``lu2026_fixed_eps`` ("eps=e" at a fixed eps, "RLSVI's own eps",
    "non-private"), or None when the analysis does not read it."""
    tags = info.get("tags") or {}
    if info["agent"] == "rlsvi" and "certify_eps" in tags:
        return f"eps={float(tags['certify_eps']):g}"
    if info["agent"] in RIVALS and "fixed_eps" in tags:
        return f"eps={float(info['params']['epsilon']):g}"
    if info["agent"] in RIVALS and "match_K" in tags:
        return "RLSVI's own eps"
    if info["agent"] == "rlsvi" and info["params"]["beta_scale"] == 1.0:
        return "RLSVI's own eps"
    if info["agent"] == "ucbvi":
        return "non-private"
    return None


def fixed_eps_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``lu2026_fixed_eps``, declared from the run infos alone (no data): per env and group
    (:func:`group_of`) with an RLSVI cell, RLSVI no larger than each rival (context: Lu et al. compare RLSVI
    with no other agent); per env RLSVI's (beta_scale 1) O~(sqrt K) rate, K needed its fit window past
    10 x its crossover."""
    out = []
    for env in sorted({i["env_key"] for i in infos}):
        groups: dict[str, list[dict]] = {}
        for i in infos_of(infos, None, env):
            if group_of(i) is not None:
                groups.setdefault(group_of(i), []).append(i)
        for group, g in groups.items():
            rl = [i for i in g if i["agent"] == "rlsvi"]
            if group == "non-private" or not rl:
                continue
            for o in (i for i in g if i["agent"] in RIVALS):
                own = group.startswith("RLSVI")
                out.append(Row(f"{experiment}_{'own' if own else group.replace('=', '')}_{o['agent']}_{env}",
                               "order: 10 x max crossover (context)", ((env, rl[0]["cell"]), (env, o["cell"])),
                               order_need([certified_crossover(i, mdps[env]) for i in (rl[0], o)]), "context",
                               args={"key": ("order", env, group, o["cell"])}))
        one = infos_of(infos, "rlsvi", env, {"beta_scale": 1.0})
        if one:
            out.append(Row(f"{experiment}_rlsvi_sqrtK_{env}", "rate window", ((env, one[0]["cell"]),),
                           window_k(crossover_of(one[0], mdps[env]), fit_decades(config)),
                           args={"key": ("sqrtK", env)}))
    return out


def _row(ctx, info, m, group: str) -> dict:
    env = info["env_key"]
    ep, R = curves(ctx, env, info["cell"])
    mu, lo, hi = mean_ci(R[:, -1], rng_for(ctx, f"fx/{env}/{info['cell']}"), ctx.n_boot)
    g = (info.get("guarantees") or [{}])[0]
    return {"env": env, "group": group, "cell": info["cell"], "agent": info["agent"], "name": NAMES[info["agent"]],
            "epsilon": g.get("epsilon", info["params"].get("epsilon", np.nan)), "delta": g.get("delta", 0.0),
            "beta_scale": info["params"].get("beta_scale", np.nan), "K": int(ep[-1]),
            "crossover_K": crossover_of(info, m), "regret": mu, "regret_lo": lo, "regret_hi": hi, "_seeds": R[:, -1]}


def _groups(ctx: AnalysisContext, env: str, m) -> list[dict]:
    rows = []
    for info in infos_of(ctx, None, env):
        group = group_of(info)
        if group is None:
            continue
        if info["agent"] == "rlsvi" and "certify_eps" in (info.get("tags") or {}):
            e, p = float(info["tags"]["certify_eps"]), info["params"]
            got = privacy_table(p["delta"], info["episodes"], m.H, m.S, m.A, p["beta_scale"])["eps_cor14"]
            if not math.isclose(got, e, rel_tol=CERTIFY_RTOL):
                raise ValueError(f"{ctx.experiment}/{env}/{info['cell']}: beta_scale {p['beta_scale']:g} certifies "
                                 f"eps {got:.6g}, not {e:g}; use {beta_scale_for_epsilon(e, p['delta'], info['episodes'], m.H, m.S, m.A):.6g}")
            rows.append({**_row(ctx, info, m, group), "crossover_K": certified_crossover(info, m)})
        else:
            rows.append(_row(ctx, info, m, group))
    return rows


def lu2026_fixed_eps(ctx: AnalysisContext) -> AnalysisResult:
    rows, claims, rate = [], [], []
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    ids = {r.args["key"]: r.id for r in fixed_eps_declaration(ctx.experiment, ctx.infos, mdps, ctx.config)}
    for env in sorted({i["env_key"] for i in ctx.infos}):
        m = env_mdp(ctx, env)
        df = pd.DataFrame(_groups(ctx, env, m))
        rows.append(df)
        for group, d in df.groupby("group", sort=False):
            rl = d[d.agent == "rlsvi"]
            if group == "non-private" or not len(rl):
                continue
            r = rl.iloc[0].to_dict()
            for o in d[d.agent.isin(RIVALS)].to_dict("records"):
                sc = order_no_larger(ctx, f"fx/{env}/{group}/{o['agent']}", r["_seeds"], o["_seeds"],
                                     {"rlsvi": r["crossover_K"], o["agent"]: o["crossover_K"]}, float(r["K"]))
                own = group.startswith("RLSVI")
                claims.append(dataclasses.replace(V.make_claim(
                    PAPER_ID, "Sec. 4 / Cor. 14", ids[("order", env, group, o["cell"])], f"At {'the eps RLSVI certifies at K' if own else group} "
                    f"(eps = {r['epsilon']:.4g}, delta = {r['delta']:g}; RLSVI beta_scale = {r['beta_scale']:.4g}), "
                    f"RLSVI's regret at K is no larger than {NAMES[o['agent']]}'s at (eps, 0)-JDP ({env}; the comparison "
                    "Lu et al.'s 'no privacy cost' invites: the paper itself compares with no private agent)", "order",
                    ctx.artifact("lu2026_fixed_eps", "md"), sc, ctx.experiment, f"{SOURCE}, Sec. 4 (no privacy cost)"),
                    scope="context"))  # Lu et al. compare RLSVI with no other agent; their eps covers rewards only
        one = [i for i in infos_of(ctx, "rlsvi", env, {"beta_scale": 1.0})]
        if one:
            f = ctx.fits[(ctx.fits.env == env) & (ctx.fits.cell == one[0]["cell"])].iloc[0]
            sc = V.score_rate_upper(V.RateFit.from_row(f), V.THRESHOLDS.sqrt_k_exponent, V.THRESHOLDS.log_allowance,
                                    regime_of(f, crossover_of(one[0], m)))
            claims.append(V.make_claim(PAPER_ID, "Sec. 4 (worst-case regret)", ids[("sqrtK", env)],
                                       f"RLSVI (paper's beta_k) regret on {env} is O~(sqrt K) (worst-case bound "
                                       "cited by Lu et al. Sec. 4; H, S, A factors not printed there)" + CONVERGES, "rate",
                                       ctx.artifact("lu2026_fixed_eps", "md"), sc, ctx.experiment,
                                       f"{SOURCE}, Sec. 4 (Russo 2019; Agrawal et al. 2021)"))
            ep, R = curves(ctx, env, one[0]["cell"])
            rate.append(pd.DataFrame({"env": env, "K": ep, "regret": R.mean(axis=0)}))
    table = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    fig = _figure(table, pd.concat(rate, ignore_index=True) if rate else pd.DataFrame(),
                  {env: env_title(ctx.config["envs"][env]) for env in ctx.config.get("envs", {})})
    save_pdf(fig, ctx, "lu2026_fixed_eps")
    table = table.drop(columns="_seeds") if len(table) else table
    L = [f"# Lu et al.: no privacy cost at a fixed eps ({ctx.experiment})", "",
         "RLSVI's beta_scale is computed so that Cor. 14 certifies (eps, delta) after K episodes; PUCB and DP-UCBVI "
         "(reconstruction) give (eps, 0)-JDP of all data, RLSVI (eps, delta)-JDP of rewards only (Remark 2). At a "
         "fixed eps, beta grows with K, so RLSVI's noise does not shrink: see crossover_K.", "",
         "| env | group | agent | eps | delta | beta_scale | crossover K | regret at K |", "|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        L.append(f"| {r.env} | {r.group} | {r.name} | {r.epsilon:.4g} | {r.delta:g} | {r.beta_scale:.4g} | "
                 f"{r.crossover_K:.3g} | {fmt_ci(r.regret, r.regret_lo, r.regret_hi)} (K={r.K}) |")
    return AnalysisResult(table=table, markdown="\n".join(L) + "\n", figure=fig, claims=frame(claims))


#: legend entries of the figure: the RLSVI cells of a fixed-eps group, and RLSVI at the paper's beta_k
CERTIFYING, OWN = "RLSVI, $\\beta_k$ scaled to certify ε", "RLSVI (paper's $\\beta_k$)"


def _figure(table: pd.DataFrame, rate: pd.DataFrame, env_names: dict | None = None):
    """Two panels through the figure layer (one column): regret at K against the privacy level ε
    (log-log), one line per agent over the fixed-ε groups (RLSVI with β_k scaled to certify ε;
    PUCB; DP-UCBVI), and the groups without a swept ε (RLSVI at its own ε, the non-private
    baseline) as horizontal references across it; RLSVI's cumulative regret (paper's β_k)
    against a sqrt(K) line through its last point (the worst-case rate's shape).
    table: rows of :func:`_groups`; rate: rows (env, K, regret) of RLSVI's mean curve; env_names:
    env key -> its human name (the figure's title, or each line's suffix with several envs)."""
    from matplotlib.lines import Line2D

    from privrl.results import facets

    if not len(table):
        return None
    names = env_names or {}
    multi = table.env.nunique() > 1

    def at(env: str) -> str:  # a line's env, when the figure has several
        return f" ({names.get(env, env)})" if multi else ""

    fixed = table[table.group.str.startswith("eps=")]
    panel1 = "same privacy level: RLSVI vs JDP agents"
    parts = []
    for (env, name), d in fixed.groupby(["env", "name"], sort=False):
        d = d.sort_values("epsilon")
        line = CERTIFYING if d.agent.iloc[0] == "rlsvi" else name
        parts.append(pd.DataFrame({"x": d.epsilon.astype(float), "y": d.regret, "lo": d.regret_lo, "hi": d.regret_hi,
                                   "panel": panel1, "line": line + at(env), "curve": f"{env}|{line}"}))
    eps = fixed.epsilon.astype(float)
    own = table[(table.agent == "rlsvi") & ~table.group.str.startswith("eps=")]
    own_line = {r.env: f"{OWN[:-1]}, its own ε = {facets.sci(r.epsilon)})" if np.isfinite(r.epsilon) else OWN
                for r in own.itertuples()}  # RLSVI at beta_scale 1: the eps it certifies at K, in its legend entry
    xs = np.geomspace(eps.min(), eps.max(), 20) if eps.nunique() > 1 else np.geomspace(0.5, 2, 20) * (eps.max() if len(eps) else 1)
    for r in table[~table.group.str.startswith("eps=")].itertuples():  # no swept eps: a level across the panel
        line = (own_line.get(r.env, OWN) if r.agent == "rlsvi" else f"{r.name} at RLSVI's own ε") \
            if r.group != "non-private" else r.name
        parts.append(pd.DataFrame({"x": xs, "y": r.regret, "lo": r.regret_lo, "hi": r.regret_hi, "panel": panel1,
                                   "line": line + at(r.env), "curve": f"{r.env}|{line}"}))
    panel2 = "RLSVI vs its worst-case rate"
    for env, d in rate.groupby("env", sort=False) if len(rate) else ():
        k, y = d.K.to_numpy(float), np.maximum(d.regret.to_numpy(float), 1e-3)
        parts.append(pd.DataFrame({"x": k, "y": y, "panel": panel2, "line": own_line.get(env, OWN) + at(env),
                                   "curve": f"{env}|rlsvi"}))
    data = pd.concat(parts, ignore_index=True)

    def sqrt_k(ax, panel, rows):  # the worst-case rate's shape through each RLSVI curve's last point
        if panel != panel2:
            return
        for _, c in rows.groupby("curve", sort=False):
            k, y = c.x.to_numpy(float), c.y.to_numpy(float)
            ax.plot(k, y[-1] * np.sqrt(k / k[-1]), color="black", ls="--", lw=0.8, label="_guide", scaley=False)

    ref = [(Line2D([], [], color="black", ls="--", lw=0.8), "$\\sqrt{K}$ through the last point", panel2)] if len(rate) else []
    return facets.line_grid(data, xlabel="privacy level ε", ylabel=facets.at_k(table.get("K")), panel_order=[panel1, panel2],
                            sharex=False, sharey=False, markers=True, decorate=sqrt_k, extra_legend=ref,
                            xlabels={panel2: "episodes K"}, ylabels={panel2: "cumulative regret"},
                            title="" if multi else names.get(table.env.iloc[0], ""))


ANALYSES = {"lu2026_fixed_eps": lu2026_fixed_eps}
