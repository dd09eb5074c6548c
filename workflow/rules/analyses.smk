rule analysis:
    """A paper's table on an experiment's results (privrl.papers.registry): table, figure, claim rows."""
    wildcard_constraints:
        analysis="|".join(sorted({a for _, a in ANALYSIS_TARGETS})) or "NO_ANALYSIS",
    input:
        unpack(analysis_inputs),
    output:
        csv=f"{F}/{{experiment}}/{{analysis}}.csv",
        md=f"{F}/{{experiment}}/{{analysis}}.md",
        png=f"{F}/{{experiment}}/{{analysis}}.png",
        claims=f"{R}/{{experiment}}/analysis/{{analysis}}_claims.csv",
    log:
        f"{R}/logs/analysis/{{experiment}}/{{analysis}}.log",
    benchmark:
        f"{R}/benchmarks/analysis/{{experiment}}/{{analysis}}.tsv"
    params:
        code=code_of("analysis.py"),  # rerun when the library code or its script changes
        figures_dir=F,
        n_boot=N_BOOT,
        experiment=lambda w: experiment_block(w.experiment),
        runs=lambda w: [run_record(c) for c in cells_of(w.experiment)],  # aligned with input.runs
    conda:
        CONDA_ENV
    script:
        "../scripts/analysis.py"
