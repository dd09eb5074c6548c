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
        code=code_of("aggregate.py"),  # rerun when the library code or its script changes
        n_boot=N_BOOT,
        runs=run_records,  # each input checked against it; its labels go into the table
    conda:
        CONDA_ENV
    script:
        "../scripts/aggregate.py"
