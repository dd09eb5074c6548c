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
        n_boot=N_BOOT,
    conda:
        CONDA_ENV
    script:
        "../scripts/aggregate.py"
