"""Helpers shared by the papers' tables and theorem checks; registers nothing.

Data shapes: per-seed cumulative regret ``R`` float64[n_seeds, C] at checkpoints ``episodes``
int64[C] (from :func:`privrl.results.stats.seed_matrix`). Every CI is the 95% percentile bootstrap
over seeds of :mod:`privrl.results.stats` (``ctx.n_boot`` resamples, seeds resampled independently
per cell), drawn from a stable per-analysis stream (:func:`rng_for`).
"""
from __future__ import annotations

from pathlib import Path

from typing import Any, Mapping

import numpy as np

from privrl.rl import envs, seeding
from privrl.results.stats import seed_matrix
from privrl.papers.analysis import AnalysisContext


def rng_for(ctx: AnalysisContext, what: str) -> np.random.Generator:
    return seeding.generator("analysis", f"{ctx.experiment}/{what}", 0)


def env_mdp(ctx: AnalysisContext, env_key: str):
    """The experiment's MDP for ``env_key``, rebuilt from the config (deterministic factories)."""
    spec = ctx.config["envs"][env_key]
    return envs.make(spec["name"], **dict(spec.get("params", {}) or {}))


def curves(ctx: AnalysisContext, env: str, cell: str, value: str = "cum_regret") -> tuple[np.ndarray, np.ndarray]:
    """(episodes int64[C], per-seed values float64[n, C]) of one cell."""
    _, ep, vals = seed_matrix(ctx.runs(env, cell), value)
    return np.asarray(ep), vals


def at_episode(ep: np.ndarray, R: np.ndarray, K: float) -> np.ndarray:
    """Per-seed cumulative value at episode K: exact at a checkpoint, else linear in log K between
    the two bracketing checkpoints (log-spaced, <= 10% apart; the curves are monotone)."""
    ep = np.asarray(ep, dtype=np.float64)
    if K < ep[0] or K > ep[-1]:
        raise ValueError(f"episode {K:g} outside the recorded range [{ep[0]:g}, {ep[-1]:g}]")
    j = int(np.searchsorted(ep, K))
    if ep[j] == K:
        return R[:, j].copy()
    lo, hi = j - 1, j
    w = (np.log(K) - np.log(ep[lo])) / (np.log(ep[hi]) - np.log(ep[lo]))
    return R[:, lo] + w * (R[:, hi] - R[:, lo])


def claim(ctx: AnalysisContext, cid: str, statement: str, source: str, artifact: str, measured: str,
          verdict: str) -> dict[str, Any]:
    return {"experiment": ctx.experiment, "id": cid, "statement": statement, "source": source,
            "artifact": artifact, "measured": measured, "verdict": verdict}


def infos_of(ctx: AnalysisContext, agent: str | None = None, env: str | None = None,
             where: Mapping[str, float] | None = None) -> list[dict]:
    """Run infos filtered by agent, env key and exact parameter values (``ctx``: a context, or its infos)."""
    out = []
    for info in (ctx.infos if hasattr(ctx, "infos") else ctx):
        if agent is not None and info["agent"] != agent:
            continue
        if env is not None and info["env_key"] != env:
            continue
        if where and any(not np.isclose(info["params"].get(k, np.nan), v, rtol=1e-9, atol=0) for k, v in where.items()):
            continue
        out.append(info)
    return out


def fmt_ci(m: float, lo: float, hi: float, digits: int = 4) -> str:
    return f"{m:.{digits}g} [{lo:.{digits}g}, {hi:.{digits}g}]"


# ----------------------------------------------------------------------------- theorem checks
def as_generator(rng) -> np.random.Generator:
    """A Generator as given, or one seeded from a seed / SeedSequence."""
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def check_axes(n: int = 1, height: float = 2.3):
    """(figure, axes[n]) of a theorem-check figure: ``n`` panels stacked in one 3.3 in column
    (8 pt text prints at 8 pt; docs/decisions/figures.md), ``height`` inches each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from privrl.results.style import COLUMN_WIDTH, use_paper_style

    use_paper_style()  # >= 8 pt text, the figures' one style
    fig, axes = plt.subplots(n, 1, figsize=(COLUMN_WIDTH, height * n), squeeze=False, layout="constrained")
    return fig, list(axes[:, 0])


def column_axes(n: int, lines: int = 4):
    """(figure, axes[n]) of an analysis figure: ``n`` panels stacked in one 3.3 in column, each
    tall enough for a legend of ``lines`` entries below it (:func:`check_legend`)."""
    fig, axes = check_axes(n, height=2.2 + 0.17 * min(lines, 8))
    return fig, axes


def check_legend(ax, ncol: int = 1):
    """The panel's legend below its axes and its x-axis labels (never over the data)."""
    from matplotlib.transforms import offset_copy

    fig = ax.figure
    fig.canvas.draw()  # the x axis' ticks and label, in points below the axes (layout-independent)
    r = fig.canvas.get_renderer()
    below = (ax.get_window_extent(r).y0 - ax.xaxis.get_tightbbox(r).y0) * 72.0 / fig.dpi
    anchor = offset_copy(ax.transAxes, fig=fig, y=-below - 4.0, units="points")
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=anchor, ncol=ncol,
                     frameon=False, borderaxespad=0.0, handlelength=2.5, markerscale=0.7)


def save_check_figure(fig, path) -> None:
    """A theorem check's figure as ``<stem>.pdf`` (vector) and ``<stem>.png`` (300 dpi); panel
    titles wrapped to the column, texts and legend made print-ready (one legend, no ids)."""
    from privrl.results.facets import print_ready
    from privrl.results.style import panel_title, save_figure

    for ax in fig.axes:
        if ax.get_title():
            panel_title(ax, ax.get_title(), ncols=2)
    save_figure(print_ready(fig), Path(path).with_suffix(""))
