rule aggregate:
    """Mean and 95% seed-bootstrap CI of cumulative regret per (cell, checkpoint), with its record
    (what it was made from and its sha256: an aggregate that does not match it is rebuilt,
    privrl.runs.intermediates)."""
    input:
        cell_results,
    output:
        f"{R}/{{experiment}}/aggregate/{{env}}.parquet",
        record=privrl_intermediates.record_path(f"{R}/{{experiment}}/aggregate/{{env}}.parquet"),  # <env>.provenance.json
    log:
        f"{R}/logs/aggregate/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/aggregate/{{experiment}}/{{env}}.tsv"
    params:
        code=code_of("aggregate.py"),  # rerun when the library code or its script changes
        n_boot=N_BOOT,
        runs=run_records,  # each input checked against it; its labels go into the table
        made_by=lambda w: made_by("aggregate", w.experiment, w.env),  # the record's provenance
    conda:
        CONDA_ENV
    script:
        "../scripts/aggregate.py"
