from pathlib import Path

import pandas as pd

from privrl.runs.joblog import logged
from privrl.papers.unchecked import with_unchecked
from privrl.results import claims
from privrl.rl import envs

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    rows = []
    # one resolved claim-spec list and one env spec per fits file (params aligned with input.fits)
    for path, specs, (name, params), artifact in zip(sm.input.fits, sm.params.claim_specs, sm.params.env_specs,
                                                     sm.params.artifacts):
        exp = Path(path).parent.parent.name
        fits = pd.read_csv(path)
        env = fits.env.iloc[0]
        mdps = {env: envs.make(name, **params)}  # the crossover K needs the MDP
        rows += claims.claims_from_frame(claims.score_claims(exp, specs, fits, artifact, mdps))
    for p in sm.input.analyses:  # claims.csv-column tables, one per analysis
        t = pd.read_csv(p)
        if not t.empty:  # a design may declare no claims and no analyses
            rows += claims.claims_from_frame(t)
    crossovers = claims.cell_crossovers(sm.params.cells)
    # the agent rows read for what they can show: eps > 10 is context, a fixed-gap rate row a
    # convergence check, a row without its wrong twins run "consistent" (mechanism rows come after)
    rows = with_unchecked(claims.with_power(rows, crossovers))  # then the statements no row checks, with reasons
    for path in sm.input.mechanism_claims:  # the theorem checks and audits the design names (if any)
        rows += claims.claims_from_frame(pd.read_csv(path))
    # every row names its instance, its agents' crossovers and the K it ran
    rows = claims.with_instance(rows, sm.params.instances, sm.params.episodes, crossovers)
    claims.write_claims(claims.with_scope_of_reach(claims.with_reach(rows, sm.params.designs, sm.params.episodes)),
                        sm.output.csv, sm.output.md, sm.output.rst)
