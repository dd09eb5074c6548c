def cell_results(w):
    return [f"{R}/{w.experiment}/runs/{w.env}/{c.cell}.parquet"
            for c in CELLS if c.experiment == w.experiment and c.env == w.env]


rule aggregate:
    """Mean and 95% seed-bootstrap CI of cumulative regret per (cell, checkpoint)."""
    input:
        cell_results,
    output:
        f"{R}/{{experiment}}/aggregate/{{env}}.parquet",
    log:
        f"{R}/logs/aggregate/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/aggregate/{{experiment}}/{{env}}.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
        n_boot=config["bootstrap"]["n"],
    conda:
        CONDA_ENV
    script:
        "../scripts/aggregate.py"
