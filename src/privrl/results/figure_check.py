"""Readability check of every figure under a directory (``paper_figures/`` or a smoke run's).

Each PNG written by :func:`privrl.results.style.save_figure` carries its readability record
(text chunk ``privrl:figure``); a figure passes when it has a PDF twin, its smallest text is at
least :data:`~privrl.results.style.READABLE_FONT` pt once scaled to a 3.3 in column, it has at
most :data:`~privrl.results.style.MAX_LINES` labelled lines per panel, no legend over a panel
and no text cut off at the figure's edge.

    python -m privrl.results.figure_check paper_figures    # one line per problem; exit 1 if any
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from privrl.results import style


def record(png: Path) -> dict | None:
    """The readability record of a PNG, or None (not written by style.save_figure)."""
    from PIL import Image

    with Image.open(png) as im:
        text = getattr(im, "text", {}).get("privrl:figure")
    return json.loads(text) if text else None


def figure_problems(root: str | Path) -> list[str]:
    """One line per problem of every ``*.png`` under ``root`` (empty: every figure passes)."""
    out = []
    for png in sorted(Path(root).rglob("*.png")):
        r = record(png)
        if not png.with_suffix(".pdf").exists():
            out.append(f"{png}: no PDF twin")
        if r is None:
            out.append(f"{png}: no readability record (not saved by privrl.results.style.save_figure)")
            continue
        if r["column_font_pt"] < style.READABLE_FONT:
            out.append(f"{png}: {r['min_font_pt']:g} pt text at {r['width_in']:g} in prints at "
                       f"{r['column_font_pt']:g} pt in a {style.COLUMN_WIDTH} in column (< {style.READABLE_FONT:g})")
        if r["lines_per_panel"] > style.MAX_LINES:
            out.append(f"{png}: {r['lines_per_panel']} lines in a panel (> {style.MAX_LINES})")
        if r["legends_over_axes"]:
            out.append(f"{png}: a legend overlaps a panel")
        if r.get("texts_cut_off", 0):
            out.append(f"{png}: {r['texts_cut_off']} text(s) cut off at the figure's edge")
    return out


def main(argv: list[str] | None = None) -> int:
    roots = (argv if argv is not None else sys.argv[1:]) or ["paper_figures"]
    problems = [p for root in roots for p in figure_problems(root)]
    n = sum(1 for root in roots for _ in Path(root).rglob("*.png"))
    print("\n".join(problems + [f"{n} figures, {len(problems)} problems"]))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
