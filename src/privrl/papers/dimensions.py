"""Dimension scaling, one analysis for every paper: regret (and the costs a twin cell isolates, e.g.
the privacy cost D = R - R(noise off)) at K across a nested family of instances in which one of
S, A, H grows and the rest stay fixed; the measured log-log slope with its seed-bootstrap CI,
beside the power of that dimension in the paper's bound. Registers nothing: each paper registers
:func:`analysis` with its own :class:`AgentBound` table (``<paper>_dimensions``).

What is measured, per *line* (a cell of the experiment, one per env: same agent and parameters):

* regret at K (the run's last episode), mean and 95 % seed-bootstrap CI, at each member;
* per :class:`Cost` of the agent's bound (a twin cell differing in one parameter, e.g.
  ``noise: 0`` or ``tau: 0``): the difference of the two regrets at K (independent seeds,
  :func:`~privrl.results.stats.diff_ci`), the term of the bound that difference isolates;
* the slope of log(quantity) on log(dimension) over the members past their regime
  (K >= regime_factor x the cell's crossover K; two members at least, else every member, said),
  a bootstrap over seeds (:func:`~privrl.papers.scoring.slope_fit`).

Scoring: **context**, always (scope ``context``, verdict inconclusive). An upper bound's power of
S, A or H is a worst case over instances: on one fixed family past its crossover the regret is
instance-dependent (about sum of log K / gap over sub-optimal pairs), and its ratio across sizes
tests nothing of a worst-case factor. A lower bound pins a power only over its own hard family
(a minimax over instances whose gap is chosen with K); each row prints the lower bound's power
where the paper gives one and says whether it equals the upper bound's (pinned in the worst
case) -- never a verdict on the family run here. Shapes: a row of the table is one (line,
member); ``_seeds`` / ``_twin`` hold the per-seed values at K (float64[n]), dropped on output.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.common import curves, env_mdp, fmt_ci, rng_for
from privrl.papers.planned import NO_K, Declaration, Row
from privrl.papers.scoring import crossover_of, frame, save_pdf, slope_fit
from privrl.results import verdicts as V
from privrl.results.labels import at_k, sci
from privrl.results.stats import diff_ci, mean_ci

AXES = ("S", "A", "H")
AXIS_NAMES = {"S": "number of states S", "A": "number of actions A", "H": "horizon H"}
REGRET = "regret"


@dataclass(frozen=True)
class Power:
    """One term of a paper's bound: as printed, and its power of each dimension it shows."""
    text: str                            # "H^2 sqrt(SAK)"
    powers: Mapping[str, float]          # {"S": 0.5, "A": 0.5, "H": 2}; a dimension left out is not printed
    source: str                          # "Thm 4"

    def of(self, axis: str) -> float:
        return float(self.powers.get(axis, math.nan))


@dataclass(frozen=True)
class Cost:
    """A part of the regret a twin cell isolates: cell minus the cell with ``param`` = ``base``."""
    name: str            # "privacy cost D"
    symbol: str          # "D = R - R(noise off)"
    param: str           # "noise"
    base: float          # 0.0
    upper: Power | None  # the bound's term for this part
    lower: Power | None = None
    free: tuple[str, ...] = ()  # parameters the twin may differ in besides ``param`` (a noise-off twin's eps)


@dataclass(frozen=True)
class AgentBound:
    """The bound of one agent: its leading regret term (the one that dominates at large K), the
    costs its twins isolate, the lower bound of the regret where the paper gives one."""
    regret: Power | None
    costs: tuple[Cost, ...] = ()
    lower: Power | None = None
    note: str = ""       # e.g. "the note removes S, A, H from Eq. 9"


@dataclass(frozen=True)
class Extra:
    """A computed (not measured) series per cell, drawn in its own panel: ``value(info, mdp, K)``."""
    name: str
    ylabel: str
    agents: tuple[str, ...]
    value: Callable[[Mapping, object, int], float]
    upper: Power | None


@dataclass(frozen=True)
class DimensionSpec:
    paper: str
    source: str                            # "Vietri et al. ICML 2020"
    bounds: Mapping[str, AgentBound]       # agent -> its bound
    extras: tuple[Extra, ...] = field(default_factory=tuple)


def family_axis(mdps: Mapping[str, object]) -> str:
    """The one dimension (S, A or H) that varies across the family's MDPs; a family varying
    none or several is a config error."""
    varying = [a for a in AXES if len({getattr(m, a) for m in mdps.values()}) > 1]
    if len(varying) != 1:
        raise ValueError(f"a nested family varies exactly one of S, A, H; these envs vary {varying or 'none'}: "
                         + ", ".join(f"{k} (S={m.S}, A={m.A}, H={m.H})" for k, m in mdps.items()))
    return varying[0]


def _pow(p: float) -> str:
    return "n/a" if not np.isfinite(p) else f"{p:g}"


def _power_text(term: Power | None, axis: str) -> str:
    if term is None or not np.isfinite(term.of(axis)):
        return "not printed"
    return f"{axis}^{_pow(term.of(axis))} ({term.source}: {term.text})"


def _twin(infos: Sequence[Mapping], info: Mapping, cost: Cost) -> Mapping | None:
    """The cell of ``info``'s env and agent with ``cost.param`` at its base value and every other
    parameter but ``cost.free`` equal; None when the experiment runs none."""
    skip = {cost.param, *cost.free}

    def rest(i):
        return {k: float(v) for k, v in i["params"].items() if k not in skip and isinstance(v, (int, float))}

    return next((i for i in infos if i["env_key"] == info["env_key"] and i["agent"] == info["agent"]
                 and math.isclose(float(i["params"].get(cost.param, math.nan)), cost.base)
                 and rest(i) == rest(info)), None)


def _src(term: Power | None) -> str:
    return term.source if term is not None else "dimensions"


def _rows(ctx: AnalysisContext, spec: DimensionSpec, axis: str, mdps) -> pd.DataFrame:
    """One row per (cell, env) and quantity: regret, and each cost with a twin on that env."""
    rows = []
    for info in ctx.infos:
        env, m = info["env_key"], mdps[info["env_key"]]
        bound = spec.bounds.get(info["agent"], AgentBound(None))
        ep, R = curves(ctx, env, info["cell"])
        K, x = int(ep[-1]), R[:, -1]
        cross = crossover_of(info, m)
        label = str(info.get("label") or info["agent"])
        base = {"env": env, "cell": info["cell"], "agent": info["agent"], "label": label, "axis": axis,
                "x": int(getattr(m, axis)), "S": m.S, "A": m.A, "H": m.H, "K": K, "crossover_K": cross,
                "in_regime": bool(K >= V.THRESHOLDS.regime_factor * cross), "n_seeds": int(len(x))}
        mu, lo, hi = mean_ci(x, rng_for(ctx, f"R/{env}/{info['cell']}"), ctx.n_boot)
        rows.append({**base, "quantity": REGRET, "line": label, "value": mu, "lo": lo, "hi": hi,
                     "bound_term": _power_text(bound.regret, axis), "bound_source": _src(bound.regret), "bound_power": bound.regret.of(axis)
                     if bound.regret else math.nan, "lower_power": bound.lower.of(axis) if bound.lower else math.nan,
                     "_seeds": x, "_twin": None})
        for cost in bound.costs:
            p = info["params"].get(cost.param)
            if p is None or math.isclose(float(p), cost.base):
                continue
            twin = _twin(ctx.infos, info, cost)
            if twin is None:
                continue
            ep2, R2 = curves(ctx, env, twin["cell"])
            y = R2[:, -1]
            cross = max(cross, crossover_of(twin, m))
            d, dlo, dhi = diff_ci(x, y, rng_for(ctx, f"{cost.param}/{env}/{info['cell']}"), ctx.n_boot)
            rows.append({**base, "crossover_K": cross, "in_regime": bool(K >= V.THRESHOLDS.regime_factor * cross),
                         "quantity": cost.name, "line": label, "value": d, "lo": dlo, "hi": dhi,
                         "bound_term": _power_text(cost.upper, axis), "bound_source": _src(cost.upper),
                         "bound_power": cost.upper.of(axis) if cost.upper else math.nan,
                         "lower_power": cost.lower.of(axis) if cost.lower else math.nan,
                         "twin": twin["cell"], "_seeds": x, "_twin": y})
    for extra in spec.extras:
        for info in ctx.infos:
            if info["agent"] not in extra.agents:
                continue
            env, m = info["env_key"], mdps[info["env_key"]]
            ep, _ = curves(ctx, env, info["cell"])
            v = float(extra.value(info, m, int(ep[-1])))
            label = str(info.get("label") or info["agent"])
            rows.append({"env": env, "cell": info["cell"], "agent": info["agent"], "label": label, "axis": axis,
                         "x": int(getattr(m, axis)), "S": m.S, "A": m.A, "H": m.H, "K": int(ep[-1]),
                         "crossover_K": math.nan, "in_regime": True, "n_seeds": 0, "quantity": extra.name,
                         "line": label, "value": v, "lo": v, "hi": v, "bound_term": _power_text(extra.upper, axis), "bound_source": _src(extra.upper),
                         "bound_power": extra.upper.of(axis) if extra.upper else math.nan, "lower_power": math.nan,
                         "_seeds": None, "_twin": None})
    df = pd.DataFrame(rows)
    return df.sort_values(["quantity", "line", "x"], kind="stable").reset_index(drop=True) if len(df) else df


def _slope(ctx: AnalysisContext, d: pd.DataFrame, tag: str) -> tuple[V.RateFit | None, pd.DataFrame, str]:
    """(fit, members used, what was used) of one series: the members in regime if two at least,
    else every member (said); None when fewer than two members or a value is not positive."""
    live = d[d.in_regime]
    use = live if live.x.nunique() >= 2 else d
    used = ("members past 10 x their crossover" if use is live else
            f"every member, {len(live)} of {len(d)} past 10 x their crossover")
    if use.x.nunique() < 2:
        return None, use, used
    if use._seeds.iloc[0] is None:  # a computed series: exact values, no CI
        if (use.value <= 0).any():
            return None, use, used
        b = float(np.polyfit(np.log(use.x.astype(float)), np.log(use.value.astype(float)), 1)[0])
        return V.RateFit(b, b, b, float(use.x.min()), float(use.x.max()), 0), use, used
    if (use.value <= 0).any():
        return None, use, used + "; a non-positive mean: no log-log slope"
    rng = rng_for(ctx, f"slope/{tag}")
    if use._twin.iloc[0] is None:
        return slope_fit(list(use.x), list(use._seeds), rng, ctx.n_boot), use, used
    n = len(use)
    fit = slope_fit(list(use.x), list(use._seeds) + list(use._twin), rng, ctx.n_boot,
                    lambda *r: np.array([r[i].mean() - r[n + i].mean() for i in range(n)]))
    return fit, use, used


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def declaration(spec: DimensionSpec) -> Declaration:
    """The rows of a dimension analysis, declared from the run infos alone (no data): one context row per
    (quantity, line) -- each cell's regret, each cost with a twin on its env (:func:`_twin`), each extra --
    named ``<experiment>_<axis>_<quantity>_<line>``; a slope across sizes is described, never scored."""
    def declare(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
        axis, rows = family_axis(mdps), {}
        for info in infos:
            label, bound = str(info.get("label") or info["agent"]), spec.bounds.get(info["agent"], AgentBound(None))
            rows.setdefault((REGRET, label), []).append(info)
            for cost in bound.costs:
                p = info["params"].get(cost.param)
                if p is not None and not math.isclose(float(p), cost.base) and _twin(infos, info, cost) is not None:
                    rows.setdefault((cost.name, label), []).append(info)
        for extra in spec.extras:
            for info in (i for i in infos if i["agent"] in extra.agents):
                rows.setdefault((extra.name, str(info.get("label") or info["agent"])), []).append(info)
        return [Row(f"{experiment}_{axis}_{_slug(q)}_{_slug(line)}", "slope across sizes (context)",
                    tuple((i["env_key"], i["cell"]) for i in cells), NO_K, "context", args={"key": (q, line)})
                for (q, line), cells in rows.items()]

    return declare


def _claims(ctx: AnalysisContext, spec: DimensionSpec, df: pd.DataFrame, axis: str, name: str,
            quantities: Mapping[str, str]) -> tuple[list[V.Claim], pd.DataFrame]:
    claims, slopes = [], []
    mdps = {k: env_mdp(ctx, k) for k in ctx.config["envs"]}
    ids = {r.args["key"]: r.id for r in declaration(spec)(ctx.experiment, ctx.infos, mdps, ctx.config)}
    for (q, line), d in df.groupby(["quantity", "line"], sort=False):
        fit, use, used = _slope(ctx, d, f"{q}/{line}")
        power, lower = float(d.bound_power.iloc[0]), float(d.lower_power.iloc[0])
        term = d.bound_term.iloc[0]
        xs = ", ".join(str(v) for v in sorted(d.x.unique()))
        fitted = ", ".join(str(v) for v in sorted(use.x.unique()))
        pre = d[~d.in_regime]
        need = float((V.THRESHOLDS.regime_factor * pre.crossover_K).max()) if len(pre) else math.nan
        slope_text = (f"{fit.exponent:.2f} [{fit.lo:.2f}, {fit.hi:.2f}]" if fit is not None
                      else "n/a")
        slopes.append({"quantity": q, "line": line, "axis": axis, "members": fitted, "fit_over": used,
                       "slope": fit.exponent if fit else math.nan, "slope_lo": fit.lo if fit else math.nan,
                       "slope_hi": fit.hi if fit else math.nan, "bound_power": power,
                       "bound_term": term, "lower_power": lower})
        if np.isfinite(power) and fit is not None:
            side = ("below" if fit.hi < power else "above" if fit.lo > power else "at")
            versus = f"{side} the bound's power {axis}^{_pow(power)}"
        else:
            versus = "the bound prints no power of " + axis
        if np.isfinite(lower):
            pinned = ("the lower bound has the same power: pinned in the worst case over its hard family"
                      if np.isfinite(power) and math.isclose(lower, power) else
                      f"the lower bound's power is {axis}^{_pow(lower)}: not pinned")
        else:
            pinned = "no lower bound gives this power: not pinned"
        agent = d.agent.iloc[0]
        note = spec.bounds.get(agent, AgentBound(None)).note
        measured = f"slope of log {quantities[q]} on log {axis} = {slope_text} over {axis} in {{{fitted}}} ({used})"
        regime = "; ".join(x for x in [
            f"context: {versus}; bound term {term}; {pinned}",
            "an upper bound's power of a dimension is a worst case over instances, and a fixed family past its "
            "crossover has instance-dependent regret: the slope is described, not scored",
            *(f"pre-regime at {axis}={r.x} (K = {sci(r.K)} < 10 x crossover {sci(r.crossover_K)})"
              for r in pre.drop_duplicates("x").itertuples()), note] if x)
        sc = V.Score(V.INCONCLUSIVE, measured, regime, need)
        statement = (f"{line}: {quantities[q]} at K across {axis} ({xs}; the other dimensions fixed) against the "
                     f"bound's power of {axis}")
        c = V.make_claim(spec.paper, d.bound_source.iloc[0], ids[(q, line)],
                         statement, "rate", ctx.artifact(name, "md"), sc, ctx.experiment, spec.source)
        claims.append(dataclasses.replace(c, scope="context"))
    return claims, pd.DataFrame(slopes)


def _figure(df: pd.DataFrame, slopes: pd.DataFrame, axis: str, panels: Mapping[str, str]):
    """A panel per quantity (regret, each cost, each computed series) against the dimension, log-log
    (a slope is a power), one line per cell (95 % CI band), and per line its bound's power drawn as
    a reference slope (dashed, the line's colour) from the line's first member used in the fit."""
    from matplotlib.lines import Line2D

    from privrl.results import facets

    if not len(df):
        return None
    title = {q: facets.human(_panel_title(panels[q][0], slopes[slopes.quantity == q], axis))
             for q in panels if q in set(df.quantity)}
    data = pd.DataFrame({"x": df.x.astype(float), "y": df.value, "lo": df.lo, "hi": df.hi,
                         "panel": df.quantity.map(title), "line": [facets.human(s) for s in df.line],
                         "curve": df.quantity + "|" + df.line})
    powers = {(r.quantity, r.line): r for r in slopes.itertuples()}
    drawn_powers = {}

    def guides(ax, panel, rows):
        for cid, c in rows.groupby("curve", sort=False):
            q, line = cid.split("|", 1)
            s = powers.get((q, line))
            c = c[c.y > 0].sort_values("x")  # from the first positive point (a difference may be <= 0)
            if s is None or not np.isfinite(s.bound_power) or len(c) < 2:
                continue
            colour = next((ln.get_color() for ln in ax.get_lines() if ln.get_label() == f"_{cid}"), "0.3")
            x0, y0 = float(c.x.iloc[0]), float(c.y.iloc[0])
            xs = np.geomspace(x0, float(c.x.iloc[-1]), 20)
            ax.plot(xs, y0 * (xs / x0) ** s.bound_power, color=colour, ls=GUIDE, lw=1.0, scaley=False,
                    label="_guide")
            drawn_powers.setdefault(panel, set()).add(s.bound_power)

    order = list(title.values())
    fig = facets.line_grid(data, xlabel=AXIS_NAMES[axis], ylabel="", panel_order=order, sharey=False,
                           ylabels={title[q]: at_k(df[df.quantity == q].K, facets.human(panels[q][1]))
                                    for q in title},
                           sharex=False, xlabels={t: AXIS_NAMES[axis] for t in order}, markers=True,
                           data_xticks=True, decorate=guides,
                           extra_legend=[(Line2D([], [], color="0.3", ls=GUIDE, lw=1.0),
                                          "the bound's power, from the first point")])
    return fig


GUIDE = (0, (1, 1.6))  # dotted: a reference slope, never a data line's dash pattern


def _power_tex(axis: str, p: float) -> str:
    return f"${axis}^{{{p:g}}}$"


def _panel_title(name: str, s: pd.DataFrame, axis: str) -> str:
    """The panel's quantity and the bound's power its dotted guides draw (or that none is printed)."""
    powers = sorted({float(p) for p in s.bound_power if np.isfinite(p)})
    terms = sorted({t.split(" (")[1].split(":")[0] for t, p in zip(s.bound_term, s.bound_power) if np.isfinite(p)})
    if not powers:
        return f"{name}; power of {axis} not printed"
    return f"{name}; dotted: " + " / ".join(_power_tex(axis, p) for p in powers) + f" ({', '.join(terms)})"


def analysis(spec: DimensionSpec, name: str, title: str) -> Callable[[AnalysisContext], AnalysisResult]:
    """The analysis registered as ``name`` by ``spec.paper``."""

    def run(ctx: AnalysisContext) -> AnalysisResult:
        mdps = {k: env_mdp(ctx, k) for k in ctx.config["envs"]}
        axis = family_axis(mdps)
        df = _rows(ctx, spec, axis, mdps)
        quantities = {REGRET: "R"}
        panels = {REGRET: ("regret", "regret")}  # quantity -> (panel name, y label's quantity)
        for b in spec.bounds.values():
            for c in b.costs:
                quantities[c.name] = c.symbol.split(" =")[0]
                panels[c.name] = (c.name, c.symbol.replace(" - ", " − "))
        for e in spec.extras:
            quantities[e.name] = e.name
            panels[e.name] = (e.name, e.ylabel)
        claims, slopes = _claims(ctx, spec, df, axis, name, quantities)
        fig = _figure(df, slopes, axis, panels)
        save_pdf(fig, ctx, name)
        table = df.drop(columns=[c for c in ("_seeds", "_twin") if c in df]) if len(df) else df
        return AnalysisResult(table=table, markdown=_markdown(ctx, title, table, slopes, axis),
                              figure=fig, claims=frame(claims))

    run.__name__ = name
    run.declaration = declaration(spec)  # its rows without data: what the claim plan runs
    run.__doc__ = f"{title}: :func:`privrl.papers.dimensions.analysis` with the paper's bound powers."
    return run


def _markdown(ctx: AnalysisContext, title: str, df: pd.DataFrame, slopes: pd.DataFrame, axis: str) -> str:
    L = [f"# {title} ({ctx.experiment})", "",
         f"A nested family: {AXIS_NAMES[axis]} grows, the other dimensions fixed. Per cell, the regret at K "
         "(the run's last episode; mean, 95 % seed-bootstrap CI) and each part of it a twin cell isolates; the "
         f"slope of its log on log {axis} (seed bootstrap) beside the power of {axis} in the paper's bound. "
         "Context, not a verdict: an upper bound's power of a dimension is a worst case over instances, and a "
         "fixed family past its crossover has instance-dependent regret. in regime: K >= 10 x the crossover K "
         "(the cell's, and its twin's); pre-regime members are marked and left out of the slope when two "
         "members in regime remain.", "",
         f"| quantity | cell | {axis} | K | crossover K | in regime | value at K [95% CI] |", "|---|---|---|---|---|---|---|"]
    for r in df.itertuples():
        val = fmt_ci(r.value, r.lo, r.hi) if r.n_seeds else f"{r.value:.4g} (computed)"
        L.append(f"| {r.quantity} | {r.line} | {r.x} | {r.K:.3g} | "
                 f"{r.crossover_K:.3g} | {'yes' if r.in_regime else 'no (pre-regime)'} | {val} |")
    L += ["", f"## Slopes against {axis}", "",
          f"| quantity | cell | {axis} | fitted over | measured slope [95% CI] | bound's power | bound term | "
          "lower bound's power |", "|---|---|---|---|---|---|---|---|"]
    for s in slopes.itertuples():
        sl = f"{s.slope:.2f} [{s.slope_lo:.2f}, {s.slope_hi:.2f}]" if np.isfinite(s.slope) else "n/a"
        L.append(f"| {s.quantity} | {s.line} | {s.members} | {s.fit_over} | {sl} | {_pow(s.bound_power)} | "
                 f"{s.bound_term} | {_pow(s.lower_power)} |")
    return "\n".join(L) + "\n"
