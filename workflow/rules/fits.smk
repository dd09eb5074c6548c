rule fit:
    """K-exponent of cumulative regret per cell (last decades of K), seed-bootstrap CI."""
    input:
        cell_results,
    output:
        f"{R}/{{experiment}}/fits/{{env}}.csv",
    log:
        f"{R}/logs/fits/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/fits/{{experiment}}/{{env}}.tsv"
    params:
        code=code_of("fit.py"),  # rerun when the library code or its script changes
        n_boot=N_BOOT,
        decades=lambda w: config["experiments"][w.experiment].get("fit_decades", 2),
        runs=run_records,  # each input checked against it; its labels and params go into the table
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"
