import pandas as pd

from privrl.results import aggregate, controls
from privrl.results.run_files import load_runs
from privrl import io
from privrl.rl import seeding
from privrl.runs import intermediates
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    rows = []
    for df, info in load_runs(sm.input, sm.params.runs):  # each checked against its metadata and the config
        rng = seeding.generator("fit", f"{sm.wildcards.experiment}/{info['setting']}", 0)
        row = aggregate.fit_cell(df, rng, sm.params.decades, n_boot=sm.params.n_boot)
        row.update(env=sm.wildcards.env, cell=info["cell"], label=info["label"], agent=info["agent"],
                   privacy_model=info["privacy_model"], control=controls.control_name(info),
                   reconstruction=info["reconstruction"],
                   **{f"param_{k}": v for k, v in info["params"].items()})
        log.info("%s: exponent %.3f", info["cell"], row["exponent"])
        rows.append(row)
    io.write_csv(sm.output[0], pd.DataFrame(rows))
    intermediates.write_record(sm.output[0], sm.params.made_by, sm.input)  # what it was made from
