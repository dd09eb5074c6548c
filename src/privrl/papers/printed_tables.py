"""The papers' regret tables as printed, beside what the runs measure: shared by Garcelon et al.'s
Table 1 (:mod:`privrl.papers.garcelon2021.printed_table`) and Bai et al.'s Table I
(:mod:`privrl.papers.bai_sdp_pe.printed_table`). Registers nothing.

A printed table is a list of :class:`Row` (the paper's row: its algorithm, privacy columns and
printed O~ order) and a list of :class:`Order` (a difference its rows predict: "row A's regret
below row B's"). Per eps of the sweep at or below :data:`EPS_MAX` (where the rows' privacy terms
differ) each row gets

* the printed order evaluated on the run's instance at the run's K (constants 1, logs dropped: a
  *scale*, never scored as a number);
* the measured regret at K (mean, 95% seed-bootstrap CI, :func:`privrl.results.stats.mean_ci`);
* the privacy cost D at K = R(K, eps) - R(K, noise off) with its seed-bootstrap CI
  (:func:`privrl.results.privacy_fits.fit_privacy_cost` against the same algorithm with its noise
  off; PE for SDP-PE), when the design runs that twin;
* its crossover K (:func:`privrl.agents.registry.agent_crossover` on the run's MDP): the regime of
  a comparison read at K starts at 10 x the crossover.

Each order gets the ratio of the printed orders at K, the first K from which they put the slower
row >= :data:`MARGIN` x the faster one (:func:`printed_need`), the measured ratio R_B / R_A at K
(:func:`privrl.results.stats.ratio_ci`), whether it shows, and a *why* where it does not, or where
it shows but says nothing yet. Scored with :func:`privrl.results.verdicts.score_order` (regime
condition: K >= 10 x both crossovers and K past the printed-margin K), on the non-private twin of
the faster row as well (:mod:`privrl.results.controls`): an order "A below B" holds for A with its
noise off too, so it reads at best "consistent" naming that twin. A row is a paper claim only
where the printed orders separate the rows by the margin at some K and both rows hold one eps under
replacement neighbours (:func:`privrl.papers.cross_paper.cross_model.replacement_epsilon`; as
``garcelon_table1`` and ``cross_model_coverage`` compare JDP with LDP); otherwise it is context
(scope ``context``) with the reason. Rows are shown at one *label* eps, as the tables print them:
PUCB's, DP-UCBVI-JDP's and SDP-PE's eps is 2 eps under replacement, so on a grid without eps pairs 2x
apart their orders against the LDP rows are context, the measured ratio printed.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from privrl.agents.registry import agent_crossover
from privrl.papers import table_orders
from privrl.papers.analysis import AnalysisContext
from privrl.papers.common import curves, fmt_ci, rng_for
from privrl.results import controls
from privrl.results import verdicts as V
from privrl.results.privacy_fits import fit_privacy_cost
from privrl.results.stats import mean_ci, ratio_ci

EPS_MAX = 1.0  # the tables' rows differ where their privacy terms matter: eps <= 1
MARGIN = table_orders.MARGIN  # the printed orders must put the slower row >= this x the faster one
FIXED = ("epsilon", "noise")  # what a row's noise-off twin may differ in

Form = Callable[[float, float], float]  # (eps, K) -> the printed order on the run's instance, constants 1


@dataclass(frozen=True)
class Row:
    """One printed row: ``key`` (its id), the paper's cells (``printed``: column -> text, in the
    paper's column order) and its printed order as a function of (eps, K) on the instance."""

    key: str
    printed: Mapping[str, str]
    form_text: str
    form: Form


@dataclass(frozen=True)
class Order:
    """'Row ``fast``'s regret below row ``slow``'s', as the printed orders predict. ``context``: why it
    is never a paper claim (e.g. an upper bound's dimension factors), "" when it can be one."""

    fast: str
    slow: str
    statement: str
    context: str = ""


def printed_need(fast: Form, slow: Form, eps: float, K: float) -> tuple[float, float]:
    """(slow / fast printed ratio at K, first K at which it is >= MARGIN; inf: at no K <= k_max)."""
    ratio = slow(eps, K) / fast(eps, K)
    return ratio, V.first_k(1.0, lambda k: slow(eps, k) / fast(eps, k) >= MARGIN)


def order_scope(order: Order, k_form: float, eps_fast: float, eps_slow: float) -> tuple[str, str]:
    """(scope, why context): a paper claim only where the printed orders separate the rows by the
    margin at some K (their privacy terms dominate), both rows hold one eps under replacement
    neighbours (as ``garcelon_table1`` and ``cross_model_coverage`` compare them), and the order is
    not marked context."""
    if order.context:
        return "context", order.context
    if not math.isfinite(k_form):
        return "context", (f"the printed orders never put one row >= {MARGIN:g} x the other at this eps (their "
                           "privacy terms do not dominate): not the table's statement")
    if not math.isclose(eps_fast, eps_slow, rel_tol=1e-6):
        return "context", ("the rows hold different eps under one neighbour relation (replacement): the table's "
                           "order is a statement at one eps; the matched comparison is cross_model_coverage")
    return "paper_claim", ""


def relation_note(names: Mapping[str, str], order: Order, eps_fast: float, eps_slow: float) -> str:
    """The neighbour-relation caveat of an order at one label ("" when both rows hold one eps under replacement)."""
    if math.isclose(eps_fast, eps_slow, rel_tol=1e-6):
        return ""
    return (f"one label, two neighbour relations: {names[order.fast]} is {eps_fast:.3g} and {names[order.slow]} "
            f"{eps_slow:.3g} under replacement" + (" (the faster row less private: favours the order)"
                                                   if eps_fast > eps_slow else ""))


def order_k_needed(k_form: float, crossovers: Sequence[float]) -> float:
    """K needed of an order read at K: 10 x the larger crossover, and the printed-margin K if finite."""
    need = V.THRESHOLDS.regime_factor * max(crossovers)
    return max(need, k_form) if math.isfinite(k_form) else need


# ----------------------------------------------------------------------------- measuring a cell
def noise_off_twin(ctx: AnalysisContext, info: dict) -> dict | None:
    """The same algorithm with its noise off on the same env (every parameter but eps and noise
    equal; PE at the same C, C1 for the SDP-PE family), or None when the design does not run it."""
    p = info["params"]
    if info["agent"] in ("sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp"):
        return next((i for i in ctx.infos if i["agent"] == "pe" and i["env_key"] == info["env_key"]
                     and all(np.isclose(i["params"].get(k, np.nan), p[k]) for k in ("C", "C1"))), None)
    if "noise" not in p:
        return None
    rest = {k: v for k, v in p.items() if k not in FIXED}
    for i in ctx.infos:
        q = i["params"]
        if (i["agent"] == info["agent"] and i["env_key"] == info["env_key"] and float(q.get("noise", 1.0)) < 0.5
                and {k: v for k, v in q.items() if k not in FIXED} == rest):
            return i
    return None


def measure(ctx: AnalysisContext, info: dict, mdp, what: str) -> dict:
    """Regret at K (mean, CI), per-seed values, K, crossover K and eps under replacement of one cell,
    and D at K (CI) against its noise-off twin when run."""
    from privrl.papers.cross_paper.cross_model import replacement_epsilon

    env, cell = info["env_key"], info["cell"]
    ep, R = curves(ctx, env, cell)
    m, lo, hi = mean_ci(R[:, -1], rng_for(ctx, f"{what}/regret/{env}/{cell}"), ctx.n_boot)
    out = {"cell": cell, "K": float(ep[-1]), "n_seeds": int(R.shape[0]), "regret": m, "regret_lo": lo,
           "regret_hi": hi, "R": R[:, -1], "crossover_K": agent_crossover(info["agent"], info["params"], mdp),
           "eps_replacement": replacement_epsilon(info["agent"], dict(info["params"]), mdp, float(ep[-1])),
           "D": float("nan"), "D_lo": float("nan"), "D_hi": float("nan"), "baseline": "", "R0": None}
    twin = noise_off_twin(ctx, info)
    if twin is not None:
        ep0, R0 = curves(ctx, env, twin["cell"])
        if np.array_equal(ep0, ep):
            eps = float(info["params"].get("epsilon", 1.0))
            fit = fit_privacy_cost(ep, {eps: R}, R0, rng_for(ctx, f"{what}/D/{env}/{cell}"),
                                   decades=float(ctx.config.get("fit_decades", 2)), n_boot=ctx.n_boot)
            d, dlo, dhi = fit["D_at_K_ci"][eps]
            out.update(D=d, D_lo=dlo, D_hi=dhi, baseline=twin["cell"], R0=R0[:, -1])
    return out


def regret_text(m: dict) -> str:
    return fmt_ci(m["regret"], m["regret_lo"], m["regret_hi"])


def d_text(m: dict) -> str:
    if not m["baseline"]:
        return "no noise-off twin run"
    return fmt_ci(m["D"], m["D_lo"], m["D_hi"])


def regime_text(m: dict) -> str:
    c, K = m["crossover_K"], m["K"]
    if not math.isfinite(c):
        return "crossover never" if c == math.inf else "crossover unknown"
    need = V.THRESHOLDS.regime_factor * c
    return f"{c:.2g}: " + ("in regime" if K >= need else f"before regime (K needed {need:.2g})")


# ----------------------------------------------------------------------------- an order between rows
def shows(ratio: tuple[float, float, float], th: V.Thresholds = V.THRESHOLDS) -> str:
    """Whether 'A below B' shows in B / A = (mean, lo, hi): "yes" (CI above 1 + min_effect),
    "reversed" (CI below 1), "no" (the CI reaches parity)."""
    _, lo, hi = ratio
    if np.isfinite(lo) and lo > 1.0 + th.min_effect:
        return "yes"
    if np.isfinite(hi) and hi < 1.0:
        return "reversed"
    return "no"


def evaluate_order(ctx: AnalysisContext, order: Order, rows: Mapping[str, Row], fast: dict, slow: dict,
                   eps: float, names: Mapping[str, str], cid: str, guard_notes: Sequence[str] = (),
                   notes: Sequence[str] = ()) -> tuple[dict, V.Score, str]:
    """The order's table row, its Score (judged on the faster row's non-private twin) and scope;
    ``notes``: what else the why must say about the two rows (e.g. an elimination run that has
    eliminated nothing)."""
    K = min(fast["K"], slow["K"])
    r_form, k_form = printed_need(rows[order.fast].form, rows[order.slow].form, eps, K)
    scope, why_context = order_scope(order, k_form, fast["eps_replacement"], slow["eps_replacement"])
    relation = relation_note(names, order, fast["eps_replacement"], slow["eps_replacement"])
    cf, cs = fast["crossover_K"], slow["crossover_K"]
    need = order_k_needed(k_form, (cf, cs))
    before = K < V.THRESHOLDS.regime_factor * max(cf, cs)
    cond = bool(math.isfinite(need) and K >= need)
    ratio = ratio_ci(slow["R"], fast["R"], rng_for(ctx, f"{cid}/ratio"), ctx.n_boot)
    seen = shows(ratio)
    nf, ns = names[order.fast], names[order.slow]
    why = []
    if seen != "yes" or not cond:
        if not math.isfinite(k_form):
            why.append(f"context: printed orders {r_form:.3g}x apart at K, below {MARGIN:g}x at every K (their "
                       "privacy terms never dominate): the table predicts no difference beyond its hidden constants")
        elif K < k_form:
            why.append(f"printed orders {r_form:.3g}x apart at K; >= {MARGIN:g}x only from K = {k_form:.2g}")
        if before:
            late = ns if cs >= cf else nf
            why.append(f"before regime: {late} crosses over at K = {max(cf, cs):.2g}, so both rows still pay "
                       f"near-linear exploration regret; K needed {V.THRESHOLDS.regime_factor * max(cf, cs):.2g}")
        if seen == "reversed" and not cond:
            why.insert(0, "reversed, before the regime the table is about")
        if cond and seen != "yes":
            why.append("in regime, " + ("the CI reaches parity" if seen == "no" else "the order is reversed"))
        if seen == "yes" and not cond:
            why.insert(0, "shows, but before the regime the table is about")
    if order.context:
        why.append(f"context: {order.context}")
    if relation:
        why.append(relation + ("; context: the table's order is a statement at one eps (the matched comparison "
                               "is cross_model_coverage)" if math.isfinite(k_form) and not order.context else ""))
    if guard_notes:
        why.append("inconclusive whatever it shows: " + "; ".join(guard_notes))
    why.extend(notes)
    note = (f"crossover K: {nf} {cf:.3g}, {ns} {cs:.3g}; K run {K:.3g}; printed {rows[order.slow].form_text} / "
            f"{rows[order.fast].form_text} = {r_form:.3g} at K"
            + (f", >= {MARGIN:g} from K = {k_form:.3g}" if math.isfinite(k_form) else f", < {MARGIN:g} at every K")
            + (f"; {relation}" if relation else ""))
    score = V.score_order(ratio, False, cond, note, need)
    twins = [controls.TwinOutcome("over_exploring", None, "widths x10 not run for orders")]
    if fast["R0"] is not None:
        t = V.score_order(ratio_ci(slow["R"], fast["R0"], rng_for(ctx, f"{cid}/twin"), ctx.n_boot), False, cond,
                          note, need)
        twins.append(controls.TwinOutcome("non_private", t, f"{nf} with its noise off"))
    else:
        twins.append(controls.TwinOutcome("non_private", None, f"{nf} has no noise-off twin in the design"))
    score, _ = controls.judge(score, "agent_regret", twins)
    if guard_notes:
        from privrl.results import elimination as EL

        score = EL.guard(score, guard_notes)
    row = {"eps": eps, "order": order.statement, "fast": order.fast, "slow": order.slow, "K": K,
           "printed_ratio_at_K": r_form, "printed_margin_from_K": k_form, "ratio": ratio[0], "ratio_lo": ratio[1],
           "ratio_hi": ratio[2], "shows": seen, "k_needed": score.k_needed if math.isfinite(score.k_needed) else need,
           "verdict": score.verdict, "scope": scope, "why": "; ".join(why), "controls": score.controls}
    return row, score, scope


def order_claim(paper: str, item: str, cid: str, statement: str, artifact: str, score: V.Score, scope: str,
                experiment: str, source: str, crossovers: str) -> V.Claim:
    return dataclasses.replace(V.make_claim(paper, item, cid, statement, "order", artifact, score, experiment, source),
                               scope=scope, crossovers=crossovers)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    esc = lambda s: str(s).replace("|", "\\|")  # noqa: E731
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows])


def order_lines(orders: pd.DataFrame, names: Mapping[str, str]) -> list[str]:
    """The orders' Markdown table: one line per (eps, order)."""
    body = []
    for r in orders.itertuples():
        k_form = f"{r.printed_margin_from_K:.2g}" if math.isfinite(r.printed_margin_from_K) else "never"
        body.append([f"{r.eps:g}", f"{names[r.fast]} < {names[r.slow]}", f"{r.printed_ratio_at_K:.3g}", k_form,
                     fmt_ci(r.ratio, r.ratio_lo, r.ratio_hi, 3), r.shows,
                     r.verdict + (" (context)" if r.scope == "context" else ""),
                     f"{r.k_needed:.2g}" if math.isfinite(r.k_needed) else "never", r.why or "-"])
    return markdown_table(["eps", "predicted order (A < B)", "printed B/A at K", f"printed B/A >= {MARGIN:g} from K",
                           "measured R_B/R_A at K [95% CI]", "shows?", "verdict", "K needed", "why"], body)


def reading(orders: pd.DataFrame) -> list[str]:
    """A one-paragraph reading of the orders table: how many show, how many are the table's statements,
    how many are in regime, the K they need."""
    if orders.empty:
        return []
    n = len(orders)
    c = orders.shows.value_counts()
    in_regime = int((orders.verdict != V.NOT_REACHED).sum())
    need = orders.k_needed[np.isfinite(orders.k_needed)]
    claims = int((orders.scope == "paper_claim").sum())
    return [f"**Reading.** Of the {n} orders predicted at eps <= 1, {c.get('yes', 0)} show in the measured regret at "
            f"K, {c.get('reversed', 0)} are reversed and {c.get('no', 0)} sit within the CI; {claims} are the table's "
            f"statements under one neighbour relation (the rest context, the why says which). {in_regime} of {n} are "
            "in the regime the table is about" + (f"; the others need K = {need.min():.2g} to {need.max():.2g} "
                                                  f"(K run {orders.K.max():.2g})" if len(need) and in_regime < n else "")
            + ": an order shown before its regime is one of two explorers' regrets, not the table's statement.", ""]


def declared_orders(experiment: str, prefix: str, env: str, mdp, here: Mapping[str, dict], rows: Mapping[str, Row],
                    orders: Sequence[Order], eps: float) -> list:
    """The order rows of a printed table at one eps, declared from the run infos alone (``here``: row key ->
    info; no data): per order whose two rows ran, its id ``<experiment>_<prefix>_<fast>_below_<slow>_<env>_eps<eps>``,
    its scope (:func:`order_scope`) and K needed (:func:`order_k_needed`) as :func:`evaluate_order` reads them."""
    from privrl.papers.cross_paper.cross_model import replacement_epsilon
    from privrl.papers.planned import Row as Declared

    out = []
    for o in orders:
        if o.fast not in here or o.slow not in here:
            continue
        fast, slow = here[o.fast], here[o.slow]
        K = float(min(fast["episodes"], slow["episodes"]))
        _, k_form = printed_need(rows[o.fast].form, rows[o.slow].form, eps, K)
        rel = [replacement_epsilon(i["agent"], dict(i["params"]), mdp, float(i["episodes"])) for i in (fast, slow)]
        scope, _ = order_scope(o, k_form, *rel)
        need = order_k_needed(k_form, [agent_crossover(i["agent"], i["params"], mdp) for i in (fast, slow)])
        out.append(Declared(f"{experiment}_{prefix}_{o.fast}_below_{o.slow}_{env}_eps{eps:g}".replace(".", "p"),
                            "order: 10 x max crossover, printed orders apart by the margin",
                            ((env, fast["cell"]), (env, slow["cell"])), need, scope,
                            args={"key": (env, eps, o.fast, o.slow)}))
    return out


def eps_grid(ctx: AnalysisContext, infos: Sequence[dict], eps_of: Callable[[dict], float]) -> list[float]:
    return sorted({eps_of(i) for i in infos if eps_of(i) <= EPS_MAX + 1e-12})
