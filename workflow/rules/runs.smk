# Runs: a cell's seeds run as shards (seeds_per_job seeds each), filed in the content-addressed
# store; rule run_cell merges a cell's shards into the per-cell files that aggregates, fits and
# analyses read. A shard's path is the digest of what determines it (privrl.runs.run.run_key), so a
# second config, results_dir or workflow asking for the same run finds it done (no job), and a
# changed key (code, K, params, MDP, seeds) is a new path. No benchmark: directive, so the rule
# also qualifies for Snakemake's between-workflow cache.
# Resumable chunks (config chunk_episodes / chunk_minutes, privrl.runs.run): a seed's state is saved in
# {STORE}/state after every chunk, so a killed job's rerun resumes there. The chunking is read by
# the script from the config, deliberately not a param: it never changes a result, so changing it
# must not rerun finished shards (the params trigger would).


rule run_shard:
    """Some seeds of one cell (its run key and seed list are looked up by the digest)."""
    output:
        results=f"{STORE}/{{digest}}.parquet",
        info=f"{STORE}/{{digest}}.json",
    log:
        f"{STORE}/logs/{{digest}}.log",
    params:
        key=lambda w: SHARDS[w.digest]["key"],  # everything the result depends on, seeds apart
        seeds=lambda w: SHARDS[w.digest]["seeds"],
        env=lambda w: SHARDS[w.digest]["env"],
        seed_store=f"{STORE}/seeds",
        state_dir=f"{STORE}/state",
    resources:
        runtime=shard_minutes,
        mem_mb=lambda w, attempt: 1000 * attempt,
    conda:
        CONDA_ENV
    script:
        "../scripts/run_cell.py"


rule run_cell:
    """One cell's shards merged in seed order, with its run info (agent, params, K, seeds, label)."""
    input:
        mdp=rules.mdp.output[0],
        shards=shard_results,
    output:
        results=f"{R}/{{experiment}}/runs/{{env}}/{{cell}}.parquet",
        info=f"{R}/{{experiment}}/runs/{{env}}/{{cell}}.json",
    log:
        f"{R}/logs/runs/{{experiment}}/{{env}}/{{cell}}.log",
    params:
        code=code_of("merge_shards.py"),  # rerun when the merge code or its script changes
        cell=lambda w: X.find_cell(config, w.experiment, w.env, w.cell),
    localrule: True
    conda:
        CONDA_ENV
    script:
        "../scripts/merge_shards.py"
