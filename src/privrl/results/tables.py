"""Markdown renderings of result tables (pure functions of DataFrames)."""
from __future__ import annotations

import pandas as pd

from privrl.results.controls import CONTROLS


def fits_markdown(fits: pd.DataFrame, title: str) -> str:
    """One row per cell: K-exponent with CI, regret at K, bonus saturation in the fit window."""
    lines = [f"# Fitted regret exponents: {title}", "",
             "Exponent a of cumulative regret ~ K^a on the fit window; 95% seed-bootstrap CI. "
             "`saturated` is the mean fraction of (h, s, a) whose optimistic value is clipped at "
             "H - h + 1 in the fit window: near 1 means the bonus never shrinks below the value "
             "range, so no rate can show at this K. A `control` names the wrong twin a cell is "
             "(privrl.results.controls, docs/decisions/controls.md): run beside the agents for the claims' "
             "checks, not an agent a claim is about.", "",
             "| cell | control | privacy | a | 95% CI | regret at K | K | window | saturated |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in fits.itertuples():
        control = getattr(r, "control", "")  # NaN when read back from CSV for an agent
        control = CONTROLS[control].name if control in CONTROLS else (control if isinstance(control, str) else "")
        lines.append(f"| {r.label} | {control} | {r.privacy_model} | {r.exponent:.3f} | [{r.exponent_lo:.3f}, {r.exponent_hi:.3f}] "
                     f"| {r.regret_at_K:.1f} | {int(r.K)} | [{r.window_lo:g}, {r.window_hi:g}] | {r.saturated_fraction:.2f} |")
    return "\n".join(lines) + "\n"
