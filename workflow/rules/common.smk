# What every rule file shares: the config's cells and targets, the paper registry, code digests,
# and the params that make a job rerun exactly when something that determines its output changes.
# Plain Python (no rules), included first by the Snakefile.
#
# Rerun policy: every rule passes what it reads from the config as params (plain, key-sorted
# data: Snakemake's params trigger compares their repr and ignores objects it cannot represent),
# so its script never reads snakemake.config; library and script edits reach jobs through code
# digests in params. workflow/profiles/default/config.yaml drops the "code" rerun trigger,
# whose only effect on script rules is the script file's mtime (a `touch` reran every run).
import hashlib
from collections.abc import Mapping
from pathlib import Path
import math

import privrl
from privrl import cost, digests
from privrl import experiments as X
from privrl import io as privrl_io
from privrl.papers import registry as papers

R = config["results_dir"]
F = config["figures_dir"]
N_BOOT = int((config.get("bootstrap") or {}).get("n", 1000))  # the one bootstrap knob: aggregates, fits, analyses
N_CHECKPOINTS = int(config.get("n_checkpoints", 120))
CELLS = X.all_cells(config)
EXP_ENVS = sorted({(c.experiment, c.env) for c in CELLS})  # (experiment, env) pairs
ANALYSIS_TARGETS = papers.analysis_targets(config)  # (experiment, analysis) pairs; names checked
THEOREM_CHECKS = list(papers.theorem_checks())  # every registered theorem check
CHECK_SIZES = papers.check_sizes(config)  # check -> sizes (config mechanisms.checks, validated)
MECHANISMS = config.get("mechanisms") or {}
# Final figures and tables are filed by paper: {F}/{paper}/{experiment}/... and the theorem checks
# under {F}/{paper}/mechanisms/ (paper = a registry key; cross-paper experiments and the audits of
# every mechanism and agent: {F}/cross_paper/).
PAPER_OF = {e: papers.experiment_paper(e, spec) for e, spec in config["experiments"].items()}
PAPER_FOLDERS = sorted(set(papers.papers()) | {papers.CROSS_PAPER})
CROSS = papers.CROSS_PAPER


def paper_dir(experiment):
    """{F}/{paper}: the figures_dir an experiment's analyses write into (and their claims cite)."""
    return f"{F}/{PAPER_OF[experiment]}"


def check_path(check, ext):
    """A theorem check's table or figure, in its paper's mechanisms/ folder."""
    return f"{F}/{papers.check_paper(check)}/mechanisms/{check}.{ext}"
CONDA_ENV = "../../envs/privrl.yaml"  # relative to workflow/rules/
# Digests of the library code, passed as params: Snakemake's params rerun trigger then reruns
# the runs when agent/mechanism/engine code changes and everything downstream on any edit.
# the repository root (the Snakefile's directory; read as plain Python, e.g. by tests: privrl's)
WORKFLOW_ROOT = Path(workflow.basedir) if "workflow" in globals() else Path(privrl.__file__).resolve().parents[2]
# A script's own digest joins its rule's, so editing a script reruns its jobs and touching it does not.


def script_digest(*names):
    h = hashlib.sha256()
    for name in names:
        h.update(Path(WORKFLOW_ROOT, "workflow/scripts", name).read_bytes())
    return h.hexdigest()[:16]


# The MDP rule's code: the environments and the MDP writer only (privrl.digests: static imports).
RUN_CODE = f"{digests.digest(['privrl.rl.envs', 'privrl.rl.mdp', 'privrl.io'])}+{script_digest('make_mdp.py')}"
_AGENT_CODE = {}


def agent_code(agent, simulation="episode"):
    """Code digest of one agent's runs: its module and what it imports, the runner and the run
    script (privrl.run.agent_digest); a new agent module changes no other agent's digest."""
    if (agent, simulation) not in _AGENT_CODE:
        from privrl import run as runs

        _AGENT_CODE[agent, simulation] = f"{runs.agent_digest(agent, simulation)}+{script_digest('run_cell.py')}"
    return _AGENT_CODE[agent, simulation]


def code_of(script):
    """Code digest param of a downstream rule: its script and the library code it imports
    (privrl.digests.closure), so a new module that nothing imports reruns nothing. Hashed in an
    order that does not depend on where the package and the workflow live (digests.digest sorts
    by absolute path, which puts the script before or after the package files depending on the
    two directories: a library installed elsewhere would rerun every downstream job)."""
    h = hashlib.sha256()
    for f in sorted(digests.closure([Path(WORKFLOW_ROOT, "workflow/scripts", script)]),
                    key=lambda f: (0, f.relative_to(digests.ROOT).parts) if f.is_relative_to(digests.ROOT) else (1, (f.name,))):
        h.update((f.relative_to(digests.ROOT).as_posix() if f.is_relative_to(digests.ROOT) else f.name).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def stable(x):
    """Plain, key-sorted data (dicts, lists, str/int/float/bool/None): a param whose repr is stable
    and which Snakemake's params trigger tracks (it ignores objects it cannot represent)."""
    if isinstance(x, Mapping):
        return {str(k): stable(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (list, tuple)):
        return [stable(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):  # numpy scalar
        return x.item()
    return x


def run_record(c):
    """The config's view of one cell's run file (privrl.results.run_files): what the downstream
    jobs check the file against, and its current label and tags."""
    return stable({"cell": c.cell, "agent": c.agent, "params": c.params, "label": c.label, "tags": c.tags,
                   "experiment": c.experiment, "setting": c.setting, "code": agent_code(c.agent, c.simulation),
                   "episodes": int(config["experiments"][c.experiment]["episodes"]),
                   "seeds": X.seeds_of(config, c.experiment), "n_checkpoints": N_CHECKPOINTS})


def run_records(w):
    """Run records of cell_results(w), in the same order."""
    return [run_record(c) for c in cells_of(w.experiment, w.env)]


def experiment_block(experiment):
    """An experiment's config as analyses read it (without its prose and its claim specs, which
    only the claims rule reads)."""
    return stable({k: v for k, v in config["experiments"][experiment].items()
                   if k not in ("description", "note", "claims")})


def claim_specs(experiment, env):
    """The experiment's resolved claim specs on one env (the claims rule's param, per fits file)."""
    return stable([c for c in X.resolve_claims(config, experiment) if c["check"]["env"] == env])


def theorem_check_arguments():
    """Every theorem check's run() arguments, prepared from its sizes and the config."""
    checks = papers.theorem_checks()
    return stable({name: checks[name].arguments(sizes, config) for name, sizes in CHECK_SIZES.items()})


# Run files whose content no longer matches the sha256 in their metadata: filled at start-up by
# workflow/rules/integrity.smk (path -> problem), read by the input functions that name run files.
CORRUPT_RUNS = {}


def regenerated_if_corrupt(paths):
    """``paths`` (run files an input function names), each corrupt one forced to rerun
    (workflow/rules/integrity.smk explains how)."""
    for p in paths:
        if p in CORRUPT_RUNS:
            workflow.dag.forcefiles.add(p)
    return paths


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
SEEDS_PER_JOB = int(config.get("seeds_per_job", cost.DEFAULT_SEEDS_PER_JOB))
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
                           c.setting, N_CHECKPOINTS, agent_code(c.agent, c.simulation), simulation=c.simulation)
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
    sh = SHARDS[w.digest]
    est_s = cost.shard_seconds(sh["key"]["agent"], sh["env"], sh["key"]["episodes"], len(sh["seeds"]),
                               params=sh["key"]["params"], simulation=sh["key"].get("simulation", "episode"))
    return int(math.ceil((1.5 * est_s / 60 + 5) * 2 ** (attempt - 1)))


def cells_of(experiment, env=None):
    return [c for c in CELLS if c.experiment == experiment and (env is None or c.env == env)]


def envs_of(experiment):
    return sorted({c.env for c in cells_of(experiment)})


def cell_results(w):
    """Per-seed parquets of every cell of (experiment, env)."""
    return regenerated_if_corrupt([rules.run_cell.output.results.format(experiment=w.experiment, env=w.env, cell=c.cell)
                                   for c in cells_of(w.experiment, w.env)])


def analysis_inputs(w):
    """Fits, aggregates and per-seed runs of every env of an experiment (an analysis reads them all)."""
    envs = envs_of(w.experiment)
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
    """Every final artifact: per (experiment, env) figures and fit table, every analysis, every
    theorem check and the privacy audit, and CLAIMS.md."""
    return ([p for x in ("pdf", "png", "rate_pdf", "rate_png") for p in per_experiment_env(rules.regret_figure.output[x])]
            + per_experiment_env(rules.fit_table.output.md)
            + [p for x in ("csv", "md", "pdf", "png") for p in per_analysis(rules.analysis.output[x])]
            + list(rules.theorem_checks.output) + list(rules.privacy_audit.output) + list(rules.agent_audit.output)
            + [rules.claims.output.md])
