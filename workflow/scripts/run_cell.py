"""Rule run_shard: the seeds of one shard of a cell, filed under the digest of its run key."""
from privrl import io
from privrl.runs import run
from privrl.plan import validate
from privrl.rl import envs
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    name, env_params = sm.params.env
    # the chunking never changes a result: read from the config, not a param (workflow/rules/runs.smk)
    df, info = run.run_shard(sm.params.key, envs.make(name, **env_params), sm.params.seeds, sm.params.seed_store,
                             state_dir=sm.params.state_dir, **validate.chunking_of(sm.config))
    log.info("%s %s: seeds %s x %d episodes in %.2fs (reused %s, resumed %s)", sm.params.key["experiment"],
             sm.params.key["setting"], info["seeds"], info["episodes"], info["seconds"], info["reused_seeds"],
             info["resumed_from"])
    info["code"] = sm.params.key["code"]  # the agent's code digest, as in the run key
    io.write_run(sm.output.results, sm.output.info, df, info)  # the JSON records the parquet's sha256
