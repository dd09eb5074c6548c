rule run_cell:
    """One cell (experiment, env, agent, setting) over all its seeds in one job."""
    input:
        mdp=rules.mdp.output[0],
    output:
        results=f"{R}/{{experiment}}/runs/{{env}}/{{cell}}.parquet",
        info=f"{R}/{{experiment}}/runs/{{env}}/{{cell}}.json",
    log:
        f"{R}/logs/runs/{{experiment}}/{{env}}/{{cell}}.log",
    benchmark:
        f"{R}/benchmarks/runs/{{experiment}}/{{env}}/{{cell}}.tsv"
    params:
        code=RUN_CODE,  # rerun when the library code it runs changes
        cell=lambda w: X.find_cell(config, w.experiment, w.env, w.cell),
        episodes=lambda w: int(config["experiments"][w.experiment]["episodes"]),
        seeds=lambda w: X.seeds_of(config, w.experiment),
        n_checkpoints=config.get("n_checkpoints", 120),
    conda:
        CONDA_ENV
    script:
        "../scripts/run_cell.py"
