rule regret_figure:
    """Regret vs K (log-log, CI bands, fitted slopes) and regret / sqrt(K) vs K: panels of <= 8
    curves (by agent, coloured by eps), PDF and 300 dpi PNG."""
    wildcard_constraints:
        paper="|".join(PAPER_FOLDERS),
    input:
        agg=rules.aggregate.output[0],
        fits=rules.fit.output[0],
    output:
        pdf=f"{F}/{{paper}}/{{experiment}}/{{env}}_regret_vs_K.pdf",
        png=report(f"{F}/{{paper}}/{{experiment}}/{{env}}_regret_vs_K.png", caption="../report/regret_vs_K.rst",
                   category=experiment_category, subcategory="{experiment}",
                   labels={"experiment": "{experiment}", "env": "{env}", "figure": "regret vs K"}),
        rate_pdf=f"{F}/{{paper}}/{{experiment}}/{{env}}_regret_rate.pdf",
        rate_png=report(f"{F}/{{paper}}/{{experiment}}/{{env}}_regret_rate.png", caption="../report/regret_rate.rst",
                        category=experiment_category, subcategory="{experiment}",
                        labels={"experiment": "{experiment}", "env": "{env}", "figure": "regret / sqrt(K)"}),
    log:
        f"{R}/logs/figures/{{paper}}/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/figures/{{paper}}/{{experiment}}/{{env}}.tsv"
    params:
        code=code_of("regret_figure.py"),  # rerun when the library code or its script changes
        title=lambda w: f"{w.experiment}: {w.env}",
    conda:
        CONDA_ENV
    script:
        "../scripts/regret_figure.py"
