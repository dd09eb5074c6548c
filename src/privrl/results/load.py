"""Results of a finished run as tidy pandas frames: :func:`load` (also ``privrl.load``).

It reads the layout of docs/outputs.md and nothing else (no Snakemake, no config)::

    import privrl
    res = privrl.load("results/smoke")                  # figures_dir: results/smoke/figures if there
    res.runs        # one row per cell x seed x checkpoint: experiment, env, cell, agent, seed, episode,
                    #   cum_regret, cum_aux, mistakes_<alpha> (<experiment>/runs/<env>/<cell>.parquet + .json)
    res.aggregate   # one row per cell x checkpoint: mean regret and its 95% CI (<experiment>/aggregate/<env>.parquet)
    res.fits        # one row per cell: K-exponent and CI, regret at K (<experiment>/fits/<env>.csv)
    res.claims      # the ledger, one row per claim with its verdict (<figures_dir>/claims.csv)
    res.runs.groupby(["experiment", "env", "cell", "episode"]).cum_regret.mean()

Every frame starts with the columns that say where a row comes from (``experiment``, ``env``,
``cell``); a part the folder does not hold is an empty frame with those columns, so code written
against a full run also runs on a partial one. Run files are read as they are (their integrity is
checked by the pipeline, :func:`privrl.io.verify_run`, not here).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

WHERE = ["experiment", "env", "cell"]


@dataclass(frozen=True)
class Results:
    """The frames of one results folder (module docstring)."""

    runs: pd.DataFrame
    aggregate: pd.DataFrame
    fits: pd.DataFrame
    claims: pd.DataFrame
    results_dir: Path
    figures_dir: Path | None

    def __repr__(self) -> str:
        return (f"Results({str(self.results_dir)!r}: {len(self.runs)} run rows, {len(self.aggregate)} aggregate rows, "
                f"{len(self.fits)} fits, {len(self.claims)} claims)")


def _frames(paths, read, where) -> pd.DataFrame:
    parts = []
    for path in paths:
        df = read(path)
        for k, v in where(path).items():
            df[k] = v  # the file's place names the row (a column the file has too holds the same)
        front = [c for c in [*WHERE, "agent"] if c in df.columns]
        parts.append(df[front + [c for c in df.columns if c not in front]])
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=WHERE)


def _run_table(path: Path) -> pd.DataFrame:
    df = pd.read_parquet(path)
    info = path.with_suffix(".json")
    if info.is_file():
        df["agent"] = json.loads(info.read_text()).get("agent")
    return df


def load(results_dir: str | Path, figures_dir: str | Path | None = None) -> Results:
    """The tidy frames of ``results_dir`` (a design's ``results_dir``) and of ``figures_dir`` (its
    ``figures_dir``, for the claims; default ``<results_dir>/figures`` when that folder exists).
    :class:`Results` with ``runs``, ``aggregate``, ``fits`` and ``claims`` (module docstring);
    ValueError if ``results_dir`` is not a folder."""
    root = Path(results_dir)
    if not root.is_dir():
        raise ValueError(f"privrl.load: {str(results_dir)!r} is not a folder (give a design's results_dir)")
    if figures_dir is None and (root / "figures").is_dir():
        figures_dir = root / "figures"
    runs = _frames(sorted(root.glob("*/runs/*/*.parquet")), _run_table,
                   lambda p: {"experiment": p.parts[-4], "env": p.parts[-2], "cell": p.stem})
    aggregate = _frames(sorted(root.glob("*/aggregate/*.parquet")), pd.read_parquet,
                        lambda p: {"experiment": p.parts[-3], "env": p.stem})
    fits = _frames(sorted(root.glob("*/fits/*.csv")), pd.read_csv,
                   lambda p: {"experiment": p.parts[-3], "env": p.stem})
    claims_csv = Path(figures_dir) / "claims.csv" if figures_dir is not None else None
    claims = pd.read_csv(claims_csv) if claims_csv is not None and claims_csv.is_file() else pd.DataFrame(
        columns=["claim_id", "paper", "item", "verdict"])
    return Results(runs, aggregate, fits, claims, root, Path(figures_dir) if figures_dir is not None else None)
