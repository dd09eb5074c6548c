rule analysis:
    """A paper's table on an experiment's results (privrl.papers.registry): table, figure, claim rows."""
    wildcard_constraints:
        analysis="|".join(sorted({a for _, a in ANALYSIS_TARGETS})) or "NO_ANALYSIS",
        paper="|".join(PAPER_FOLDERS),
    input:
        unpack(analysis_inputs),
    output:
        csv=report(f"{F}/{{paper}}/{{experiment}}/{{analysis}}.csv", caption="../report/analysis_table.rst",
                   category=analysis_category, subcategory="{experiment}",
                   labels={"experiment": "{experiment}", "analysis": "{analysis}", "kind": "table"}),
        md=f"{F}/{{paper}}/{{experiment}}/{{analysis}}.md",
        pdf=f"{F}/{{paper}}/{{experiment}}/{{analysis}}.pdf",
        png=report(f"{F}/{{paper}}/{{experiment}}/{{analysis}}.png", caption="../report/analysis_figure.rst",
                   category=analysis_category, subcategory="{experiment}",
                   labels={"experiment": "{experiment}", "analysis": "{analysis}", "kind": "figure"}),
        claims=f"{R}/{{experiment}}/analysis/{{paper}}/{{analysis}}_claims.csv",
    log:
        f"{R}/logs/analysis/{{paper}}/{{experiment}}/{{analysis}}.log",
    benchmark:
        f"{R}/benchmarks/analysis/{{paper}}/{{experiment}}/{{analysis}}.tsv"
    params:
        code=code_of("analysis.py"),  # rerun when the library code or its script changes
        figures_dir=lambda w: paper_dir(w.experiment),  # {F}/{paper}: where its artifacts (and claims) are
        n_boot=N_BOOT,
        experiment=lambda w: readable(experiment_block(w.experiment)),  # readable: plain text in the report
        runs=lambda w: readable([run_record(c) for c in cells_of(w.experiment)]),  # aligned with input.runs
    conda:
        CONDA_ENV
    script:
        "../scripts/analysis.py"
