from pathlib import Path

import pandas as pd

from privrl.results import claims
from privrl import experiments, io
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    cfg = sm.config
    tables = []
    for path in sm.input.fits:
        exp = Path(path).parent.parent.name
        fits = pd.read_csv(path)
        env = fits.env.iloc[0]
        specs = [c for c in experiments.resolve_claims(cfg, exp) if c["check"]["env"] == env]
        artifact = f"{sm.params.figures_dir}/{exp}/{env}_regret_vs_K.png"
        tables.append(claims.score_claims(exp, specs, fits, artifact))
    tables += [pd.read_csv(p) for p in sm.input.analyses]
    table = pd.concat([t for t in tables if not t.empty], ignore_index=True)
    io.write_csv(sm.output.csv, table)
    io.write_text(sm.output.md, claims.claims_markdown(table, claims.extra_sections([sm.input.mechanism_claims])))
