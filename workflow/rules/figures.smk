rule regret_figure:
    """Regret vs K (log-log) with CI bands and the fitted slope."""
    input:
        agg=rules.aggregate.output[0],
        fits=rules.fit.output[0],
    output:
        f"{F}/{{experiment}}/{{env}}_regret_vs_K.png",
    log:
        f"{R}/logs/figures/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/figures/{{experiment}}/{{env}}.tsv"
    params:
        code=code_of("regret_figure.py"),  # rerun when the library code or its script changes
        title=lambda w: f"{w.experiment}: {w.env}",
        note=lambda w: config["experiments"][w.experiment].get("note", ""),
    conda:
        CONDA_ENV
    script:
        "../scripts/regret_figure.py"
