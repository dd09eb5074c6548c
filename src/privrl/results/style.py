"""The one figure style of privrl: paper-ready figures (matplotlib, Agg backend).

Figures are drawn by the figure layer :mod:`privrl.results.facets` (a tidy frame in, a seaborn
grid out) or, for a theorem check's one-panel figure, with :func:`use_paper_style`. This module
holds what every figure shares:

- :data:`STYLE` (8 pt text, light grid, TrueType in the PDF), :func:`use_paper_style` and
  :func:`paper_style`; the widths :data:`COLUMN_WIDTH` (3.3 in) and :data:`FULL_WIDTH` (6.9 in);
- human labels: ``agent_name(agent)``, ``param_text(name, value)``, ``cell_label(agent, params)``
  (``"PUCB, ε=10"`` instead of cell ids); ``panel_title(ax, text)`` wraps a title to its panel;
- ``qualitative_colors(n)`` for lines that are not an ε scale (ε uses :data:`EPS_CMAP`);
- ``log_axis(ax, values, "y")``: log scale, or symlog when ``values`` hold zeros or negatives;
- ``save_figure(fig, path_stem)``: ``<stem>.pdf`` (vector, no creation date) and ``<stem>.png``
  (300 dpi) written atomically, the PNG carrying the figure's :func:`readability` record that
  :mod:`privrl.results.figure_check` checks.
"""
from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

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


def wrap_text(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, breaking after commas and before
    parentheses first; mathtext (``$...$``) is never broken and counts as the characters it
    prints (``$5.6\\times10^{5}$``: 7)."""
    import re
    import textwrap

    maths: list[str] = []

    def hold(m) -> str:  # a placeholder without spaces, as long as what the mathtext prints
        maths.append(m.group(0))
        shown = len(re.sub(r"\\[a-zA-Z]+|[{}^_$]", "", m.group(0))) + m.group(0).count("\\")
        key = f"\x00{len(maths) - 1}"
        return key + "\x01" * max(0, shown - len(key))

    held = re.sub(r"\$[^$]*\$", hold, text)
    lines: list[str] = []
    for part in re.split(r"(?<=,) |\s(?=\()", held):
        if lines and len(lines[-1]) + 1 + len(part) <= width:
            lines[-1] += " " + part
        else:
            lines += textwrap.wrap(part, width, break_long_words=False, break_on_hyphens=False) or [""]
    return re.sub(r"\x00(\d+)\x01*", lambda m: maths[int(m.group(1))], "\n".join(lines))


def panel_title(ax, text: str, ncols: int = 3) -> None:
    """A panel title wrapped to the panel's width (about 26 characters at 3 panels a row),
    breaking after commas first."""
    ax.set_title(wrap_text(text, {1: 40, 2: 36}.get(ncols, 26)))  # 1: a 3.3 in column holds ~45 characters of 8 pt text


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
def qualitative_colors(n: int) -> list[str]:
    """n colours for lines that are not an eps scale (cycling after 8)."""
    return [QUALITATIVE[i % len(QUALITATIVE)] for i in range(n)]


# ----------------------------------------------------------------------------- axes
def log_axis(ax, values, axis: str = "y") -> str:
    """Log scale on ``axis``; symlog (linear around 0) when ``values`` hold zeros or negatives.

    Returns the scale used. The symlog linear threshold is the decade at or above the smallest
    positive magnitude in the data (at least 1e-12), so every point is shown, the log part spans
    the data, and the first decade tick sits one linear decade away from 0 (a threshold between
    decades put the tick below it next to the 0 tick, printed over each other).
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    set_scale = ax.set_yscale if axis == "y" else ax.set_xscale
    if v.size and (v > 0).all():
        set_scale("log")
        return "log"
    pos = np.abs(v[v != 0])
    smallest = max(float(pos.min()) if pos.size else 1.0, 1e-12)
    set_scale("symlog", linthresh=10.0 ** math.ceil(math.log10(smallest) - 1e-9))
    return "symlog"


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
    the hidden-line check of :mod:`privrl.results.figure_check`), ``empty_panels`` (titles of
    panels without data: :func:`has_data`) and ``colorbar_levels`` (per colour bar, the number of
    distinct values it stands for, or None)."""
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
            "lines": [data_lines(ax) for ax in fig.axes],
            "empty_panels": [ax.get_title() or f"panel {i + 1}" for i, ax in enumerate(panels(fig)) if not has_data(ax)],
            "colorbar_levels": [colorbar_levels(ax._colorbar) for ax in fig.axes if hasattr(ax, "_colorbar")]}


def panels(fig) -> list:
    """The figure's data panels: visible axes with their frame on, colour bars excluded."""
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison and not hasattr(ax, "_colorbar")]


def has_data(ax) -> bool:
    """Whether a panel shows any data: a line in data coordinates with a finite point, a bar (or
    other patch) of non-zero size, a non-empty collection (bands, scatter, error bars) or an
    image. Reference lines across the panel (``axhline``/``axvline``) and zero-height bars are
    not data: a panel holding only those looks empty to a reader."""
    for ln in ax.get_lines():
        xy = np.column_stack([np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float)])
        if ln.get_visible() and ln.get_transform().contains_branch(ax.transData) and np.isfinite(xy).all(axis=1).any():
            return True
    for p in ax.patches:
        if p.get_visible() and p.get_transform().contains_branch(ax.transData):
            ext = p.get_path().get_extents(p.get_patch_transform()) if hasattr(p, "get_patch_transform") else None
            if ext is None or (ext.width > 0 and ext.height > 0):
                return True
    for c in ax.collections:
        if c.get_visible() and (len(c.get_paths()) or len(c.get_offsets())):
            return True
    return bool(ax.images)


def colorbar_levels(cb) -> int | None:
    """How many distinct values the colour bar's mappable holds (None: not known, e.g. a bar
    drawn without data): a bar over two values reads as a continuum a reader cannot place."""
    arr = cb.mappable.get_array()
    if arr is None:
        return None
    vals = np.asarray(arr, float).ravel()
    return int(np.unique(vals[np.isfinite(vals)]).size)


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
    marker spacing and display path (pixels at the figure's dpi, <= ``max_points`` points).
    The caps of an error bar are not data lines (the lower and upper caps of a CI narrower than
    a pixel lie on each other and hide nothing); the bar's data line is one."""
    from matplotlib.container import ErrorbarContainer

    caps = {id(c) for ec in ax.containers if isinstance(ec, ErrorbarContainer) for c in ec.lines[1]}
    out = []
    for ln in ax.get_lines():
        if id(ln) in caps:
            continue
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
