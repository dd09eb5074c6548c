"""What an analysis (a paper's table) receives and returns.

An experiment lists ``analyses: [name, ...]`` in the config; the ``analysis`` rule calls the
analysis registered under that name (:mod:`privrl.papers.registry`) with an
:class:`AnalysisContext` and writes the returned :class:`AnalysisResult` as
``{figures}/{paper}/{experiment}/{name}.csv|.md|.png`` (``figures_dir`` is ``{figures}/{paper}``) plus claim rows that the ``claims`` rule merges
into CLAIMS.md. Analyses are pure functions of data.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd

CLAIM_COLUMNS = ["experiment", "id", "statement", "source", "artifact", "measured", "verdict"]


@dataclass
class AnalysisContext:
    experiment: str
    config: Mapping[str, Any]          # this experiment's config block
    fits: pd.DataFrame                 # fit rows of every (env, cell) of the experiment
    aggregates: pd.DataFrame           # aggregate rows (env, cell, episode, mean, ci_low, ci_high, ...)
    infos: list[dict]                  # run info JSON of every cell (agent, params, guarantees, ...)
    run_paths: Mapping[tuple[str, str], str]  # (env, cell) -> per-seed parquet
    figures_dir: str
    n_boot: int                        # bootstrap resamples of every CI (config ``bootstrap.n``)
    options: Mapping[str, Any] = field(default_factory=dict)

    def runs(self, env: str, cell: str) -> pd.DataFrame:
        return pd.read_parquet(self.run_paths[(env, cell)])

    def artifact(self, name: str, ext: str) -> str:
        return f"{self.figures_dir}/{self.experiment}/{name}.{ext}"


@dataclass
class AnalysisResult:
    table: pd.DataFrame
    markdown: str
    figure: Any = None  # a matplotlib Figure, or None (a placeholder figure is written)
    claims: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CLAIM_COLUMNS))


Analysis = Callable[[AnalysisContext], AnalysisResult]


def load_context(experiment: str, exp_config: Mapping[str, Any], fit_paths, agg_paths, run_paths,
                 figures_dir: str, n_boot: int, run_records, options: Mapping[str, Any] | None = None
                 ) -> AnalysisContext:
    """The context of an analysis of ``experiment`` (``exp_config``: its config block). Every run
    file is verified against its record (:func:`privrl.results.run_files.load_runs`: metadata,
    content hash, config), and its info carries the config's current label and tags."""
    from privrl.results.run_files import load_runs

    fits = pd.concat([pd.read_csv(p) for p in fit_paths], ignore_index=True)
    aggs = []
    for p in agg_paths:
        env = Path(p).stem
        aggs.append(pd.read_parquet(p).assign(env=env))
    infos, paths = [], {}
    for p, (_, info) in zip(run_paths, load_runs(run_paths, run_records)):
        env = Path(p).parent.name
        info["env_key"] = env
        infos.append(info)
        paths[(env, info["cell"])] = str(p)
    return AnalysisContext(experiment, exp_config, fits, pd.concat(aggs, ignore_index=True),
                           infos, paths, figures_dir, int(n_boot), options or {})
