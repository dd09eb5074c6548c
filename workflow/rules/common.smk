# What every rule file shares: the config's cells and targets, the paper registry, code digests.
# Plain Python (no rules), included first by the Snakefile.
import math

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


# Report categories (`snakemake --report`): one per paper, named as a citation.
def _paper_name(p):
    if not p.authors:
        return p.title.split(" (")[0]
    return f"{p.authors[0].split()[-1]} et al." + (f" {p.year}" if p.year else "")


PAPER_NAMES = {k: _paper_name(p) for k, p in papers.papers().items()}
ANALYSIS_PAPER = {a: k for k, p in papers.papers().items() for a in p.analyses}
CHECK_PAPER = {c.name: k for k, p in papers.papers().items() for c in p.theorem_checks}
NO_PAPER = "Regret vs K (no paper table)"


def experiment_category(w):
    """The papers whose tables an experiment feeds (its analyses), as one report category."""
    keys = dict.fromkeys(ANALYSIS_PAPER[a] for a in config["experiments"][w.experiment].get("analyses") or [])
    return ", ".join(PAPER_NAMES[k] for k in keys) or NO_PAPER


def analysis_category(w):
    return PAPER_NAMES[ANALYSIS_PAPER[w.analysis]]




# Seeds as shards, results keyed by content: every cell's seeds run in shards of seeds_per_job
# (aligned: seed s is in shard s // seeds_per_job), each filed in the store (store_dir, shared by
# every config and results_dir) under the digest of what determines it (privrl.run.run_key).
STORE = config.get("store_dir", "results/store")
SEEDS_PER_JOB = int(config.get("seeds_per_job", 10))
N_CHECKPOINTS = int(config.get("n_checkpoints", 120))


def _build_shards():
    """digest -> {key, seeds, env spec} of every shard, and (experiment, env, cell) -> its digests."""
    from privrl import run as runs
    from privrl.rl import envs

    by_digest, of_cell, mdps = {}, {}, {}
    for c in CELLS:
        spec = X.env_spec(config, c.experiment, c.env)
        if (c.experiment, c.env) not in mdps:
            mdps[c.experiment, c.env] = envs.make(spec[0], **spec[1])
        exp = config["experiments"][c.experiment]
        key = runs.run_key(c.agent, c.params, mdps[c.experiment, c.env], int(exp["episodes"]), c.experiment,
                           c.setting, N_CHECKPOINTS, RUN_CODE)
        digests = []
        for seeds in runs.seed_shards(X.seeds_of(config, c.experiment), SEEDS_PER_JOB):
            d = runs.key_digest(key, seeds)
            by_digest[d] = {"key": key, "seeds": seeds, "env": [spec[0], dict(sorted(spec[1].items()))]}
            digests.append(d)
        of_cell[c.experiment, c.env, c.cell] = digests
    return by_digest, of_cell


SHARDS, CELL_SHARDS = _build_shards()


def shard_results(w):
    """The store files of one cell's shards (merged in seed order by rule run_cell)."""
    return [rules.run_shard.output.results.format(digest=d) for d in CELL_SHARDS[w.experiment, w.env, w.cell]]


def shard_minutes(w, attempt):
    """SLURM runtime limit of a shard (minutes): the measured-throughput estimate (privrl.cost)
    x 1.5 + 5 min, doubled on every retry (the profile's retries: 2)."""
    from privrl import cost

    sh = SHARDS[w.digest]
    est_s = cost.shard_seconds(sh["key"]["agent"], sh["env"], sh["key"]["episodes"], len(sh["seeds"]))
    return int(math.ceil((1.5 * est_s / 60 + 5) * 2 ** (attempt - 1)))


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
    """Every final artifact: per (experiment, env) figures and fit table, every analysis, every
    theorem check and the privacy audit, and CLAIMS.md."""
    return ([p for x in ("pdf", "png", "rate_pdf", "rate_png") for p in per_experiment_env(rules.regret_figure.output[x])]
            + per_experiment_env(rules.fit_table.output.md)
            + [p for x in ("csv", "md", "pdf", "png") for p in per_analysis(rules.analysis.output[x])]
            + list(rules.theorem_checks.output) + list(rules.privacy_audit.output) + list(rules.agent_audit.output)
            + [rules.claims.output.md])
