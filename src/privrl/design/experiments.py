"""Experiments are data: the ``experiments`` mapping of the config is the one registry.

An experiment names its environments, its agent cells, an optional parameter sweep, the
number of episodes K and of seeds, and the claims its analysis scores against theory.
This module expands that data into concrete cells (experiment, env, cell id, agent,
params) that the Snakemake rules turn into jobs; it is pure and unit-tested.

The config is a *design*, not a list: values that follow from others are generated here.

* ``noise_off: true`` on a cell adds its exact-count twin (the same algorithm with
  ``noise = 0``, the privacy-cost baseline), at the fixed reference ``epsilon = 1`` (the
  twin ignores epsilon; fixing it keeps a sweep from copying it).
* ``matched: true`` on a cell runs it at the eps that another agent certifies at each K_i of
  the experiment's ``matched_eps`` block (today: RLSVI's Cor. 14 eps(delta), Lu et al. 2026),
  computed from the environment and rounded to 6 significant digits (the value printed in
  the cell id, so the id determines the run).
* claims select cells by parameters (``select: {agent: pucb, epsilon: 10}``), and one claim
  spec with ``agents: [...]`` stands for one claim per agent (``{agent}`` and ``{label}`` in
  its id and statement; its source defaults to the agent's paper reference).
* an *overlay* config (``overlay_of: config/config.yaml``, e.g. ``config/smoke.yaml``) changes
  sizes of the base design: it is deep-merged onto the base (:func:`resolve_overlay`).
"""
from __future__ import annotations

import copy
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from privrl.agents import get as get_agent
from privrl.agents import simulation as simulations
from privrl.design.config_files import OVERLAY_PROSE, deep_merge, did_you_mean  # noqa: F401 (re-exported)

_SAFE = re.compile(r"[^A-Za-z0-9_.=+-]")
NOISE_OFF_EPSILON = 1.0  # the reference epsilon of a noise-off twin (it ignores epsilon)


@dataclass(frozen=True)
class Cell:
    experiment: str
    env: str
    cell: str
    agent: str
    params: Mapping[str, float] = field(default_factory=dict)
    label: str = ""
    tags: Mapping[str, Any] = field(default_factory=dict)
    # "episode" (the reference) or "aggregate" (privrl.agents.simulation; not part of the cell id
    # nor of the stream key, so a cell switched to aggregate keeps its name and its setting)
    simulation: str = "episode"

    @property
    def setting(self) -> str:
        """The stable string that, with the experiment and seed, keys the random stream."""
        return f"{self.env}/{self.cell}"


def format_value(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def cell_id(agent: str, params: Mapping[str, Any], tag: str | None = None) -> str:
    """Filesystem-safe, stable id: agent[+tag]__k=v__... with keys sorted."""
    head = agent if not tag else f"{agent}+{tag}"
    parts = [head] + [f"{k}={format_value(v)}" for k, v in sorted(params.items())]
    return _SAFE.sub("_", "__".join(parts))


def resolve_overlay(config: Mapping[str, Any], root: str | Path = ".", path: str | Path | None = None) -> dict:
    """An overlay config (key ``overlay_of``: path of its base, relative to ``root``) merged onto its
    base; one level only (privrl.design.config_files.resolve_overlay: chains, cycles and a missing base are
    refused in one line)."""
    from privrl.design import config_files

    return config_files.resolve_overlay(config, root, path)



SHIPPED_DESIGNS = ("config/config.yaml", "config/paper.yaml")  # the designs a "not reached" row points to


def design_episodes(root: str | Path = ".", designs: tuple[str, ...] = SHIPPED_DESIGNS) -> dict[str, dict[str, int]]:
    """design file -> {experiment: K it runs}, for the shipped designs (overlays resolved); a design
    file that does not exist is skipped."""
    from privrl.design import config_files

    out = {}
    for d in designs:
        path = Path(root, d)
        if path.exists():
            cfg = resolve_overlay(config_files.load_yaml(path), root, path)
            out[d] = {name: int(e["episodes"]) for name, e in (cfg.get("experiments") or {}).items()
                      if e and "episodes" in e}
    return out


def _round6(x: float) -> float:
    return float(f"{x:.6g}")


def matched_epsilons(exp: Mapping[str, Any], env: tuple[str, Mapping[str, Any]]) -> list[tuple[int, float]]:
    """(K_i, eps) pairs at which ``matched`` cells run: RLSVI's Cor. 14 eps(delta) (Lu et al. 2026)
    at K_i on this environment, for the ``matched_eps`` block's beta_scale, rounded to 6 digits."""
    spec = exp.get("matched_eps")
    if not spec:
        return []
    from privrl.mechanisms import accounting
    from privrl.rl import envs

    mdp = envs.make(env[0], **dict(env[1]))
    out = []
    for K in spec["K"]:
        Ke = float(K) / float(spec.get("beta_scale", 1.0))
        out.append((int(K), _round6(accounting.lu_cor14_epsilon(float(spec["delta"]), Ke, mdp.H, mdp.S, mdp.A))))
    return out


def _cell_variants(exp: Mapping[str, Any], spec: Mapping[str, Any], env: tuple[str, Mapping[str, Any]]):
    """(params, label, tags) of one cell spec before the sweep: itself, or one per matched eps."""
    fixed = dict(spec.get("params", {}) or {})
    tags = dict(spec.get("tags", {}) or {})
    label = spec.get("label", "")
    if not spec.get("matched"):
        return [(fixed, label, tags)]
    name = label or spec["agent"]
    return [({**fixed, "epsilon": eps}, f"{name} at eps_RLSVI(K={K:g})", {**tags, "match_K": K})
            for K, eps in matched_epsilons(exp, env)]


def sweep_points(sweep: Mapping[str, list], defaults: Mapping[str, float], fixed: Mapping[str, Any]) -> list[dict]:
    """Every point of a sweep for one agent: the product over the keys the agent has and the cell
    does not fix. A key ``"a,b"`` sweeps a and b together over its list of ``[a, b]`` pairs."""
    keys = [k for k in sweep if all(n in defaults and n not in fixed for n in k.split(","))]
    points = []
    for values in itertools.product(*(sweep[k] for k in keys)):
        point = {}
        for k, v in zip(keys, values):
            names = k.split(",")
            point.update(zip(names, v) if len(names) > 1 else [(k, v)])
        points.append(point)
    return points


def expand_cells(config: Mapping[str, Any], experiment: str) -> list[Cell]:
    """All cells of one experiment: every (env, agent cell, sweep point) the agent accepts.

    A sweep key applies to a cell only if the agent has that parameter and the cell does
    not fix it; so a non-private agent appears once in an epsilon sweep. A cell's own ``sweep``
    replaces the experiment's. Noise-off twins
    follow their cell; a twin shared by several cells appears once.
    """
    exp = config["experiments"][experiment]
    sweep: Mapping[str, list] = exp.get("sweep", {}) or {}
    out: list[Cell] = []
    seen: set[tuple[str, str]] = set()

    def add(env_key, agent, params, label, tags, tag, twin=False, simulation="episode"):
        cid = cell_id(agent, params, tag)
        if (env_key, cid) in seen:
            if twin:
                return
            raise ValueError(f"experiment {experiment!r}: cell {cid!r} declared twice for env {env_key!r}")
        seen.add((env_key, cid))
        out.append(Cell(experiment, env_key, cid, agent, params, _label(label, params) if label else cid, tags,
                        simulation))

    for env_key, env_spec_ in exp["envs"].items():
        env = (env_spec_["name"], env_spec_.get("params", {}) or {})
        for spec in exp["cells"]:
            agent = spec["agent"]
            defaults = get_agent(agent).defaults
            cell_sweep = spec.get("sweep") or sweep
            try:
                sim = simulations.check(agent, spec.get("simulation", simulations.EPISODE))
            except ValueError as e:
                raise ValueError(f"experiment {experiment!r}: {e}") from None
            for fixed, label, tags in _cell_variants(exp, spec, env):
                for point in sweep_points(cell_sweep, defaults, fixed):
                    add(env_key, agent, {**fixed, **point}, label, tags, spec.get("tag"), simulation=sim)
            if spec.get("noise_off"):
                twin = {**dict(spec.get("params", {}) or {}), "noise": 0, "epsilon": NOISE_OFF_EPSILON}
                add(env_key, agent, twin, f"{spec.get('label') or agent} noise off", {}, spec.get("tag"), twin=True,
                    simulation=sim)
    return out


def _label(template: str, params: Mapping[str, Any]) -> str:
    """A cell's label from its template (``"PUCB (bonus x{bonus_scale:g})"``); a field that is not one
    of the cell's parameters is a ValueError naming it."""
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise ValueError(f"label {template!r}: {type(e).__name__} {e} (its fields must be the cell's params "
                         f"{sorted(params)})") from None


def all_cells(config: Mapping[str, Any]) -> list[Cell]:
    return [c for name in config["experiments"] for c in expand_cells(config, name)]


def find_cell(config: Mapping[str, Any], experiment: str, env: str, cell: str) -> Cell:
    for c in expand_cells(config, experiment):
        if c.env == env and c.cell == cell:
            return c
    raise KeyError(f"no cell {cell!r} for env {env!r} in experiment {experiment!r}")


def select_cells(cells: list[Cell], selector: Mapping[str, Any]) -> list[Cell]:
    """Cells whose agent (key ``agent``) and parameters equal every entry of ``selector``."""
    def ok(c: Cell) -> bool:
        for k, v in selector.items():
            have = c.agent if k == "agent" else c.params.get(k)
            if have is None or (have != v and not (isinstance(v, (int, float)) and float(have) == float(v))):
                return False
        return True
    return [c for c in cells if ok(c)]


def resolve_claims(config: Mapping[str, Any], experiment: str) -> list[dict]:
    """The experiment's claim specs, templates expanded and ``select`` resolved to a cell id.

    A spec with ``agents: [a, b, ...]`` stands for one claim per agent (``{agent}``, ``{agent_id}``
    and ``{experiment}`` in its id and statement, ``{label}`` the agent's name; ``agent`` added to
    the selector; ``source`` defaults to the agent's reference). Raises naming the claim when a selector matches no cell or several.
    """
    exp = config["experiments"][experiment]
    cells = expand_cells(config, experiment)
    out = []
    for spec in exp.get("claims", []) or []:
        agents = spec.get("agents") or [None]
        for agent in agents:
            c = copy.deepcopy({k: v for k, v in spec.items() if k != "agents"})
            check = c["check"]
            if agent is not None:
                fmt = {"agent": agent, "label": agent, "agent_id": agent.replace("-", "_"), "experiment": experiment}
                c["id"] = c["id"].format(**fmt)
                c["statement"] = c["statement"].format(**fmt)
                c.setdefault("source", get_agent(agent).reference)
                check["select"] = {**(check.get("select") or {}), "agent": agent}
            if "select" in check:
                env_cells = [x for x in cells if x.env == check["env"]]
                hits = select_cells(env_cells, check["select"])
                if len(hits) != 1:
                    raise ValueError(f"experiments.{experiment}.claims[{c['id']}]: selector {check['select']} "
                                     f"matches {len(hits)} cells of env {check['env']!r} (needs exactly 1)")
                check["cell"] = hits[0].cell
            out.append(c)
    return out


def seeds_of(config: Mapping[str, Any], experiment: str) -> list[int]:
    n = config["experiments"][experiment]["seeds"]
    return list(range(int(n)))


def env_spec(config: Mapping[str, Any], experiment: str, env: str) -> tuple[str, dict]:
    spec = config["experiments"][experiment]["envs"][env]
    return spec["name"], dict(spec.get("params", {}) or {})


# ---------------------------------------------------------------- the mechanism-level checks a design names
def named_checks(config: Mapping[str, Any]) -> set[str]:
    """The theorem checks the design names (keys of ``mechanisms.checks``): only those run."""
    return set(((config.get("mechanisms") or {}).get("checks")) or {})


def names_mechanism_audit(config: Mapping[str, Any]) -> bool:
    """Whether the design asks for the privacy audit of every mechanism (``mechanisms.audit``)."""
    return "audit" in (config.get("mechanisms") or {})


def audited_agents(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The agents the design's end-to-end agent audit covers: ``mechanisms.agent_audit.agents`` if
    given, else the private agents its cells run (registry order); () when it names no agent audit."""
    from privrl.agents import REGISTRY

    mech = config.get("mechanisms") or {}
    if "agent_audit" not in mech:
        return ()
    given = (mech.get("agent_audit") or {}).get("agents")
    if given is not None:
        return tuple(given)
    used = {c.agent for c in all_cells(config)}
    return tuple(n for n, s in REGISTRY.items() if s.privacy_model != "none" and n in used)


def linear_phase_notes(config: Mapping[str, Any]) -> list[str]:
    """One line per experiment some of whose cells never leave the linear phase: the experiment runs
    K episodes, fewer than the cell's crossover (the K from which the agent's own confidence width,
    at uniform visitation, is below the instance's gap: ``AgentSpec.crossover``), so its regret
    grows ~K throughout and no rate can be read from it. The line gives the K those cells need
    (the smallest and largest crossover among them). Cells whose agent registers no crossover rule
    are not judged. ``privrl estimate`` prints these lines for any design (a user's own included)."""
    import math

    from privrl.agents.registry import agent_crossover
    from privrl.rl import envs

    out = []
    for name, exp in config["experiments"].items():
        K, mdps, linear, judged = int(exp["episodes"]), {}, [], 0
        for c in expand_cells(config, name):
            if c.env not in mdps:
                env_name, params = env_spec(config, name, c.env)
                mdps[c.env] = envs.make(env_name, **params)
            k = agent_crossover(c.agent, c.params, mdps[c.env])
            if math.isnan(k):
                continue
            judged += 1
            if K < k:
                linear.append((k, f"{c.env}/{c.cell}"))
        if not linear:
            continue
        linear.sort()
        (lo, lo_cell), (hi, hi_cell) = linear[0], linear[-1]
        need = (f"K >= {lo:.2g}" if lo == hi or math.isinf(lo) else f"K from {lo:.2g} ({lo_cell}) to {hi:.2g} ({hi_cell})")
        if math.isinf(lo):
            need = "no K: their widths stay above the gap on this instance (choose another instance)"
        elif math.isinf(hi):
            need += " (some never: their widths stay above the gap)"
        some = "all" if len(linear) == judged else f"{len(linear)} of {judged}"
        out.append(f"experiments.{name}: {some} cells stay in the linear phase at K = {K:.2g} (regret ~K: the agent's "
                   f"width is still above the instance's gap); to leave it they need {need}")
    return out
