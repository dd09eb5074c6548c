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
        pdf=f"{F}/{{experiment}}/{{analysis}}.pdf",
        claims=f"{R}/{{experiment}}/analysis/{{analysis}}_claims.csv",
    log:
        f"{R}/logs/analysis/{{experiment}}/{{analysis}}.log",
    benchmark:
        f"{R}/benchmarks/analysis/{{experiment}}/{{analysis}}.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
        figures_dir=F,
        n_boot=N_BOOT,
    conda:
        CONDA_ENV
    script:
        "../scripts/analysis.py"
