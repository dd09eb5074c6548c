rule fit_table:
    """Per-(experiment, env) table of fits: exponent, CI, regret at K, bonus saturation."""
    input:
        f"{R}/{{experiment}}/fits/{{env}}.csv",
    output:
        csv=f"{F}/{{experiment}}/{{env}}_fits.csv",
        md=f"{F}/{{experiment}}/{{env}}_fits.md",
    log:
        f"{R}/logs/tables/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/tables/{{experiment}}/{{env}}.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
    conda:
        CONDA_ENV
    script:
        "../scripts/fit_table.py"


rule claims:
    """Score every experiment's declared claims against the fits; write CLAIMS.md."""
    input:
        fits=[f"{R}/{e}/fits/{v}.csv" for e, v in EXP_ENVS],
        extra=MECHANISM_TARGETS,
        analyses=[f"{R}/{e}/analysis/{a}_claims.csv" for e, a in ANALYSIS_TARGETS],
    output:
        md=f"{F}/CLAIMS.md",
        csv=f"{F}/claims.csv",
    log:
        f"{R}/logs/claims.log",
    benchmark:
        f"{R}/benchmarks/claims.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
        figures_dir=F,
    conda:
        CONDA_ENV
    script:
        "../scripts/claims.py"
