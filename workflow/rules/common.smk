# What every rule file shares: the config's plan (privrl.plan.workflow: cells and targets, run
# shards and their store names, run records, code digests) and the input functions that name
# other rules' outputs. Plain Python (no rules), included first by the Snakefile.
#
# Rerun policy (privrl.plan.workflow explains it): every rule passes what it reads from the config
# as params, so its script never reads snakemake.config; library and script edits reach jobs
# through code digests in params. profiles/default/config.yaml drops the "code" rerun
# trigger, whose only effect on script rules is the script file's mtime (a `touch` reran every run).
from pathlib import Path

from privrl.design import experiments as X
from privrl import io as privrl_io
from privrl.runs import intermediates as privrl_intermediates
from privrl.runs import provenance as privrl_provenance
from privrl.papers import registry as papers
from privrl.plan.workflow import WorkflowPlan, stable  # noqa: F401 (stable: rules' params)

WORKFLOW_ROOT = Path(workflow.basedir)  # the repository root (the Snakefile's directory)
PLAN = WorkflowPlan(config, WORKFLOW_ROOT)
CONDA_ENV = "../../envs/privrl.yaml"  # relative to workflow/rules/

R, F, STORE = PLAN.results_dir, PLAN.figures_dir, PLAN.store
N_BOOT = PLAN.n_boot  # the one bootstrap knob: aggregates, fits, analyses
CELLS, EXP_ENVS = PLAN.cells, PLAN.exp_envs
ANALYSIS_TARGETS, THEOREM_CHECKS = PLAN.analysis_targets, PLAN.theorem_checks
MECHANISMS = PLAN.mechanisms
PAPER_OF, PAPER_FOLDERS, CROSS = PLAN.paper_of, PLAN.paper_folders, papers.CROSS_PAPER
PAPER_NAMES, CHECK_PAPER = PLAN.paper_names, PLAN.check_paper  # report categories: one per paper
RUN_CODE = PLAN.mdp_code  # the MDP rule's code digest
SHARDS = PLAN.shards  # store digest -> {key, seeds, env} of every run shard
paper_dir, check_path, code_of, run_record = PLAN.paper_dir, PLAN.check_path, PLAN.code_of, PLAN.run_record
experiment_block, claim_specs, cells_of = PLAN.experiment_block, PLAN.claim_specs, PLAN.cells_of
theorem_check_arguments = PLAN.theorem_check_arguments


def run_records(w):
    """Run records of cell_results(w), in the same order."""
    return PLAN.run_records(w.experiment, w.env)


def fit_decades(experiment):
    """The decades of K a fit of ``experiment`` reads (rule fit's param)."""
    return config["experiments"][experiment].get("fit_decades", 2)


def made_by(rule_name, experiment, env):
    """What determines the aggregate or fit (``rule_name``) of (experiment, env): its rule, code
    digest and the digest of the values its rule passes as params (privrl.runs.provenance.provenance).
    The job writes it into the table's record; the start-up scan compares the record with it
    (privrl.runs.intermediates, workflow/rules/integrity.smk)."""
    params = {"n_boot": N_BOOT, "runs": PLAN.run_records(experiment, env)}
    if rule_name == "fit":
        params["decades"] = fit_decades(experiment)
    return privrl_provenance.provenance(rule_name, code_of(f"{rule_name}.py"), params)


def experiment_category(w):
    return PLAN.experiment_category(w.experiment)


def analysis_category(w):
    return PLAN.analysis_category(w.analysis)


def shard_minutes(w, attempt):
    return PLAN.shard_minutes(w.digest, attempt)


# Run files whose content no longer matches the sha256 in their metadata: filled at start-up by
# workflow/rules/integrity.smk (path -> problem), read by the input functions that name run files.
CORRUPT_RUNS = {}
# Intermediates (MDPs, aggregates, fits, the mechanism claims) missing while their inputs and a
# consumer exist, or MDPs whose content is not the plan's: filled at start-up by integrity.smk
# (privrl.runs.lost), forced by the first input function the DAG evaluates.
LOST = {}


def regenerated_if_corrupt(paths):
    """``paths`` (run files an input function names), each corrupt one forced to rerun, and every
    lost intermediate forced (workflow/rules/integrity.smk explains how)."""
    for p in paths:
        if p in CORRUPT_RUNS:
            workflow.dag.forcefiles.add(p)
    if LOST:  # forcing a file no job of this DAG writes changes nothing
        workflow.dag.forcefiles.update(LOST)
    return paths


def shard_results(w):
    """The store files of one cell's shards (merged in seed order by rule run_cell)."""
    return regenerated_if_corrupt([rules.run_shard.output.results.format(digest=d)
                                   for d in PLAN.cell_shards[w.experiment, w.env, w.cell]])


def cell_results(w):
    """Per-seed parquets of every cell of (experiment, env)."""
    return regenerated_if_corrupt([rules.run_cell.output.results.format(experiment=w.experiment, env=w.env, cell=c.cell)
                                   for c in cells_of(w.experiment, w.env)])


def analysis_inputs(w):
    """Fits, aggregates and per-seed runs of every env of an experiment (an analysis reads them all)."""
    envs = PLAN.envs_of(w.experiment)
    return {
        "fits": [rules.fit.output[0].format(experiment=w.experiment, env=v) for v in envs],
        "aggs": [rules.aggregate.output[0].format(experiment=w.experiment, env=v) for v in envs],
        "runs": regenerated_if_corrupt([rules.run_cell.output.results.format(experiment=w.experiment, env=c.env,
                                                                             cell=c.cell) for c in cells_of(w.experiment)]),
    }


def per_experiment_env(pattern):
    return [pattern.format(paper=PAPER_OF[e], experiment=e, env=v) for e, v in EXP_ENVS]


def per_analysis(pattern):
    return [pattern.format(paper=PAPER_OF[e], experiment=e, analysis=a) for e, a in ANALYSIS_TARGETS]


def all_targets():
    """Every final artifact: per (experiment, env) figures and fit table, every analysis, the
    theorem checks and audits the design names, and CLAIMS.md."""
    return ([p for x in ("pdf", "png", "rate_pdf", "rate_png") for p in per_experiment_env(rules.regret_figure.output[x])]
            + per_experiment_env(rules.fit_table.output.md)
            + [p for x in ("csv", "md", "pdf", "png") for p in per_analysis(rules.analysis.output[x])]
            + [check_path(c, x) for c in THEOREM_CHECKS for x in ("csv", "png", "pdf")]
            + ([rules.privacy_audit.output.csv, rules.privacy_audit.output.md] if PLAN.mechanism_audit else [])
            + ([rules.agent_audit.output.csv, rules.agent_audit.output.md] if PLAN.audited_agents else [])
            + [rules.privacy_manifest.output.csv]
            + [rules.claims.output.md])
