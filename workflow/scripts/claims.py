from pathlib import Path

import pandas as pd

from privrl.results import claims
from privrl import experiments, io
from privrl.rl import envs
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    cfg = sm.config
    rows = []
    for path in sm.input.fits:
        exp = Path(path).parent.parent.name
        fits = pd.read_csv(path)
        env = fits.env.iloc[0]
        specs = [c for c in experiments.resolve_claims(cfg, exp) if c["check"]["env"] == env]
        artifact = f"{sm.params.figures_dir}/{exp}/{env}_regret_vs_K.png"
        name, params = experiments.env_spec(cfg, exp, env)
        mdps = {env: envs.make(name, **params)}  # the crossover K needs the MDP
        rows += claims.claims_from_frame(claims.score_claims(exp, specs, fits, artifact, mdps))
    for p in sm.input.analyses:  # legacy-column or claims.csv-column tables, each read on its own
        rows += claims.claims_from_frame(pd.read_csv(p))
    claims.write_claims(rows, sm.output.csv, sm.output.md, claims.extra_sections([sm.input.mechanism_claims]))
