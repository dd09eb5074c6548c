"""Print-readiness check of every figure under a directory (``paper_figures/`` or a smoke run's).

Each PNG written by :func:`privrl.results.style.save_figure` carries its readability record
(text chunk ``privrl:figure``, JSON: sizes, legends, every visible text, tick-label overlaps
and each panel's data lines as display paths), so the check needs no OCR or PDF parsing and runs
on any regenerated folder. A figure passes when it has a PDF twin and

- it is one column (3.3 in) or the page (6.9 in) wide and at most :data:`MAX_HEIGHT` tall;
- its smallest text prints at >= :data:`~privrl.results.style.READABLE_FONT` pt;
- it has at most one legend, none over a panel, <= :data:`~privrl.results.style.MAX_LINES`
  labelled lines a panel and no text cut off at its edge;
- no two drawn tick labels of an axis overlap;
- no text shows an id: snake_case names, ``key=value`` parameters, ``1e+07``-style numbers,
  Python reprs (``{...}``, ``None``, ``nan``), registered agent ids or env ids (mathtext
  ``$...$`` is exempt);
- no panel is empty (a panel holding only reference lines or zero-height bars reads as a
  missing plot: say the zeros in text, or draw them as points);
- no text reads "at K" without the K ("regret at K = 10^7", not "regret at K");
- no colour bar stands for <= :data:`FEW_HUE_LEVELS` values (a legend entry each instead);
- no data line hides another: two lines of a panel that run within
  :data:`~privrl.results.facets.OVERLAP_TOL_PX` of each other everywhere must differ in dash,
  marker or marker spacing, or the panel / figure must say "overlap".

    python -m privrl.results.figure_check paper_figures    # one line per problem; exit 1 if any
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

from privrl.results import style

MAX_HEIGHT = 9.0  # inches (privrl.results.facets.MAX_HEIGHT)
WIDTHS = (style.COLUMN_WIDTH, style.FULL_WIDTH)
FEW_HUE_LEVELS = 4  # privrl.results.facets.FEW_EPS: a hue of this few values takes a legend, not a colour bar
OVERLAP_TOL_PX = 1.5  # privrl.results.facets.OVERLAP_TOL_PX (display pixels at the figure's dpi)
_ID_PATTERNS = {
    "a snake_case id": re.compile(r"(?<![\\\w])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+"),
    "a key=value parameter": re.compile(r"(?<![\w$\\])[A-Za-z_][A-Za-z0-9_]{2,}="),
    "an ASCII parameter name": re.compile(r"\b(?:eps0?|tau)\b"),
    "a 1e+07-style number": re.compile(r"\d[eE][+-]?\d"),
    "a Python repr": re.compile(r"[{}]|\bNone\b|\bnan\b|\bTrue\b|\bFalse\b|'\w+'\s*:"),
    "an encoded number (0p2)": re.compile(r"\d+p\d+"),
}
_BARE_K = re.compile(r"\bat K\b(?!\s*=)")  # "regret at K" without its value ("at K = 10^7" is fine)
ENV_IDS = ("riverswim", "hard_instance")  # "garnet" is the English name of the MDP family


def _id_names() -> list[str]:
    from privrl import agents

    return sorted(set(agents.REGISTRY) | set(ENV_IDS), key=len, reverse=True)


RECORD_KEYS = ("height_in", "legends", "tick_overlaps", "texts", "lines")  # what the print checks read


def record(png: Path) -> dict | None:
    """The readability record of a PNG, or None (not written by style.save_figure); its
    ``png_height_in`` is measured on the image itself (pixels / dpi)."""
    from PIL import Image

    with Image.open(png) as im:
        text = getattr(im, "text", {}).get("privrl:figure")
        dpi = float((im.info.get("dpi") or (style.PNG_DPI,))[0]) or style.PNG_DPI
        height = im.size[1] / dpi
    return {**json.loads(text), "png_height_in": round(height, 3)} if text else None


def ids_in(text: str, names: list[str] | None = None) -> list[str]:
    """What in ``text`` reads as an id rather than as print: ``["a snake_case id 'bai_table1'", ...]``."""
    plain = re.sub(r"\$[^$]*\$", " ", text)  # mathtext is typeset, not an id
    out = [f"{what} {m.group(0)!r}" for what, pat in _ID_PATTERNS.items() for m in pat.finditer(plain)]
    for name in names if names is not None else _id_names():
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", plain):
            out.append(f"the id {name!r}")
    return out


def close_paths(p: np.ndarray, q: np.ndarray, tol: float = OVERLAP_TOL_PX) -> bool:
    """True when two display paths (points sorted by x) stay within ``tol`` px over their
    common x range (and share at least half of the shorter one's range)."""
    lo, hi = max(p[0, 0], q[0, 0]), min(p[-1, 0], q[-1, 0])
    span = min(p[-1, 0] - p[0, 0], q[-1, 0] - q[0, 0])
    if hi <= lo or hi - lo < 0.5 * span:
        return False
    xs = np.linspace(lo, hi, 60)
    return bool(np.max(np.abs(np.interp(xs, p[:, 0], p[:, 1]) - np.interp(xs, q[:, 0], q[:, 1]))) < tol)


def hidden_lines(rec: dict) -> list[str]:
    """Panels where a data line lies on another drawn alike (same dash, marker and spacing)."""
    out = []
    figure_says = any("overlap" in t.lower() for t in rec.get("texts", []) if t not in
                      {p["title"] for p in rec.get("lines", [])})
    for i, panel in enumerate(rec.get("lines", [])):
        if figure_says or "overlap" in panel["title"].lower():
            continue
        lines = [(ln, np.asarray(ln["path"], float)) for ln in panel["lines"]]
        lines = [(ln, p[np.argsort(p[:, 0], kind="stable")]) for ln, p in lines if len(p) >= 3]
        n = sum(1 for a in range(len(lines)) for b in range(a + 1, len(lines))
                if all(lines[a][0][k] == lines[b][0][k] for k in ("ls", "marker", "every"))
                and close_paths(lines[a][1], lines[b][1]))
        if n:
            title = panel["title"].replace("\n", " ") or f"panel {i + 1}"
            out.append(f"{n} pair(s) of lines drawn alike on top of each other in '{title}'")
    return out


def figure_problems(root: str | Path) -> list[str]:
    """One line per problem of every ``*.png`` under ``root`` (empty: every figure passes)."""
    out = []
    names = _id_names()
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
        if not any(abs(r["width_in"] - w) < 0.05 for w in WIDTHS):
            out.append(f"{png}: {r['width_in']:g} in wide: neither a column ({style.COLUMN_WIDTH} in) "
                       f"nor the page ({style.FULL_WIDTH} in)")
        height = max(r.get("height_in", 0), r["png_height_in"])
        if height > MAX_HEIGHT + 0.05:
            out.append(f"{png}: {height:g} in tall (> {MAX_HEIGHT:g} in): split it")
        missing = [k for k in RECORD_KEYS if k not in r]
        if missing:
            out.append(f"{png}: its record predates the print checks (no {', '.join(missing)}): regenerate it")
        if r["lines_per_panel"] > style.MAX_LINES:
            out.append(f"{png}: {r['lines_per_panel']} lines in a panel (> {style.MAX_LINES})")
        if r.get("legends", 0) > 1:
            out.append(f"{png}: {r['legends']} legends (one per figure)")
        if r["legends_over_axes"]:
            out.append(f"{png}: a legend overlaps a panel")
        if r.get("texts_cut_off", 0):
            out.append(f"{png}: {r['texts_cut_off']} text(s) cut off at the figure's edge")
        if r.get("tick_overlaps", 0):
            out.append(f"{png}: {r['tick_overlaps']} pair(s) of tick labels printed over each other")
        ids = sorted({i for t in r.get("texts", []) for i in ids_in(t, names)})
        if ids:
            out.append(f"{png}: ids in text: {'; '.join(ids[:6])}" + (f" (+{len(ids) - 6})" if len(ids) > 6 else ""))
        out += [f"{png}: {h}" for h in hidden_lines(r)]
        # records written before these checks lack the keys: nothing to check
        if "empty_panels" in r:
            bare = sorted({t for t in r.get("texts", []) if _BARE_K.search(re.sub(r"\$[^$]*\$", " ", t))})
            out += [f"{png}: '{t}' does not say which K (labels.at_k)" for t in bare]
        out += [f"{png}: empty panel '{t.replace(chr(10), ' ')}' (no data drawn)" for t in r.get("empty_panels", [])]
        out += [f"{png}: a colour bar for {n} value(s) (<= {FEW_HUE_LEVELS}: a legend entry each)"
                for n in r.get("colorbar_levels", []) if n is not None and n <= FEW_HUE_LEVELS]
    return out


def main(argv: list[str] | None = None) -> int:
    roots = (argv if argv is not None else sys.argv[1:]) or ["paper_figures"]
    problems = [p for root in roots for p in figure_problems(root)]
    n = sum(1 for root in roots for _ in Path(root).rglob("*.png"))
    print("\n".join(problems + [f"{n} figures, {len(problems)} problems"]))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
