rule fit:
    """K-exponent of cumulative regret per cell (last decades of K), seed-bootstrap CI, with its
    record (what it was made from and its sha256: a fit that does not match it is rebuilt,
    privrl.runs.intermediates)."""
    input:
        cell_results,
    output:
        f"{R}/{{experiment}}/fits/{{env}}.csv",
        record=privrl_intermediates.record_path(f"{R}/{{experiment}}/fits/{{env}}.csv"),  # <env>.provenance.json
    log:
        f"{R}/logs/fits/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/fits/{{experiment}}/{{env}}.tsv"
    params:
        code=code_of("fit.py"),  # rerun when the library code or its script changes
        n_boot=N_BOOT,
        decades=lambda w: fit_decades(w.experiment),
        runs=run_records,  # each input checked against it; its labels and params go into the table
        made_by=lambda w: made_by("fit", w.experiment, w.env),  # the record's provenance
    conda:
        CONDA_ENV
    script:
        "../scripts/fit.py"
