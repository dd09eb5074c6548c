from privrl.rl import envs, mdp
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    name, params = snakemake.params.spec  # noqa: F821
    m = envs.make(name, **params)
    log.info("built %r", m)
    mdp.save(m, snakemake.output[0])  # noqa: F821
