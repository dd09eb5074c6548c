import pandas as pd

from privrl import io
from privrl.results import tables
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    fits = pd.read_csv(sm.input[0])
    io.write_csv(sm.output.csv, fits)
    io.write_text(sm.output.md, tables.fits_markdown(fits, f"{sm.wildcards.experiment} / {sm.wildcards.env}"))
