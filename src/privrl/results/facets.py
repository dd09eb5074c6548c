"""The figure layer: a tidy long-format frame in, a paper figure out (seaborn ``FacetGrid``).

One call, :func:`line_grid`, draws every line figure of the workflow (regret vs K, privacy cost,
the papers' analysis figures) in the style of :mod:`privrl.results.style`:

- ``data``: one row per point, columns ``x``, ``y`` (and ``lo``/``hi`` for a 95% CI band),
  ``panel`` (the panel's human title), ``line`` (the legend entry of the line, "" for a line
  explained by the ε colour bar alone), ``eps`` (float; nan = not an ε line) and ``curve`` (one
  id per drawn curve; default: panel, line and eps);
- ε lines are coloured on one sequential log scale (:data:`style.EPS_CMAP`): with a colour bar
  when they take more than :data:`FEW_EPS` values, else with a legend entry per ε;
  other lines take a qualitative colour per legend entry (black for "noise off"); every legend
  entry has its own dash pattern and marker, so lines of the same colour stay distinguishable;
- lines of one panel that lie on top of each other get staggered markers (each colour shows)
  and the panel title says "(n lines overlapping)"; fitted guides (label ``_guide``) likewise,
  among themselves ("n fits overlapping");
- panels of different variables: ``sharex=False`` with an x label per panel; categorical tick
  labels of a hand-drawn panel fit between their ticks with :func:`category_ticks`;
- one legend per figure (below the panels), grids one column (3.3 in) wide for up to 2 panels,
  else page width (6.9 in) with 2-4 columns; rows shrink so that the figure stays within
  :data:`MAX_HEIGHT` (a caller with more panels splits its figure);
- human text only: :func:`human` turns a config label into print (ε, τ, ×, 10^k in mathtext).
"""
from __future__ import annotations

import math
import re
from typing import Callable, Sequence

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.colors import LogNorm, Normalize  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from privrl.results import style  # noqa: E402
from privrl.results.labels import at_k, human, sci, without_eps  # noqa: E402,F401  (re-exported: the layer's text)
from privrl.results.figure_check import FEW_HUE_LEVELS, OVERLAP_TOL_PX, close_paths  # noqa: E402

MAX_HEIGHT = 9.0  # inches: the tallest figure a page holds with its caption
ROW_HEIGHT = 1.9  # inches per row of panels (shrunk, down to MIN_ROW_HEIGHT, to fit MAX_HEIGHT)
MIN_ROW_HEIGHT = 1.35
# (dash pattern, marker) per legend entry, in order; "" = solid, no marker
LINE_STYLES: tuple[tuple[str, str], ...] = (("-", ""), ("--", ""), (":", "o"), ("-.", "s"), ("--", "^"),
                                            (":", "D"), ("-.", "v"), ("-", "x"))
NOISE_OFF = "noise off"
FEW_POINTS = 12  # a line of at most this many points is a set of measurements: each point marked (markers=True)
FEW_EPS = FEW_HUE_LEVELS  # at most this many ε values: a legend entry each (a colour bar suggests a continuum)


# ----------------------------------------------------------------------------- layout
def grid_shape(n_panels: int, width: str | None = None) -> tuple[float, int]:
    """(figure width in inches, columns): one column (3.3 in) for <= 2 panels stacked, else the
    page width (6.9 in) with 2 columns for 4 panels and 3 (4 past 12 panels) otherwise."""
    if width == "column" or (width is None and n_panels <= 2):
        return style.COLUMN_WIDTH, 1
    ncols = 2 if n_panels in (2, 4) else (3 if n_panels <= 12 else 4)
    return style.FULL_WIDTH, min(ncols, max(n_panels, 1))


def _row_height(nrows: int, extra: float) -> float:
    return max(MIN_ROW_HEIGHT, min(ROW_HEIGHT, (MAX_HEIGHT - 0.15 - extra) / max(nrows, 1)))


# ----------------------------------------------------------------------------- drawing
def eps_scale(eps_values: Sequence[float]):
    """(norm, colour of an ε): the one sequential ε scale of every figure (viridis on log ε,
    without its faint yellow end); a single ε takes one mid colour."""
    values = sorted({float(e) for e in eps_values if np.isfinite(e) and e > 0})
    norm = LogNorm(values[0] / 1.5, values[-1] * 1.5) if len(values) > 1 else Normalize(0, 1)
    cmap = plt.get_cmap(style.EPS_CMAP)

    def colour(e):
        return cmap(0.05 + 0.8 * float(np.clip(norm(e), 0, 1))) if len(values) > 1 else cmap(0.35)

    return norm, colour


def _line_styles(labels: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Legend entry -> (dash, marker): in order of first appearance."""
    out = {}
    for lab in labels:
        if lab not in out:
            out[lab] = LINE_STYLES[len(out) % len(LINE_STYLES)]
    return out


def _line_colours(labels: Sequence[str], eps_labels: set) -> dict[str, object]:
    """Legend entry -> colour of its non-ε lines: black for noise off, else qualitative."""
    out, others = {}, []
    for lab in labels:
        if lab == NOISE_OFF or lab.endswith(" " + NOISE_OFF):
            out[lab] = "black"
        elif lab not in others:
            others.append(lab)
    out.update(zip(others, style.qualitative_colors(len(others))))
    return out


def _overlap_groups(ax, curves: list[tuple[np.ndarray, np.ndarray]]) -> list[list[int]]:
    """Groups (indices into ``curves``) of curves linked by running within twice
    OVERLAP_TOL_PX of each other at every x (display space of ``ax``: limits, scales and layout
    set; twice the check's tolerance, as a later title line shrinks the panel a little):
    connected components, so every pair the check would call hidden is in one group."""
    pts = []
    for x, y in curves:
        ok = np.isfinite(x) & np.isfinite(y)
        pts.append(ax.transData.transform(np.column_stack([x[ok], y[ok]])) if ok.any() else np.empty((0, 2)))
    root = list(range(len(pts)))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            if len(pts[i]) > 2 and len(pts[j]) > 2 and close_paths(pts[i], pts[j], 2 * OVERLAP_TOL_PX):
                root[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(pts)):
        groups.setdefault(find(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def line_grid(data: pd.DataFrame, *, xlabel: str, ylabel: str, title: str = "", xscale: str = "log",
              yscale: str = "log", panel_order: Sequence[str] | None = None, width: str | None = None,
              sharey: bool = True, eps_label: str = "privacy level ε", legend_title: str | None = None,
              decorate: Callable | None = None, extra_legend: Sequence[tuple[Line2D, str]] = (),
              bands: bool = True, markers: bool = False, ylabels: dict | None = None, sharex: bool = True,
              xlabels: dict | None = None, data_xticks: bool = False):
    """The figure of ``data`` (columns x, y, [lo, hi], [panel], [line], [eps], [curve]; see the
    module docstring): one panel per ``panel`` (in ``panel_order``), wrapped in a grid; one
    legend below; an ε colour bar when lines are coloured by ε.

    yscale "log" becomes symlog when a y value is <= 0 (:func:`style.log_axis`).
    decorate(ax, panel_title, rows): draws extra marks on a panel (fit windows, guides).
    extra_legend: more (handle, label) entries of the one legend (e.g. a dotted fit line); a third
    item names the panel(s) the entry is drawn in (default: every panel).
    Panels of different quantities (``ylabels``/``xlabels``) whose legend entries differ are
    lettered (a), (b), ... and each legend entry names its panels: one legend, no mixing.
    markers: mark every point of a line of at most :data:`FEW_POINTS` points (e.g. against ε);
    longer lines keep their legend entry's marker every tenth of the line.
    ylabels: a y label per panel title (panels of different quantities; use ``sharey=False``).
    xlabels: an x label per panel title (panels of different variables; use ``sharex=False``).
    data_xticks: x ticks at the data's x values only (a few small integers, e.g. X in {2, 3, 4}
    on a log axis, which would otherwise be labelled 2×10^0 ...).
    """
    d = data.copy()
    d["panel"] = d["panel"].astype(str) if "panel" in d else ""
    d["line"] = d["line"].fillna("").astype(str) if "line" in d else ""
    d["eps"] = d["eps"].astype(float) if "eps" in d else np.nan
    if "curve" not in d:
        d["curve"] = d["panel"] + "|" + d["line"] + "|" + d["eps"].map(repr)  # repr: pandas 3 keeps nan as missing in astype(str)
    order = list(panel_order) if panel_order is not None else list(dict.fromkeys(d["panel"]))
    order = [p for p in order if p in set(d["panel"])]
    fig_w, ncols = grid_shape(len(order), width)
    nrows = math.ceil(len(order) / ncols)
    labels = [lab for lab in dict.fromkeys(d["line"]) if lab]
    styles = _line_styles(labels)
    eps_lines = set(d.loc[d["eps"].notna(), "line"])
    colours = _line_colours(labels, eps_lines)
    eps_values = sorted(set(d.loc[d["eps"].notna() & (d["eps"] > 0), "eps"]))
    norm, eps_colour = eps_scale(eps_values)
    cmap = plt.get_cmap(style.EPS_CMAP)

    style.use_paper_style()
    n_legend = len(labels) + len(extra_legend)
    colour_bar = len(eps_values) > FEW_EPS
    n_legend += 0 if colour_bar else len(eps_values)
    legend_h = 0.2 + 0.16 * math.ceil(n_legend / max(1, 3 if fig_w > 4 else 1)) if n_legend else 0.0
    extra = legend_h + (0.55 if colour_bar else 0.0) + (0.3 if title else 0.0) + 0.35
    row_h = _row_height(nrows, extra)
    chars = max(16, int((fig_w / ncols - 0.45) / 0.068))  # 8 pt characters a panel title holds
    g = sns.FacetGrid(d, col="panel", col_order=order, col_wrap=ncols if len(order) > 1 else None,
                      height=row_h, aspect=fig_w / ncols / row_h, sharex=sharex, sharey=sharey, despine=True,
                      legend_out=False)
    fig = g.figure
    fig.set_layout_engine("constrained")
    fig.set_size_inches(fig_w, row_h * nrows + extra)
    all_y = d[[c for c in ("y", "lo", "hi") if c in d]].to_numpy(dtype=float).ravel()
    in_panels = {lab: [p for p in order if lab in set(d.loc[d["panel"] == p, "line"])] for lab in labels}
    letters = _panel_letters(order, in_panels, bool(ylabels or xlabels))
    titled = {p: f"{letters[p]} {p}" if p in letters else p for p in order}  # the panel's title as printed
    for name, ax in g.axes_dict.items():
        rows = d[d["panel"] == name]
        ax.set_xscale(xscale)
        if yscale == "log":
            style.log_axis(ax, all_y if sharey else rows[["y"]].to_numpy(dtype=float).ravel(), "y")
        else:
            ax.set_yscale(yscale)
        drawn = []
        for cid, c in rows.groupby("curve", sort=False):
            c = c.sort_values("x")
            lab, e = c["line"].iloc[0], c["eps"].iloc[0]
            colour = eps_colour(e) if np.isfinite(e) else colours.get(lab, "0.3")
            dash, marker = styles.get(lab, ("-", ""))
            x, y = c["x"].to_numpy(dtype=float), c["y"].to_numpy(dtype=float)
            every_point = markers and len(x) <= FEW_POINTS
            marker = marker or ("o" if every_point else "")
            (ln,) = ax.plot(x, y, ls=dash, marker=marker or None, markevery=None if every_point or not marker else 0.1,
                            ms=3, color=colour, label="_" + str(cid))
            if bands and "lo" in c and c["lo"].notna().any():
                ax.fill_between(x, c["lo"].to_numpy(dtype=float), c["hi"].to_numpy(dtype=float), color=colour,
                                alpha=0.18, lw=0)
            drawn.append((ln, x, y))
        if decorate is not None:
            decorate(ax, name, rows)
        if data_xticks:
            _ticks_at(ax.xaxis, sorted(set(rows["x"].dropna().astype(float))))
        ax.set_title(style.wrap_text(titled[name], chars))
    g.set_axis_labels(xlabel, ylabel)
    if not sharex:  # seaborn labels the bottom row only: every panel has its own x axis here
        for ax in g.axes.flat:
            ax.set_xlabel(xlabel)
    for name, lab in (ylabels or {}).items():
        if name in g.axes_dict:
            g.axes_dict[name].set_ylabel(lab)
    for name, lab in (xlabels or {}).items():
        if name in g.axes_dict:
            g.axes_dict[name].set_xlabel(lab)
    for ax in g.axes.flat:
        ax.tick_params(labelbottom=True, labelleft=True)
    few = {lab for lab, n in d.groupby("line")["curve"].apply(lambda c: c.value_counts().max()).items()
           if n <= FEW_POINTS}  # legend entries whose every line is a few marked points
    handles = [(Line2D([], [], color=colours.get(lab, "0.3") if lab not in eps_lines else "0.35",
                       ls=styles[lab][0], marker=styles[lab][1] or ("o" if markers and lab in few else None), ms=3), lab)
               for lab in labels]
    if not colour_bar:  # a few ε values: a legend entry each (first), not a continuum
        sym = next((w for w in reversed(eps_label.split()) if "ε" in w), "ε")  # ε, or ε₀ of a local level
        handles = [(Line2D([], [], color=eps_colour(e)), f"{sym} = {sci(e)}") for e in eps_values] + handles
    extra = [(h[0], h[1], order if len(h) < 3 else [p for p in order if p in ([h[2]] if isinstance(h[2], str) else h[2])])
             for h in extra_legend]
    if letters:  # panels of different quantities: each entry says its panel, grouped by panel
        rank = {p: i for i, p in enumerate(order)}
        eps_n = 0 if colour_bar else len(eps_values)
        where = [order] * eps_n + [in_panels[lab] for lab in labels]
        items = [(h, lab, w) for (h, lab), w in zip(handles, where)] + extra
        items.sort(key=lambda it: (len(it[2]) == len(order), rank[it[2][0]] if it[2] else 0))
        handles = [(h, lab if len(w) == len(order) else " ".join(letters[p] for p in w) + " " + lab)
                   for h, lab, w in items]
    else:
        handles += [(h, lab) for h, lab, _w in extra]
    if colour_bar:
        sm = matplotlib.cm.ScalarMappable(norm=norm, cmap=matplotlib.colors.ListedColormap(
            cmap(np.linspace(0.05, 0.85, 256))))
        sm.set_array(np.asarray(eps_values, float))  # the values it stands for (figure_check counts them)
        cb = fig.colorbar(sm, ax=list(g.axes.flat), location="bottom", shrink=0.6 if fig_w > 4 else 0.9,
                          aspect=30, pad=0.02)
        cb.set_label(eps_label)
        shown = _spaced(eps_values, norm, (fig_w * (0.6 if fig_w > 4 else 0.9)) - 0.2)
        cb.set_ticks(shown, labels=[sci(e) for e in shown])
        cb.minorticks_off()
    if handles:
        entry = 0.6 + 0.07 * max(len(re.sub(r"\$[^$]*\$", "xx", h[1])) for h in handles)  # inches: handle + text
        ncol = max(1, min(3, int((fig_w - 0.2) // entry)))
        fig.legend([h for h, _ in handles], [lab for _, lab in handles], loc="outside lower center",
                   ncol=min(ncol, len(handles)), title=legend_title)
    if title:
        fig.suptitle(title)
    fig.canvas.draw()  # the final layout: overlaps are judged where the lines are drawn
    for name, ax in g.axes_dict.items():
        note = _mark_overlaps(ax)
        if note:
            ax.set_title(f"{style.wrap_text(titled[name], chars)}\n({note})" if titled[name] else note)
    fig.canvas.draw()  # tick labels that still collide are thinned
    for ax in g.axes.flat:
        _declutter(fig, ax)
    return fig


def _panel_letters(order: Sequence[str], in_panels: dict, different: bool) -> dict[str, str]:
    """Panel -> "(a)", "(b)", ... when the panels show different quantities (``different``: their
    own x or y labels) and some legend entry is drawn in only some of them: the one legend then
    says which panel each entry belongs to; else {} (entries shared by every panel need no letter)."""
    if not different or not 1 < len(order) <= 6 or all(len(w) == len(order) for w in in_panels.values()):
        return {}
    return {p: f"({chr(ord('a') + i)})" for i, p in enumerate(order)}


def _mark_overlaps(ax) -> str:
    """Stagger the markers of ``ax``'s lines that run on top of each other (every colour of a
    group shows) and return what the panel title says about them ("" when none): "3 lines
    overlapping", "2 fits overlapping" or both. Data lines are grouped among data lines and
    fitted guides (label ``_guide``, dotted) among guides: a guide always differs from a data
    line in dash, and lies on its own curve by design."""
    def drawn(ln) -> bool:
        return ln.get_label().startswith("_") and len(ln.get_xdata()) > 2

    notes = []
    for what, keep in (("lines", lambda ln: not ln.get_label().startswith("_guide")),
                       ("fits", lambda ln: ln.get_label().startswith("_guide"))):
        lines = [ln for ln in ax.get_lines() if drawn(ln) and keep(ln)]
        groups = _overlap_groups(ax, [(np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float))
                                      for ln in lines])
        for grp in groups:
            n = len(grp)
            for j, i in enumerate(grp):  # staggered markers: every line of the group shows its colour
                lines[i].set_marker("o")
                lines[i].set_markersize(3.5 - 1.5 * j / max(n - 1, 1))
                lines[i].set_markevery((0.02 + 0.1 * j / n, 0.1))
        if groups:
            notes.append(f"{sum(len(gr) for gr in groups)} {what}")
    return " and ".join(notes) + " overlapping" if notes else ""


def _ticks_at(axis, values: Sequence[float]) -> None:
    """Major ticks of ``axis`` at ``values`` only, labelled as print (:func:`sci`); no minor labels."""
    from matplotlib.ticker import FixedLocator, FixedFormatter, NullLocator

    decades = [math.log10(v) for v in values if v > 0]
    if 1 < len(decades) == len(values) and all(d == round(d) for d in decades) and max(decades) - min(decades) > 2:
        labels = [f"$10^{{{round(d)}}}$" for d in decades]  # powers of ten alike: 10^-7 ... 10^-3, not 0.001
    else:
        labels = [sci(v) for v in values]
    axis.set_major_locator(FixedLocator(list(values)))
    axis.set_major_formatter(FixedFormatter(labels))
    axis.set_minor_locator(NullLocator())


def category_ticks(ax, labels: Sequence[str]) -> None:
    """Categorical x tick labels at 0, 1, ... that never print over each other: each label (as
    print, :func:`human`) is broken after its commas, then at spaces, into lines as wide as the
    room between two ticks (8 pt text, about 0.068 in a character)."""
    fig = ax.figure
    fig.canvas.draw()
    width_in = ax.get_window_extent(fig.canvas.get_renderer()).width / fig.dpi
    chars = max(6, int(width_in / max(len(labels), 1) / 0.068) - 1)
    ax.set_xticks(np.arange(len(labels)), [style.wrap_text(human(str(lab)), chars) for lab in labels])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def _declutter(fig, ax) -> None:
    """Tick labels of ``ax`` that print over each other: drop the minor labels (a log axis within
    a decade labels its minor ticks), then, if fewer than two labels remain, label 1-2-5 (log) or
    at most 4 ticks (linear)."""
    from matplotlib.ticker import LogFormatterSciNotation, LogLocator, MaxNLocator, NullFormatter

    r = fig.canvas.get_renderer()
    for axis in (ax.xaxis, ax.yaxis):
        boxes = [t.get_window_extent(r) for t in style.drawn_ticklabels(axis)]
        if not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]):
            continue
        axis.set_minor_formatter(NullFormatter())
        fig.canvas.draw()
        if len(style.drawn_ticklabels(axis)) < 2:
            log = axis.get_scale() == "log"
            axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)) if log else MaxNLocator(4))
            if log:
                axis.set_major_formatter(LogFormatterSciNotation(labelOnlyBase=False))
            fig.canvas.draw()


def _spaced(values: Sequence[float], norm, bar_in: float, char_in: float = 0.075) -> list[float]:
    """The ε values whose tick labels fit side by side on a colour bar ``bar_in`` inches long
    (8 pt labels, about ``char_in`` inches a character): neighbours too close are dropped."""
    out: list[float] = []
    for v in values:
        pos = float(norm(v)) * bar_in
        if out:
            prev = float(norm(out[-1])) * bar_in
            if pos - prev < char_in * (len(sci(v)) + len(sci(out[-1]))) / 2 + 0.08:
                continue
        out.append(v)
    return out


def lines_frame(panels: Sequence[tuple[str, Sequence[tuple]]], floor: float = 1e-3) -> pd.DataFrame:
    """The tidy frame of ``[(panel title, [(x, mean, lo, hi, label, style), ...]), ...]`` (the
    line tuples the papers' analyses collect): ``eps`` read from the label's ``eps=``/``eps0=``
    (the line's colour), ``line`` the label without it, values floored at ``floor`` for log axes;
    ``style`` is left to the layer (a dash per legend entry)."""
    parts = []
    for title, lines in panels:
        for i, (x, m, lo, hi, label, _style) in enumerate(lines):
            e = re.search(r"(?:eps0?|ε₀?)\s*=\s*([0-9.]+(?:[eE][-+]?\d+)?)", label)
            band = lo is not None and hi is not None
            parts.append(pd.DataFrame({
                "x": np.asarray(x, float), "y": np.maximum(np.asarray(m, float), floor),
                "lo": np.maximum(np.asarray(lo, float), floor) if band else np.nan,
                "hi": np.maximum(np.asarray(hi, float), floor) if band else np.nan,
                "panel": human(title), "line": human(without_eps(label)), "eps": float(e.group(1)) if e else np.nan,
                "curve": f"{title}|{i}"}))
    return pd.concat(parts, ignore_index=True)


def print_ready(fig):
    """A figure drawn by hand (a theorem check, an analysis not yet on :func:`line_grid`) made
    print-ready in place: its texts through :func:`human` (ε, τ, 10^k; tick labels are left as
    drawn) and its panels' legends merged into one legend below the figure; when the panels'
    legends differ, the panels are lettered (a), (b), ... and each entry names its panel (one
    legend that does not mix two panels' series). Returns ``fig``."""
    ticks = {id(t) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
             for t in axis.get_ticklabels(which="both")}
    for t in fig.findobj(matplotlib.text.Text):
        if id(t) not in ticks and t.get_text().strip():
            t.set_text(human(t.get_text()))
    for ax in fig.axes:  # categorical tick labels (set_xticks(..., labels)) are text too
        for axis in (ax.xaxis, ax.yaxis):
            f = axis.get_major_formatter()
            if isinstance(f, matplotlib.ticker.FixedFormatter):
                f.seq = [human(x) for x in f.seq]
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    if len(legends) + len(fig.legends) > 1:
        seen: dict[str, object] = {}
        own = {id(ax.get_legend()): ax for ax in fig.axes if ax.get_legend() is not None}
        where: dict[str, list] = {}  # entry -> the panels whose legend holds it
        for lg in legends:
            for t in lg.get_texts():
                where.setdefault(t.get_text(), []).append(own[id(lg)])
        panels = [ax for ax in fig.axes if ax.get_legend() is not None]
        # panels whose legends differ: letter them, and each merged entry names its panels
        letters = ({ax: f"({chr(ord('a') + i)})" for i, ax in enumerate(panels)}
                   if len(panels) > 1 and any(len(w) < len(panels) for w in where.values()) else {})
        for ax, letter in letters.items():
            ax.set_title(f"{letter} {ax.get_title()}" if ax.get_title() else letter)
        for lg in list(fig.legends) + legends:
            for h, t in zip(lg.legend_handles, lg.get_texts()):
                text, w = t.get_text(), where.get(t.get_text(), [])
                if letters and w and len(w) < len(panels):
                    text = " ".join(letters[ax] for ax in w) + " " + text
                seen.setdefault(text, h)
            lg.remove()
        fig.legends.clear()
        wide = fig.get_figwidth() > 4
        fig.legend(list(seen.values()), list(seen), loc="outside lower center",
                   ncol=min(len(seen), 3 if wide else (2 if max(map(len, seen)) <= 22 else 1)))
    return fig
