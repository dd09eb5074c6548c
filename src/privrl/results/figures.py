"""Figures (matplotlib/seaborn, Agg backend): pure functions of aggregated DataFrames."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from privrl import io  # noqa: E402


def regret_vs_k(agg: pd.DataFrame, fits: pd.DataFrame, path: str, title: str = "", note: str = "") -> None:
    """Cumulative regret vs K (log-log), 95% CI bands, fitted K^a slope over the fit window.

    agg: rows (cell, label, episode, mean, ci_low, ci_high); fits: rows (cell, exponent,
    exponent_lo, exponent_hi, log_intercept, window_lo, window_hi, saturated_fraction).
    """
    sns.set_theme(style="whitegrid", context="paper")
    cells = list(dict.fromkeys(agg["cell"]))
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    palette = sns.color_palette("tab10" if len(cells) <= 10 else "husl", len(cells))
    for color, cell in zip(palette, cells):
        d = agg[agg.cell == cell]
        f = fits[fits.cell == cell].iloc[0]
        label = f"{d['label'].iloc[0]}: a={f.exponent:.2f} [{f.exponent_lo:.2f}, {f.exponent_hi:.2f}]"
        if f.saturated_fraction > 0.5:
            label += f" (bonus saturated {f.saturated_fraction:.0%})"
        ax.plot(d.episode, np.maximum(d["mean"], 1e-3), color=color, lw=1.4, label=label)
        ax.fill_between(d.episode, np.maximum(d.ci_low, 1e-3), np.maximum(d.ci_high, 1e-3), color=color, alpha=0.2)
        if np.isfinite(f.exponent):
            x = np.geomspace(f.window_lo, f.window_hi, 20)
            ax.plot(x, np.exp(f.log_intercept) * x ** f.exponent, color=color, ls="--", lw=1.0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("episodes K")
    ax.set_ylabel("cumulative expected regret")
    ax.set_title(title)
    ax.legend(fontsize=6, loc="upper left")
    if note:
        fig.text(0.01, 0.01, note, fontsize=6, va="bottom")
    fig.tight_layout(rect=(0, 0.04 if note else 0, 1, 1))
    io.save_figure(fig, path, dpi=150)
    plt.close(fig)


def save_or_placeholder(fig, path: str, name: str) -> None:
    """Save ``fig``; for a table-only analysis write a small figure saying so."""
    if fig is None:
        fig, ax = plt.subplots(figsize=(4, 1))
        ax.axis("off")
        ax.text(0.5, 0.5, f"{name}: table only (see {name}.md)", ha="center", va="center", fontsize=8)
    io.save_figure(fig, path, dpi=150)
    plt.close(fig)


def grouped_errorbars(ax, series: dict, n_groups: int, tick_labels: list, width: float) -> None:
    """Dodged point-and-CI markers: one series per label, one position per group.

    series: {label: DataFrame with columns regret, regret_lo, regret_hi, one row per group in
    tick order (NaN rows allowed)}. Series j sits at group index + j * width.
    """
    for j, (label, d) in enumerate(series.items()):
        ax.errorbar(np.arange(n_groups) + j * width, d.regret, yerr=[d.regret - d.regret_lo, d.regret_hi - d.regret],
                    fmt="o", ms=4, capsize=2, label=label)
    ax.set_xticks(np.arange(n_groups) + (len(series) - 1) * width / 2, tick_labels, fontsize=6)
