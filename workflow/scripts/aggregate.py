import pandas as pd

from privrl.results import aggregate
from privrl.results.run_files import load_runs
from privrl import io
from privrl.rl import seeding
from privrl.runs import intermediates
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    frames = []
    for df, info in load_runs(sm.input, sm.params.runs):  # each checked against its metadata and the config
        rng = seeding.generator("aggregate", f"{sm.wildcards.experiment}/{info['setting']}", 0)
        agg = aggregate.aggregate_cell(df, rng, sm.params.n_boot)
        frames.append(agg.assign(cell=info["cell"], label=info["label"], agent=info["agent"]))
    io.write_parquet(sm.output[0], pd.concat(frames, ignore_index=True))
    intermediates.write_record(sm.output[0], sm.params.made_by, sm.input)  # what it was made from
