"""The workflow's plan of a config: its cells and targets, the run shards and their store names,
the run records downstream jobs check run files against, and the code digests that rerun a job
exactly when something that determines its output changes.

``workflow/rules/common.smk`` builds one :class:`WorkflowPlan` from the resolved config and the
repository root and hands its values to the rules; everything here is plain Python, so the
tests import it instead of reading the rule files.

Rerun policy: every rule passes what it reads from the config as params (plain, key-sorted
data, :func:`stable`: Snakemake's params trigger compares their repr and ignores objects it
cannot represent), so its script never reads ``snakemake.config``; library and script edits
reach jobs through code digests in params (:meth:`WorkflowPlan.code_of`,
:meth:`WorkflowPlan.agent_code`).

Seeds as shards, results keyed by content: every cell's seeds run in shards of
``seeds_per_job`` (aligned: seed s is in shard s // seeds_per_job), each filed in the store
(``store_dir``, shared by every config and results_dir) under the digest of what determines it
(:func:`privrl.runs.run.run_key`, :func:`privrl.runs.run.key_digest`).
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from privrl import digests
from privrl.plan import cost
from privrl.design import experiments as X
from privrl.papers import registry as papers

NO_PAPER = "Regret vs K (no paper table)"  # report category of an experiment that feeds no paper table
VALIDATION_ONLY = ("allow_vacuous_guarantee",)  # keys of an experiment or a cell only privrl.plan.validate reads


def stable(x: Any) -> Any:
    """Plain, key-sorted data (dicts, lists, str/int/float/bool/None): a param whose repr is stable
    and which Snakemake's params trigger tracks (it ignores objects it cannot represent)."""
    if isinstance(x, Mapping):
        return {str(k): stable(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (list, tuple)):
        return [stable(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):  # numpy scalar
        return x.item()
    return x


def paper_name(p: papers.Paper) -> str:
    """A paper as a report category: "First-author et al. year" (else its title)."""
    if not p.authors:
        return p.title.split(" (")[0]
    return f"{p.authors[0].split()[-1]} et al." + (f" {p.year}" if p.year else "")


class WorkflowPlan:
    """What the rules of one (resolved, validated) config need, computed once.

    ``root``: the repository root (the Snakefile's directory), where ``workflow/scripts`` are.
    """

    def __init__(self, config: Mapping[str, Any], root: str | Path):
        self.config = config
        self.root = Path(root)
        self.results_dir = config["results_dir"]
        self.figures_dir = config["figures_dir"]
        self.store = config.get("store_dir", "results/store")
        self.n_boot = int((config.get("bootstrap") or {}).get("n", 1000))  # the one bootstrap knob
        self.n_checkpoints = int(config.get("n_checkpoints", 120))
        self.seeds_per_job = int(config.get("seeds_per_job", cost.DEFAULT_SEEDS_PER_JOB))
        self.mechanisms = config.get("mechanisms") or {}
        self.cells = X.all_cells(config)
        self.exp_envs = sorted({(c.experiment, c.env) for c in self.cells})  # (experiment, env) pairs
        self.analysis_targets = papers.analysis_targets(config)  # (experiment, analysis) pairs; names checked
        # the mechanism-level jobs the design names (mechanisms.checks / audit / agent_audit), of the
        # agents it uses: a design that names none plans none
        self.check_sizes = papers.check_sizes(config)  # named check -> sizes (config mechanisms.checks, validated)
        self.theorem_checks = [c for c in papers.theorem_checks() if c in self.check_sizes]  # registry order
        self.mechanism_audit = X.names_mechanism_audit(config)
        self.audited_agents = X.audited_agents(config)
        self.mechanism_claims = bool(self.theorem_checks or self.mechanism_audit or self.audited_agents)
        # final figures and tables are filed by paper: {F}/{paper}/{experiment}/..., the theorem
        # checks under {F}/{paper}/mechanisms/ (cross-paper experiments and audits: {F}/cross_paper/)
        self.paper_of = {e: papers.experiment_paper(e, spec) for e, spec in config["experiments"].items()}
        self.paper_folders = sorted(set(papers.papers()) | {papers.CROSS_PAPER})
        self.paper_names = {k: paper_name(p) for k, p in papers.papers().items()}
        self.analysis_paper = {a: k for k, p in papers.papers().items() for a in p.analyses}
        self.check_paper = {c.name: k for k, p in papers.papers().items() for c in p.theorem_checks}
        self._agent_code: dict[str, str] = {}

    # ------------------------------------------------------------------ paths
    def paper_dir(self, experiment: str) -> str:
        """{F}/{paper}: the figures_dir an experiment's analyses write into (and their claims cite)."""
        return f"{self.figures_dir}/{self.paper_of[experiment]}"

    def check_path(self, check: str, ext: str) -> str:
        """A theorem check's table or figure, in its paper's mechanisms/ folder."""
        return f"{self.figures_dir}/{papers.check_paper(check)}/mechanisms/{check}.{ext}"

    # ------------------------------------------------------------------ code digests
    def script_digest(self, *names: str) -> str:
        """sha256 (16 hex) of workflow scripts: a script's own digest joins its rule's, so editing
        a script reruns its jobs and touching it does not."""
        h = hashlib.sha256()
        for name in names:
            h.update(Path(self.root, "workflow/scripts", name).read_bytes())
        return h.hexdigest()[:16]

    @cached_property
    def mdp_code(self) -> str:
        """The MDP rule's code: the environments and the MDP writer only (static imports)."""
        return f"{digests.digest(['privrl.rl.envs', 'privrl.rl.mdp', 'privrl.io'])}+{self.script_digest('make_mdp.py')}"

    def agent_code(self, agent: str, simulation: str = "episode") -> str:
        """Code digest of one agent's runs: its module and what it imports (and its aggregate
        kernel's under aggregate simulation), the runner and the run script
        (:func:`privrl.runs.run.agent_digest`); a new agent module changes no other agent's digest."""
        if (agent, simulation) not in self._agent_code:
            from privrl.runs import run as runs

            self._agent_code[agent, simulation] = (f"{runs.agent_digest(agent, simulation)}"
                                                   f"+{self.script_digest('run_cell.py')}")
        return self._agent_code[agent, simulation]

    def code_of(self, script: str) -> str:
        """Code digest param of a downstream rule: its script and the library code it imports
        (:func:`privrl.digests.closure`), so a new module that nothing imports reruns nothing. Hashed
        in an order that does not depend on where the package and the workflow live
        (``digests.digest`` sorts by absolute path, which puts the script before or after the package
        files depending on the two directories: a library installed elsewhere would rerun every
        downstream job)."""
        def rel(f: Path) -> tuple:
            return (0, f.relative_to(digests.ROOT).parts) if f.is_relative_to(digests.ROOT) else (1, (f.name,))

        h = hashlib.sha256()
        for f in sorted(digests.closure([Path(self.root, "workflow/scripts", script)]), key=rel):
            h.update((f.relative_to(digests.ROOT).as_posix() if f.is_relative_to(digests.ROOT) else f.name).encode())
            h.update(f.read_bytes())
        return h.hexdigest()[:16]

    # ------------------------------------------------------------------ cells and their records
    def cells_of(self, experiment: str, env: str | None = None) -> list[X.Cell]:
        return [c for c in self.cells if c.experiment == experiment and (env is None or c.env == env)]

    def envs_of(self, experiment: str) -> list[str]:
        return sorted({c.env for c in self.cells_of(experiment)})

    def run_record(self, c: X.Cell) -> dict:
        """The config's view of one cell's run file (:mod:`privrl.results.run_files`): what the
        downstream jobs check the file against, and its current label and tags."""
        return stable({"cell": c.cell, "agent": c.agent, "params": c.params, "label": c.label, "tags": c.tags,
                       "experiment": c.experiment, "setting": c.setting,
                       "code": self.agent_code(c.agent, c.simulation),
                       "episodes": int(self.config["experiments"][c.experiment]["episodes"]),
                       "seeds": X.seeds_of(self.config, c.experiment), "n_checkpoints": self.n_checkpoints})

    def run_records(self, experiment: str, env: str | None = None) -> list[dict]:
        """Run records of :meth:`cells_of`, in the same order."""
        return [self.run_record(c) for c in self.cells_of(experiment, env)]

    def experiment_block(self, experiment: str) -> dict:
        """An experiment's config as analyses read it (without its prose, its claim specs, which
        only the claims rule reads, and the keys only the validation reads, :data:`VALIDATION_ONLY`,
        on the experiment and on its cells: opting in reruns nothing)."""
        block = {k: v for k, v in self.config["experiments"][experiment].items()
                 if k not in ("description", "note", "claims") + VALIDATION_ONLY}
        if isinstance(block.get("cells"), list):
            block["cells"] = [{k: v for k, v in c.items() if k not in VALIDATION_ONLY} for c in block["cells"]]
        return stable(block)

    def claim_specs(self, experiment: str, env: str) -> list:
        """The experiment's resolved claim specs on one env (the claims rule's param, per fits file)."""
        return stable([c for c in X.resolve_claims(self.config, experiment) if c["check"]["env"] == env])

    def theorem_check_arguments(self) -> dict:
        """Every theorem check's run() arguments, prepared from its sizes and the config."""
        checks = papers.theorem_checks()
        return stable({name: checks[name].arguments(self.check_sizes[name], self.config) for name in self.theorem_checks})

    def agent_audit_sizes(self) -> dict:
        """The agent audit's sizes with the agents it covers resolved (:func:`privrl.design.experiments.audited_agents`)."""
        return stable({**(self.mechanisms.get("agent_audit") or {}), "agents": list(self.audited_agents)})

    # ------------------------------------------------------------------ report categories
    def experiment_category(self, experiment: str) -> str:
        """The papers whose tables an experiment feeds (its analyses), as one report category."""
        analyses = self.config["experiments"][experiment].get("analyses") or []
        keys = dict.fromkeys(self.analysis_paper[a] for a in analyses)
        return ", ".join(self.paper_names[k] for k in keys) or NO_PAPER

    def analysis_category(self, analysis: str) -> str:
        return self.paper_names[self.analysis_paper[analysis]]

    # ------------------------------------------------------------------ shards
    def _build_shards(self) -> tuple[dict, dict]:
        from privrl.runs import run as runs
        from privrl.rl import envs

        by_digest, of_cell, mdps = {}, {}, {}
        for c in self.cells:
            spec = X.env_spec(self.config, c.experiment, c.env)
            if (c.experiment, c.env) not in mdps:
                mdps[c.experiment, c.env] = envs.make(spec[0], **spec[1])
            exp = self.config["experiments"][c.experiment]
            key = runs.run_key(c.agent, c.params, mdps[c.experiment, c.env], int(exp["episodes"]), c.experiment,
                               c.setting, self.n_checkpoints, self.agent_code(c.agent, c.simulation),
                               env_stream=c.env if exp.get("common_random_numbers") else None,
                               simulation=c.simulation)
            names = []
            for seeds in runs.seed_shards(X.seeds_of(self.config, c.experiment), self.seeds_per_job):
                d = runs.key_digest(key, seeds)
                by_digest[d] = {"key": key, "seeds": seeds, "env": [spec[0], dict(sorted(spec[1].items()))]}
                names.append(d)
            of_cell[c.experiment, c.env, c.cell] = names
        return by_digest, of_cell

    @cached_property
    def _shard_tables(self) -> tuple[dict, dict]:
        return self._build_shards()

    @property
    def shards(self) -> dict[str, dict]:
        """store digest -> {key: the run key, seeds: the shard's seeds, env: [name, params]}."""
        return self._shard_tables[0]

    @property
    def cell_shards(self) -> dict[tuple[str, str, str], list[str]]:
        """(experiment, env, cell) -> the store digests of its shards, in seed order."""
        return self._shard_tables[1]

    def shard_minutes(self, digest: str, attempt: int) -> int:
        """SLURM runtime limit of a shard (minutes): the measured-throughput estimate
        (:mod:`privrl.plan.cost`) x 1.5 + 5 min, doubled on every retry (the profile's retries: 2)."""
        sh = self.shards[digest]
        est_s = cost.shard_seconds(sh["key"]["agent"], sh["env"], sh["key"]["episodes"], len(sh["seeds"]),
                                   params=sh["key"]["params"], simulation=sh["key"].get("simulation", "episode"))
        return int(math.ceil((1.5 * est_s / 60 + 5) * 2 ** (attempt - 1)))
