"""Thin glue: the two regret figures of one (experiment, env), each as PDF and PNG."""
import pandas as pd

from privrl.results import figures
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    agg, fits = pd.read_parquet(sm.input.agg), pd.read_csv(sm.input.fits)
    figures.regret_vs_k(agg, fits, sm.output.png, title=sm.params.title, view="regret")
    figures.regret_vs_k(agg, fits, sm.output.rate_png, title=sm.params.title, view="rate")
