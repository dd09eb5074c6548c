"""The agent contract, checked: what every registered agent must satisfy (``privrl check-agent NAME``).

An agent is its module (an :class:`~privrl.agents.registry.AgentSpec` with kernels, defaults,
parameter domains, privacy model, guarantees and crossover rule) plus config. This module checks
the properties the pipeline relies on, each on a small instance (RiverSwim S = 2, H = 3, K
episodes), and reports one :class:`Property` per line:

* ``determinism``: the same seed twice gives the same bytes (regret, diagnostic, mistakes);
* ``chunked = unchunked``: the seed run in chunks through the resumable path
  (:func:`privrl.runs.run.run_seed_resumable`: state saved after each chunk, then a second call that
  resumes from the saved state) equals the one-call run, bit for bit;
* ``door-only mechanisms``: everything the agent's kernels reach in ``privrl.mechanisms`` (their
  globals and the module attributes they load, followed through the agent's and the engine's njit
  helpers) is the privatizer door (``privrl.mechanisms.privatizer``: a generated door module or a
  name the privatizer module exports) or a deterministic width (``bounds``, ``accounting``,
  ``events``), and no kernel touches ``numpy.random`` (no global RNG); the module's own imports from
  ``privrl.mechanisms`` are the same four (the test ``test_agents_import_only_the_door`` applies
  that rule to every agent file);
* ``audit``: a private agent, audited end to end at its claimed eps under every neighbour relation
  it claims (:func:`privrl.audit.privacy.audit_agent`), is not flagged, and the audit has power:
  its noise calibration (:func:`privrl.audit.privacy.power_curve`) raises no alarm at the agent's
  own noise and flags half of it; an agent the audit cannot probe fails (it would otherwise go
  unaudited); a non-private agent passes trivially;
* ``min_horizon``: the agent's init_state accepts the two-armed bandit of horizon
  ``AgentSpec.min_horizon`` and refuses (ValueError) the one a step shorter, so the design check,
  which reads ``min_horizon`` before any job (privrl.plan.validate), refuses exactly what a job would;
* ``aggregate simulation`` (only for an agent whose spec declares one, ``AgentSpec.simulations``):
  its kernels registered, deterministic, chunked = unchunked and door-only as above;
* ``throughput``: a row of the measured throughput table (``privrl.plan.cost``); none is a warning
  (the design is then planned from the nearest measured agent), not a failure; so is a declared
  aggregate simulation without rows of its own.
"""
from __future__ import annotations

import ast
import dis
import inspect
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

DOOR_MODULES = ("privatizer", "bounds", "accounting", "release_guarantees", "events")  # what an agent may import from privrl.mechanisms
CHECK_ENV = ("riverswim", {"S": 2, "H": 3})
OK, WARN, FAIL = "PASS", "WARN", "FAIL"


@dataclass(frozen=True)
class Property:
    name: str
    status: str  # PASS, WARN or FAIL
    detail: str

    def line(self) -> str:
        return f"{self.status}  {self.name}: {self.detail}"


def _mdp():
    from privrl.rl import envs

    return envs.make(CHECK_ENV[0], **CHECK_ENV[1])


def _run(agent: str, K: int, seed: int, **kw) -> tuple[pd.DataFrame, int]:
    from privrl.runs import run

    return run.run_seed_resumable(agent, None, _mdp(), K, seed, "check-agent", f"{CHECK_ENV[0]}/{agent}",
                                  n_checkpoints=100, **kw)


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Same columns and the same bytes in each."""
    return list(a.columns) == list(b.columns) and all(
        a[c].to_numpy().tobytes() == b[c].to_numpy().tobytes() for c in a.columns)


def check_determinism(agent: str, K: int) -> Property:
    a, _ = _run(agent, K, 3)
    b, _ = _run(agent, K, 3)
    return Property("determinism", OK if _same(a, b) else FAIL,
                    f"seed 3 twice, K = {K}: " + ("identical bytes" if _same(a, b) else "the two runs differ"))


def check_chunked(agent: str, K: int) -> Property:
    """Chunks of ~K/3 episodes with the state saved after each; then a second call resumes from the
    last saved state; both equal the one-call run."""
    whole, _ = _run(agent, K, 5)
    chunk = max(1, K // 3)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d, "state.npz")
        chunked, _ = _run(agent, K, 5, chunk_episodes=chunk, state_path=path, run_id="check")
        resumed, k0 = _run(agent, K, 5, chunk_episodes=chunk, state_path=path, run_id="check")
    ok = _same(whole, chunked) and _same(whole, resumed) and k0 > 0
    why = (f"chunks of {chunk} of K = {K}, resumed from episode {k0}: "
           + ("identical to one call" if ok else "resume never happened" if k0 == 0 else "differs from one call"))
    return Property("chunked = unchunked", OK if ok else FAIL, why)


# ----------------------------------------------------------------------------- door-only
def _referenced(fn, seen: set, out: list) -> None:
    """(name, object) of every global and module attribute ``fn``'s code loads, followed through
    njit/Python functions of privrl.agents and privrl.rl (depth first; closures included)."""
    py = getattr(fn, "py_func", fn)
    if not isinstance(py, types.FunctionType) or py in seen:
        return
    seen.add(py)
    codes, g = [py.__code__], py.__globals__
    while codes:
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        ins = list(dis.get_instructions(code))
        for i, x in enumerate(ins):
            if x.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or x.argval not in g:
                continue
            v = g[x.argval]
            out.append((x.argval, v))
            nxt = ins[i + 1] if i + 1 < len(ins) else None
            if isinstance(v, types.ModuleType) and nxt is not None and nxt.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                if hasattr(v, nxt.argval):
                    out.append((f"{x.argval}.{nxt.argval}", getattr(v, nxt.argval)))
    for c in py.__closure__ or ():
        try:
            out.append(("<closure>", c.cell_contents))
        except ValueError:
            pass
    for _, v in list(out):
        if _module_of(v).startswith(("privrl.agents", "privrl.rl")):
            _referenced(v, seen, out)


def _module_of(v) -> str:
    if isinstance(v, types.ModuleType):
        return v.__name__
    return getattr(getattr(v, "py_func", v), "__module__", None) or ""


def _door_objects() -> tuple[set, set]:
    """(ids of every object the door exposes, names of the generated door modules)."""
    from privrl.mechanisms import privatizer

    doors = list(privatizer._DOORS.values())
    exposed = {id(getattr(privatizer, n)) for n in dir(privatizer) if not n.startswith("__")}
    exposed |= {id(getattr(m, n)) for m in doors for n in dir(m) if not n.startswith("__")}
    exposed |= {id(privatizer)} | {id(m) for m in doors}
    return exposed, {m.__name__ for m in doors}


def mechanism_violations(agent: str, simulation: str = "episode") -> list[str]:
    """What the agent's kernels of ``simulation`` reach in privrl.mechanisms (or numpy.random) other
    than through the door."""
    from privrl.agents import simulation as simulations

    init_state, run_episodes = simulations.kernels(agent, simulation)
    exposed, door_names = _door_objects()
    refs: list = []
    seen: set = set()
    for fn in (init_state, run_episodes):
        _referenced(fn, seen, refs)
    bad = set()
    for name, v in refs:
        mod = _module_of(v)
        if mod.startswith("numpy.random") or v is np.random:
            bad.add(f"{name} ({mod}: a global RNG)")
        elif mod.startswith("privrl.mechanisms") and id(v) not in exposed and mod.split(".")[2] not in DOOR_MODULES[1:]:
            bad.add(f"{name} ({mod})")
        elif mod.startswith("privrl_door_") and mod not in door_names:
            bad.add(f"{name} ({mod}: not a door of privrl.mechanisms.privatizer)")
    source = inspect.getsourcefile(inspect.getmodule(getattr(run_episodes, "py_func", run_episodes)))
    bad |= {f"import of privrl.mechanisms.{m} in {Path(source).name}" for m in _mechanism_imports(Path(source))
            if m not in DOOR_MODULES}
    return sorted(bad)


def _mechanism_imports(path: Path) -> set[str]:
    """The privrl.mechanisms submodules a source file imports."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("privrl.mechanisms"):
            sub = node.module[len("privrl.mechanisms"):].lstrip(".")
            out |= {sub.split(".")[0]} if sub else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name.split(".")[2] for a in node.names if a.name.startswith("privrl.mechanisms.")}
    return out


def check_door_only(agent: str) -> Property:
    bad = mechanism_violations(agent)
    return Property("door-only mechanisms", FAIL if bad else OK,
                    ("reaches " + ", ".join(bad)) if bad else "privrl.mechanisms reached only through the privatizer door")


def check_min_horizon(agent: str) -> Property:
    from privrl.agents import get
    from privrl.rl import engine, envs

    spec = get(agent)
    need, pv = spec.min_horizon, spec.param_vector({})

    def accepts(H: int) -> bool:
        env = engine.env_arrays(envs.make("garnet", S=1, A=2, branching=1, H=H, seed=0))
        try:
            spec.init_state(env, pv, 10)
        except ValueError:
            return False
        return True

    if not accepts(need):
        return Property("min_horizon", FAIL, f"init_state refuses H = {need} (declare the horizon it needs)")
    if need > 1 and accepts(need - 1):
        return Property("min_horizon", FAIL, f"init_state accepts H = {need - 1} < min_horizon = {need}")
    return Property("min_horizon", OK, f"init_state accepts H >= {need}" + (f", refuses H = {need - 1}" if need > 1 else ""))


# ----------------------------------------------------------------------------- aggregate simulation
def check_aggregate(agent: str, K: int) -> Property:
    """An agent whose spec declares an aggregate simulation (``AgentSpec.simulations``): its kernels
    are registered and keep the contract too (same seed twice = same bytes, chunked = unchunked
    through the resumable path, door-only). Its law against the episode kernel is the agent's own
    test (tests/agents/test_sdp_pe_aggregate.py, tests/agents/test_private_ucbvi_aggregate.py)."""
    from privrl.agents import simulation

    try:
        simulation.check(agent, "aggregate")
    except ValueError as exc:
        return Property("aggregate simulation", FAIL, f"declared in its spec but {exc}")
    a, _ = _run(agent, K, 3, simulation="aggregate")
    b, _ = _run(agent, K, 3, simulation="aggregate")
    chunk = max(1, K // 3)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d, "state.npz")
        chunked, _ = _run(agent, K, 3, chunk_episodes=chunk, state_path=path, run_id="check-aggregate",
                          simulation="aggregate")
    bad = mechanism_violations(agent, "aggregate")
    fails = ([] if _same(a, b) else ["the same seed twice differs"]) + (
        [] if _same(a, chunked) else [f"chunks of {chunk} differ from one call"]) + (
        ["reaches " + ", ".join(bad)] if bad else [])
    return Property("aggregate simulation", FAIL if fails else OK,
                    "; ".join(fails) if fails else f"K = {K}: deterministic, chunked = unchunked, door-only")


# ----------------------------------------------------------------------------- audit
#: the check's power curve: the agent itself and half its noise (the contract: x1/2 is flagged)
CHECK_MULTIPLIERS = (1.0, 0.5)


def audit_rows(agent: str, n: int, seed: int = 0, n_calibration: int = 1000, alpha: float = 0.05) -> list[dict]:
    """The end-to-end audit of ``agent`` under each relation it claims (the calls into
    :mod:`privrl.audit.privacy`): the privacy-loss lower bound at its claimed eps and the noise
    calibration at noise x1 and x1/2 (:data:`CHECK_MULTIPLIERS`, ``n_calibration`` runs per
    sequence), every row at ``alpha`` over the number of rows (Bonferroni)."""
    from privrl.audit import privacy as privacy_audit
    from privrl.mechanisms import events

    rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
    relations = [rel for rel in events.NEIGHBOURS if privacy_audit.claimed(agent, rel) is not None]
    a_row = alpha / max(1, len(relations) * (1 + len(CHECK_MULTIPLIERS)))
    rows = []
    for rel in relations:
        rows.append(privacy_audit.audit_agent(agent, rel, rng, n, alpha=a_row))
        rows += privacy_audit.power_curve(agent, rel, rng, n_calibration, a_row, CHECK_MULTIPLIERS)
    return rows


def auditable(agent: str) -> bool:
    """Whether the end-to-end audit can drive this agent's kernel (it has a probe)."""
    from privrl.audit import privacy as privacy_audit

    return agent in privacy_audit.AGENTS


def check_audit(agent: str, n: int) -> Property:
    from privrl.agents import get

    if get(agent).privacy_model == "none":
        return Property("audit", OK, "not private: nothing to audit")
    if not auditable(agent):
        return Property("audit", FAIL, f"{get(agent).privacy_model} agent without an audit probe: it is not audited")
    from privrl.audit import privacy as privacy_audit

    rows = audit_rows(agent, n)
    if not rows:
        return Property("audit", FAIL, "no guarantee under any neighbour relation on the audit's MDP")
    as_run = [r for r in rows if r["variant"] == "noise x1"]
    half = [r for r in rows if r["test"] == privacy_audit.CALIBRATION and r["variant"] == "noise x1/2"]
    bad = [r for r in as_run if r["verdict"] != "pass"] + [r for r in half if r["verdict"] != "flagged"]
    text = "; ".join(f"{r['relation']}: lower bound {r['epsilon_lower_bound']:.3g} vs claimed "
                     f"{r['claimed_epsilon']:.3g} ({r['verdict']})" for r in as_run
                     if r["test"] == privacy_audit.PRIVACY_LOSS)
    text += "; noise calibration: " + "; ".join(
        f"{r['relation']} {r['variant']}: {r['verdict']} (p = {r['p_value']:.2g})"
        for r in rows if r["test"] == privacy_audit.CALIBRATION)
    if any(r["verdict"] != "flagged" for r in half):
        text += " -- the audit cannot see half the agent's noise"
    return Property("audit", FAIL if bad else OK, f"{n} runs per neighbour: {text}")


# ----------------------------------------------------------------------------- throughput
def check_throughput(agent: str) -> Property:
    from privrl.runs import throughput
    from privrl.agents import get

    rows = throughput.load_table()
    rows = rows[rows.agent == agent]
    if rows.empty:
        return Property("throughput", WARN, "no row in the throughput table: `privrl estimate` and SLURM limits use "
                        f"the nearest measured agent; measure it with `python bench/agent_throughput.py --agents {agent} --write`")
    inst = sorted({f"{r.env} S={r.S} A={r.A} H={r.H}" for r in rows.itertuples()})
    if "aggregate" in get(agent).simulations and not (rows.variant == throughput.VARIANT_AGGREGATE).any():
        return Property("throughput", WARN, f"{len(rows)} measured rows ({', '.join(inst)}) but none of its aggregate "
                        "simulation: aggregate cells are priced from its episode rows; measure it with "
                        f"`python bench/agent_throughput.py --agents {agent} --write`")
    return Property("throughput", OK, f"{len(rows)} measured rows ({', '.join(inst)})")


# ----------------------------------------------------------------------------- digests
def check_digests(agent: str) -> Property:
    """The agent's per-seed outputs against its recorded digests (:mod:`privrl.audit.digests`):
    equal, none recorded yet (WARN, with the command that records them), or changed (FAIL)."""
    from privrl.audit import digests

    rec = digests.recorded().get(agent)
    if rec is None:
        return Property("digests", WARN, "no recorded digests: record them with "
                        f"`privrl check-agent {agent} --record-digests` (then a change of any number is caught)")
    got = digests.agent_digests(agent)
    diff = sorted(k for k in set(rec) | set(got) if rec.get(k) != got.get(k))
    if diff:
        return Property("digests", FAIL, f"per-seed outputs differ from the record at {', '.join(diff)}")
    return Property("digests", OK, f"{len(got)} runs equal their recorded digests")


def check_agent(agent: str, episodes: int = 300, audit_n: int = 4000, audit: bool = True,
                digests: bool = False) -> list[Property]:
    """Every property of the agent contract, in order (the audit only with ``audit``, the recorded
    digests only with ``digests``)."""
    from privrl.agents import get

    get(agent)  # an unknown name: one ValueError listing the registry
    out = [check_determinism(agent, episodes), check_chunked(agent, episodes), check_door_only(agent),
           check_min_horizon(agent)]
    if "aggregate" in get(agent).simulations:
        out.append(check_aggregate(agent, episodes))
    if audit:
        out.append(check_audit(agent, audit_n))
    if digests:
        out.append(check_digests(agent))
    out.append(check_throughput(agent))
    return out


def passed(props: list[Property]) -> bool:
    return all(p.status != FAIL for p in props)
