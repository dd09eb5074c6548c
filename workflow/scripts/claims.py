from pathlib import Path

import pandas as pd

from privrl.results import claims
from privrl import io
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    tables = []
    # one resolved claim-spec list per fits file (param claim_specs, aligned with input.fits)
    for path, specs in zip(sm.input.fits, sm.params.claim_specs):
        exp = Path(path).parent.parent.name
        fits = pd.read_csv(path)
        env = fits.env.iloc[0]
        artifact = f"{sm.params.figures_dir}/{exp}/{env}_regret_vs_K.png"
        tables.append(claims.score_claims(exp, specs, fits, artifact))
    tables += [pd.read_csv(p) for p in sm.input.analyses]
    tables = [t for t in tables if not t.empty]  # a design may declare no claims and no analyses
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=claims.LEGACY_COLUMNS)
    io.write_csv(sm.output.csv, table)
    io.write_text(sm.output.md, claims.claims_markdown(table, claims.extra_sections([sm.input.mechanism_claims])))
