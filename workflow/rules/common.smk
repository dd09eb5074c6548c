# What every rule file shares: the config's cells and targets, the paper registry, code digests.
# Plain Python (no rules), included first by the Snakefile.
import privrl
from privrl import experiments as X
from privrl.papers import registry as papers

R = config["results_dir"]
F = config["figures_dir"]
N_BOOT = int(config["bootstrap"]["n"])  # the one bootstrap knob: aggregates, fits and analyses
CELLS = X.all_cells(config)
EXP_ENVS = sorted({(c.experiment, c.env) for c in CELLS})  # (experiment, env) pairs
ANALYSIS_TARGETS = papers.analysis_targets(config)  # (experiment, analysis) pairs; names checked
THEOREM_CHECKS = list(papers.theorem_checks())  # every registered theorem check
CHECK_SIZES = papers.check_sizes(config)  # check -> sizes (config mechanisms.checks, validated)
MECHANISMS = config.get("mechanisms") or {}
CONDA_ENV = "../../envs/privrl.yaml"  # relative to workflow/rules/
# Digests of the library code, passed as params: Snakemake's params rerun trigger then reruns
# the runs when agent/mechanism/engine code changes and everything downstream on any edit.
RUN_CODE = privrl.code_version("run")
ALL_CODE = privrl.code_version("all")


def cells_of(experiment, env=None):
    return [c for c in CELLS if c.experiment == experiment and (env is None or c.env == env)]


def envs_of(experiment):
    return sorted({c.env for c in cells_of(experiment)})


def cell_results(w):
    """Per-seed parquets of every cell of (experiment, env)."""
    return [rules.run_cell.output.results.format(experiment=w.experiment, env=w.env, cell=c.cell)
            for c in cells_of(w.experiment, w.env)]


def analysis_inputs(w):
    """Fits, aggregates and per-seed runs of every env of an experiment (an analysis reads them all)."""
    envs = envs_of(w.experiment)
    return {
        "fits": [rules.fit.output[0].format(experiment=w.experiment, env=v) for v in envs],
        "aggs": [rules.aggregate.output[0].format(experiment=w.experiment, env=v) for v in envs],
        "runs": [rules.run_cell.output.results.format(experiment=w.experiment, env=c.env, cell=c.cell)
                 for c in cells_of(w.experiment)],
    }


def per_experiment_env(pattern):
    return [pattern.format(experiment=e, env=v) for e, v in EXP_ENVS]


def per_analysis(pattern):
    return [pattern.format(experiment=e, analysis=a) for e, a in ANALYSIS_TARGETS]


def all_targets():
    """Every final artifact: per (experiment, env) figure and fit table, every analysis, every
    theorem check and the privacy audit, and CLAIMS.md."""
    return (per_experiment_env(rules.regret_figure.output[0]) + per_experiment_env(rules.fit_table.output.md)
            + [p for x in ("csv", "md", "png", "pdf") for p in per_analysis(rules.analysis.output[x])]
            + list(rules.theorem_checks.output) + list(rules.privacy_audit.output)
            + [rules.claims.output.md])
