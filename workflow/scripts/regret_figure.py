import pandas as pd

from privrl.results import figures
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    figures.regret_vs_k(pd.read_parquet(sm.input.agg), pd.read_csv(sm.input.fits), sm.output[0],
                        title=sm.params.title, note=sm.params.note)
