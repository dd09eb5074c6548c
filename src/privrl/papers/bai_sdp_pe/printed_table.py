"""Bai et al. Table I ("Results Comparison") as printed, beside the measured regret and privacy cost at
eps <= 1: analysis ``bai_table1_printed`` (:mod:`privrl.papers.printed_tables` holds the shared parts).

Rows and columns as printed (Algorithm, Privacy model, Best-known regret bounds): DP-UCBVI [17]
eps-JDP and eps-LDP (registry ``dp-ucbvi-jdp`` / ``dp-ucbvi-ldp``, reconstructions of Qiao & Wang
2023) and PBPE (Ours) (eps, beta)-SDP (``sdp-pe``, the paper's SDP-PE). The row texts, models
and bounds are :data:`privrl.papers.bai_sdp_pe.table_i.ROWS` (the ``bai_table1`` analysis's), evaluated on
the run's instance: X = S, A, H of its MDP, so the X, A, H factors are numbers here, printed beside.
One block per eps <= 1 of the sweep; baselines: the DP-UCBVI cell with its noise off, PE at the
same C, C1 for SDP-PE. SDP-PE cells that eliminated pi* on some seed make a claim on them
inconclusive (:func:`privrl.results.elimination.guard`).

Orders the table predicts (:data:`ORDERS`): JDP below LDP (DP-UCBVI, one algorithm under two
privatizers) and SDP (PBPE) below LDP (additive vs multiplicative 1/eps: the paper's point), each a
paper claim where the printed orders reach the margin; DP-UCBVI JDP below PBPE, which the table
prints only through PBPE's larger X, A, H powers (an upper bound's dimension factors are a worst
case no lower bound pins), is shown as context.
"""
from __future__ import annotations

import math

import pandas as pd

from privrl.papers import printed_tables as PT
from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.bai_sdp_pe.table_i import ROWS as TABLE_I, final_aux as _final_aux
from privrl.papers.bai_sdp_pe.theorems import MODEL as ELIMINATION_AGENTS, lost_optimum_of
from privrl.papers.common import env_mdp, fmt_ci
from privrl.papers.scoring import frame

NAME = "bai_table1_printed"
PAPER_ID = "bai_sdp_pe"
SOURCE = "Bai et al., Table I"
PRINTED = {  # agent -> (Algorithm, Privacy model, Best-known regret bounds) as Table I prints them
    "dp-ucbvi-jdp": ("DP-UCBVI [17] (reconstruction)", "ε-JDP", "O~(√(XAH³K) + X²AH³/ε)"),
    "dp-ucbvi-ldp": ("DP-UCBVI [17] (reconstruction)", "ε-LDP", "O~(√(XAH³K) + X²AH³√K/ε)"),
    "sdp-pe": ("PBPE (Ours) = SDP-PE", "(ε, β)-SDP", "O~(√(X²AH⁵K) + X³A²H⁶/ε)"),
}
NAMES = {"dp-ucbvi-jdp": "DP-UCBVI JDP", "dp-ucbvi-ldp": "DP-UCBVI LDP", "sdp-pe": "PBPE (SDP-PE)"}
ORDERS = [
    PT.Order("dp-ucbvi-jdp", "dp-ucbvi-ldp", "JDP regret below LDP (DP-UCBVI, central vs local privatizer)"),
    PT.Order("sdp-pe", "dp-ucbvi-ldp", "SDP (PBPE) regret below LDP (DP-UCBVI): additive vs multiplicative 1/eps"),
    PT.Order("dp-ucbvi-jdp", "sdp-pe", "JDP (DP-UCBVI) regret below SDP (PBPE)",
             context="printed only through PBPE's larger X, A, H powers (X²AH⁵ vs XAH³ under the root, X³A²H⁶ vs "
                     "X²AH³ over eps): an upper bound's dimension factors are a worst case no lower bound pins"),
]


def rows(X: int, A: int, H: int) -> dict[str, PT.Row]:
    """Table I's rows on an X x A x H instance (forms of (eps, K), :data:`bai_sdp_pe.ROWS`)."""
    out = {}
    for agent, (alg, model, bound) in PRINTED.items():
        f = TABLE_I[agent][3]
        out[agent] = PT.Row(agent, {"algorithm": alg, "privacy_model": model, "regret_bound": bound},
                            TABLE_I[agent][2], lambda e, K, f=f: f(X, A, H, K, e))
    return out


def factors(X: int, A: int, H: int) -> dict[str, str]:
    """The X, A, H factors of each printed bound, evaluated (statistical term; privacy term)."""
    return {"dp-ucbvi-jdp": f"XAH³ = {X * A * H**3}; X²AH³ = {X**2 * A * H**3}",
            "dp-ucbvi-ldp": f"XAH³ = {X * A * H**3}; X²AH³ = {X**2 * A * H**3}",
            "sdp-pe": f"X²AH⁵ = {X**2 * A * H**5}; X³A²H⁶ = {X**3 * A**2 * H**6}"}


def _private(info: dict) -> bool:
    return info["agent"] in PRINTED and float(info["params"].get("noise", 1.0)) > 0.5


def _setting_ok(info: dict) -> bool:
    """SDP-PE at the paper's constants only (C = 1, C1 = 6); DP-UCBVI at any z / bonus (one per design)."""
    p = info["params"]
    return info["agent"] != "sdp-pe" or (math.isclose(p["C"], 1.0) and math.isclose(p["C1"], 6.0))


def printed_declaration(experiment: str, infos: list[dict], mdps, config) -> list:
    """The order rows of Table I as printed, declared from the run infos alone (no data): per env and eps <=
    EPS_MAX, each order of :data:`ORDERS` whose rows ran (SDP-PE at the paper's constants;
    :func:`privrl.papers.printed_tables.declared_orders`: id, scope, K needed)."""
    out = []
    for env in sorted({i["env_key"] for i in infos}):
        mdp = mdps[env]
        cells = [i for i in infos if i["env_key"] == env and _private(i) and _setting_ok(i)]
        for eps in PT.eps_grid(None, cells, lambda i: float(i["params"]["epsilon"])):
            here = {i["agent"]: i for i in cells if math.isclose(float(i["params"]["epsilon"]), eps, rel_tol=1e-9)}
            out += PT.declared_orders(experiment, "tableI_printed", env, mdp, here,
                                      rows(int(mdp.S), int(mdp.A), int(mdp.H)), ORDERS, eps)
    return out


def tables(ctx: AnalysisContext) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    row_out, order_out, claims = [], [], []
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    ids = {r.args["key"]: r.id for r in printed_declaration(ctx.experiment, ctx.infos, mdps, ctx.config)}
    art = ctx.artifact(NAME, "md")
    for env in sorted({i["env_key"] for i in ctx.infos}):
        mdp = env_mdp(ctx, env)
        X, A, H = int(mdp.S), int(mdp.A), int(mdp.H)
        printed, fac = rows(X, A, H), factors(X, A, H)
        cells = [i for i in ctx.infos if i["env_key"] == env and _private(i) and _setting_ok(i)]
        for eps in PT.eps_grid(ctx, cells, lambda i: float(i["params"]["epsilon"])):
            here = {i["agent"]: i for i in cells if math.isclose(float(i["params"]["epsilon"]), eps, rel_tol=1e-9)}
            measured = {a: PT.measure(ctx, info, mdp, f"{NAME}/{eps:g}") for a, info in here.items()}
            active = {a: _final_aux(ctx, env, info["cell"]) for a, info in here.items() if a in ELIMINATION_AGENTS}
            lost = {a: lost_optimum_of(ctx, info) for a, info in here.items() if a in ELIMINATION_AGENTS}
            base_lost = {}
            for a, info in here.items():
                if a in ELIMINATION_AGENTS and measured[a]["baseline"]:
                    b = next(i for i in ctx.infos if i["env_key"] == env and i["cell"] == measured[a]["baseline"])
                    base_lost[a] = lost_optimum_of(ctx, b)
            for a in PRINTED:
                m = measured.get(a)
                K = m["K"] if m else float(ctx.config.get("episodes", float("nan")))
                row_out.append({
                    "env": env, "eps": eps, "row": a, **printed[a].printed, "X": X, "A": A, "H": H,
                    "XAH_factors": fac[a], "printed_value_at_K": printed[a].form(eps, K) if m else float("nan"),
                    "K": K, "regret": m["regret"] if m else float("nan"),
                    "regret_lo": m["regret_lo"] if m else float("nan"), "regret_hi": m["regret_hi"] if m else float("nan"),
                    "D": m["D"] if m else float("nan"), "D_lo": m["D_lo"] if m else float("nan"),
                    "D_hi": m["D_hi"] if m else float("nan"), "crossover_K": m["crossover_K"] if m else float("nan"),
                    "eps_replacement": m["eps_replacement"] if m else float("nan"), "cell": m["cell"] if m else "",
                    "baseline": m["baseline"] if m else "", "n_seeds": m["n_seeds"] if m else 0,
                    "lost_optimum": lost[a][0].fraction() if a in lost else "-",
                    "active_at_K": active.get(a, float("nan")),
                    "note": "" if m else f"not run at eps = {eps:g} in this design"})
            for o in ORDERS:
                if o.fast not in measured or o.slow not in measured:
                    continue
                notes = [n for a in (o.fast, o.slow) for n in (lost.get(a, (None, ""))[1],
                                                               base_lost.get(a, (None, ""))[1]) if n]
                cid = ids[(env, eps, o.fast, o.slow)]
                idle = [f"{NAMES[a]} has eliminated no policy by K (fraction active {active[a]:.3f}): its regret is "
                        "that of uniform exploration, the same at every eps" for a in (o.fast, o.slow)
                        if a in active and active[a] >= 1.0 - 1e-12]
                r, score, scope = PT.evaluate_order(ctx, o, printed, measured[o.fast], measured[o.slow], eps, NAMES,
                                                    cid, notes, idle)
                order_out.append({"env": env, **r})
                cross = (f"{o.fast}: {measured[o.fast]['crossover_K']:.3g}; "
                         f"{o.slow}: {measured[o.slow]['crossover_K']:.3g}")
                claims.append(PT.order_claim(PAPER_ID, "Table I", cid, f"Table I ({env}, eps = {eps:g}): {o.statement}",
                                             art, score, scope, ctx.experiment, SOURCE, cross))
    return pd.DataFrame(row_out), pd.DataFrame(order_out), claims


def _markdown(ctx: AnalysisContext, t: pd.DataFrame, o: pd.DataFrame) -> str:
    K = float(ctx.config.get("episodes", float("nan")))
    L = [f"# Bai et al., Table I (Results Comparison), beside the measured regret: {ctx.experiment}", "",
         "Table I with its rows and columns as printed; beside each row, on this instance at K and eps <= 1 (where "
         "the rows' privacy terms differ): the X, A, H factors of its bound evaluated (X = states, A = actions, "
         "H = horizon of the run's MDP), the printed bound evaluated (constants 1, logs dropped: a scale, never "
         "scored as a number), the measured regret at K (mean [95% seed-bootstrap CI]), the privacy cost D = "
         "R(K, eps) - R(K, noise off) [95% CI] (DP-UCBVI with its noise off; PE at the same C, C1 for PBPE), and "
         "the row's crossover K (a comparison read at K is in regime from 10 x the larger crossover). DP-UCBVI is "
         "a reconstruction, its privacy width z = 3 sd of its own noise (TUNED, labelled; noise exactly at eps); "
         "PBPE = SDP-PE at the paper's C = 1, C1 = 6 (aggregate simulation). `pi* lost`: seeds of an SDP-PE cell "
         "that eliminated the optimal policy; `active`: the fraction of its policies still active at K (1: nothing "
         "eliminated yet, uniform exploration).", ""]
    if t.empty:
        return "\n".join(L + ["(no Table I rows at eps <= 1 in this experiment)"]) + "\n"
    for (env, eps), g in t.groupby(["env", "eps"], sort=True):
        spec = ctx.config["envs"][env]
        r0 = g.iloc[0]
        L += [f"## eps = {eps:g} ({spec['name']}: X = {r0.X}, A = {r0.A}, H = {r0.H}; K = {K:.3g})", ""]
        body = []
        for r in g.itertuples():
            body.append([r.algorithm, r.privacy_model, r.regret_bound, r.XAH_factors,
                         f"{r.printed_value_at_K:.4g}" if r.cell else "-",
                         fmt_ci(r.regret, r.regret_lo, r.regret_hi) if r.cell else r.note,
                         (fmt_ci(r.D, r.D_lo, r.D_hi) if r.baseline else "no noise-off twin run") if r.cell else "-",
                         PT.regime_text({"crossover_K": r.crossover_K, "K": r.K}) if r.cell else "-",
                         r.lost_optimum if r.lost_optimum == "-" else
                         f"{r.lost_optimum}; active {r.active_at_K:.3f}"])
        L += PT.markdown_table(["Algorithm", "Privacy model", "Best-known regret bounds", "X, A, H factors",
                                "bound at K (constants 1)", "regret at K [95% CI]", "D at K [95% CI]",
                                "crossover K", "pi* lost; policies active at K"], body) + [""]
    L += ["## The orders Table I predicts between its rows", "",
          "A < B: row A's regret below row B's. `printed B/A`: the rows' printed bounds at K on this instance; the "
          f"order is the table's statement (a paper claim) where that ratio reaches {PT.MARGIN:g} (the privacy terms "
          "dominate) at some K; elsewhere context. Rows are compared at one label eps, as printed (the why names a "
          "differing neighbour relation). `shows?`: the "
          "measured ratio's CI above 1.1 (yes), below 1 (reversed), else no. Verdicts: the order scored in regime "
          "(K >= 10 x both crossovers and past the printed-margin K), and on the faster row with its noise off "
          "(an order A < B holds for a non-private A too: it reads at best 'consistent').", ""]
    L += PT.reading(o)
    L += PT.order_lines(o, NAMES) if len(o) else ["(no pair of rows run at one eps)"]
    return "\n".join(L) + "\n"


def bai_table1_printed(ctx: AnalysisContext) -> AnalysisResult:
    t, o, claims = tables(ctx)
    table = pd.concat([t.assign(section="table_I"), o.assign(section="orders")], ignore_index=True)
    return AnalysisResult(table=table, markdown=_markdown(ctx, t, o), figure=None, claims=frame(claims))
