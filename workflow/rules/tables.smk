from privrl.results.claims import cell_specs as claims_cells  # each claim row names its agents' crossovers
from privrl.results.claims import instances_of as claims_instances  # each claim row names its instance


rule fit_table:
    """Per-(experiment, env) table of fits: exponent, CI, regret at K, bonus saturation."""
    wildcard_constraints:
        paper="|".join(PAPER_FOLDERS),
    input:
        rules.fit.output[0],
    output:
        csv=report(f"{F}/{{paper}}/{{experiment}}/{{env}}_fits.csv", caption="../report/fit_table.rst",
                   category=experiment_category, subcategory="{experiment}",
                   labels={"experiment": "{experiment}", "env": "{env}", "figure": "fitted K-exponents"}),
        md=f"{F}/{{paper}}/{{experiment}}/{{env}}_fits.md",
    log:
        f"{R}/logs/tables/{{paper}}/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/tables/{{paper}}/{{experiment}}/{{env}}.tsv"
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
        mechanism_claims=lambda w: regenerated_if_corrupt([rules.theorem_claims.output.csv] if PLAN.mechanism_claims else []),
        analyses=per_analysis(rules.analysis.output.claims),
    output:
        md=report(f"{F}/CLAIMS.md", caption="../report/claims.rst", category="Claims", labels={"file": "CLAIMS.md"}),
        csv=report(f"{F}/claims.csv", caption="../report/claims_csv.rst", category="Claims", labels={"file": "claims.csv"}),
        rst=f"{R}/report/claims.rst",  # the scoreboard and claims tables the report's CLAIMS.md caption includes
    log:
        f"{R}/logs/claims.log",
    benchmark:
        f"{R}/benchmarks/claims.tsv"
    params:
        code=code_of("claims.py"),  # rerun when the library code or its script changes
        # list params through a function: Snakemake rebuilds a literal list (plain text in the report lost)
        artifacts=lambda w: readable([f"{paper_dir(e)}/{e}/{v}_regret_vs_K.png" for e, v in EXP_ENVS]),  # as input.fits
        claim_specs=lambda w: readable([claim_specs(e, v) for e, v in EXP_ENVS]),  # aligned with input.fits
        env_specs=lambda w: readable([list(X.env_spec(config, e, v)) for e, v in EXP_ENVS]),  # crossover K needs the MDP
        designs=readable(X.design_episodes(WORKFLOW_ROOT)),  # the shipped design that reaches a "not reached" row
        episodes=readable({e: int(v.get("episodes", 0)) for e, v in sorted(config["experiments"].items()) if v}),  # this run's K
        instances=lambda w: readable(claims_instances(config)),  # {experiment: {env key: "name(params)"}}: each row names its instance
        cells=lambda w: readable(claims_cells(config)),  # {experiment: {env: {env, cells}}}: each row's crossovers
    conda:
        CONDA_ENV
    script:
        "../scripts/claims.py"
