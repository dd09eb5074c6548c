rule fit_table:
    """Per-(experiment, env) table of fits: exponent, CI, regret at K, bonus saturation."""
    input:
        rules.fit.output[0],
    output:
        csv=f"{F}/{{experiment}}/{{env}}_fits.csv",
        md=f"{F}/{{experiment}}/{{env}}_fits.md",
    log:
        f"{R}/logs/tables/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/tables/{{experiment}}/{{env}}.tsv"
    params:
        code=code_of("fit_table.py"),  # rerun when the library code or its script changes
    conda:
        CONDA_ENV
    script:
        "../scripts/fit_table.py"


rule claims:
    """Score every experiment's declared claims against the fits, add the analyses' and theorem checks' claims; write CLAIMS.md."""
    input:
        fits=per_experiment_env(rules.fit.output[0]),
        mechanism_claims=rules.theorem_claims.output.md,
        analyses=per_analysis(rules.analysis.output.claims),
    output:
        md=f"{F}/CLAIMS.md",
        csv=f"{F}/claims.csv",
    log:
        f"{R}/logs/claims.log",
    benchmark:
        f"{R}/benchmarks/claims.tsv"
    params:
        code=code_of("claims.py"),  # rerun when the library code or its script changes
        figures_dir=F,
        claim_specs=[claim_specs(e, v) for e, v in EXP_ENVS],  # aligned with input.fits
    conda:
        CONDA_ENV
    script:
        "../scripts/claims.py"
