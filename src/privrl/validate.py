"""Semantic checks of a config, run while the DAG is built, before any job.

The JSON schema (workflow/schemas/config.schema.yaml) checks shapes; this module checks
meaning: every agent parameter's name and domain (:data:`PARAM_DOMAINS`, one lookup table),
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

SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _real(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _integer(x: Any) -> bool:
    return _real(x) and float(x).is_integer()


def _domain(text: str, ok: Callable[[Any], bool]) -> tuple[str, Callable[[Any], bool]]:
    return text, ok


# parameter name -> (domain as printed, membership test); every agent parameter must be listed
PARAM_DOMAINS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "epsilon": _domain("a finite number > 0", lambda x: _real(x) and x > 0),
    "delta": _domain("in (0, 1)", lambda x: _real(x) and 0 < x < 1),
    "beta": _domain("in (0, 1)", lambda x: _real(x) and 0 < x < 1),
    "delta0": _domain("in (0, 1)", lambda x: _real(x) and 0 < x < 1),
    "bonus_scale": _domain("a finite number >= 0", lambda x: _real(x) and x >= 0),
    "beta_scale": _domain("a finite number > 0", lambda x: _real(x) and x > 0),
    "noise": _domain("0 or 1", lambda x: _real(x) and x in (0, 1)),
    "alpha": _domain("a finite number > 0", lambda x: _real(x) and x > 0),
    "m": _domain("an integer >= 1", lambda x: _integer(x) and x >= 1),
    "tau": _domain("an integer >= 0", lambda x: _integer(x) and x >= 0),
    "tau_power": _domain("in [0, 1)", lambda x: _real(x) and 0 <= x < 1),
    "C": _domain("a finite number > 0", lambda x: _real(x) and x > 0),
    "C1": _domain("a finite number > 0", lambda x: _real(x) and x > 0),
    "max_policies": _domain("an integer >= 1", lambda x: _integer(x) and x >= 1),
    "z": _domain("a finite number >= 0", lambda x: _real(x) and x >= 0),
}


# run option (top-level config key) -> (domain as printed, membership test): resumable chunks,
# which change how a run is executed, never its result (privrl.run.run_seed)
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


def check_param(name: str, value: Any) -> str | None:
    """None if ``value`` is in the parameter's domain, else the reason (one phrase)."""
    if name not in PARAM_DOMAINS:
        return f"parameter {name!r} has no declared domain (privrl.validate.PARAM_DOMAINS)"
    text, ok = PARAM_DOMAINS[name]
    return None if ok(value) else f"{value!r} {'not' if text.startswith('in ') else 'is not'} {text}"


class _StrictLoader(yaml.SafeLoader):
    pass


def _no_duplicates(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def yaml_errors(path: str | Path) -> list[str]:
    """Duplicate keys and syntax errors of a YAML file, each as ``file:line: message``."""
    try:
        yaml.load(Path(path).read_text(), Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        return [f"{path}:{mark.line + 1}: {e.problem}"]
    return []


def _env_errors(where: str, spec: Mapping[str, Any]) -> list[str]:
    from privrl.rl import envs

    name, params = spec.get("name"), dict(spec.get("params", {}) or {})
    if name not in envs.ENVS:
        return [f"{where}.name: unknown environment {name!r}; choose one of {sorted(envs.ENVS)}"]
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
    try:
        envs.make(name, **params)
    except Exception as e:  # noqa: BLE001 (the environment's own message, on one line)
        return [f"{where}.params: {name}: {str(e).splitlines()[0]}"]
    return []


def _cell_errors(where: str, spec: Mapping[str, Any], sweep: Mapping[str, Any]) -> list[str]:
    from privrl.agents import REGISTRY

    agent = spec.get("agent")
    if agent not in REGISTRY:
        return [f"{where}.agent: unknown agent {agent!r}; choose one of {sorted(REGISTRY)}"]
    defaults = REGISTRY[agent].defaults
    errs = []
    for k, v in (spec.get("params", {}) or {}).items():
        if k not in defaults:
            errs.append(f"{where}.params.{k}: agent {agent!r} has no parameter {k!r}; it takes {list(defaults)}")
        elif (why := check_param(k, v)) is not None:
            errs.append(f"{where}.params.{k}: {why}")
    for key, values in (spec.get("sweep") or {}).items():
        errs += _sweep_value_errors(f"{where}.sweep.{key}", key, values)
    if spec.get("noise_off") and "noise" not in defaults:
        errs.append(f"{where}.noise_off: agent {agent!r} has no noise parameter")
    return errs


def _sweep_value_errors(where: str, key: str, values: list) -> list[str]:
    names = key.split(",")
    errs = []
    for i, v in enumerate(values):
        point = v if len(names) > 1 else [v]
        if len(point) != len(names):
            errs.append(f"{where}[{i}]: {v!r} does not give a value for each of {names}")
            continue
        for n, x in zip(names, point):
            if (why := check_param(n, x)) is not None:
                errs.append(f"{where}[{i}]: {n}: {why}")
    return errs


def experiment_errors(config: Mapping[str, Any], name: str) -> list[str]:
    """Every semantic problem of one experiment, one line each."""
    from privrl import experiments
    from privrl.agents import REGISTRY

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
        errs += _sweep_value_errors(f"{where}.sweep.{key}", key, values)
    if any(c.get("matched") for c in exp.get("cells", [])) and not exp.get("matched_eps"):
        errs.append(f"{where}.matched_eps: cells marked matched need a matched_eps block")
    if errs:
        return errs  # cells cannot be expanded reliably
    from privrl.papers import registry

    known = registry.analyses()
    for i, a in enumerate(exp.get("analyses", []) or []):
        if a not in known:
            errs.append(f"{where}.analyses[{i}]: unknown analysis {a!r}; choose one of {sorted(known)}")
    if exp.get("paper") is not None and exp["paper"] not in registry.papers():
        errs.append(f"{where}.paper: unknown paper {exp['paper']!r}; choose one of {sorted(registry.papers())}")
    try:
        experiments.expand_cells(config, name)
    except ValueError as e:
        return errs + [f"{where}.cells: {e}"]
    for i, c in enumerate(exp.get("claims", []) or []):
        env = (c.get("check") or {}).get("env")
        if env not in exp.get("envs", {}):
            errs.append(f"{where}.claims[{i}].check.env: {env!r} is not an env of this experiment")
        for a in c.get("agents", []) or []:
            if a not in REGISTRY:
                errs.append(f"{where}.claims[{i}].agents: unknown agent {a!r}")
    if errs:
        return errs
    try:
        experiments.resolve_claims(config, name)
    except (ValueError, KeyError) as e:
        errs.append(str(e).splitlines()[0])
    return errs


def config_errors(config: Mapping[str, Any]) -> list[str]:
    """Every semantic problem of a (schema-valid) config, one line each; [] when it is sound."""
    from privrl import experiments

    errs = run_option_errors(config)
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
        errs = config_errors(config)
    if not errs and (why := cost_error(config)) is not None:
        errs = [why]
    if errs:
        raise SystemExit("privrl: invalid config (nothing was run):\n" + "\n".join(f"  {e}" for e in errs))


DEFAULT_COST_LIMIT_CPU_HOURS = 3.0  # the default design is ~1 CPU-hour; paper.yaml is far above


def cost_error(config: Mapping[str, Any]) -> str | None:
    """A one-line refusal when the design's estimated CPU time (privrl.cost, from the measured
    throughput table) exceeds ``cost_limit_cpu_hours`` (default 3) and ``accept_cost`` is not set."""
    from privrl import cost

    hours = float(cost.estimate_cost(config).est_cpu_s.sum()) / 3600.0
    limit = float(config.get("cost_limit_cpu_hours", DEFAULT_COST_LIMIT_CPU_HOURS))
    if hours > limit and not config.get("accept_cost", False):
        return (f"cost: the design needs an estimated {hours:.3g} CPU-hours (> cost_limit_cpu_hours = {limit:g}; "
                f"`privrl estimate` details it); rerun with --config accept_cost=true to accept")
    return None
