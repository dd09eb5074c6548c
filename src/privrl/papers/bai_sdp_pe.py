"""Bai, Talebi, Zhao, Cheng & Chen, *No-regret Exploration in Shuffle Private Reinforcement
Learning*: what reproduces it.

* analysis ``bai_table1`` -- Table I measured, and the trust-model ordering (below);
* theorem check ``bitsum_lemma42`` -- App. Alg. 4, Lemma 42: the shuffle binary summation.

Table I analysis.

Table I rows (Bai et al., "Results Comparison"; the SDP row is printed "PBPE (Ours)", the
paper's SDP-PE): DP-UCBVI eps-JDP and eps-LDP (registry ``dp-ucbvi-jdp`` / ``dp-ucbvi-ldp``,
reconstructions of Qiao & Wang 2023) and SDP-PE (eps, beta)-SDP (``sdp-pe``), one row per
constants setting found in the experiment (SDP-PE: (C, C1); DP-UCBVI: bonus_scale).
Columns: privacy model; the theoretical bound and its value with constant 1 and log factors
dropped at the row's reference eps (1 if run, else the smallest); regret at K (mean, 95%
seed-bootstrap CI); fitted K-exponent; the privacy-cost exponents (b, c) of
D(K, eps) = R(K, eps) - R(K, non-private) ~ K^b eps^-c over the experiment's eps sweep
(:func:`privrl.results.privacy_fits.fit_privacy_cost`; the non-private counterpart is ``pe`` at the
same constants for SDP-PE and a DP-UCBVI preset with ``noise = 0`` -- the same algorithm for
both presets -- at the same bonus_scale for DP-UCBVI); aux in the
fit window (SDP-PE: fraction of policies active; DP-UCBVI: bonus saturation).

Trust-model ordering (Bai et al. Sec. I and V-B: central <= shuffle << local in regret):
SDP-PE under ``sdp-pe-jdp`` (central), ``sdp-pe`` (shuffle), ``sdp-pe-ldp`` (local) at every
(eps, C, C1) of the experiment, beside ``pe`` (no privacy).

Claims (rules fixed before any run): "O~(sqrt K)": K-exponent CI below 0.6 (as the
garcelon_table1 analysis); b within target +/- 0.2 and c within 1 +/- 0.3 (as
``privacy_cost``), each inconclusive when aux > 0.99 in the whole fit window (SDP-PE eliminated
nothing / DP-UCBVI's bonus saturated: still exploring, no rate can show; for (b, c): in any
eps cell of the row);
measured regret at K below the Table I expression (constant 1);
"central <= shuffle": CI of R_shuffle - R_central >= 0; "shuffle << local": CI of
R_local / R_shuffle above 1. Where the three runs are identical (no policy eliminated and the
same exploration: the noise never changes a decision) the ordering cannot appear at this K:
inconclusive, said so. Regret can differ without any elimination (noisier counts put more
tuples in W and change the exploration policies); the table shows the active fraction.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from privrl.mechanisms.bitsum import bitsum_release, bitsum_tau
from privrl.mechanisms.bounds import bitsum_variance
from privrl.results.fits import SATURATED_FRACTION
from privrl.results.privacy_fits import fit_privacy_cost, interval_verdict
from privrl.results.stats import diff_ci, mean_ci, ratio_ci
from privrl.papers.analysis import CLAIM_COLUMNS, AnalysisContext, AnalysisResult
from privrl.papers.common import (
    as_generator,
    at_most_verdict,
    check_axes,
    claim,
    curves,
    env_mdp,
    fmt_ci,
    infos_of,
    rng_for,
    save_check_figure,
)
from privrl.papers.registry import Paper, TheoremCheck

SOURCE = "Bai, Talebi, Zhao, Cheng & Chen, Table I"
SQRT_K, TOL_B, TOL_C = 0.6, 0.2, 0.3
ROWS = {  # agent: (algorithm, model, bound text, bound(X, A, H, K, eps), (b, c) predicted)
    "dp-ucbvi-jdp": ("DP-UCBVI (Qiao & Wang 2023; reconstruction)", "eps-JDP", "O~(sqrt(XAH^3K) + X^2AH^3/eps)",
                     lambda X, A, H, K, e: math.sqrt(X * A * H**3 * K) + X**2 * A * H**3 / e, (0.0, 1.0)),
    "dp-ucbvi-ldp": ("DP-UCBVI (Qiao & Wang 2023; reconstruction)", "eps-LDP",
                     "O~(sqrt(XAH^3K) + X^2AH^3 sqrt(K)/eps)",
                     lambda X, A, H, K, e: math.sqrt(X * A * H**3 * K) + X**2 * A * H**3 * math.sqrt(K) / e,
                     (0.5, 1.0)),
    "sdp-pe": ("SDP-PE (Bai et al. Alg. 1-3; 'PBPE' in Table I)", "(eps, beta)-SDP",
               "O~(sqrt(X^2AH^5K) + X^3A^2H^6/eps)",
               lambda X, A, H, K, e: math.sqrt(X**2 * A * H**5 * K) + X**3 * A**2 * H**6 / e, (0.0, 1.0)),
}
TRUST = (("central", "sdp-pe-jdp"), ("shuffle", "sdp-pe"), ("local", "sdp-pe-ldp"))


def _setting(info: dict) -> tuple:
    p = info["params"]
    return (p["C"], p["C1"]) if "C" in p else (p.get("bonus_scale", 1.0),)


def _setting_label(s: tuple) -> str:
    if len(s) == 2:
        return f"C={s[0]:g}, C1={s[1]:g}" + (" (paper)" if s == (1.0, 6.0) else "")
    return f"bonus_scale={s[0]:g}" + (" (paper)" if s[0] == 1.0 else "")


def _baseline(ctx: AnalysisContext, agent: str, env: str, s: tuple) -> dict | None:
    if agent == "sdp-pe":
        b = infos_of(ctx, "pe", env, {"C": s[0], "C1": s[1]})
    else:  # with noise = 0 both DP-UCBVI presets are the same algorithm (UCBVI-Bernstein on exact counts)
        b = [i for a in (agent, "dp-ucbvi-jdp", "dp-ucbvi-ldp")
             for i in infos_of(ctx, a, env, {"bonus_scale": s[0], "noise": 0.0})]
    return b[0] if b else None


def _final_aux(ctx: AnalysisContext, env: str, cell: str) -> float:
    ep, aux = curves(ctx, env, cell, "cum_aux")
    if ep.size < 2:
        return float(aux[:, -1].mean() / ep[-1])
    return float(((aux[:, -1] - aux[:, -2]) / (ep[-1] - ep[-2])).mean())


def table_rows(ctx: AnalysisContext) -> tuple[pd.DataFrame, list[dict]]:
    rows, claims = [], []
    art = ctx.artifact("bai_table1", "md")
    for env in sorted({i["env_key"] for i in ctx.infos}):
        m = env_mdp(ctx, env)
        X, A, H = m.S, m.A, m.H
        for agent, (alg, model, btxt, bound, (tb, tc)) in ROWS.items():
            cells = [i for i in infos_of(ctx, agent, env) if i["params"].get("noise", 1.0) > 0.5]
            for s in sorted({_setting(i) for i in cells}, reverse=True):  # the papers' constants first
                by_eps = {float(i["params"]["epsilon"]): i for i in cells if _setting(i) == s}
                e_ref = 1.0 if 1.0 in by_eps else min(by_eps)
                ref = by_eps[e_ref]
                ep, R = curves(ctx, env, ref["cell"])
                K = int(ep[-1])
                mu, lo, hi = mean_ci(R[:, -1], rng_for(ctx, f"t1/{env}/{ref['cell']}"), ctx.n_boot)
                f = ctx.fits[(ctx.fits.env == env) & (ctx.fits.cell == ref["cell"])].iloc[0]
                base = _baseline(ctx, agent, env, s)
                fit = {}
                if base is not None and len(by_eps) >= 2:
                    ep0, R0 = curves(ctx, env, base["cell"])
                    priv = {e: curves(ctx, env, i["cell"])[1] for e, i in by_eps.items()}
                    fit = fit_privacy_cost(ep0, priv, R0, rng_for(ctx, f"bc/{env}/{agent}/{s}"),
                                           decades=float(ctx.config.get("fit_decades", 2)), n_boot=ctx.n_boot)
                nan = float("nan")
                b = (fit.get("b", nan), fit.get("b_lo", nan), fit.get("b_hi", nan))
                c = (fit.get("c", nan), fit.get("c_lo", nan), fit.get("c_hi", nan))
                bval = bound(X, A, H, K, e_ref)
                row = {"section": "table_I", "env": env, "algorithm": alg, "agent": agent, "privacy_model": model,
                       "constants": _setting_label(s), "theoretical_bound": btxt, "bound_value": bval,
                       "eps_ref": e_ref, "K": K, "regret": mu, "regret_lo": lo, "regret_hi": hi,
                       "exponent": f.exponent, "exponent_lo": f.exponent_lo, "exponent_hi": f.exponent_hi,
                       "aux_fit_window": f.saturated_fraction, "b": b[0], "b_lo": b[1], "b_hi": b[2], "b_pred": tb,
                       "c": c[0], "c_lo": c[1], "c_hi": c[2], "c_pred": tc, "eps_grid": sorted(by_eps),
                       "baseline": base["cell"] if base else "", "frac_dropped": fit.get("frac_dropped", nan),
                       "reconstruction": ref["reconstruction"]}
                rows.append(row)
                tag = f"{agent}_{_setting_label(s).split(' (')[0].replace(', ', '_').replace('=', '')}_{env}"
                aux_txt = (f"; policies active {f.saturated_fraction:.0%}" if agent == "sdp-pe"
                           else f"; bonus saturated {f.saturated_fraction:.0%}") + " in the fit window"
                stuck = f.saturated_fraction > SATURATED_FRACTION
                claims.append(claim(ctx, f"{tag}_sqrtK", f"{agent} ({model}, {_setting_label(s)}), eps={e_ref:g}: "
                                    f"regret is O~(sqrt K) on {env}", f"{SOURCE}, {btxt}", art,
                                    f"a = {fmt_ci(f.exponent, f.exponent_lo, f.exponent_hi, 3)} (K = {K}){aux_txt}"
                                    + ("; rate not observable at this K (still exploring)" if stuck else ""),
                                    "inconclusive" if stuck else at_most_verdict(f.exponent_lo, f.exponent_hi, SQRT_K)))
                claims.append(claim(ctx, f"{tag}_bound", f"{agent} ({_setting_label(s)}), eps={e_ref:g}: regret at K "
                                    "below the Table I expression with constant 1 and log factors dropped",
                                    f"{SOURCE}, {btxt}", art, f"regret {fmt_ci(mu, lo, hi)} vs {bval:.4g}",
                                    at_most_verdict(lo, hi, bval)))
                auxes = ctx.fits[(ctx.fits.env == env) & ctx.fits.cell.isin([i["cell"] for i in by_eps.values()])]
                saturated = bool((auxes.saturated_fraction > 0.99).any())
                for name, est, tgt, tol in (("b", b, tb, TOL_B), ("c", c, tc, TOL_C)):
                    kind = {"b": "K^b", "c": "eps^-c"}[name]
                    meas = (f"{name} = {fmt_ci(*est, 3)} over eps {sorted(by_eps)} vs {base['cell']}; "
                            f"{fit.get('frac_dropped', nan):.0%} of points with D <= 0 dropped{aux_txt}"
                            if fit else "not fitted: needs >= 2 eps and the non-private counterpart in the experiment")
                    if fit and saturated:
                        meas += "; privacy cost saturated: some eps cell still exploring in the whole fit window"
                    ok = fit and not saturated
                    claims.append(claim(ctx, f"{tag}_{name}", f"{agent} ({_setting_label(s)}): privacy cost "
                                        f"D(K, eps) ~ {kind}, {name} in {tgt:g} +/- {tol}", f"{SOURCE}, {btxt}", art,
                                        meas, interval_verdict(est[1], est[2], tgt, tol) if ok else "inconclusive"))
    return pd.DataFrame(rows), claims


def trust_rows(ctx: AnalysisContext) -> tuple[pd.DataFrame, list[dict]]:
    rows, claims = [], []
    art = ctx.artifact("bai_table1", "md")
    for env in sorted({i["env_key"] for i in ctx.infos}):
        keys = sorted({(i["params"]["epsilon"], i["params"]["C"], i["params"]["C1"])
                       for i in ctx.infos if i["agent"] == "sdp-pe" and i["env_key"] == env})
        for e, C, C1 in keys:
            found = {}
            for model, agent in TRUST:
                got = infos_of(ctx, agent, env, {"epsilon": e, "C": C, "C1": C1})
                if got:
                    found[model] = got[0]
            if len(found) < 3:
                continue
            pe = infos_of(ctx, "pe", env, {"C": C, "C1": C1})
            x, act = {}, {}
            for model, info in list(found.items()) + ([("none", pe[0])] if pe else []):
                x[model] = curves(ctx, env, info["cell"])[1][:, -1]
                act[model] = _final_aux(ctx, env, info["cell"])
                mu, lo, hi = mean_ci(x[model], rng_for(ctx, f"trust/{env}/{info['cell']}"), ctx.n_boot)
                rows.append({"section": "trust_ordering", "env": env, "epsilon": e, "C": C, "C1": C1,
                             "privatizer": model, "agent": info["agent"], "cell": info["cell"], "regret": mu,
                             "regret_lo": lo, "regret_hi": hi, "active_fraction_at_K": act[model]})
            tag = f"eps{e:g}_C{C:g}_{env}"
            const = _setting_label((C, C1))
            means = [float(np.mean(x[mo])) for mo, _ in TRUST]
            none_elim = all(act[mo] >= 1.0 - 1e-12 for mo, _ in TRUST) and max(means) - min(means) <= 1e-9 * max(means)
            why = "identical regret: no policy eliminated and the same exploration under every privatizer"
            d = diff_ci(x["shuffle"], x["central"], rng_for(ctx, f"d/{tag}"), ctx.n_boot)
            v1 = "inconclusive" if none_elim else ("reproduced" if d[1] >= 0 else
                                                   "not reproduced" if d[2] < 0 else "inconclusive")
            claims.append(claim(ctx, f"trust_central_le_shuffle_{tag}", f"SDP-PE regret: central <= shuffle "
                                f"(eps={e:g}, {const}, {env})", "Bai et al. Sec. I, V-B (shuffle matches central up "
                                "to constants)", art, f"R_shuffle - R_central = {fmt_ci(*d)}; active at K: central "
                                f"{act['central']:.3f}, shuffle {act['shuffle']:.3f}"
                                + (f"; {why}" if none_elim else ""),
                                v1))
            r = ratio_ci(x["local"], x["shuffle"], rng_for(ctx, f"r/{tag}"), ctx.n_boot)
            v2 = "inconclusive" if none_elim else ("reproduced" if r[1] > 1 else
                                                   "not reproduced" if r[2] < 1 else "inconclusive")
            claims.append(claim(ctx, f"trust_shuffle_lt_local_{tag}", f"SDP-PE regret: shuffle << local "
                                f"(eps={e:g}, {const}, {env})", "Bai et al. Sec. V-B (additive vs multiplicative "
                                "1/eps)", art, f"R_local / R_shuffle = {fmt_ci(*r, 3)}; active at K: shuffle "
                                f"{act['shuffle']:.3f}, local {act['local']:.3f}" + (f"; {why}" if none_elim else ""),
                                v2))
    return pd.DataFrame(rows), claims


def _markdown(ctx, t1: pd.DataFrame, tr: pd.DataFrame) -> str:
    L = [f"# Bai et al. Table I, measured: {ctx.experiment}", "",
         "Bounds are Table I's O~ expressions evaluated with constant 1 and log factors dropped (a scale, not a "
         "bound). Regret: mean [95% seed-bootstrap CI] at K and eps_ref. (b, c): D(K, eps) ~ K^b eps^-c vs the "
         "non-private counterpart. aux: SDP-PE = fraction of policies active, DP-UCBVI = bonus saturation "
         "(fit window). DP-UCBVI is a reconstruction.", "",
         "| algorithm | privacy | constants | theoretical bound | value | eps_ref | regret at K | K-exponent | "
         "b (pred) | c (pred) | aux |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in t1.itertuples():
        L.append(f"| {r.algorithm} | {r.privacy_model} | {r.constants} | {r.theoretical_bound} | {r.bound_value:.3g} | "
                 f"{r.eps_ref:g} | {fmt_ci(r.regret, r.regret_lo, r.regret_hi)} (K={r.K}) | "
                 f"{fmt_ci(r.exponent, r.exponent_lo, r.exponent_hi, 3)} | "
                 f"{fmt_ci(r.b, r.b_lo, r.b_hi, 2)} ({r.b_pred:g}) | "
                 f"{fmt_ci(r.c, r.c_lo, r.c_hi, 2)} ({r.c_pred:g}) | {r.aux_fit_window:.2f} |")
    L += ["", "## Trust-model ordering: SDP-PE under each Privatizer", "",
          "| env | eps | constants | central (JDP) | shuffle (SDP) | local (LDP) | none (pe) | active at K (c/s/l) |",
          "|---|---|---|---|---|---|---|---|"]
    if len(tr):
        for (env, e, C, C1), d in tr.groupby(["env", "epsilon", "C", "C1"]):
            g = {r.privatizer: r for r in d.itertuples()}
            cellv = {k: fmt_ci(v.regret, v.regret_lo, v.regret_hi) for k, v in g.items()}
            L.append(f"| {env} | {e:g} | {_setting_label((C, C1))} | {cellv.get('central', '')} | "
                     f"{cellv.get('shuffle', '')} | {cellv.get('local', '')} | {cellv.get('none', '')} | "
                     + "/".join(f"{g[k].active_fraction_at_K:.3f}" for k in ('central', 'shuffle', 'local')) + " |")
    L += ["", "Error levels at eps: central Lap(3H/eps) per count, shuffle Alg. 4 at eps/(3H) (tau = 96 log(2/beta) "
          "(3H/eps)^2), local Lap(6H/eps) per user and coordinate (see docs/decisions/agents.md)."]
    return "\n".join(L) + "\n"


def _figure(ctx, t1: pd.DataFrame, tr: pd.DataFrame):
    import matplotlib.pyplot as plt

    from privrl.results.figures import grouped_errorbars  # seaborn: imported only to draw

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    ax = axes[0]
    ag = ctx.aggregates
    for r in t1.itertuples():
        cell = infos_of(ctx, r.agent, r.env, {"epsilon": r.eps_ref})
        cell = [i for i in cell if r.constants.startswith(_setting_label(_setting(i)).split(" (")[0])
                and i["params"].get("noise", 1.0) > 0.5]
        if not cell:
            continue
        d = ag[(ag.env == r.env) & (ag.cell == cell[0]["cell"])].sort_values("episode")
        ax.plot(d.episode, np.maximum(d["mean"], 1e-3), lw=1.2, label=f"{r.agent}, {r.constants}, eps={r.eps_ref:g}")
        ax.fill_between(d.episode, np.maximum(d.ci_low, 1e-3), np.maximum(d.ci_high, 1e-3), alpha=0.2)
    ax.set(xscale="log", yscale="log", xlabel="episodes K", ylabel="cumulative regret", title="Table I rows")
    ax.legend(fontsize=5)
    ax = axes[1]
    if len(tr):
        groups = list(tr.groupby(["epsilon", "C", "C1"]).groups)
        models = ["central", "shuffle", "local", "none"]
        series = {mo: tr[tr.privatizer == mo].set_index(["epsilon", "C", "C1"]).reindex(groups) for mo in models}
        grouped_errorbars(ax, series, len(groups), [f"eps={g[0]:g}\nC={g[1]:g}" for g in groups], 0.2)
        ax.set(yscale="log", ylabel="regret at K", title="SDP-PE: trust-model ordering")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def bai_table1(ctx: AnalysisContext) -> AnalysisResult:
    t1, c1 = table_rows(ctx)
    tr, c2 = trust_rows(ctx)
    table = pd.concat([t1.assign(eps_grid=t1.eps_grid.astype(str)) if len(t1) else t1, tr], ignore_index=True)
    return AnalysisResult(table=table, markdown=_markdown(ctx, t1, tr), figure=_figure(ctx, t1, tr),
                          claims=pd.DataFrame(c1 + c2, columns=CLAIM_COLUMNS))


# ----------------------------------------------------------------------------- Lemma 42
def check_bitsum_lemma42(rng, eps_grid: Iterable[float] = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9), beta: float = 0.01,
                         n_trials: int = 20000, ratios: Mapping[str, float] | None = None) -> pd.DataFrame:
    """Bai et al. Lemma 42: unbiasedness, variance ~ eps^-2 in both regimes, exact eps vs claim.

    For each eps, ``n_users = ratio * tau`` (small regime ratio < 1, large > 1) so each regime
    is kept across the grid. ``n_trials`` counters with random true sums. Columns include the
    bias z-score, empirical and exact variance, the per-regime fitted exponent of
    ``var ~ eps^b`` and the exact eps at ``delta = beta``.
    """
    from privrl.mechanisms import accounting as acc

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
                         "exact_epsilon": acc.bitsum_exact_epsilon(n, tau, beta), "claimed_epsilon": eps})
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
    fig, (a1, a2) = check_axes(2)
    for regime, g in df.groupby("regime"):
        a1.loglog(g["epsilon"], g["var_empirical"], "o", label=f"{regime}: b={g['fitted_exponent'].iloc[0]:.2f}")
        a1.loglog(g["epsilon"], g["var_exact"], "k:", lw=1)
        a2.plot(g["epsilon"], g["exact_epsilon"], "o-", label=f"exact, {regime} regime")
    claim = df.drop_duplicates("epsilon").sort_values("epsilon")
    a2.plot(claim["epsilon"], claim["claimed_epsilon"], "k--", label="claimed (Lemma 42)")
    a1.set(xlabel="eps", ylabel="Var(Z - sum y)", title="Bai et al. Lemma 42: variance")
    a2.set(xlabel="eps", ylabel=f"eps at delta=beta={df['beta'].iloc[0]}", title="exact vs claimed")
    a1.legend(fontsize=8), a2.legend(fontsize=8)
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

PAPER = Paper(
    key="bai_sdp_pe",
    title="No-regret Exploration in Shuffle Private Reinforcement Learning",
    authors=("Shaojie Bai", "Mohammad Sadegh Talebi", "Chengcheng Zhao", "Peng Cheng", "Jiming Chen"),
    year=None, venue="", link="",
    file="004_d9973ce4fe9f1ab1.txt",
    note=("full version with appendix; short version 002_086c8aa4a191c256.txt. Year and venue are not printed in "
          "the text; Lu et al. (2026) cite the published version as 'Near-Optimal Reinforcement Learning With "
          "Shuffle Differential Privacy', IEEE Transactions on Network Science and Engineering, 2026"),
    analyses={"bai_table1": bai_table1},
    theorem_checks=(BITSUM,),
)
