rule mdp:
    """Build and validate one experiment's MDP (privrl.rl.envs registry)."""
    output:
        f"{R}/{{experiment}}/mdp/{{env}}.npz",
    log:
        f"{R}/logs/mdp/{{experiment}}/{{env}}.log",
    benchmark:
        f"{R}/benchmarks/mdp/{{experiment}}/{{env}}.tsv"
    params:
        code=RUN_CODE,  # rerun when the library code it runs changes
        spec=lambda w: stable(X.env_spec(config, w.experiment, w.env)),
    conda:
        CONDA_ENV
    script:
        "../scripts/make_mdp.py"
