"""Every agent's per-seed outputs as digests, recorded by a command and compared by the tests.

Speed work on the engine, the planners and the mechanisms must not change a single number: each
agent runs a few seeds on RiverSwim S=2 H=3, RiverSwim S=6 H=20 and the Bai et al. Table I garnet
(policy elimination only where it can enumerate), plus its noise-off twin and a small bonus / large
epsilon variant where it has those parameters; the sha256 of each run's numbers (every checkpoint's
regret, aux and PAC mistakes) is recorded in ``agent_digests.json`` beside this module. A change of a
random stream (e.g. a new Laplace sampler) changes the digests of the agents that draw it; such a
change re-records them in the same commit, with the reason (docs/decisions/performance.md).

    privrl check-agent NAME --record-digests   # record (or re-record) one agent's digests

A new agent records its own with that command: nothing is pasted by hand, and an agent with no
record is reported by ``check_agent`` (WARN), not failed.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from privrl import io

RECORD = Path(__file__).with_name("agent_digests.json")
INSTANCES = {  # name -> ((env, params), K, seeds)
    "rs2": (("riverswim", {"S": 2, "H": 3}), 3000, [0, 1]),
    "rs6": (("riverswim", {"S": 6, "H": 20}), 400, [0]),
    "garnet": (("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}), 1500, [0]),
    # the two-armed bandits the default design's agent rows run on (H = 1 and H = 2), at a K whose
    # tree has 15 levels, so that every lowest-set-bit case of the binary mechanism is exercised
    "bandit1": (("garnet", {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}), 20000, [0, 1]),
    "bandit2": (("garnet", {"S": 1, "A": 2, "branching": 1, "H": 2, "seed": 0}), 20000, [0]),
}


def variants(agent: str) -> dict[str, dict]:
    """label -> params: the defaults, the noise-off twin, and a small bonus / large epsilon."""
    from privrl.agents import get

    d = get(agent).defaults
    out = {"default": {}}
    if "noise" in d:
        out["noise0"] = {"noise": 0.0}
    small = {k: v for k, v in (("bonus_scale", 0.01), ("epsilon", 10.0)) if k in d}
    if small:
        out["small"] = small
    if "z" in d:  # matched coverage (the width the design's agent rows use)
        out["z3"] = {"z": 3.0, **({"epsilon": 2.0} if "epsilon" in d else {})}
    if "tau" in d:  # the shuffle's batch sizes the design runs (fixed tau, tau = K^(1/3))
        out["tau"] = {"z": 3.0, "tau": 1000.0}
        out["tau_power"] = {"z": 3.0, "epsilon": 2.752257989, "tau_power": 1.0 / 3.0}
    return out


def agent_digests(agent: str) -> dict[str, str]:
    """"instance|variant" -> sha256 (16 hex) of the run's numbers, for one agent."""
    from privrl.rl import envs
    from privrl.runs import run

    out = {}
    for inst, ((env, env_params), K, seeds) in INSTANCES.items():
        mdp = envs.make(env, **env_params)
        for label, params in variants(agent).items():
            try:
                df, _ = run.run(agent, params, mdp, K, seeds)
            except ValueError:  # an agent that refuses the instance (policy enumeration)
                continue
            num = np.ascontiguousarray(df.select_dtypes("number").to_numpy())
            out[f"{inst}|{label}"] = hashlib.sha256(num.tobytes()).hexdigest()[:16]
    return dict(sorted(out.items()))


def recorded(path: Path = RECORD) -> dict[str, dict[str, str]]:
    """agent -> its recorded digests ({} before any record)."""
    return json.loads(path.read_text()) if path.exists() else {}


def record(agents: list[str], path: Path = RECORD) -> dict[str, dict[str, str]]:
    """Compute and write the digests of ``agents`` (the others' records kept); returns them."""
    rec = recorded(path)
    new = {a: agent_digests(a) for a in agents}
    rec.update(new)
    io.write_text(path, json.dumps(dict(sorted(rec.items())), indent=1) + "\n")
    return new
