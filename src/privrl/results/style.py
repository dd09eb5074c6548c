"""The one figure style of privrl: paper-ready figures (matplotlib, Agg backend).

For the authors of figure code (``results/figures.py``, ``papers/*``), the whole contract:

- ``fig, axes = panels(n)``: a constrained-layout grid of ``n`` panels under :data:`STYLE`,
  stacked in one 3.3 in column (8 pt text; docs/decisions/figures.md); ``axes`` is a flat list.
  Or wrap your own code in ``with paper_style(): ...``.
- ``grid_by(curves, by=[...], max_lines=8)``: split a table of curves (one row per line) into
  panels of at most 8 lines; each :class:`Panel` has a human ``title`` and its rows.
- ``cell_label(agent, params, ...)`` / ``agent_name(agent)`` / ``param_text(name, value)``:
  human labels (``"PUCB, ε=10"``) instead of cell ids; ``vary=`` keeps only the parameters that
  differ between the lines of a panel (the rest go into the panel title).
- ``eps_colors(eps_values)``: one sequential colour per epsilon (log scale, the same epsilon has
  the same colour in every panel); :data:`NOISE_OFF` is the style of a noise-off line.
- ``log_axis(ax, values, "y")``: log scale, or symlog when ``values`` hold zeros or negatives
  (a log axis would silently drop them). For rates, plot regret / sqrt(K) or regret / K on a
  linear axis instead: a flat regret / sqrt(K) is a sqrt(K) rate.
- ``label_axes(fig, axes, xlabel, ylabel)`` and ``panel_title(ax, text)``: labels once per grid,
  titles wrapped to the panel width.
- ``legend_outside(ax_or_fig)``: the legend right of the axes (or below the figure), never over
  the data; on a figure it merges the panels' entries (one entry per label).
- ``save_figure(fig, path_stem)``: ``<stem>.pdf`` (vector) and ``<stem>.png`` (300 dpi), each
  written atomically (:mod:`privrl.io`); closes the figure.
- ``min_font_size(fig)`` and ``lines_per_panel(fig)``: what the tests check (>= 8 pt, <= 8 lines).
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from privrl import io  # noqa: E402

COLUMN_WIDTH = 3.3  # inches: one column of a two-column paper
FULL_WIDTH = 6.9  # inches: the page width of a two-column paper
PANEL_HEIGHT = 2.0  # inches per row of panels
MAX_LINES = 8  # curves per panel
MIN_FONT = 8.0  # points
READABLE_FONT = 6.0  # points: the smallest text once a figure is scaled to COLUMN_WIDTH (docs/decisions/figures.md)
PNG_DPI = 300
EPS_CMAP = "viridis"  # sequential: small eps (more noise) dark, large eps light
# lines that are not an eps scale: tab10 without its blue and green (too close to viridis)
QUALITATIVE = ("#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")

STYLE: dict = {
    "font.size": MIN_FONT,
    "axes.titlesize": MIN_FONT,
    "axes.labelsize": MIN_FONT,
    "xtick.labelsize": MIN_FONT,
    "ytick.labelsize": MIN_FONT,
    "legend.fontsize": MIN_FONT,
    "legend.title_fontsize": MIN_FONT,
    "figure.titlesize": 9,
    "font.family": "DejaVu Sans",
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.2,
    "legend.frameon": False,
    "savefig.dpi": PNG_DPI,
    "figure.dpi": 100,
    "pdf.fonttype": 42,  # TrueType in the PDF: editable, searchable text
    "ps.fonttype": 42,
    "axes.formatter.use_mathtext": True,
}

# a noise-off line (the same algorithm on exact counts): black, dashed
NOISE_OFF = {"color": "black", "ls": "--"}

# human names of agent-id tokens and of parameters; anything else is shown as it is
_UPPER_TOKENS = {"ucbvi", "pucb", "obi", "ldp", "jdp", "sdp", "pe", "dp", "rlsvi", "ucb", "rl", "ql"}
PARAM_NAMES: dict[str, str] = {
    "epsilon": "ε",
    "delta": "δ",
    "beta": "β",
    "beta_scale": "β scale",
    "bonus_scale": "bonus ×",
    "tau": "τ",
    "tau_power": "τ exponent",
    "C1": "C₁",
    "max_policies": "max policies",
}
_NO_EQUALS = {"bonus_scale"}  # shown as "bonus ×0.1", not "bonus ×=0.1"


def use_paper_style() -> None:
    """Set :data:`STYLE` for the rest of the process (a figure script's first line; :func:`panels`
    calls it: titles, labels and legends take the rcParams current when they are drawn)."""
    matplotlib.rcParams.update(STYLE)


@contextlib.contextmanager
def paper_style() -> Iterator[None]:
    """Matplotlib rcParams of :data:`STYLE` for the duration of the block."""
    with matplotlib.rc_context(STYLE):
        yield


def panels(n: int, width: str | float = "column", ncols: int | None = None, height: float = PANEL_HEIGHT,
           sharex: bool = True, sharey: bool = True):
    """(figure, axes list of length n): a grid of ``n`` panels in the paper style.

    width: "column" (3.3 in, the default: 8 pt text prints at 8 pt in a column), "full" (6.9 in:
    only for a figure* spanning both columns; its 8 pt text prints at 3.8 pt if shrunk to one
    column, which privrl.results.figure_check flags) or inches; ncols defaults to 1 at column
    width and up to 3 at full width. Unused grid cells are removed.
    """
    w = {"column": COLUMN_WIDTH, "full": FULL_WIDTH}.get(width, width) if isinstance(width, str) else float(width)
    ncols = ncols or max(1, min(n, 1 if w <= COLUMN_WIDTH else 3))
    nrows = math.ceil(n / ncols)
    use_paper_style()
    fig, axes = plt.subplots(nrows, ncols, figsize=(w, height * nrows + 0.4), squeeze=False,
                             sharex=sharex, sharey=sharey, layout="constrained")
    flat = list(axes.ravel())
    for ax in flat[n:]:
        fig.delaxes(ax)
    for ax in flat[:n]:
        ax.tick_params(labelleft=True, labelbottom=True)  # shared axes: keep every panel readable
    fig._privrl_ncols = ncols
    return fig, flat[:n]


def label_axes(fig, axes, xlabel: str, ylabel: str) -> None:
    """Axis labels once per grid: y on the first column, x on the lowest panel of each column."""
    ncols = getattr(fig, "_privrl_ncols", 1)
    for i, ax in enumerate(axes):
        if i % ncols == 0:
            ax.set_ylabel(ylabel)
        if i + ncols >= len(axes):
            ax.set_xlabel(xlabel)


def panel_title(ax, text: str, ncols: int = 3) -> None:
    """A panel title wrapped to the panel's width (about 26 characters at 3 panels a row),
    breaking after commas first."""
    import textwrap

    width = {1: 40, 2: 36}.get(ncols, 26)  # 1: a 3.3 in column holds ~45 characters of 8 pt text
    lines: list[str] = []
    for part in text.split(", "):
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] += ", " + part
        else:
            if lines:
                lines[-1] += ","
            lines += textwrap.wrap(part, width) or [""]
    ax.set_title("\n".join(lines))


# ----------------------------------------------------------------------------- labels
def agent_name(agent: str, reconstruction: bool = False) -> str:
    """Display name of an agent id: ``private-ucbvi-jdp`` -> ``Private-UCBVI-JDP``."""
    parts = str(agent).split("+")
    name = "-".join(t.upper() if t.lower() in _UPPER_TOKENS else t.capitalize() for t in parts[0].split("-"))
    name += "".join(f" ({p})" for p in parts[1:])  # a cell tag: agent+tag
    return name + (" (recon.)" if reconstruction else "")


def param_text(name: str, value) -> str:
    """``ε=10``, ``bonus ×0.1``, ``noise off``: one parameter for a label."""
    if name == "noise":
        return "noise off" if float(value) == 0 else "noise on"
    shown = PARAM_NAMES.get(name, name)
    v = f"{value:.4g}" if isinstance(value, (float, np.floating)) else str(value)
    return f"{shown}{v}" if name in _NO_EQUALS else f"{shown}={v}"


def cell_label(agent: str | None, params: Mapping[str, float], vary: Iterable[str] | None = None,
               reconstruction: bool = False) -> str:
    """Human label of a cell: agent display name and parameters (only ``vary`` if given; no agent
    name if ``agent`` is None). A noise-off cell shows "noise off" instead of its epsilon."""
    params = {k: v for k, v in params.items() if v is not None and not (isinstance(v, float) and math.isnan(v))}
    noise_off = "noise" in params and float(params["noise"]) == 0
    keys = [k for k in (params if vary is None else vary) if k in params]
    if noise_off:
        keys = [k for k in keys if k != "epsilon"]
        keys = keys if "noise" in keys else keys + ["noise"]
    else:
        keys = [k for k in keys if k != "noise"]
    keys = sorted(keys, key=lambda k: (k != "epsilon", k != "noise", k))
    head = [agent_name(agent, reconstruction)] if agent else []
    return ", ".join(head + [param_text(k, params[k]) for k in keys])


# ----------------------------------------------------------------------------- colours
def eps_colors(eps: Iterable[float], cmap: str = EPS_CMAP) -> dict[float, tuple]:
    """epsilon -> RGBA on a log scale (the same epsilon, the same colour in every panel)."""
    values = sorted({float(e) for e in eps if e is not None and np.isfinite(e) and e > 0})
    if not values:
        return {}
    cm = plt.get_cmap(cmap)
    lo, hi = math.log(values[0]), math.log(values[-1])
    pos = [0.5 if hi == lo else (math.log(v) - lo) / (hi - lo) for v in values]
    return {v: cm(0.05 + 0.8 * p) for v, p in zip(values, pos)}  # skip viridis' faint yellow end


def qualitative_colors(n: int) -> list[str]:
    """n colours for lines that are not an eps scale (cycling after 8)."""
    return [QUALITATIVE[i % len(QUALITATIVE)] for i in range(n)]


# ----------------------------------------------------------------------------- axes
def log_axis(ax, values, axis: str = "y") -> str:
    """Log scale on ``axis``; symlog (linear around 0) when ``values`` hold zeros or negatives.

    Returns the scale used. The symlog linear threshold is the smallest positive magnitude in
    the data (at least 1e-12), so every point is shown and the log part spans the data.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    set_scale = ax.set_yscale if axis == "y" else ax.set_xscale
    if v.size and (v > 0).all():
        set_scale("log")
        return "log"
    pos = np.abs(v[v != 0])
    set_scale("symlog", linthresh=max(float(pos.min()) if pos.size else 1.0, 1e-12))
    return "symlog"


def legend_outside(target, where: str = "right", title: str | None = None, extra=(), **kwargs):
    """A legend outside the data: right of the axes, or of the whole figure (``where`` "right"
    or "bottom"); a figure legend merges every panel's entries, one per label. extra: more
    (handle, label) pairs, e.g. a proxy ``Line2D`` for a line style ("fitted K^a")."""
    if isinstance(target, matplotlib.figure.Figure):
        handles, labels = {}, []
        for ax in target.axes:
            for h, lab in list(zip(*ax.get_legend_handles_labels())):
                if lab not in handles:
                    handles[lab] = h
                    labels.append(lab)
        if not labels:
            return None
        for h, lab in extra:
            handles[lab] = h
            labels.append(lab)
        loc = {"right": "outside right upper", "bottom": "outside lower center"}[where]
        entry = 0.55 + 0.075 * max(len(lab) for lab in labels)  # inches: handle + 8 pt text
        ncol = 1 if where == "right" else max(1, min(len(labels), int(target.get_figwidth() // entry)))
        if where == "bottom":  # grow the figure by the legend's rows: the panels keep their height
            target.set_figheight(target.get_figheight() + 0.16 * math.ceil(len(labels) / ncol) + 0.1)
        return target.legend([handles[lab] for lab in labels], labels, loc=loc, ncol=ncol, title=title, **kwargs)
    handles, labels = target.get_legend_handles_labels()
    if not labels:
        return None
    handles, labels = handles + [h for h, _ in extra], labels + [lab for _, lab in extra]
    if where == "bottom":
        return target.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2, title=title,
                             **kwargs)
    return target.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                         title=title, **kwargs)


# ----------------------------------------------------------------------------- panels
@dataclass(frozen=True)
class Panel:
    """One panel: its title and its curves (rows of the table given to :func:`grid_by`)."""
    title: str
    rows: pd.DataFrame


def grid_by(curves: pd.DataFrame, by: Sequence[str], max_lines: int = MAX_LINES, order: str | None = None,
            title=None) -> list[Panel]:
    """Split a table of curves (one row per line) into panels of at most ``max_lines`` rows.

    by: the columns a panel shares (e.g. ["agent"]); order: the column lines are sorted by in a
    panel (e.g. "epsilon"), and split on when a group has more than ``max_lines`` ("(1/2)" ...).
    title: ``f(keys: dict) -> str``; default "col=value, ..." of the ``by`` columns.
    """
    if curves.empty:
        return []
    by = list(by)
    title = title or (lambda keys: ", ".join(f"{k}={v}" for k, v in keys.items()))
    out = []
    groups = curves.groupby(by, sort=False, dropna=False) if by else [((), curves)]
    for key, rows in groups:
        key = key if isinstance(key, tuple) else (key,)
        if order is not None and order in rows:
            rows = rows.sort_values(order, na_position="last", kind="stable")
        name = title(dict(zip(by, key)))
        chunks = [rows.iloc[i:i + max_lines] for i in range(0, len(rows), max_lines)]
        for j, chunk in enumerate(chunks):
            out.append(Panel(name if len(chunks) == 1 else f"{name} ({j + 1}/{len(chunks)})", chunk))
    return out


# ----------------------------------------------------------------------------- output
def figure_paths(path_stem) -> tuple[Path, Path]:
    """(<stem>.pdf, <stem>.png); a given .pdf/.png suffix is dropped first."""
    p = Path(path_stem)
    stem = p.with_suffix("") if p.suffix in (".pdf", ".png") else p
    return stem.with_name(stem.name + ".pdf"), stem.with_name(stem.name + ".png")


def save_figure(fig, path_stem, close: bool = True) -> tuple[Path, Path]:
    """Write ``<stem>.pdf`` (vector) and ``<stem>.png`` (300 dpi), each atomically; the PNG
    carries the figure's :func:`readability` record (text chunk ``privrl:figure``, JSON), which
    :mod:`privrl.results.figure_check` checks."""
    import json

    pdf, png = figure_paths(path_stem)
    record = json.dumps(readability(fig), sort_keys=True)
    io.save_figure(fig, pdf, metadata={"CreationDate": None})  # no timestamp: the same figure, the same bytes
    io.save_figure(fig, png, dpi=PNG_DPI, metadata={"privrl:figure": record})
    if close:
        plt.close(fig)
    return pdf, png


def min_font_size(fig) -> float:
    """The smallest size (pt) of any visible, non-empty text of the figure."""
    fig.canvas.draw()
    sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) if sizes else float("inf")


def lines_per_panel(fig) -> int:
    """The most labelled lines (legend entries, not fits or guides) in any one panel."""
    return max((sum(1 for ln in ax.get_lines() if not ln.get_label().startswith("_")) for ax in fig.axes), default=0)


def readability(fig) -> dict:
    """What a reader sees when the figure is printed at its width (:data:`COLUMN_WIDTH` or
    :data:`FULL_WIDTH`; another width is scaled to a column): ``width_in``, ``height_in``,
    ``min_font_pt``, ``column_font_pt`` (the smallest text at the printed width), ``lines_per_panel``,
    ``legends`` (how many), ``legends_over_axes`` (legends whose box overlaps a panel),
    ``texts_cut_off`` (texts reaching past the figure's edge), ``tick_overlaps`` (pairs of drawn
    tick labels printed over each other), ``texts`` (every visible text, for the id check) and
    ``lines`` (per panel: each data line's dash, marker, marker spacing and display path, for
    the hidden-line check of :mod:`privrl.results.figure_check`)."""
    if not hasattr(fig.canvas, "get_renderer"):  # a closed figure (plt.close) still saves: give it a canvas
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    width = float(fig.get_figwidth())
    font = float(min_font_size(fig))  # draws the figure (layout done)
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    boxes = [ax.get_window_extent(renderer) for ax in fig.axes if ax.get_visible() and ax.axison]
    over = sum(1 for lg in legends if lg.get_visible()
               for b in boxes if b.overlaps(lg.get_window_extent(renderer)))
    page = fig.bbox.padded(1.0)  # display units; 1 px of slack
    texts = [fig._suptitle, fig._supxlabel, fig._supylabel, *fig.texts]  # tick labels excluded (undrawn ones keep stale positions)
    for ax in fig.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
    for lg in legends:
        texts += [*lg.get_texts(), lg.get_title()]
    clipped = sum(1 for t in texts if t is not None and t.get_visible() and t.get_text().strip()
                  and not _inside(t.get_window_extent(renderer), page))
    printed = width if any(abs(width - w) < 0.05 for w in (COLUMN_WIDTH, FULL_WIDTH)) else COLUMN_WIDTH
    return {"width_in": round(width, 3), "height_in": round(float(fig.get_figheight()), 3), "min_font_pt": font,
            "column_font_pt": round(font * min(1.0, printed / width), 2),
            "lines_per_panel": int(lines_per_panel(fig)), "legends": len(legends), "legends_over_axes": int(over),
            "texts_cut_off": int(clipped), "tick_overlaps": tick_overlaps(fig),
            "texts": sorted({t.get_text() for t in fig.findobj(matplotlib.text.Text)
                             if t.get_visible() and t.get_text().strip()}),
            "lines": [data_lines(ax) for ax in fig.axes]}


def drawn_ticklabels(axis) -> list:
    """The tick labels ``axis`` draws (visible, non-empty, inside the view limits)."""
    return [t.label1 for t in axis._update_ticks() if t.label1.get_visible() and t.label1.get_text().strip()]


def tick_overlaps(fig) -> int:
    """Pairs of drawn tick labels (one axis) whose boxes overlap: numbers printed over each other."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    n = 0
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            boxes = [t.get_window_extent(r).shrunk(0.98, 0.98) for t in drawn_ticklabels(axis)]
            n += sum(1 for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b))
    return n


def data_lines(ax, max_points: int = 80) -> dict:
    """One panel's data lines (>= 3 points, visible): title, and per line its dash, marker,
    marker spacing and display path (pixels at the figure's dpi, <= ``max_points`` points)."""
    out = []
    for ln in ax.get_lines():
        xy = np.column_stack([np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)])
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not ln.get_visible() or len(xy) < 3:
            continue
        px = ax.transData.transform(xy)
        px = px[np.linspace(0, len(px) - 1, min(len(px), max_points)).round().astype(int)]
        out.append({"ls": str(ln.get_linestyle()), "marker": str(ln.get_marker()), "every": repr(ln.get_markevery()),
                    "path": np.round(px, 1).tolist()})
    return {"title": ax.get_title(), "lines": out}


def _inside(box, page) -> bool:
    return box.x0 >= page.x0 and box.x1 <= page.x1 and box.y0 >= page.y0 and box.y1 <= page.y1
