"""Figures of the workflow (Agg backend): pure functions of aggregated DataFrames, drawn in the
one paper style of :mod:`privrl.results.style` (PDF + 300 dpi PNG, <= 8 lines a panel)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from privrl.results import style  # noqa: E402


def regret_curves(fits: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (a curve): cell, head (agent[+tag]), name (display), params (dict of the
    cell's resolved parameters), epsilon (nan when the agent has none), noise_off (bool)."""
    pcols = [c for c in fits if c.startswith("param_")]
    rows = []
    for r in fits.itertuples(index=False):
        d = r._asdict()
        params = {c[len("param_"):]: d[c] for c in pcols if pd.notna(d[c])}
        recon = bool(d.get("reconstruction", False)) if pd.notna(d.get("reconstruction", False)) else False
        head = str(d["cell"]).split("__")[0]
        rows.append({"cell": d["cell"], "head": head, "recon": recon, "name": style.agent_name(head, recon),
                     "params": params,
                     "epsilon": float(params.get("epsilon", np.nan)),
                     "noise_off": "noise" in params and float(params["noise"]) == 0})
    return pd.DataFrame(rows)


def _varying(params: list[dict], exclude=("epsilon", "noise")) -> list[str]:
    """Parameter names whose value differs between these cells (in key order of the first)."""
    keys = list(dict.fromkeys(k for p in params for k in p))
    return [k for k in keys if k not in exclude and len({p.get(k) for p in params}) > 1]


def regret_panels(curves: pd.DataFrame, max_lines: int = style.MAX_LINES) -> list[tuple[style.Panel, bool]]:
    """(panel, coloured by eps) pairs: <= max_lines curves each, human titles and line labels.

    Few curves (<= max_lines): one panel. Otherwise one panel per agent (and per value of its
    non-eps parameters that vary) whose lines are its epsilons and noise-off twin, coloured by
    eps; agents with a single curve share panels, one line per agent.
    """
    curves = curves.copy()
    if len(curves) <= max_lines:
        single_agent = curves["head"].nunique() == 1
        vary = {h: _varying(list(g.params)) for h, g in curves.groupby("head")}
        eps_vary = curves.epsilon.nunique() > 1 or curves.noise_off.any()
        curves["line"] = [style.cell_label(None if single_agent else r.head, r.params,
                                           vary + (["epsilon", "noise"] if eps_vary else []), r.recon)
                          or r.name for r, vary in ((r, vary[r.head]) for r in curves.itertuples())]
        title = curves["name"].iloc[0] if single_agent else ""
        eps = set(curves.epsilon[~curves.noise_off].dropna())
        if len(eps) == 1 and not eps_vary:  # one privacy level: say it once
            at = style.param_text("epsilon", eps.pop())
            at = f"private agents at {at}" if curves.epsilon.isna().any() else at
            title = ", ".join(t for t in (title, at) if t)
        return [(style.Panel(title, curves), False)]
    out = []
    counts = curves.groupby("head")["cell"].transform("size")
    multi, single = curves[counts > 1].copy(), curves[counts == 1].copy()
    for head, g in multi.groupby("head", sort=False):
        outer = _varying(list(g.params))
        g = g.assign(key=[tuple(p.get(k) for k in outer) for p in g.params],
                     line=[style.cell_label(None, p, ["epsilon", "noise"]) for p in g.params])
        for panel in style.grid_by(g, ["key"], max_lines, order="epsilon", title=lambda keys, g=g, outer=outer: ", ".join(
                [g["name"].iloc[0]] + [style.param_text(k, v) for k, v in zip(outer, keys["key"])])):
            out.append((panel, True))
    if len(single):
        single["line"] = [style.cell_label(r.head, r.params, ["epsilon", "noise"], r.recon) for r in single.itertuples()]
        out += [(p, False) for p in style.grid_by(single, [], max_lines, title=lambda keys: "one setting per agent")]
    return out


def _line_colours(panels: list[tuple[style.Panel, bool]]) -> dict[str, tuple]:
    """label -> colour over the whole figure: eps on a sequential scale, others qualitative."""
    eps = style.eps_colors(e for p, by_eps in panels if by_eps for e, off in zip(p.rows.epsilon, p.rows.noise_off)
                           if not off)
    colours, other = {}, []
    for p, by_eps in panels:
        for r in p.rows.itertuples():
            if by_eps and r.noise_off:
                colours[r.line] = style.NOISE_OFF["color"]
            elif by_eps and r.epsilon in eps:
                colours[r.line] = eps[r.epsilon]
            elif r.line not in other:
                other.append(r.line)
    colours.update(zip(other, style.qualitative_colors(len(other))))
    return colours


def regret_vs_k(agg: pd.DataFrame, fits: pd.DataFrame, path_stem, title: str = "", view: str = "regret") -> None:
    """Regret vs K in panels of <= 8 curves (panels by agent, colour by eps), 95% CI bands,
    shared axes; writes <stem>.pdf and <stem>.png.

    view: "regret" = cumulative regret, log-log (symlog if a value is <= 0), with the fitted
    K^a over the fit window dotted; "rate" = regret / sqrt(K) on a log K axis (flat = a sqrt(K)
    rate, rising = faster, falling = slower).
    agg: rows (cell, episode, mean, ci_low, ci_high); fits: rows (cell, exponent, log_intercept,
    window_lo, window_hi, reconstruction, param_<name>...).
    """
    panels = regret_panels(regret_curves(fits))
    colours = _line_colours(panels)
    fig, axes = style.panels(len(panels), width="column")  # panels stacked in one column (readable at 3.3 in)
    plotted = []
    for ax, (panel, _) in zip(axes, panels):
        for r in panel.rows.itertuples():
            d = agg[agg.cell == r.cell].sort_values("episode")
            k = d.episode.to_numpy(dtype=float)
            scale = np.sqrt(k) if view == "rate" else 1.0
            y, lo, hi = (d[c].to_numpy(dtype=float) / scale for c in ("mean", "ci_low", "ci_high"))
            ls = style.NOISE_OFF["ls"] if r.noise_off else "-"
            ax.plot(k, y, color=colours[r.line], ls=ls, label=r.line)
            ax.fill_between(k, lo, hi, color=colours[r.line], alpha=0.2, lw=0)
            plotted.append(np.concatenate([y, lo, hi]))
            f = fits[fits.cell == r.cell].iloc[0]
            if view == "regret" and np.isfinite(f.exponent):
                x = np.geomspace(f.window_lo, f.window_hi, 20)
                ax.plot(x, np.exp(f.log_intercept) * x ** f.exponent, color=colours[r.line], ls=":", lw=1.0,
                        label="_fit")
        style.panel_title(ax, panel.title, fig._privrl_ncols)
        ax.set_xscale("log")
    if view == "regret" and plotted:
        for ax in axes:
            style.log_axis(ax, np.concatenate(plotted), "y")
    ylabel = "regret / √K" if view == "rate" else "cumulative regret"
    style.label_axes(fig, axes, "episodes K", ylabel)
    if title:
        fig.suptitle(title)
    fit_key = [(Line2D([], [], color="grey", ls=":"), "fitted K^a")] if view == "regret" else []
    style.legend_outside(fig, where="bottom", extra=fit_key)
    style.save_figure(fig, path_stem)


def save_or_placeholder(fig, path, name: str) -> None:
    """Save ``fig`` as <stem>.pdf and <stem>.png (``path`` with either suffix or none); for a
    table-only analysis write a small figure saying so."""
    if fig is None:
        style.use_paper_style()
        fig, ax = plt.subplots(figsize=(style.COLUMN_WIDTH, 0.8))
        ax.axis("off")
        ax.text(0.5, 0.5, f"{name}: table only (see {name}.md)", ha="center", va="center")
    style.save_figure(fig, path)


def grouped_errorbars(ax, series: dict, n_groups: int, tick_labels: list, width: float) -> None:
    """Dodged point-and-CI markers: one series per label, one position per group.

    series: {label: DataFrame with columns regret, regret_lo, regret_hi, one row per group in
    tick order (NaN rows allowed)}. Series j sits at group index + j * width.
    """
    for j, (label, d) in enumerate(series.items()):
        ax.errorbar(np.arange(n_groups) + j * width, d.regret, yerr=[d.regret - d.regret_lo, d.regret_hi - d.regret],
                    fmt="o", ms=4, capsize=2, label=label)
    ax.set_xticks(np.arange(n_groups) + (len(series) - 1) * width / 2, tick_labels)
