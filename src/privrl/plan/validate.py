"""Semantic checks of a config, run while the DAG is built, before any job.

The JSON schema (workflow/schemas/config.schema.yaml) checks shapes; this module checks
meaning: every agent parameter's name and domain (declared by the agent, ``AgentSpec.domains``),
environment parameters (by constructing the environment), sweep keys, claim references,
analysis names, experiment names that are safe as paths, and duplicate YAML keys. Every
problem is one line naming its config path, e.g.
``experiments.rates.cells[3].params.delta: 1.5 not in (0, 1)``.
"""
from __future__ import annotations

import inspect
import math
import re
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from privrl.design.experiments import did_you_mean  # noqa: F401 (validate's messages and the CLI's)

SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


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
    from privrl.plan.memory_bounds import env_memory_error

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
    errs = [] if SAFE_NAME.match(name) else [f"{where}: experiment names may use only letters, digits, _ . -"]
    for key, spec in exp.get("envs", {}).items():
        if not SAFE_NAME.match(key):
            errs.append(f"{where}.envs.{key}: env keys may use only letters, digits, _ . -")
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
    for c in cells:  # every private cell's epsilon (swept or matched) in the range run_seed accepts
        if REGISTRY[c.agent].privacy_model != "none" and "epsilon" in c.params and c.params.get("noise", 1) != 0:
            try:
                check_epsilon_range(c.params["epsilon"], f"cell {c.cell}: epsilon")
            except ValueError as e:
                errs.append(f"{where}.cells: {e}")
    for i, c in enumerate(exp.get("claims", []) or []):
        env = (c.get("check") or {}).get("env")
        if env not in exp.get("envs", {}):
            errs.append(f"{where}.claims[{i}].check.env: {env!r} is not an env of this experiment"
                        f"{did_you_mean(env, exp.get('envs', {}))}")
        for a in c.get("agents", []) or []:
            if a not in REGISTRY:
                errs.append(f"{where}.claims[{i}].agents: unknown agent {a!r}{did_you_mean(a, REGISTRY)}")
    if errs:
        return errs
    try:
        experiments.resolve_claims(config, name)
    except (ValueError, KeyError) as e:
        errs.append(str(e).splitlines()[0])
    return errs


def config_errors(config: Mapping[str, Any]) -> list[str]:
    """Every semantic problem of a (schema-valid) config, one line each; [] when it is sound."""
    from privrl.design import experiments
    from privrl.plan.memory_bounds import bootstrap_memory_errors
    from privrl.papers import registry

    errs = run_option_errors(config) + bootstrap_memory_errors(config)
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


def check_or_exit(config: Mapping[str, Any], schema_path: str | Path, yaml_files: list[str | Path]) -> None:
    """Raise SystemExit with one line per problem (YAML, schema, meaning) before any job runs."""
    import jsonschema

    errs = [e for f in yaml_files if Path(f).exists() for e in yaml_errors(f)]
    if not errs:
        schema = yaml.safe_load(Path(schema_path).read_text())
        errs = [schema_error_line(e) for e in jsonschema.Draft202012Validator(schema).iter_errors(config)]
    if not errs:
        from privrl.runs import output_dirs

        errs = output_dirs.output_dir_errors(config) + config_errors(config)
    if not errs and (why := cost_error(config)) is not None:
        errs = [why]
    if errs:
        raise SystemExit("privrl: invalid config (nothing was run):\n" + "\n".join(f"  {e}" for e in errs))


DEFAULT_COST_LIMIT_CPU_HOURS = 3.0  # the default design is ~1 CPU-hour; paper.yaml is far above


def cost_error(config: Mapping[str, Any]) -> str | None:
    """A one-line refusal when the design's estimated CPU time (privrl.plan.cost, from the measured
    throughput table) exceeds ``cost_limit_cpu_hours`` (default 3) and ``accept_cost`` is not set."""
    from privrl.plan import cost

    hours = float(cost.estimate_cost(config).est_cpu_s.sum()) / 3600.0
    limit = float(config.get("cost_limit_cpu_hours", DEFAULT_COST_LIMIT_CPU_HOURS))
    if hours > limit and not config.get("accept_cost", False):
        return (f"cost: the design needs an estimated {hours:.3g} CPU-hours (> cost_limit_cpu_hours = {limit:g}; "
                f"`privrl estimate` details it); rerun with --config accept_cost=true to accept")
    return None


def design_or_exit(config: Mapping[str, Any], root: str | Path, config_files_given: list[str | Path]) -> dict:
    """The design to run: ``config`` (loaded from ``config_files_given``) with its overlay resolved
    (privrl.design.config_files); SystemExit with one line (file:line, cycle, chain, missing base) before
    any job otherwise."""
    from privrl.design import config_files

    errs = [e for f in config_files_given if Path(f).exists() for e in yaml_errors(f)]
    if not errs:
        try:
            return config_files.resolve_overlay(config, root, config_files_given[-1] if config_files_given else None)
        except config_files.ConfigFileError as e:
            errs = [str(e)]
    raise SystemExit("privrl: invalid config (nothing was run):\n" + "\n".join(f"  {e}" for e in errs))
