"""Figures of the workflow (Agg backend): pure functions of aggregated DataFrames, turned into tidy
frames and drawn by the one figure layer :mod:`privrl.results.facets` (PDF + 300 dpi PNG)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from privrl.results import facets, style  # noqa: E402


def regret_curves(fits: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (a curve): cell, head (agent[+tag]), recon, params (dict of the cell's
    resolved parameters), epsilon (nan when the agent has none), noise_off (bool), label (the
    config's ``label:``, "" when the cell has none)."""
    pcols = [c for c in fits if c.startswith("param_")]
    rows = []
    for r in fits.itertuples(index=False):
        d = r._asdict()
        params = {c[len("param_"):]: d[c] for c in pcols if pd.notna(d[c])}
        recon = bool(d.get("reconstruction", False)) if pd.notna(d.get("reconstruction", False)) else False
        head = str(d["cell"]).split("__")[0]
        noise_off = "noise" in params and float(params["noise"]) == 0
        label = str(d.get("label", "") or "")
        agent = str(d.get("agent", head) or head)
        if label in (str(d["cell"]), f"{agent} {facets.NOISE_OFF}", "nan"):  # no label: the cell id
            label = ""
        rows.append({"cell": d["cell"], "head": head, "recon": recon, "name": style.agent_name(head, recon),
                     "params": params, "epsilon": float(params.get("epsilon", np.nan)), "noise_off": noise_off,
                     "label": label})
    return pd.DataFrame(rows)


def _varying(params: list[dict], exclude=("epsilon", "noise")) -> list[str]:
    """Parameter names whose value differs between these cells (in key order of the first)."""
    keys = list(dict.fromkeys(k for p in params for k in p))
    return [k for k in keys if k not in exclude and len({p.get(k) for p in params}) > 1]


def curve_roles(curves: pd.DataFrame) -> pd.DataFrame:
    """``curves`` (:func:`regret_curves`) with ``panel``, ``line`` and ``eps`` of the figure layer.

    A private cell (an ε, noise on) draws in the panel of its series: its config label without
    the ε (the ε is its colour), or the agent's name and the non-ε parameters that vary; its
    noise-off twin joins that panel as "noise off". A cell without ε (UCBVI, PE, RLSVI) is a
    reference drawn in every panel under its own label; with no ε cell at all the figure is one
    panel of labelled lines.
    """
    c = curves.copy()
    vary = {h: _varying(list(g.params)) for h, g in c.groupby("head")}

    def series(r) -> str:
        if r.label:
            base = r.label[: -len(facets.NOISE_OFF)].strip() if r.noise_off and r.label.endswith(facets.NOISE_OFF) else r.label
            text = facets.without_eps(base) if np.isfinite(r.epsilon) else base  # no ε param: the label's ε names it
            return style.agent_name(text, r.recon) if text == r.head else facets.human(text)  # a label that is the id
        params = {k: v for k, v in r.params.items() if k not in ("noise", "epsilon")}
        return style.cell_label(r.head, params, vary[r.head], r.recon)

    c["series"] = [series(r) for r in c.itertuples()]
    private = c.epsilon.notna()
    c["eps"] = np.where(private & ~c.noise_off, c.epsilon, np.nan)
    if not private.any():
        c["panel"], c["line"] = "", c["series"]
        return c
    c["panel"] = np.where(private, c["series"], "")
    c["line"] = np.where(c.noise_off, facets.NOISE_OFF, np.where(private, "", c["series"]))
    return c


def regret_frame(agg: pd.DataFrame, fits: pd.DataFrame, view: str = "regret") -> tuple[pd.DataFrame, list[str]]:
    """(tidy frame of the regret figure, panel order): one row per (curve, checkpoint) with x = K,
    y (cumulative regret or regret / sqrt K), lo/hi (95% CI), panel, line, eps, curve = cell;
    reference cells (no ε) are repeated in every panel."""
    roles = curve_roles(regret_curves(fits))
    panels = [p for p in dict.fromkeys(roles.loc[roles.panel != "", "panel"])] or [""]
    parts = []
    for r in roles.itertuples():
        a = agg[agg.cell == r.cell].sort_values("episode")
        k = a.episode.to_numpy(dtype=float)
        scale = np.sqrt(k) if view == "rate" else 1.0
        f = pd.DataFrame({"x": k, "y": a["mean"].to_numpy(float) / scale, "lo": a.ci_low.to_numpy(float) / scale,
                          "hi": a.ci_high.to_numpy(float) / scale, "line": r.line, "eps": r.eps, "cell": r.cell})
        for p in ([r.panel] if r.panel or panels == [""] else panels):
            parts.append(f.assign(panel=p, curve=f"{p}|{r.cell}"))
    return pd.concat(parts, ignore_index=True), panels


def regret_vs_k(agg: pd.DataFrame, fits: pd.DataFrame, path_stem, title: str = "", view: str = "regret") -> None:
    """Regret vs K through the figure layer (:func:`privrl.results.facets.line_grid`): a panel per
    series (config label without ε), ε on a sequential colour bar, noise-off twins dashed black,
    non-private references in every panel, 95% CI bands; writes <stem>.pdf and <stem>.png.

    view: "regret" = cumulative regret, log-log (symlog if a value is <= 0), with the fitted
    K^a over the fit window dotted; "rate" = regret / sqrt(K) on a log K axis (flat = a sqrt(K)
    rate, rising = faster, falling = slower).
    agg: rows (cell, episode, mean, ci_low, ci_high); fits: rows (cell, label, agent, exponent,
    log_intercept, window_lo, window_hi, reconstruction, param_<name>...).
    """
    data, panels = regret_frame(agg, fits, view)
    if view == "regret":  # a log axis holds no regret of 0 (first episodes): dropped, not a symlog axis
        data = data[data["y"] > 0].copy()
        if "lo" in data:  # a band reaching 0 is drawn down to the axis floor (the smallest regret shown)
            data.loc[~(data["lo"] > 0), "lo"] = float(data["y"].min()) if len(data) else np.nan
    fit_of = fits.set_index("cell")

    def fitted(ax, _name, rows):
        if view != "regret":
            return
        for cell, c in rows.groupby("cell", sort=False):
            f = fit_of.loc[cell]
            if np.isfinite(f.exponent):
                x = np.geomspace(f.window_lo, f.window_hi, 20)
                colour = next(ln.get_color() for ln in ax.get_lines() if ln.get_label() == f"_{c.curve.iloc[0]}")
                ax.plot(x, np.exp(f.log_intercept) * x ** f.exponent, color=colour, ls=":", lw=1.0, label="_guide",
                        scaley=False)  # a fit outside the data does not stretch the axis

    fit_key = [(Line2D([], [], color="0.35", ls=":", lw=1.0), "fitted $K^a$ (fit window)")] if view == "regret" else []
    fig = facets.line_grid(data, xlabel="episodes K", ylabel="regret / $\\sqrt{K}$" if view == "rate" else "cumulative regret",
                           title=title, yscale="log" if view == "regret" else "linear", panel_order=panels,
                           decorate=fitted, extra_legend=fit_key)
    style.save_figure(fig, path_stem)


def save_or_placeholder(fig, path, name: str) -> None:
    """Save ``fig`` as <stem>.pdf and <stem>.png (``path`` with either suffix or none), made
    print-ready (:func:`facets.print_ready`: one legend, human text); for a table-only analysis
    write a small figure saying so."""
    if fig is None:
        style.use_paper_style()
        fig, ax = plt.subplots(figsize=(style.COLUMN_WIDTH, 0.8))
        ax.axis("off")
        ax.text(0.5, 0.5, "table only (see the analysis' Markdown table)", ha="center", va="center")
    style.save_figure(facets.print_ready(fig), path)
