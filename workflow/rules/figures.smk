from privrl.results.labels import env_title  # human figure titles


rule regret_figure:
    """Regret vs K (log-log, CI bands, fitted slopes) and regret / sqrt(K) vs K through the figure
    layer (privrl.results.facets): a panel per series, eps a colour (a legend entry each when few,
    else a colour bar), one legend; PDF and 300 dpi PNG."""
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
        title=lambda w: env_title(config["experiments"][w.experiment]["envs"][w.env]),  # human, no ids
    conda:
        CONDA_ENV
    script:
        "../scripts/regret_figure.py"
