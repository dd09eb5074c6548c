ANALYSIS_TARGETS = [
    (e, a) for e, spec in config["experiments"].items() for a in spec.get("analyses", [])
]


def analysis_inputs(w):
    envs = sorted({c.env for c in CELLS if c.experiment == w.experiment})
    return {
        "fits": [f"{R}/{w.experiment}/fits/{v}.csv" for v in envs],
        "aggs": [f"{R}/{w.experiment}/aggregate/{v}.parquet" for v in envs],
        "runs": [f"{R}/{w.experiment}/runs/{c.env}/{c.cell}.parquet" for c in CELLS if c.experiment == w.experiment],
    }


rule analysis:
    """An experiment's analysis (privrl.analyses registry): table, figure and claim rows."""
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
        code=ALL_CODE,  # rerun when the library code it runs changes
        figures_dir=F,
    conda:
        CONDA_ENV
    script:
        "../scripts/analysis.py"
