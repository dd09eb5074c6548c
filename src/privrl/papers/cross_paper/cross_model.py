"""Cross-model comparison at matched coverage: JDP vs shuffle vs LDP across eps.

Analysis ``cross_model_coverage`` (experiment ``cross_model_coverage``). Every optimism agent has
a matched-coverage parameter ``z`` (:mod:`privrl.agents.pucb`, :mod:`privrl.agents.obi`,
:mod:`privrl.agents.private_ucbvi`): z > 0 sets the privacy part of its width to z standard
deviations of its own realised noise; z = 0 keeps the paper's high-probability width, which
assumes very different multiples of that sd per agent (at bonus 0.1 on S=2 H=3: PUCB ~12 sd,
LDP-OBI ~0.85 sd). One bonus_scale multiplying such widths compares constants, not trust
models (docs/decisions/verdicts.md, "Ratios and orders").

For each order "A cheaper than B" of :data:`ORDERS` (the papers' model rankings), each env, eps
and z: ``ratio = mean R_B(K) / mean R_A(K)`` at the last K with a seed-bootstrap CI, scored by
:func:`privrl.results.verdicts.score_order` with the regime condition

* matched coverage (z > 0 in both cells), and
* A past its own crossover K (:mod:`privrl.agents.crossover`) at the K run -- before it both
  agents explore at linear regret and the ratio orders nothing ("not reached", K needed).
* the table's own forms predict the order by a margin at that eps and K (:mod:`privrl.papers.table_orders`:
  the privacy term dominates); at an eps where they never do (Garcelon's Table 1 at eps >= 1/2) the
  row is labelled context, scope ``context``.

The z = 0 (paper-width) rows are printed beside, with each agent's *effective* coverage
(:func:`effective_z`: the assumed count deviation in sd of the agent's own noise at K) and scored "inconclusive"
(coverage not matched). Data shapes: per-seed regret float64[n_seeds] at the last checkpoint.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from privrl import agents
from privrl.agents.registry import agent_crossover
from privrl.agents import obi, private_ucbvi, pucb
from privrl.mechanisms import events as ev
from privrl.mechanisms.privatizer import CENTRAL_TREE, LOCAL_LAPLACE, SHUFFLE_BITSUM
from privrl.results import verdicts as V
from privrl.results.claims import claims_frame
from privrl.results.stats import mean_ci, ratio_ci
from privrl.papers import table_orders
from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.common import curves, env_mdp, rng_for
from privrl.papers.planned import Row

# (A, B, paper id, item, statement, source): "A's regret below B's" at matched coverage
ORDERS = [
    ("pucb", "ldp-obi", "garcelon2021", "Table 1", "JDP (PUCB) regret below LDP (LDP-OBI)",
     "Garcelon et al. note, Table 1 (PUCB O~(sqrt K + 1/eps) vs LDP-OBI O~(sqrt K / eps))"),
    ("private-ucbvi-jdp", "private-ucbvi-ldp", "bai_sdp_pe", "Table I",
     "JDP regret below LDP (one UCBVI, central vs local privatizer)", "Bai et al. Table I, JDP vs LDP rows"),
    ("private-ucbvi-sdp", "private-ucbvi-ldp", "bai_sdp_pe", "Table I",
     "shuffle regret below LDP (one UCBVI, shuffle vs local privatizer)", "Bai et al. Table I / Thm 11 vs LDP row"),
]
# (A, B) -> the table rows whose forms the order compares (paper, B's model, A's model): scored only
# where B's form is >= table_orders.MARGIN x A's at the row's eps and K (the privacy term dominates)
TABLE_FORMS = {("pucb", "ldp-obi"): ("garcelon2021", "LDP", "JDP"),
               ("private-ucbvi-jdp", "private-ucbvi-ldp"): ("bai_sdp_pe", "LDP", "JDP"),
               ("private-ucbvi-sdp", "private-ucbvi-ldp"): ("bai_sdp_pe", "LDP", "SDP")}
# Pairs whose ratio is shown but scored by no claim, with the reason. Shuffled-OBI vs LDP-OBI at one
# eps0: both are eps0-LDP and both counters sum K locally randomised reports, so both privacy errors grow
# like sqrt(k) (Garcelon et al. note, Eq. 6-8 vs App. B); Table 1's rows differ only in the eps0 factor
# of an O~ upper bound (e^(eps0/2)/(e^eps0 - 1) vs 1/eps0) plus Shuffled-OBI's tau H burn-in. No order
# of the realised regrets follows; the note's claim is the interpolation between LDP and JDP (scored in
# garcelon_table1 / garcelon2021_thm6). docs/decisions/verdicts.md, "Ratios and orders".
UNSCORED = [("shuffled-obi", "ldp-obi", "same local eps0: both eps0-LDP with sqrt(k) counter errors; "
             "Table 1 compares O~ upper bounds only (no order claimed)")]
LABELS = {  # human names on the figure
    "pucb": "PUCB (JDP)", "shuffled-obi": "Shuffled-OBI (shuffle)", "ldp-obi": "LDP-OBI (LDP, recon.)",
    "private-ucbvi-jdp": "Private-UCBVI JDP (recon.)", "private-ucbvi-sdp": "Private-UCBVI shuffle (recon.)",
    "private-ucbvi-ldp": "Private-UCBVI LDP (recon.)",
}
FAMILIES = {"Garcelon et al. agents": ("pucb", "shuffled-obi", "ldp-obi"),
            "private UCBVI (one algorithm, three privatizers)": ("private-ucbvi-jdp", "private-ucbvi-sdp",
                                                                 "private-ucbvi-ldp")}
# agent -> deviation of a released count its planner assumes at K (paper: bonus_scale x bound; z > 0: z sd)
COUNT_DEVIATION = {
    "pucb": pucb.count_deviation,
    "ldp-obi": obi.ldp_count_deviation,
    "shuffled-obi": obi.shuffled_count_deviation,
    "private-ucbvi-jdp": private_ucbvi.count_deviation_for(CENTRAL_TREE),
    "dp-ucbvi-jdp": private_ucbvi.count_deviation_for(CENTRAL_TREE),
    "private-ucbvi-ldp": private_ucbvi.count_deviation_for(LOCAL_LAPLACE),
    "dp-ucbvi-ldp": private_ucbvi.count_deviation_for(LOCAL_LAPLACE),
    "private-ucbvi-sdp": private_ucbvi.count_deviation_for(SHUFFLE_BITSUM),
}


def effective_z(agent: str, params: dict, mdp, K: float) -> float:
    """Coverage of the agent's paper width (z = 0) in sd of its own noise at K: the count deviation
    its planner assumes divided by that of z = 1 (nan for an agent without a z)."""
    if agent not in COUNT_DEVIATION:
        return float("nan")
    p = agents.get(agent).resolve(params)
    unit = COUNT_DEVIATION[agent]({**p, "z": 1.0}, mdp, K)
    return COUNT_DEVIATION[agent]({**p, "z": 0.0}, mdp, K) / unit if unit > 0 else float("nan")


def replacement_epsilon(agent: str, params: dict, mdp, K: float) -> float:
    """The cell's eps under **replacement** neighbours (one user's data replaced: Vietri et al.
    Def. 3, and the relation of every local randomiser), from its recorded accounting
    (``Guarantee.relations``): PUCB's eps-JDP holds for add/remove (Claim 1's l1 bound H), and
    is 2 eps under replacement (l1 distance 2H). JDP and LDP cells are compared at equal
    replacement eps only. The parameter eps when the accounting names no replacement figure."""
    spec = agents.get(agent)
    if spec.guarantees is None:
        return float(params["epsilon"])
    for g in spec.guarantees(spec.resolve(params), mdp, int(K)):
        if g.model in ("JDP", "LDP", "SDP"):
            rel = {r[0]: r[1] for r in (g.relations or ((g.neighbour, g.epsilon, g.delta),))}
            if ev.REPLACEMENT in rel:
                return float(rel[ev.REPLACEMENT])
    return float(params["epsilon"])


def _compared(infos: list[dict]) -> list[dict]:
    """The cells the comparison reads: private (noise on) cells with a coverage parameter z."""
    return [i for i in infos if i["params"].get("noise", 1.0) >= 0.5 and "z" in i["params"]]


def order_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``cross_model_coverage``, declared from the run infos alone (no data): per order of
    :data:`ORDERS` and cell of A, the first cell of B on its env at the same eps under replacement neighbours,
    z and bonus_scale. Context where the table's forms never put B >= MARGIN x A at that eps and K
    (:func:`privrl.papers.table_orders.dominance`); K needed at matched coverage (z > 0): 10 x the larger
    crossover and the K from which the forms dominate; at the paper widths (z = 0) never (coverage not
    matched: the row compares constants)."""
    cells, out = _compared(infos), []
    for a, b, *_ in ORDERS:
        for ia in (i for i in cells if i["agent"] == a):
            env, mdp, K = ia["env_key"], mdps[ia["env_key"]], float(ia["episodes"])
            ea, za, sa = replacement_epsilon(a, ia["params"], mdp, K), float(ia["params"]["z"]), \
                float(ia["params"].get("bonus_scale", 1.0))
            ib = next((i for i in cells if i["agent"] == b and i["env_key"] == env
                       and np.isclose(replacement_epsilon(b, i["params"], mdp, float(i["episodes"])), ea)
                       and np.isclose(float(i["params"]["z"]), za)
                       and np.isclose(float(i["params"].get("bonus_scale", 1.0)), sa)), None)
            if ib is None:
                continue
            _, k_priv, _ = table_orders.dominance(*TABLE_FORMS[(a, b)], ea, K, mdp)
            context = not np.isfinite(k_priv)  # the forms' privacy terms never dominate at this eps
            if za > 0:  # an order of two rates: both agents past 10 x their own crossover
                need = max(V.THRESHOLDS.regime_factor * max(agent_crossover(a, ia["params"], mdp),
                                                            agent_crossover(b, ib["params"], mdp)),
                           0.0 if context else k_priv)
            else:
                need = float("inf")
            out.append(Row(f"{experiment}_{a}_below_{b}_{env}_eps{ea:g}_z{za:g}".replace(".", "p"),
                           "order: 10 x max crossover, privacy term dominant" if za > 0 else
                           "order at unmatched coverage (never)", ((env, ia["cell"]), (env, ib["cell"])), need,
                           "context" if context else "paper_claim", args={"key": (ia["cell"], ib["cell"])}))
    return out


def _cells(ctx: AnalysisContext) -> pd.DataFrame:
    """One row per run cell: env, agent, eps, z, bonus_scale, cell, params."""
    rows = []
    for info in _compared(ctx.infos):
        p = info["params"]
        rows.append({"env": info["env_key"], "agent": info["agent"], "epsilon": float(p["epsilon"]),
                     "z": float(p["z"]), "bonus_scale": float(p.get("bonus_scale", 1.0)), "cell": info["cell"],
                     "params": p})
    return pd.DataFrame(rows)


def cell_table(ctx: AnalysisContext) -> tuple[pd.DataFrame, dict]:
    """Regret at the last K (mean, CI), crossover K and effective z of every cell; per-seed finals."""
    cells = _cells(ctx)
    rows, finals, mdps = [], {}, {}
    for r in cells.itertuples():
        mdp = mdps.setdefault(r.env, env_mdp(ctx, r.env))
        ep, R = curves(ctx, r.env, r.cell)
        K = float(ep[-1])
        finals[r.cell] = R[:, -1]
        m, lo, hi = mean_ci(R[:, -1], rng_for(ctx, f"cross_model/{r.env}/{r.cell}"), ctx.n_boot)
        cross = agent_crossover(r.agent, r.params, mdp)
        z_eff = r.z if r.z > 0 else effective_z(r.agent, r.params, mdp, K)
        rows.append({"env": r.env, "agent": r.agent, "label": LABELS.get(r.agent, r.agent), "epsilon": r.epsilon,
                     "z": r.z, "bonus_scale": r.bonus_scale, "K": K, "regret": m, "regret_lo": lo, "regret_hi": hi,
                     "eps_replacement": replacement_epsilon(r.agent, r.params, mdp, K),
                     "crossover_K": cross, "past_crossover": bool(K >= V.THRESHOLDS.regime_factor * cross),
                     "coverage_sd": z_eff,
                     "n_seeds": int(R.shape[0]), "cell": r.cell})
    return pd.DataFrame(rows), finals


def order_claims(ctx: AnalysisContext, table: pd.DataFrame, finals: dict) -> tuple[list, pd.DataFrame]:
    """One Claim per (order, env, eps, z) with both agents present; and the ratio rows."""
    claims, rows = [], []
    art = ctx.artifact("cross_model_coverage", "md")
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    K_run = dict(zip(zip(table.env, table.cell), table.K))  # each cell at the K its runs reached
    infos = [{**i, "episodes": K_run.get((i["env_key"], i["cell"]), i.get("episodes"))} for i in ctx.infos]
    declared = {r.args["key"]: r for r in order_declaration(ctx.experiment, infos, mdps, ctx.config)}
    pairs = [(*o, None) for o in ORDERS] + [(a, b, None, None, None, None, why) for a, b, why in UNSCORED]
    for a, b, paper, item, statement, source, unscored in pairs:
        A = table[table.agent == a]
        for ra in A.itertuples():
            sel = table[(table.agent == b) & (table.env == ra.env)]
            sel = sel[np.isclose(sel.eps_replacement, ra.eps_replacement) & np.isclose(sel.z, ra.z)
                      & np.isclose(sel.bonus_scale, ra.bonus_scale)]
            if sel.empty:
                continue
            rb = next(sel.itertuples())
            ratio = ratio_ci(finals[rb.cell], finals[ra.cell], rng_for(ctx, f"cross_model/{ra.cell}/{rb.cell}"),
                             ctx.n_boot)
            cov = (f"{LABELS.get(a, a)} at {ra.coverage_sd:.3g} sd, {LABELS.get(b, b)} at {rb.coverage_sd:.3g} sd "
                   f"of their own noise")
            reg = (f"K = {ra.K:.3g}; crossover K of A = {ra.crossover_K:.3g}, of B = {rb.crossover_K:.3g}; "
                   f"both at eps = {ra.eps_replacement:g} under replacement neighbours (A's parameter "
                   f"{ra.epsilon:g}, B's {rb.epsilon:g}); {cov}")
            if unscored is not None:
                rows.append({"env": ra.env, "A": a, "B": b, "epsilon": ra.epsilon, "z": ra.z,
                             "ratio_B_over_A": ratio[0], "ratio_lo": ratio[1], "ratio_hi": ratio[2],
                             "verdict": "not a claim", "regime": unscored, "k_needed": np.nan})
                continue
            row = declared[(ra.cell, rb.cell)]  # its id, scope and K needed (order_declaration)
            _, k_priv, forms = table_orders.dominance(*TABLE_FORMS[(a, b)], ra.eps_replacement, ra.K, env_mdp(ctx, ra.env))
            context = row.scope == "context"  # the forms' privacy terms never dominate at this eps
            k_priv = 0.0 if context else k_priv  # a context row keeps the order as measured
            if ra.z > 0:  # an order of two rates: both agents past 10 x their own crossover
                cond = bool(ra.past_crossover and rb.past_crossover and ra.K >= k_priv)
                need = row.need
                note = (f"matched coverage z = {ra.z:g}; " + reg + "; " + forms
                        + ("" if ra.past_crossover and rb.past_crossover else "; not both past 10 x crossover"))
                score = V.score_order(ratio, False, cond, note, need)
                arm = f"matched z={ra.z:g}"
            else:
                score = V.score_order(ratio, False, False, "paper widths: coverage not matched (compares constants, "
                                      "see the matched row); " + reg)
                arm = "paper widths (z=0)"
            claims.append(dataclasses.replace(V.make_claim(
                paper, item, row.id, f"{statement} at eps = {ra.eps_replacement:g} (replacement neighbours), {arm} "
                f"(bonus x{ra.bonus_scale:g}), {ra.env}" + (
                    f" (context: at eps = {ra.eps_replacement:g} the table's privacy terms do not dominate, so the "
                    "comparison is of its statistical terms' constants)" if context else ""),
                "order", art, score, ctx.experiment, source),
                scope=row.scope, crossovers=f"{a}: {ra.crossover_K:.3g}; {b}: {rb.crossover_K:.3g}"))
            rows.append({"env": ra.env, "A": a, "B": b, "epsilon": ra.epsilon, "z": ra.z, "ratio_B_over_A": ratio[0],
                         "ratio_lo": ratio[1], "ratio_hi": ratio[2], "verdict": score.verdict, "regime": score.regime,
                         "k_needed": score.k_needed})
    return claims, pd.DataFrame(rows)


def _markdown(ctx: AnalysisContext, table: pd.DataFrame, orders: pd.DataFrame) -> str:
    lines = [f"# Cross-model comparison at matched coverage: {ctx.experiment}", "",
             "Regret at the last K (mean [95% seed-bootstrap CI]). `coverage (sd)`: the privacy part of the "
             "width in standard deviations of the agent's own noise (z; for z = 0, the paper's width expressed "
             "in sd at K). Crossover K from each agent's width formula (uniform visitation).", "",
             "| env | agent | eps | z | bonus | regret at K [CI] | coverage (sd) | crossover K | past 10 x crossover |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in table.sort_values(["env", "z", "epsilon", "agent"]).itertuples():
        lines.append(f"| {r.env} | {r.label} | {r.epsilon:g} | {r.z:g} | {r.bonus_scale:g} | {r.regret:.4g} "
                     f"[{r.regret_lo:.4g}, {r.regret_hi:.4g}] | {r.coverage_sd:.3g} | {r.crossover_K:.3g} "
                     f"| {'yes' if r.past_crossover else 'no'} |")
    lines += ["", "## Orders: A cheaper than B (B/A at K, `verdicts.score_order`)", "",
              "| env | A | B | eps | z | B/A [CI] | verdict | regime |", "|---|---|---|---|---|---|---|---|"]
    for r in orders.itertuples():
        lines.append(f"| {r.env} | {r.A} | {r.B} | {r.epsilon:g} | {r.z:g} | {r.ratio_B_over_A:.3g} "
                     f"[{r.ratio_lo:.3g}, {r.ratio_hi:.3g}] | {r.verdict} | {r.regime} |")
    return "\n".join(lines) + "\n"


def _figure(table: pd.DataFrame):
    """Regret at K vs eps through the figure layer: a panel per (agent family, arm), one line per
    agent (its own colour, dash and marker, 95% CI band), one legend."""
    if table.empty:
        return None
    from privrl.results import facets  # matplotlib: imported only to draw

    arms = sorted(table.z.unique(), reverse=True)
    fams = [(name, ags) for name, ags in FAMILIES.items() if table.agent.isin(ags).any()]
    parts = []
    for fam, ags in fams:
        for z in arms:
            arm = f"matched coverage (z = {z:g})" if z > 0 else "paper widths (z = 0)"
            panel = f"{fam.split(' (')[0]}, {arm}"
            for ag in ags:
                d = table[(table.z == z) & (table.agent == ag)].sort_values("epsilon")
                if len(d):
                    parts.append(pd.DataFrame({"x": d.epsilon.to_numpy(float), "y": d.regret.to_numpy(float),
                                               "lo": d.regret_lo.to_numpy(float), "hi": d.regret_hi.to_numpy(float),
                                               "panel": panel, "line": LABELS.get(ag, ag), "curve": f"{panel}|{ag}"}))
    return facets.line_grid(pd.concat(parts, ignore_index=True), xlabel="privacy level ε",
                            ylabel=facets.at_k(table.K), markers=True, sharey=False)


def cross_model_coverage(ctx: AnalysisContext) -> AnalysisResult:
    table, finals = cell_table(ctx)
    if table.empty:
        return AnalysisResult(table=table, markdown=f"# {ctx.experiment}: no private cell with a z parameter\n",
                              claims=claims_frame([]))
    claims, orders = order_claims(ctx, table, finals)
    return AnalysisResult(table=table, markdown=_markdown(ctx, table, orders), figure=_figure(table),
                          claims=claims_frame(claims))
