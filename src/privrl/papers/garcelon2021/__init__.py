"""Garcelon, Perchet, Pike-Burke & Pirotta (ICML 2021 RL-theory workshop), *Bridging the Gap
between Local and Joint Differential Privacy in RL*: what reproduces it.

* analysis ``garcelon_table1`` -- Table 1, measured (below);
* analysis ``garcelon_table1_printed`` -- Table 1 as printed beside the measured regret and privacy cost at
  eps0 <= 1 (:mod:`privrl.papers.garcelon2021.printed_table`);
* analysis ``garcelon2021_thm6`` -- Thm 6's terms, the tau = K^(1/3) row at its local eps, Prop. 5
  on the exact eps (:mod:`privrl.papers.garcelon2021.thm6`);
* theorem check ``garcelon_coverage`` -- Eq. 7-8, coverage of the shuffled-RR counter bounds;
* theorem check ``garcelon_prop5`` -- Prop. 5, eps_{c,k} beside the exact eps of the shuffled sums.

Table 1 analysis.

Rows (cells tagged ``table1: <row>`` in the config): Shuffled-OBI with tau = 0, a fixed
tau and tau = K^(1/3); PUCB (Vietri et al. 2020); LDP-OBI with the Laplace mechanism
(Garcelon et al. 2021; reconstruction). One table block per (eps0, bonus_scale). Columns:
LDP and JDP guarantees *computed* by :mod:`privrl.mechanisms.accounting` (from each run's info), the
theoretical regret of Table 1, the measured regret at K (mean and 95% seed-bootstrap CI),
the fitted K-exponent (95% CI) and the mean bonus saturation in the fit window.

Claims per block (:mod:`privrl.results.verdicts`, scorers in :mod:`privrl.papers.garcelon2021.thm6`):
* each row: "regret is O~(sqrt K)" -- one-sided (``score_rate_upper``), scored only on a fit
  window >= 10 x the agent's crossover K (else "not reached" with the K needed);
* "JDP is cheaper than LDP" (PUCB vs LDP-OBI) -- ``score_order`` with the regime condition that
  both agents are past 10 x their crossover at K, scored only at an eps0 where Table 1's forms
  put LDP >= 2 x JDP (eps0 < 1/2, :mod:`privrl.papers.table_orders`; elsewhere labelled context:
  the privacy terms are negligible there); at paper constants one bonus_scale multiplies
  widths of different tightness (the coverage caveat is printed); cells carrying a matched
  coverage parameter ``z`` (equal in both) are reported as such;
* "shuffling amplifies" at tau = K^(1/3) -- ``score_amplification`` on the exact eps of the
  shuffled counters, Prop. 5's hypothesis checked, the repeated-release caveat stated.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import pandas as pd
from numba import njit

from privrl.mechanisms.bounds import garcelon_eq7_bound, garcelon_eq8_bound
from privrl.mechanisms.rr import (
    rr_debias,
    rr_p_from_epsilon,
    rr_sum_counts,
    unary_count,
)
from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers import table_orders
from privrl.papers.designs import window_k
from privrl.papers.planned import NO_K, Row, fit_decades
from privrl.papers.scoring import crossover_of, frame
from privrl.results import verdicts as V
from privrl.papers.garcelon2021.thm6 import garcelon2021_thm6
from privrl.papers.garcelon2021.printed_table import NAME as PRINTED_NAME, garcelon_table1_printed
from privrl.papers.garcelon2021.prop7 import PROP7
from privrl.papers.common import as_generator, check_axes, check_legend, column_axes, env_mdp, save_check_figure
from privrl.papers.registry import Paper, TheoremCheck
from privrl.papers.garcelon2021.dimensions import ANALYSES as DIMENSIONS
from privrl.results.coverage_verdicts import within_stated

ROWS = [  # tag, algorithm, theoretical regret (Table 1)
    ("shuffled_tau_k13", "Shuffled-OBI, tau = K^(1/3)", "O~(sqrt(K) + K^(1/3)/eps0)"),
    ("shuffled_tau", "Shuffled-OBI, fixed tau", "O~(sqrt(K) + tau H + sqrt(2K) e^(eps0/2)/(e^eps0 - 1))"),
    ("shuffled_tau0", "Shuffled-OBI, tau = 0", "O~(sqrt(K)/(e^eps0 - 1))"),
    ("pucb", "PUCB (Vietri et al. 2020)", "O~(sqrt(K) + 1/eps0)"),
    ("ldp_obi", "LDP-OBI, Laplace (Garcelon et al. 2021; reconstruction)", "O~(sqrt(K)/eps0)"),
]


def _guar(infos_g: list[dict], model: str) -> str:
    gs = [g for g in infos_g if g["model"] == model]
    if not gs:
        return "N/A"
    return "; ".join(f"({g['epsilon']:.3g}, {g['delta']:.3g})" + (" eff." if "effective" in g.get("note", "") else "")
                     for g in gs)


def table1_rows(ctx: AnalysisContext) -> pd.DataFrame:
    rows = []
    aggs = ctx.aggregates
    for info in ctx.infos:
        tag = (info.get("tags") or {}).get("table1")
        if tag is None:
            continue
        env, cell, p = info["env_key"], info["cell"], info["params"]
        f = ctx.fits[(ctx.fits.env == env) & (ctx.fits.cell == cell)].iloc[0]
        a = aggs[(aggs.env == env) & (aggs.cell == cell)].sort_values("episode").iloc[-1]
        guar = info.get("guarantees", [])
        row_def = {t: (alg, th) for t, alg, th in ROWS}[tag]
        tau = ""
        if info["agent"] == "shuffled-obi":
            K = info["episodes"]
            tau = int(math.ceil(K ** p["tau_power"] - 1e-9)) if p["tau_power"] > 0 else int(p["tau"])
        rows.append({
            # the tau = K^(1/3) row runs its local randomizer at ln(1 + eps0 K^(1/6)) (Garcelon et al. Sec. 4):
            # its block is the eps0 of its tag, its own eps the local one
            "env": env, "eps0": float((info.get("tags") or {}).get("eps0", p["epsilon"])), "local_eps": p["epsilon"],
            "bonus_scale": p["bonus_scale"], "row": tag, "order": [r[0] for r in ROWS].index(tag),
            "algorithm": row_def[0], "tau": tau, "LDP": _guar(guar, "LDP"), "JDP": _guar(guar, "JDP"),
            "theory": row_def[1], "K": int(f.K), "regret": a["mean"], "regret_lo": a["ci_low"], "regret_hi": a["ci_high"],
            "exponent": f.exponent, "exponent_lo": f.exponent_lo, "exponent_hi": f.exponent_hi,
            "saturated": f.saturated_fraction, "n_seeds": int(f.n_seeds), "cell": cell,
            "jdp_eps_values": [g["epsilon"] for g in guar if g["model"] == "JDP"],
        })
    t = pd.DataFrame(rows)
    if not t.empty:
        t = t.sort_values(["env", "eps0", "bonus_scale", "order"]).reset_index(drop=True)
    return t


def _markdown(ctx: AnalysisContext, t: pd.DataFrame) -> str:
    lines = [f"# Table 1 of Garcelon et al. (ICML-21 note), measured: {ctx.experiment}", "",
             "Guarantees computed by `privrl.mechanisms.accounting` ((eps, delta); `eff.` = min of eps0-LDP => eps0-JDP "
             "and Prop. 5's eps_{c,tau}); regret at K: mean [95% seed-bootstrap CI]; K-exponent on the fit "
             "window [95% CI]; `sat` = mean bonus saturation in the fit window.", ""]
    if t.empty:
        return "\n".join(lines + ["(no cells tagged `table1`)"]) + "\n"
    for (env, eps0, scale), g in t.groupby(["env", "eps0", "bonus_scale"], sort=True):
        lines += [f"## {env}, eps0 = {eps0:g}, bonus_scale = {scale:g}"
                  + (" (paper constants)" if scale == 1 else " (scaled bonus, clearly not the paper's constant)"), "",
                  "| algorithm | tau | LDP | JDP | theoretical regret | regret at K | K-exponent | sat |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in g.itertuples():
            lines.append(f"| {r.algorithm} | {r.tau} | {r.LDP} | {r.JDP} | {r.theory} | {r.regret:.1f} "
                         f"[{r.regret_lo:.1f}, {r.regret_hi:.1f}] (K={r.K}) | {r.exponent:.2f} "
                         f"[{r.exponent_lo:.2f}, {r.exponent_hi:.2f}] | {r.saturated:.2f} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def table1_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of Table 1, declared from the run infos alone (no data): per (env, eps0, bonus_scale) block
    of the cells tagged ``table1``, each row's rate (``table1_<row>_<block>``, K needed: its fit window past
    10 x its crossover), "JDP cheaper than LDP" where LDP-OBI and a PUCB cell at its eps under replacement are
    in the block (context where Table 1's forms never put LDP >= MARGIN x JDP at that eps; K needed: 10 x
    the larger crossover and the K from which the forms dominate), and at tau = K^(1/3) the amplification
    of one release (context, where Prop. 5's hypothesis holds) and the release-sequence check. The analysis
    scores these rows; the claim plan runs this on the design's cells."""
    from privrl.papers.garcelon2021.thm6 import prop5_hypothesis, tau_of

    theory = {t: (alg, th) for t, alg, th in ROWS}
    blocks: dict = {}
    for i in sorted(_table1_infos(infos), key=_table1_key):
        blocks.setdefault(_table1_key(i)[:3], []).append(i)
    decades, out = fit_decades(config), []
    for (env, eps0, scale), g in blocks.items():
        mdp = mdps[env]
        blk = f"{env}, eps0={eps0:g}, bonus_scale={scale:g}" + ("" if scale == 1 else " (tuned, labelled)")
        bid = f"{env}_eps{eps0:g}_s{scale:g}".replace(".", "p")
        by = {i["tags"]["table1"]: i for i in g}
        for i in g:
            alg, th = theory[i["tags"]["table1"]]
            out.append(Row(f"table1_{i['tags']['table1']}_{bid}", "rate window", ((env, i["cell"]),),
                           window_k(crossover_of(i, mdp), decades),
                           args={"kind": "rate", "statement": f"Table 1 row '{alg}' ({blk}): regret {th} is O~(sqrt K)"}))
        if "ldp_obi" in by:  # JDP vs LDP under one neighbour relation (replacement): PUCB at eps0 / 2
            ldp, jdp = by["ldp_obi"], pucb_at_replacement_eps(infos, mdp, env, scale, eps0)
            if jdp is not None:
                _, k_priv, _ = table_orders.dominance("garcelon2021", "LDP", "JDP", float(ldp["params"]["epsilon"]),
                                                      float(ldp["episodes"]), mdp)
                context = not math.isfinite(k_priv)  # the privacy terms never dominate at this eps
                need = max(V.THRESHOLDS.regime_factor * max(crossover_of(jdp, mdp), crossover_of(ldp, mdp)),
                           0.0 if context else k_priv)
                out.append(Row(f"table1_jdp_cheaper_{bid}", "order: 10 x max crossover, privacy term dominant",
                               ((env, jdp["cell"]), (env, ldp["cell"])), need, "context" if context else "paper_claim",
                               args={"kind": "jdp_vs_ldp", "blk": blk + f", PUCB at {eps0:g}-JDP under replacement"}))
        if "shuffled_tau_k13" in by:
            i, p = by["shuffled_tau_k13"], by["shuffled_tau_k13"]["params"]
            cid, what = f"table1_amplification_{bid}", f"Table 1 ({blk}), tau = K^(1/3)"
            if prop5_hypothesis(p["epsilon"], tau_of(i), mdp.H, int(p.get("m", 1)), p.get("delta0", 1e-3)):
                out.append(Row(cid, "check (amplification, context)", (), NO_K, "context"))
            out.append(Row(f"{cid}_release_sequence", "check (release sequence)", (), NO_K,
                           args={"kind": "amplification", "cell": i["cell"], "env": env, "cid": cid, "what": what,
                                 "eps0": eps0}))
    return out


def pucb_at_replacement_eps(infos: list[dict], mdp, env: str, scale: float, eps: float) -> dict | None:
    """The info of the PUCB Table 1 cell of ``env`` / ``scale`` whose eps under **replacement** neighbours is
    ``eps`` (PUCB's eps-JDP holds for add/remove; 2 eps under replacement, Vietri Claim 1 / Def. 3),
    or None: LDP-OBI's eps0-LDP is a replacement guarantee, so the two are compared only there."""
    from privrl.papers.cross_paper.cross_model import replacement_epsilon

    return next((i for i in sorted(_table1_infos(infos), key=_table1_key) if i["env_key"] == env
                 and i["tags"]["table1"] == "pucb" and float(i["params"]["bonus_scale"]) == float(scale)
                 and np.isclose(replacement_epsilon("pucb", i["params"], mdp, i["episodes"]), eps)), None)


def _pucb_at_replacement_eps(ctx: AnalysisContext, t: pd.DataFrame, env: str, scale: float, eps: float) -> str | None:
    """The cell id of :func:`pucb_at_replacement_eps` among the analysis's runs."""
    found = pucb_at_replacement_eps(ctx.infos, env_mdp(ctx, env), env, scale, eps)
    return None if found is None else found["cell"]


def _table1_infos(infos: list[dict]) -> list[dict]:
    return [i for i in infos if (i.get("tags") or {}).get("table1") is not None]


def _table1_key(i: dict) -> tuple:
    """A Table 1 cell's (env, eps0 of its block, bonus_scale, row order): the table's order."""
    return (i["env_key"], float(i["tags"].get("eps0", i["params"]["epsilon"])), float(i["params"]["bonus_scale"]),
            [r[0] for r in ROWS].index(i["tags"]["table1"]))


def _claims(ctx: AnalysisContext, t: pd.DataFrame) -> pd.DataFrame:
    """The declared rows (:func:`table1_declaration`), scored by :mod:`privrl.results.verdicts`
    (:mod:`privrl.papers.garcelon2021.thm6` holds the scorers of the comparisons)."""
    from privrl.papers.garcelon2021.thm6 import amplification_claim, jdp_vs_ldp_claim, rate_claim

    out = []
    art = ctx.artifact("garcelon_table1", "md")
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    for r in table1_declaration(ctx.experiment, ctx.infos, mdps, ctx.config):
        kind = r.args.get("kind")
        if kind == "rate":
            (env, cell), = r.cells
            out.append(rate_claim(ctx, env, cell, r.id, r.args["statement"], "Table 1", art))
        elif kind == "jdp_vs_ldp":
            (env, jdp), (_, ldp) = r.cells
            out.append(jdp_vs_ldp_claim(ctx, env, jdp, ldp, r.id, r.args["blk"], art))
        elif kind == "amplification":  # the amplification's context row (when declared) and the release sequence
            a = r.args
            out.extend(amplification_claim(ctx, a["env"], a["cell"], a["cid"], a["what"], art, eps0=float(a["eps0"])))
    return frame(out)


def _figure(ctx: AnalysisContext, t: pd.DataFrame):
    """Regret vs K of Table 1's algorithms through the figure layer: a panel per (eps0, bonus
    scale), one line per algorithm (its own colour and dash), one legend."""
    if t.empty:
        return None
    from privrl.results import facets  # matplotlib: imported only to draw
    from privrl.results.labels import env_title

    envs = sorted(set(t.env))
    parts = []
    for r in t.sort_values(["env", "eps0", "bonus_scale"], ascending=[True, True, False]).itertuples():
        a = ctx.aggregates[(ctx.aggregates.env == r.env) & (ctx.aggregates.cell == r.cell)].sort_values("episode")
        panel = f"ε₀ = {r.eps0:g}, bonus ×{r.bonus_scale:g}"
        panel = f"{env_title(ctx.config['envs'][r.env])}: {panel}" if len(envs) > 1 else panel
        parts.append(pd.DataFrame({"x": a.episode.to_numpy(float), "y": np.maximum(a["mean"].to_numpy(float), 1e-3),
                                   "lo": np.maximum(a.ci_low.to_numpy(float), 1e-3),
                                   "hi": np.maximum(a.ci_high.to_numpy(float), 1e-3), "panel": panel,
                                   "line": facets.human(r.algorithm.split(" (")[0]), "curve": f"{panel}|{r.cell}"}))
    title = env_title(ctx.config["envs"][envs[0]]) if len(envs) == 1 else ""
    return facets.line_grid(pd.concat(parts, ignore_index=True), xlabel="episodes K", ylabel="cumulative regret",
                            title=title)


def garcelon_table1(ctx: AnalysisContext) -> AnalysisResult:
    t = table1_rows(ctx)
    return AnalysisResult(table=t.drop(columns=["jdp_eps_values", "order"], errors="ignore"),
                          markdown=_markdown(ctx, t), figure=_figure(ctx, t), claims=_claims(ctx, t))


# ----------------------------------------------------------------------------- Eq. 7-8
@njit  # not cached: its callees live in other modules (a cached copy could go stale)
def _reward_trials(n_entries, visit_p, m, p, rng, n_trials):
    """Eq. 8 setting: per trial, n_entries (l, h) pairs; each visited w.p. visit_p with reward
    U(0,1); unary-coded (Eq. 5), all ``n_entries * m`` bits through R_p, debiased / m."""
    truth = np.zeros(n_trials)
    est = np.zeros(n_trials)
    r = np.zeros(1)
    cnt = np.zeros(1)
    ones = np.zeros(n_trials)
    for s in range(n_trials):
        tot = 0.0
        c = 0.0
        for _ in range(n_entries):
            if rng.random() < visit_p:
                r[0] = rng.random()
                tot += r[0]
                unary_count(r, m, rng, cnt)
                c += cnt[0]
        truth[s] = tot
        ones[s] = c
    rr_sum_counts(ones, n_entries * m, p, rng, est)
    rr_debias(est, n_entries * m, p, est)
    for s in range(n_trials):
        est[s] /= m
    return truth, est


def check_garcelon_coverage(rng, k_grid: Iterable[int] = (10, 100, 1000, 10000), H: int = 5, m: int = 1,
                            eps0: float = 1.0, delta: float = 0.05, n_trials: int = 2000,
                            visit_p: float = 0.3) -> pd.DataFrame:
    """Garcelon et al. Eq. 7-8: coverage of the deviation bounds of the debiased counters.

    Per-bit eps from Lemma 4 (``eps0 / ((4+2m) H)``), ``p = 2/(e^eps + 1)``. Counters:
    ``N^r`` over (k-1)H bits, ``N^p`` over (k-1)(H-1) bits (bounded with (k-1)H as printed),
    ``R`` over (k-1)H m reward bits (Eq. 8 with k as printed). ``holds``: the failure rate is not
    significantly above delta (one-sided, :mod:`privrl.results.coverage_verdicts`).
    """
    from privrl.mechanisms import accounting as acc
    from privrl.mechanisms.audit import clopper_pearson

    rng = as_generator(rng)
    eps = acc.garcelon_lemma4_epsilon(eps0, m, H)
    p = rr_p_from_epsilon(eps)
    rows = []
    for k in k_grid:
        for name, nbits in (("N_r (Eq. 7)", (k - 1) * H), ("N_p (Eq. 7)", (k - 1) * (H - 1))):
            ones = rng.binomial(nbits, visit_p, size=n_trials).astype(np.float64)
            est = np.empty(n_trials)
            rr_sum_counts(ones, int(nbits), p, rng, est)
            rr_debias(est, int(nbits), p, est)
            dev = np.abs(est - ones)
            rows.append((k, name, garcelon_eq7_bound((k - 1) * H, p, delta), dev))
        truth, est = _reward_trials(int((k - 1) * H), visit_p, int(m), p, rng, int(n_trials))
        rows.append((k, "R (Eq. 8)", garcelon_eq8_bound(k, H, m, p, delta), np.abs(est - truth)))
    out = []
    for k, name, bound, dev in rows:
        cov = float((dev <= bound).mean())
        n_fail = int((dev > bound).sum())
        lo, hi = clopper_pearson(int((dev <= bound).sum()), len(dev), 0.05)
        out.append({"k": int(k), "counter": name, "H": H, "m": m, "eps0": eps0, "p": p, "delta": delta,
                    "n_trials": int(n_trials), "bound": bound, "quantile_dev": float(np.quantile(dev, 1 - delta)),
                    "coverage": cov, "coverage_ci_low": lo, "coverage_ci_high": hi,
                    "holds": within_stated(n_fail, len(dev), delta)})
    return pd.DataFrame(out)


def figure_garcelon_coverage(df: pd.DataFrame, path) -> None:
    """Coverage of the Eq. 7-8 bounds vs k, per counter, against 1 - delta."""
    fig, (ax,) = check_axes()
    for name, g in df.groupby("counter"):
        ax.errorbar(g["k"], g["coverage"], yerr=[g["coverage"] - g["coverage_ci_low"],
                    g["coverage_ci_high"] - g["coverage"]], marker="o", capsize=3, label=name)
    ax.axhline(1 - df["delta"].iloc[0], color="k", ls="--", label=r"$1-\delta$")
    ax.set(xscale="log", xlabel="k (users)", ylabel="coverage", title="Garcelon et al. Eq. 7-8")
    check_legend(ax, ncol=2)
    save_check_figure(fig, path)


# ----------------------------------------------------------------------------- Prop. 5
def check_garcelon_prop5(rng=None, k_grid: Iterable[int] = (100, 1000, 10000, 100000),
                         eps0_grid: Iterable[float] = (0.5, 1.0, 2.0, 4.0), H: int = 5, m: int = 1,
                         delta0: float = 1e-6) -> pd.DataFrame:
    """Garcelon et al. Prop. 5: ``eps_{c,k}`` (as printed) vs k and eps0, beside the exact eps
    of the shuffled sums (``exact_epsilon.shuffled_rr_composed_epsilon``). Deterministic."""
    from privrl.mechanisms import accounting as acc
    from privrl.mechanisms import exact_epsilon as exact_eps

    rows = []
    for eps0 in eps0_grid:
        eps = acc.garcelon_lemma4_epsilon(eps0, m, H)
        p = 2.0 / (math.exp(eps) + 1.0)
        for k in k_grid:
            claim = acc.garcelon_prop5_epsilon(int(k), H, m, p, delta0)
            exact = exact_eps.shuffled_rr_composed_epsilon(int(k), H, m, p, delta0)
            rows.append({"k": int(k), "eps0": eps0, "eps_bit": eps, "p": p, "H": H, "m": m, "delta0": delta0,
                         "eps_ck": claim, "condition_ok": acc.garcelon_prop5_condition(eps, int(k), delta0),
                         "exact_epsilon": exact, "ldp_epsilon": eps0,
                         "holds": bool(exact <= claim)})
    return pd.DataFrame(rows)


def figure_prop5(df: pd.DataFrame, path) -> None:
    """eps_{c,k} (as printed) and the exact eps vs k, one colour per eps0."""
    fig, (ax,) = check_axes()
    for i, (eps0, g) in enumerate(df.groupby("eps0")):
        c = f"C{i}"
        ax.loglog(g["k"], g["eps_ck"].replace(np.inf, np.nan), "o--", color=c, label=f"Prop. 5, eps0={eps0}")
        ax.loglog(g["k"], g["exact_epsilon"], "s-", color=c, label=f"exact, eps0={eps0}")
    ax.set(xlabel="k (users)", ylabel=r"$\varepsilon$ at $\delta_0$", title="Garcelon et al. Prop. 5")
    check_legend(ax, ncol=2)
    save_check_figure(fig, path)


COVERAGE = TheoremCheck(
    name="garcelon_coverage",
    statement="debiased shuffled-RR counters within the Eq. 7-8 bounds w.p. >= 1 - delta",
    source="Garcelon et al. Eq. 7-8",
    run=check_garcelon_coverage, figure=figure_garcelon_coverage,
    measured=lambda d: f"min coverage = {d['coverage'].min():.4f} (1 - delta = {1 - d['delta'].iloc[0]:.3f})",
    sizes={"k_grid": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 1},
           "H": {"type": "integer", "minimum": 2}, "m": {"type": "integer", "minimum": 1},
           "eps0": {"type": "number", "exclusiveMinimum": 0},
           "delta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
           "n_trials": {"type": "integer", "minimum": 10},
           "visit_p": {"type": "number", "minimum": 0, "maximum": 1}},
)
PROP5 = TheoremCheck(
    name="garcelon_prop5",
    statement="eps_{c,k} of Prop. 5 upper-bounds the exact eps of the shuffled sums",
    source="Garcelon et al. Prop. 5",
    run=check_garcelon_prop5, figure=figure_prop5,
    measured=lambda d: f"min eps_ck/exact = {(d['eps_ck'] / d['exact_epsilon']).min():.1f}",
    sizes={"k_grid": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 1},
           "eps0_grid": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "minItems": 1},
           "H": {"type": "integer", "minimum": 2}, "m": {"type": "integer", "minimum": 1},
           "delta0": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}},
)

PAPER = Paper(
    key="garcelon2021",
    title="Bridging the Gap between Local and Joint Differential Privacy in RL",
    authors=("Evrard Garcelon", "Vianney Perchet", "Ciara Pike-Burke", "Matteo Pirotta"),
    year=2021, venue="ICML 2021 Workshop on Reinforcement Learning Theory", link="",
    file="000_becb116b9d580893.txt",
    analyses={"garcelon_table1": garcelon_table1, "garcelon2021_thm6": garcelon2021_thm6,
              PRINTED_NAME: garcelon_table1_printed, **DIMENSIONS},
    theorem_checks=(COVERAGE, PROP5, PROP7),
)
