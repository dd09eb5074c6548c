"""The door of a design: every check of a config, before any job, one line per problem.

:func:`checked_design` is the one function that reads a design for running or pricing it: the
Snakefile (through :func:`design_or_exit`), ``privrl estimate`` and ``privrl run --experiment``
all call it, so a design one of them accepts the others accept. In order, each step only if
the previous found nothing:

1. the config files: YAML syntax, duplicate keys, size and alias bombs, encodings other than
   UTF-8, paths that are directories or devices (privrl.design.config_files);
2. the overlay resolved onto its base, the top level and ``experiments`` mappings;
3. ``~`` and environment variables expanded in ``results_dir``, ``store_dir`` and
   ``figures_dir`` (an unset variable refused), as in ``overlay_of``;
3b. no NaN or infinity anywhere (:func:`non_finite_errors`: a NaN compares False and switches a
   check off);
4. the JSON schema (workflow/schemas/config.schema.yaml): shapes, types, unknown keys;
5. the output directories (privrl.runs.output_dirs; then whether each can be written:
   :func:`unwritable_dir_errors`) and the meaning (:func:`config_errors`):
   every agent parameter's name and domain (declared by the agent, ``AgentSpec.domains``),
   environment parameters (by constructing the environment), sweep keys, claim references and
   each claim check's fields (from :data:`privrl.results.claims.CHECK_TYPES`), analysis names,
   experiment names, env keys and cell ids that are safe single path components (:data:`NAME_RULES`)
   and fit the file names they become (:data:`NAME_TAILS`, 255 bytes a component),
   and cells whose privacy guarantee would be vacuous (eps = inf) unless the design opts in
   (``allow_vacuous_guarantee``).

Every problem is one line naming its config path, e.g.
``experiments.rates.cells[3].params.delta: 1.5 not in (0, 1)``. The run's cost gate
(:func:`cost_or_exit`) is the Snakefile's own, after the door; it prices every kind of job (runs,
theorem checks, audits: :func:`cost_parts`): ``privrl estimate`` prints the cost it would compare.
"""
from __future__ import annotations

import inspect
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from privrl.design.config_files import yaml_kind
from privrl.design.experiments import did_you_mean  # noqa: F401 (validate's messages and the CLI's)

SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")  # the characters a name may use
NAME_MAX_BYTES = 255  # one path component (NAME_MAX of the Linux and macOS file systems)
HOST_MAX_BYTES, PID_MAX_DIGITS, TOKEN_CHARS = 63, 7, 16  # a temporary's parts (privrl.io.atomic_path)
# what the pipeline appends to a name inside one path component: the longest file name tail
# (workflow/rules/*.smk: {env}_regret_vs_K.png beside {env}_fits.csv, {env}.parquet, ...; {cell}.parquet
# beside {cell}.json, {cell}.log); an experiment name is only ever a folder (tests/plan/test_bad_input.py
# reads the rules to keep these the longest)
NAME_TAILS = {"experiment name": "", "env key": "_regret_vs_K.png", "cell id": ".parquet"}
# a path step that is not a new folder -> what it names
PATH_STEPS = {".": "the folder itself", "..": "the folder above"}
# Experiment names and env keys are path components ({results_dir}/{experiment}/runs/{env}/{cell}.parquet,
# {figures_dir}/{paper}/{experiment}/{env}_fits.csv): (is the name refused?, why), in order, the first
# that applies is the refusal. Cell ids are made safe by construction (privrl.design.experiments.cell_id).
NAME_RULES: tuple[tuple[Callable[[Any], bool], Callable[[Any, str], str]], ...] = (
    (lambda n: not isinstance(n, str), lambda n, _: f"{n!r} is {yaml_kind(n)}, not a name"),
    (lambda n: n == "", lambda n, _: "is empty"),
    (lambda n: n == "..", lambda n, around: f"'..' is a path step (the folder above), not a name: its outputs would be "
                                             f"planned outside {around}"),
    (lambda n: n == ".", lambda n, around: f"'.' is a path step (the folder itself), not a name: its outputs would be "
                                            f"mixed into {around}"),
    (lambda n: "/" in n or "\\" in n, lambda n, _: f"{n!r} contains a path separator: it would be a path of folders, "
                                                    "not one name"),
    (lambda n: not SAFE_NAME.match(n), lambda n, _: f"{n!r}: names may use only letters, digits, _ . -"),
    (lambda n: n.startswith("."), lambda n, _: f"{n!r} starts with '.': a hidden folder"),
    (lambda n: n.startswith("-"), lambda n, _: f"{n!r} starts with '-': command-line tools would read it as an option"),
)
# what holds the folder an experiment name or an env key names (its refusal says where outputs would go)
NAME_AROUND = {"experiment name": "results_dir and figures_dir", "env key": "its experiment's folders"}


def component_bytes(name: str, tail: str) -> int:
    """Bytes of the longest path component that holds ``name``: a folder (no ``tail``) is the name
    itself; a file ``{name}{tail}`` is first written as a hidden temporary beside it
    (privrl.io.atomic_path: ``.{name}{tail}.{host}.{pid}.{token}.partial{ext}``), counted with the
    longest host name label (63 bytes) and process id (7 digits)."""
    from privrl.io import TEMP_MARK

    if not tail:
        return len(name.encode())
    ext = tail[tail.rfind("."):]
    return (len(f".{name}{tail}.".encode()) + HOST_MAX_BYTES + 1 + PID_MAX_DIGITS + 1 + TOKEN_CHARS + len(TEMP_MARK)
            + len(ext))


def max_name_bytes(noun: str) -> int:
    """The longest ``noun`` (:data:`NAME_TAILS`) whose every path component fits the file system."""
    return NAME_MAX_BYTES - component_bytes("", NAME_TAILS[noun])


def name_length_error(name: str, noun: str) -> str | None:
    """Why ``name`` is too long for the path components it will be part of, or None."""
    n, limit = len(name.encode()), max_name_bytes(noun)
    if n <= limit:
        return None
    tail = NAME_TAILS[noun]
    where = (f"a folder name (at most {NAME_MAX_BYTES} bytes)" if not tail else
             f"the file {{name}}{tail} and its temporary .{{name}}{tail}.<host>.<pid>.<token>.partial"
             f"{tail[tail.rfind('.'):]} must fit in {NAME_MAX_BYTES} bytes")
    return f"is {n} bytes long, more than {limit}: {where}"


def name_error(name: Any, noun: str = "experiment name") -> str | None:
    """Why ``name`` (a :data:`NAME_AROUND` ``noun``) is not a safe single path component, or None."""
    why = next((why(name, NAME_AROUND[noun]) for bad, why in NAME_RULES if bad(name)), None)
    why = why or name_length_error(name, noun)
    return None if why is None else f"{noun} {why}"


# the opt-in (per experiment or per cell) to run a cell whose privacy guarantee is vacuous
VACUOUS_OPT_IN = "allow_vacuous_guarantee"


def _real(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _integer(x: Any) -> bool:
    return _real(x) and float(x).is_integer()


def _domain(text: str, ok: Callable[[Any], bool]) -> tuple[str, Callable[[Any], bool]]:
    return text, ok


# run option (top-level config key) -> (domain as printed, membership test): resumable chunks,
# which change how a run is executed, never its result (privrl.runs.run.run_seed)
RUN_OPTION_DOMAINS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "chunk_episodes": _domain("an integer >= 0", lambda x: _integer(x) and x >= 0),
    "chunk_minutes": _domain("a finite number >= 0", lambda x: _real(x) and x >= 0),
}


def run_option_errors(config: Mapping[str, Any]) -> list[str]:
    """One line per run option (:data:`RUN_OPTION_DOMAINS`) of ``config`` outside its domain."""
    errs = []
    for name, (text, ok) in RUN_OPTION_DOMAINS.items():
        if name in config and not ok(config[name]):
            errs.append(f"{name}: {config[name]!r} is not {text}")
    return errs


def chunking_of(config: Mapping[str, Any]) -> dict[str, float]:
    """``run_shard``'s chunking keywords from a (validated) config: chunk_episodes, chunk_seconds."""
    return {"chunk_episodes": int(config.get("chunk_episodes", 0) or 0),
            "chunk_seconds": 60.0 * float(config.get("chunk_minutes", 0) or 0)}


def check_param(name: str, value: Any, agents: list[str] | None = None) -> str | None:
    """None if ``value`` is in the domain of parameter ``name`` that each of ``agents`` declares
    (``AgentSpec.domains``; none of them has it, or no agents given: every registered agent that
    has it), else the reason (one phrase)."""
    from privrl.agents import REGISTRY

    domains = [REGISTRY[a].domains[name] for a in agents or () if a in REGISTRY and name in REGISTRY[a].domains]
    domains = domains or [s.domains[name] for s in REGISTRY.values() if name in s.domains]
    if not domains:
        return f"no agent has parameter {name!r}"
    return next((why for d in domains if (why := d.why_not(value)) is not None), None)


def yaml_errors(path: str | Path) -> list[str]:
    """Duplicate keys, syntax errors, size and alias bombs of a YAML file, each as ``file[:line]: message``
    (privrl.design.config_files.load_yaml)."""
    from privrl.design import config_files

    return config_files.yaml_errors(path)


def _env_errors(where: str, spec: Mapping[str, Any]) -> list[str]:
    from privrl.rl import envs

    name, params = spec.get("name"), dict(spec.get("params", {}) or {})
    if name not in envs.ENVS:
        return [f"{where}.name: unknown environment {name!r}{did_you_mean(name, envs.ENVS)} (one of {sorted(envs.ENVS)})"]
    sig = inspect.signature(envs.ENVS[name])
    errs = []
    for k, v in params.items():
        if k not in sig.parameters:
            errs.append(f"{where}.params.{k}: {name} has no parameter {k!r}; it takes {list(sig.parameters)}")
            continue
        ann = sig.parameters[k].annotation
        if ann in (int, "int") and not (isinstance(v, int) and not isinstance(v, bool)):
            errs.append(f"{where}.params.{k}: {v!r} is not an integer")
        elif ann in (float, "float") and not _real(v):
            errs.append(f"{where}.params.{k}: {v!r} is not a finite number")
        elif ann in (str, "str") and not isinstance(v, str):
            errs.append(f"{where}.params.{k}: {v!r} is not a string")
    if errs:
        return errs
    for k, low in (("S", 1 if name == "garnet" else 2), ("H", 1), ("n", 1), ("A", 1)):  # garnet S = 1: a bandit
        if k in params and params[k] < low:
            return [f"{where}.params.{k}: {params[k]} < {low}"]
    from privrl.plan.memory_bounds import env_memory_error, shape_error

    if (why := shape_error(f"{where}.name", name)) is not None:
        return [why]
    if (why := env_memory_error(f"{where}.params", name, params)) is not None:
        return [why]  # before building it
    try:
        envs.make(name, **params)
    except Exception as e:  # noqa: BLE001 (the environment's own message, on one line)
        return [f"{where}.params: {name}: {str(e).splitlines()[0]}"]
    return []


def _cell_errors(where: str, spec: Mapping[str, Any], sweep: Mapping[str, Any]) -> list[str]:
    from privrl.agents import REGISTRY

    agent = spec.get("agent")
    if agent not in REGISTRY:
        return [f"{where}.agent: unknown agent {agent!r}{did_you_mean(agent, REGISTRY)} (one of {sorted(REGISTRY)})"]
    defaults = REGISTRY[agent].defaults
    errs = []
    for k, v in (spec.get("params", {}) or {}).items():
        if k not in defaults:
            errs.append(f"{where}.params.{k}: agent {agent!r} has no parameter {k!r}; it takes {list(defaults)}")
        elif (why := check_param(k, v, [agent])) is not None:
            errs.append(f"{where}.params.{k}: {why}")
    for key, values in (spec.get("sweep") or {}).items():
        errs += _sweep_value_errors(f"{where}.sweep.{key}", key, values, [agent])
    if spec.get("noise_off") and "noise" not in defaults:
        errs.append(f"{where}.noise_off: agent {agent!r} has no noise parameter")
    return errs


def _sweep_value_errors(where: str, key: str, values: list, agents: list[str]) -> list[str]:
    names = key.split(",")
    errs = []
    for i, v in enumerate(values):
        point = v if len(names) > 1 else [v]
        if len(point) != len(names):
            errs.append(f"{where}[{i}]: {v!r} does not give a value for each of {names}")
            continue
        for n, x in zip(names, point):
            if (why := check_param(n, x, agents)) is not None:
                errs.append(f"{where}[{i}]: {n}: {why}")
    return errs


def experiment_errors(config: Mapping[str, Any], name: str) -> list[str]:
    """Every semantic problem of one experiment, one line each."""
    from privrl.design import experiments
    from privrl.agents import REGISTRY
    from privrl.mechanisms.kinds import check_epsilon_range

    where = f"experiments.{name}"
    exp = config["experiments"][name]
    errs = [f"{where}: {why}" for why in [name_error(name, "experiment name")] if why]
    for key, spec in exp.get("envs", {}).items():
        if (why := name_error(key, "env key")) is not None:
            errs.append(f"{where}.envs.{key}: {why}")
        errs += _env_errors(f"{where}.envs.{key}", spec)
    sweep = exp.get("sweep", {}) or {}
    for i, spec in enumerate(exp.get("cells", [])):
        errs += _cell_errors(f"{where}.cells[{i}]", spec, sweep)
    agents = [REGISTRY[c["agent"]] for c in exp.get("cells", []) if c.get("agent") in REGISTRY]
    for key, values in sweep.items():
        names = key.split(",")
        if not any(all(n in a.defaults for n in names) for a in agents):
            errs.append(f"{where}.sweep.{key}: no agent of this experiment has parameter(s) {names}")
            continue
        errs += _sweep_value_errors(f"{where}.sweep.{key}", key, values, [a.name for a in agents])
    if any(c.get("matched") for c in exp.get("cells", [])) and not exp.get("matched_eps"):
        errs.append(f"{where}.matched_eps: cells marked matched need a matched_eps block")
    if errs:
        return errs  # cells cannot be expanded reliably
    from privrl.plan.memory_bounds import cell_memory_error

    for key, env in exp.get("envs", {}).items():  # an agent's own tables (SDP-PE's policies), before any job
        for i, c in enumerate(exp.get("cells", [])):
            why = cell_memory_error(f"{where}.cells[{i}] on envs.{key}", c["agent"], c.get("params") or {},
                                    env.get("name"), env.get("params") or {})
            errs += [why] if why else []
    if errs:
        return errs
    from privrl.papers import registry

    known = registry.analyses()
    for i, a in enumerate(exp.get("analyses", []) or []):
        if a not in known:
            errs.append(f"{where}.analyses[{i}]: unknown analysis {a!r}{did_you_mean(a, known)} (one of {sorted(known)})")
    if exp.get("paper") is not None and exp["paper"] not in registry.papers():
        errs.append(f"{where}.paper: unknown paper {exp['paper']!r}{did_you_mean(exp['paper'], registry.papers())} "
                    f"(one of {sorted(registry.papers())})")
    try:
        cells = experiments.expand_cells(config, name)
    except ValueError as e:
        return errs + [f"{where}.cells: {e}"]
    for c in {c.cell: c for c in cells}.values():  # a cell id is a file name: {cell}.parquet, .json, .log
        if (why := name_length_error(c.cell, "cell id")) is not None:
            errs.append(f"{where}.cells: cell id {c.cell[:40]}... {why}; shorten its tag or its swept values")
    errs += horizon_errors(config, name, cells)
    for c in cells:  # every private cell's epsilon (swept or matched) in the range run_seed accepts
        if REGISTRY[c.agent].privacy_model != "none" and "epsilon" in c.params and c.params.get("noise", 1) != 0:
            try:
                check_epsilon_range(c.params["epsilon"], f"cell {c.cell}: epsilon")
            except ValueError as e:
                errs.append(f"{where}.cells: {e}")
    errs += control_cell_errors(where, cells)
    for i, c in enumerate(exp.get("claims", []) or []):
        env = (c.get("check") or {}).get("env")
        if env not in exp.get("envs", {}):
            errs.append(f"{where}.claims[{i}].check.env: {env!r} is not an env of this experiment"
                        f"{did_you_mean(env, exp.get('envs', {}))}")
        else:
            errs += claim_check_errors(f"{where}.claims[{i}]", c, [x.cell for x in cells if x.env == env])
        for a in c.get("agents", []) or []:
            if a not in REGISTRY:
                errs.append(f"{where}.claims[{i}].agents: unknown agent {a!r}{did_you_mean(a, REGISTRY)}")
    if errs:
        return errs
    errs += vacuous_guarantee_errors(config, name)
    if errs:
        return errs
    try:
        experiments.resolve_claims(config, name)
    except (ValueError, KeyError) as e:
        errs.append(str(e).splitlines()[0])
    return errs


def horizon_errors(config: Mapping[str, Any], name: str, cells: list) -> list[str]:
    """One line per (agent, env) of experiment ``name`` whose instance is shorter than the agent's
    ``AgentSpec.min_horizon`` (its init_state would refuse it in every job of the cell)."""
    from privrl.agents import REGISTRY
    from privrl.design import experiments
    from privrl.plan.memory_bounds import env_shape

    errs, horizons, seen = [], {}, set()
    for c in cells:
        need = REGISTRY[c.agent].min_horizon
        if need <= 1 or (c.agent, c.env) in seen:
            continue
        seen.add((c.agent, c.env))
        if c.env not in horizons:  # the shape its registration declares (checked by the env's own errors first)
            horizons[c.env] = env_shape(*experiments.env_spec(config, name, c.env))[0]
        if horizons[c.env] < need:
            errs.append(f"experiments.{name}.cells: {c.agent} needs an instance of horizon H >= {need}; "
                        f"envs.{c.env} has H = {horizons[c.env]}")
    return errs


def control_cell_errors(where: str, cells: list) -> list[str]:
    """A control cell (``tags: {control: <name>}``, a name :func:`privrl.results.controls.control_cell` matches by
    its parameters: over_exploring, greedy) that is the twin of no real cell among the experiment's ``cells``
    (expanded cells), one line each: its analysis would find no twin and the row would read "not run"."""
    from privrl import agents
    from privrl.results import controls

    def info(c) -> dict:  # as the run infos carry a cell (resolved params)
        return {"agent": c.agent, "params": dict(agents.get(c.agent).resolve(c.params)), "env_key": c.env,
                "tags": dict(c.tags or {}), "cell": c.cell}

    matched = set(controls.CONTROL_PARAMS) | set(controls.CONTROL_SCALES)
    real = [info(c) for c in cells if not controls.is_control({"tags": c.tags or {}})]
    errs = []
    for c in {c.cell: c for c in cells}.values():
        name = controls.control_name({"tags": c.tags or {}})
        if name in matched and not any(controls.control_cell([info(c)], r, name) for r in real):
            rule = ", ".join([f"{k} = {v:g}" for k, v in controls.CONTROL_PARAMS.get(name, {}).items()]
                             + [f"{k} x{f:g}" for k, f in controls.CONTROL_SCALES.get(name, {}).items()])
            errs.append(f"{where}.cells: control cell {c.cell} (tags {{control: {name}}}) is the twin of no real cell: "
                        f"none on env {c.env} with agent {c.agent} has its parameters but {rule}")
    return errs


def claim_check_errors(where: str, claim: Mapping[str, Any], env_cells: list[str]) -> list[str]:
    """A claim's check against its type (:data:`privrl.results.claims.CHECK_TYPES`, the table the
    claims job scores with): the fields the type reads present, the line fields it does not
    read absent, and a cell named (``cell``, ``select`` or the claim's ``agents``) that exists
    among ``env_cells`` (the cell ids of the check's env)."""
    from privrl.results.claims import CHECK_FIELDS, CHECK_TYPES, LINE_FIELDS

    check = claim.get("check") or {}
    kind = check.get("type")
    if kind not in CHECK_TYPES:
        return [f"{where}.check.type: unknown check type {kind!r}{did_you_mean(kind, CHECK_TYPES)} "
                f"(one of {sorted(CHECK_TYPES)})"]
    t = CHECK_TYPES[kind]
    errs = [f"{where}.check.{f}: missing; a check of type {kind} needs it ({CHECK_FIELDS[f]})"
            for f in t.required if f not in check]
    reads = (f"it reads {t.line_key!r}" if t.line_key else f"it is scored against the fixed exponent {t.line:g}"
             + (" less the log allowance" if t.allowance else ""))
    errs += [f"{where}.check.{f}: a check of type {kind} does not read it ({reads})"
             for f in LINE_FIELDS if f in check and f not in t.required]
    if "cell" not in check and "select" not in check and not claim.get("agents"):
        errs.append(f"{where}.check: names no cell: give check.cell (a cell id), check.select (the cell's agent "
                    "and params) or the claim's agents")
    elif "cell" in check and "select" not in check and not claim.get("agents") and check["cell"] not in env_cells:
        errs.append(f"{where}.check.cell: {check['cell']!r} is not a cell of env {check.get('env')!r}"
                    f"{did_you_mean(check['cell'], env_cells)}")
    return errs


def vacuous_guarantee_errors(config: Mapping[str, Any], name: str) -> list[str]:
    """One line per cell spec of experiment ``name`` one of whose cells would run with a vacuous
    privacy guarantee (eps = inf, or delta >= 1: what the agent's accounting gives at the
    experiment's K on its environment, e.g. private-ucbvi-sdp's (2 eps, 6 H beta) at 6 H beta >= 1),
    naming the cell and the guarantee; none where the experiment or the cell spec sets
    ``allow_vacuous_guarantee: true``. Noise-off twins (noise = 0, no privacy by design) are not
    checked. A guarantee the accounting refuses to state (delta >= 1) is reported the same way."""
    from privrl.agents import REGISTRY
    from privrl.design import experiments
    from privrl.rl import envs

    exp = config["experiments"][name]
    if exp.get(VACUOUS_OPT_IN):
        return []
    errs, mdps = [], {}
    for i, spec in enumerate(exp.get("cells") or []):
        agent = REGISTRY[spec["agent"]]
        if agent.guarantees is None or spec.get(VACUOUS_OPT_IN):
            continue
        vacuous = []
        for c in experiments.expand_cells({**config, "experiments": {name: {**exp, "cells": [spec]}}}, name):
            if c.params.get("noise", 1) == 0:
                continue
            if c.env not in mdps:
                env_name, env_params = experiments.env_spec(config, name, c.env)
                mdps[c.env] = envs.make(env_name, **env_params)
            try:
                gs = agent.guarantees(agent.resolve(c.params), mdps[c.env], int(exp["episodes"]))
            except ValueError as e:  # e.g. a delta >= 1 the accounting will not state
                vacuous.append(f"cell {c.setting}: its guarantee cannot be stated ({str(e).splitlines()[0]})")
                continue
            for g in gs:
                if not (math.isfinite(g.epsilon) and g.delta < 1):
                    why = g.note.rpartition("vacuous: ")[2] if "vacuous: " in g.note else g.source
                    vacuous.append(f"cell {c.setting}: its {g.model} guarantee is vacuous "
                                   f"(eps = {g.epsilon:g}, delta = {g.delta:g}: {why})")
                    break
        if vacuous:
            more = f" (and {len(vacuous) - 1} more of its cells)" if len(vacuous) > 1 else ""
            errs.append(f"experiments.{name}.cells[{i}]: {vacuous[0]}{more}; set {VACUOUS_OPT_IN}: true on the "
                        "cell or the experiment to run it anyway")
    return errs


def audited_agent_errors(config: Mapping[str, Any]) -> list[str]:
    """``mechanisms.agent_audit.agents``: each a registered private agent (the audit probes only
    those), one line per name otherwise."""
    from privrl.agents import REGISTRY

    given = ((config.get("mechanisms") or {}).get("agent_audit") or {}).get("agents") or []
    private = sorted(n for n, s in REGISTRY.items() if s.privacy_model != "none")
    where = "mechanisms.agent_audit.agents"
    return [f"{where}: unknown agent {a!r}{did_you_mean(a, REGISTRY)} (the private agents: {private})"
            if a not in REGISTRY else f"{where}: {a!r} is not private (privacy model 'none'): nothing to audit"
            for a in given if a not in private]


def config_errors(config: Mapping[str, Any]) -> list[str]:
    """Every semantic problem of a (schema-valid) config, one line each; [] when it is sound."""
    from privrl.design import experiments
    from privrl.plan.memory_bounds import bootstrap_memory_errors
    from privrl.papers import registry

    errs = run_option_errors(config) + bootstrap_memory_errors(config) + audited_agent_errors(config)
    try:
        registry.check_sizes(config)
    except ValueError as e:
        errs.append(str(e).splitlines()[0])
    for name in config.get("experiments", {}):
        errs += experiment_errors(config, name)
    if errs:
        return errs
    seen: dict[str, str] = {}
    for name in config["experiments"]:
        for c in experiments.resolve_claims(config, name):
            if c["id"] in seen:
                errs.append(f"experiments.{name}.claims: id {c['id']!r} also used in experiments.{seen[c['id']]}")
            seen[c["id"]] = name
    return errs


def schema_error_line(err) -> str:  # noqa: ANN001 (a jsonschema ValidationError)
    """One line for a schema violation: the config path and the reason, without the dump."""
    path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in err.absolute_path).replace(".[", "[")
    return f"{path or '(top level)'}: {err.message.splitlines()[0][:200]}"


DEFAULT_COST_LIMIT_CPU_HOURS = 3.0  # the default design is ~1 CPU-hour; paper.yaml is far above


JOB_KINDS = {"runs": "runs", "theorem_checks": "theorem checks", "privacy_audit": "mechanism audit",
             "agent_audit": "agent audit"}  # the jobs the cost gate prices -> how its line names them


def cost_parts(config: Mapping[str, Any]) -> dict[str, float]:
    """CPU s of every kind of job the design plans that does real work (:data:`JOB_KINDS`): its runs
    (privrl.plan.cost.estimate_cost, from the measured throughput table) and its theorem checks and
    audits at their sizes (privrl.plan.cost.mechanism_seconds)."""
    from privrl.plan import cost

    return {"runs": float(cost.estimate_cost(config).est_cpu_s.sum()), **cost.mechanism_seconds(config)}


def cost_error(config: Mapping[str, Any]) -> str | None:
    """A one-line refusal when the design's estimated CPU time (:func:`cost_parts`: runs, theorem
    checks, audits) exceeds ``cost_limit_cpu_hours`` (default 3) and ``accept_cost`` is not set; a
    limit that is not a finite number > 0 is refused too (a NaN would compare False: no gate)."""
    limit = config.get("cost_limit_cpu_hours", DEFAULT_COST_LIMIT_CPU_HOURS)
    if not (_real(limit) and limit > 0):
        return f"cost_limit_cpu_hours: {limit!r} is not a finite number > 0"
    parts = cost_parts(config)
    hours = sum(parts.values()) / 3600.0
    if hours > limit and not config.get("accept_cost", False):
        big = ", ".join(f"{JOB_KINDS[k]} {v / 3600:.3g}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1])
                        if v / 3600 >= 0.01 * hours) or "runs 0"
        return (f"cost: the design needs an estimated {hours:.3g} CPU-hours ({big}; > cost_limit_cpu_hours = "
                f"{limit:g}; `privrl estimate` details it); rerun with --config accept_cost=True to accept")
    return None


BANNER = "privrl: invalid config (nothing was run):"
SCHEMA = Path("workflow/schemas/config.schema.yaml")  # relative to the repository root
SOURCE_ROOT = Path(__file__).resolve().parents[3]  # the checkout this module is in (src/privrl/plan/)


class InvalidDesign(ValueError):
    """A design refused by :func:`checked_design`: ``problems``, one line each."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__(self.problems[0])

    def report(self) -> str:
        return "\n".join([BANNER] + [f"  {e}" for e in self.problems])


def _schema_of(root: str | Path) -> dict:
    for base in (Path(root), SOURCE_ROOT):
        if (base / SCHEMA).is_file():
            return yaml.safe_load((base / SCHEMA).read_text())
    raise InvalidDesign([f"cannot check the design: no {SCHEMA} under {root} (run from the repository root)"])


def expand_dir_keys(design: dict) -> list[str]:
    """``~`` and environment variables expanded in place in every output directory key
    (privrl.runs.output_dirs.DIR_KEYS; privrl.design.config_files.expand_path, as ``overlay_of``);
    one line per path that cannot be expanded."""
    from privrl.design import config_files
    from privrl.runs.output_dirs import DIR_KEYS

    errs = []
    for key in DIR_KEYS:
        if isinstance(design.get(key), str):
            value = design[key]
            design[key], why = config_files.expand_path(value)
            if why is not None:
                errs.append(f"{key}: {value!r}: {why}")
    return errs


def non_finite_errors(value: Any, where: str = "") -> list[str]:
    """One line per number of the design that is NaN or infinite (YAML ``.nan``, ``.inf``, ``1e999``),
    wherever it is: no key of a design takes one (a NaN limit compares False and switches its check
    off; an infinite epsilon is no guarantee)."""
    if isinstance(value, float) and not math.isfinite(value):
        spelled = ".nan" if math.isnan(value) else ".inf" if value > 0 else "-.inf"  # as YAML writes it
        return [f"{where or '(top level)'}: {spelled} is not a finite number (NaN and infinities are refused in "
                "every key of a design)"]
    if isinstance(value, Mapping):
        return [e for k, v in value.items() for e in non_finite_errors(v, f"{where}.{k}" if where else str(k))]
    if isinstance(value, (list, tuple)):
        return [e for i, v in enumerate(value) for e in non_finite_errors(v, f"{where}[{i}]")]
    return []


def unwritable_dir_errors(design: Mapping[str, Any], cwd: str | Path | None = None) -> list[str]:
    """One line per output directory (privrl.runs.output_dirs.DIR_KEYS) that cannot be written: its
    nearest existing folder is tried by creating (and removing) an empty folder in it, so read-only
    file systems, permissions and immutable folders all count, whoever runs it."""
    import os
    import secrets

    from privrl.runs.output_dirs import DIR_KEYS

    cwd = Path(cwd or os.getcwd())
    errs = []
    for key, default in DIR_KEYS.items():
        value = design.get(key, default)
        if not isinstance(value, str):
            continue
        p = cwd / value
        there = next((q for q in [p, *p.parents] if q.is_dir()), None)
        if there is None:
            continue
        probe = there / f".privrl-write-check-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            probe.mkdir()
            probe.rmdir()
        except OSError as e:
            shown = "it" if there == p else str(there)
            errs.append(f"{key}: {value!r} cannot be written: creating a folder in {shown} failed "
                        f"({e.strerror or type(e).__name__})")
    return errs


def checked_design(config: Mapping[str, Any], root: str | Path, config_files_given: list[str | Path],
                   cwd: str | Path | None = None) -> dict:
    """THE door (module docstring): the design to run or price, ``config`` (as loaded from
    ``config_files_given``, the last one the overlay's own file) with its overlay resolved
    against ``root`` (the repository root) and its directories expanded, after every check;
    :class:`InvalidDesign` listing every problem of the first step that has any otherwise.
    Output directories are resolved from ``cwd`` (default: the working directory)."""
    import jsonschema

    from privrl.design import config_files
    from privrl.runs import output_dirs

    errs = [e for f in config_files_given for e in yaml_errors(f)]
    if not errs:
        try:
            design = config_files.resolve_overlay(config, root, config_files_given[-1] if config_files_given else None)
        except config_files.ConfigFileError as e:
            errs = [str(e)]
    if not errs:
        errs = expand_dir_keys(design)
    if not errs:
        errs = non_finite_errors(design)
    if not errs:
        validator = jsonschema.Draft202012Validator(_schema_of(root))
        errs = [schema_error_line(e) for e in validator.iter_errors(design)]
    if not errs:
        errs = output_dirs.output_dir_errors(design, cwd)
        errs = (errs or unwritable_dir_errors(design, cwd)) + config_errors(design)
    if errs:
        raise InvalidDesign(errs)
    return design


def design_or_exit(config: Mapping[str, Any], root: str | Path, config_files_given: list[str | Path]) -> dict:
    """The Snakefile's door: :func:`checked_design`, or SystemExit with one line per problem
    (under :data:`BANNER`) before any job."""
    try:
        return checked_design(config, root, config_files_given)
    except InvalidDesign as e:
        raise SystemExit(e.report()) from None


def cost_or_exit(config: Mapping[str, Any]) -> None:
    """The run's cost gate (:func:`cost_error`), after the door: SystemExit with its one line."""
    if (why := cost_error(config)) is not None:
        raise SystemExit(f"{BANNER}\n  {why}")


def read_design(configfile: str | Path, usage_error: type[Exception] = ValueError) -> dict:
    """The design ``configfile`` read as the command line reads it, through the door the Snakefile
    uses (:func:`checked_design`: the same checks, the same overlay resolution and path expansion):
    ``usage_error`` (one line) for a file that is no design, :class:`InvalidDesign` (one line per
    problem) for a refused one. An overlay's base is relative to the repository root: the working
    directory, else the config's parent's parent; output directories are resolved from that root.
    ``privrl estimate``, ``privrl run --experiment`` and ``python -m privrl.plan.claims`` call it."""
    from privrl.design import config_files

    configfile = Path(configfile)

    if (why := config_files.not_a_config_file(configfile)) is not None:
        raise usage_error(f"--configfile: cannot read {str(configfile)!r} ({why})")
    try:
        config = config_files.load_yaml(configfile)  # size, aliases, duplicates, syntax: file:line
    except config_files.ConfigFileError as exc:
        raise usage_error(f"--configfile: {exc}") from None
    if isinstance(config, dict) and "experiments" not in config and "overlay_of" not in config:
        raise usage_error(f"--configfile: {str(configfile)!r} has no 'experiments' and no 'overlay_of'")
    root = Path.cwd()
    if isinstance(config, dict) and isinstance(config.get("overlay_of"), str):
        roots = [Path.cwd(), configfile.resolve().parent.parent]
        there = [r for r in roots if config_files.file_kind(config_files.base_path_of(config["overlay_of"], r)[0])
                 != config_files.MISSING]
        if not there:
            raise usage_error(f"--configfile: its base {config['overlay_of']!r} is not found from {roots[0]} or {roots[1]}")
        root = there[0]
    return checked_design(config, root, [configfile], cwd=root)  # InvalidDesign: a ValueError, one line each
