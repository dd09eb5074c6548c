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
        code=ALL_CODE,  # rerun when the library code it runs changes
        n_boot=N_BOOT,
        decades=lambda w: config["experiments"][w.experiment].get("fit_decades", 2),
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"
