"""Every agent's per-seed outputs, hashed and compared with digests recorded in the repo.

Speed work on the engine, the planners and the mechanisms must not change a single number:
each registered agent runs a few seeds on RiverSwim S=2 H=3, RiverSwim S=6 H=20 and the
Bai et al. Table I garnet (policy elimination only where it can enumerate), plus its
noise-off twin and a small bonus / large epsilon variant where it has those parameters, and
the sha256 of each run's numbers (every checkpoint's regret, aux and PAC mistakes) must equal
:data:`EXPECTED`. A change of a random stream (e.g. a new Laplace sampler) changes the
digests of the agents that draw it; such a change updates :data:`EXPECTED` in the same
commit, with the reason (docs/decisions/performance.md).

    python tests/agents/test_output_digests.py     # print the digests of the current code (to record)
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from privrl.runs import run
from privrl.agents import get as get_agent
from privrl.agents.registry import REGISTRY
from privrl.rl import envs

INSTANCES = {  # name -> (env, params, K, seeds)
    "rs2": (("riverswim", {"S": 2, "H": 3}), 3000, [0, 1]),
    "rs6": (("riverswim", {"S": 6, "H": 20}), 400, [0]),
    "garnet": (("garnet", {"S": 3, "A": 2, "branching": 2, "H": 4, "seed": 1}), 1500, [0]),
}


def variants(name: str) -> dict[str, dict]:
    """label -> params: the defaults, the noise-off twin, and a small bonus / large epsilon."""
    d = REGISTRY[name].defaults
    out = {"default": {}}
    if "noise" in d:
        out["noise0"] = {"noise": 0.0}
    small = {k: v for k, v in (("bonus_scale", 0.01), ("epsilon", 10.0)) if k in d}
    if small:
        out["small"] = small
    return out


def digests() -> dict[str, str]:
    get_agent("ucbvi")  # loads the registry
    out = {}
    for inst, ((env, env_params), K, seeds) in INSTANCES.items():
        mdp = envs.make(env, **env_params)
        for name in sorted(REGISTRY):
            for label, params in variants(name).items():
                try:
                    df, _ = run.run(name, params, mdp, K, seeds)
                except ValueError:  # an agent that refuses the instance (policy enumeration)
                    continue
                num = np.ascontiguousarray(df.select_dtypes("number").to_numpy())
                out[f"{inst}|{name}|{label}"] = hashlib.sha256(num.tobytes()).hexdigest()[:16]
    return out


#: recorded with the code before the lean-engine work (2026-11-25), unchanged by it; then the
#: one-word Laplace sampler (docs/decisions/mechanisms.md, D13) changed every Laplace stream: the
#: digests of pucb, dp-ucbvi-jdp/ldp, private-ucbvi-jdp/ldp and ldp-obi (noise on) were re-recorded.
#: Must not change without a decision record naming the random stream that changed
EXPECTED: dict[str, str] = {
    "garnet|dp-ucbvi-jdp|default": "d06ea16e2294cfca", "garnet|dp-ucbvi-jdp|noise0": "db175c6016f56442",
    "garnet|dp-ucbvi-jdp|small": "20b859d8a8f4dbd5", "garnet|dp-ucbvi-ldp|default": "40577b50d2fc284b",
    "garnet|dp-ucbvi-ldp|noise0": "db175c6016f56442", "garnet|dp-ucbvi-ldp|small": "556866072a91f9cf",
    "garnet|ldp-obi|default": "74552eac9330cf0f", "garnet|ldp-obi|noise0": "90d36fd566233333",
    "garnet|ldp-obi|small": "8ad4fc3a50c236c8", "garnet|pe|default": "b44bd3818caece08",
    "garnet|private-ucbvi-jdp|default": "d06ea16e2294cfca", "garnet|private-ucbvi-jdp|noise0": "1cd790765c47d018",
    "garnet|private-ucbvi-jdp|small": "0673ea995d872986", "garnet|private-ucbvi-ldp|default": "40577b50d2fc284b",
    "garnet|private-ucbvi-ldp|noise0": "1cd790765c47d018", "garnet|private-ucbvi-ldp|small": "4327a89c20d37e16",
    "garnet|private-ucbvi-sdp|default": "b0105bdbcc1a451e", "garnet|private-ucbvi-sdp|noise0": "6b6a45954305cb03",
    "garnet|private-ucbvi-sdp|small": "2acb9f61c4503055", "garnet|pucb|default": "0a86f134d2fd4762",
    "garnet|pucb|noise0": "d2740f33c66efdd6", "garnet|pucb|small": "8b0e4bb89236e820",
    "garnet|rlsvi|default": "f19dae548e6e0f46", "garnet|sdp-pe-jdp|default": "b44bd3818caece08",
    "garnet|sdp-pe-jdp|small": "b44bd3818caece08", "garnet|sdp-pe-ldp|default": "b44bd3818caece08",
    "garnet|sdp-pe-ldp|small": "b44bd3818caece08", "garnet|sdp-pe|default": "b44bd3818caece08",
    "garnet|sdp-pe|small": "b44bd3818caece08", "garnet|shuffled-obi|default": "e4377b6d54a145c3",
    "garnet|shuffled-obi|noise0": "90d36fd566233333", "garnet|shuffled-obi|small": "d230c990fae6679b",
    "garnet|ucbvi|default": "1cd790765c47d018", "garnet|ucbvi|small": "ad358fffe69e656b",
    "rs2|dp-ucbvi-jdp|default": "f4061a7f39f3ef06", "rs2|dp-ucbvi-jdp|noise0": "048df17b75f10250",
    "rs2|dp-ucbvi-jdp|small": "14003aa141d26293", "rs2|dp-ucbvi-ldp|default": "cd5a94fcb96ec221",
    "rs2|dp-ucbvi-ldp|noise0": "048df17b75f10250", "rs2|dp-ucbvi-ldp|small": "bfa082d62cf6ffbe",
    "rs2|ldp-obi|default": "6ae9519fa0c9412e", "rs2|ldp-obi|noise0": "75a2d47c06bb5a2e",
    "rs2|ldp-obi|small": "4837719c1fd5d710", "rs2|pe|default": "70c7dbe4a2e4af3b",
    "rs2|private-ucbvi-jdp|default": "f4061a7f39f3ef06", "rs2|private-ucbvi-jdp|noise0": "a4ac37954df1bd82",
    "rs2|private-ucbvi-jdp|small": "8ef46f6994c0ad48", "rs2|private-ucbvi-ldp|default": "cd5a94fcb96ec221",
    "rs2|private-ucbvi-ldp|noise0": "a4ac37954df1bd82", "rs2|private-ucbvi-ldp|small": "0bd315b59ecd35ee",
    "rs2|private-ucbvi-sdp|default": "4b55c2c4c9e02b75", "rs2|private-ucbvi-sdp|noise0": "2b9e70adcc74af83",
    "rs2|private-ucbvi-sdp|small": "c7ad4f72e7a27056", "rs2|pucb|default": "4cbc4e85b2184d1b",
    "rs2|pucb|noise0": "edb1bd99de929f87", "rs2|pucb|small": "909d1a14f013ec16",
    "rs2|rlsvi|default": "8e2021abf01a7a97", "rs2|sdp-pe-jdp|default": "70c7dbe4a2e4af3b",
    "rs2|sdp-pe-jdp|small": "70c7dbe4a2e4af3b", "rs2|sdp-pe-ldp|default": "70c7dbe4a2e4af3b",
    "rs2|sdp-pe-ldp|small": "70c7dbe4a2e4af3b", "rs2|sdp-pe|default": "70c7dbe4a2e4af3b",
    "rs2|sdp-pe|small": "70c7dbe4a2e4af3b", "rs2|shuffled-obi|default": "97a3485dcb140835",
    "rs2|shuffled-obi|noise0": "75a2d47c06bb5a2e", "rs2|shuffled-obi|small": "81bbebc19d154246",
    "rs2|ucbvi|default": "a4ac37954df1bd82", "rs2|ucbvi|small": "c9516dc77a9dc597",
    "rs6|dp-ucbvi-jdp|default": "654187873b186210", "rs6|dp-ucbvi-jdp|noise0": "3328e59b92617e3f",
    "rs6|dp-ucbvi-jdp|small": "fb2341882fbf3be4", "rs6|dp-ucbvi-ldp|default": "d9355d202590625c",
    "rs6|dp-ucbvi-ldp|noise0": "3328e59b92617e3f", "rs6|dp-ucbvi-ldp|small": "6a2597578044c67a",
    "rs6|ldp-obi|default": "2714be310da0b496", "rs6|ldp-obi|noise0": "6be881ad34ec2ee0",
    "rs6|ldp-obi|small": "bc237978149c8854", "rs6|private-ucbvi-jdp|default": "654187873b186210",
    "rs6|private-ucbvi-jdp|noise0": "3328e59b92617e3f", "rs6|private-ucbvi-jdp|small": "fb2341882fbf3be4",
    "rs6|private-ucbvi-ldp|default": "d9355d202590625c", "rs6|private-ucbvi-ldp|noise0": "3328e59b92617e3f",
    "rs6|private-ucbvi-ldp|small": "6a2597578044c67a", "rs6|private-ucbvi-sdp|default": "d4a64f2d23d7e907",
    "rs6|private-ucbvi-sdp|noise0": "96d133b370472a98", "rs6|private-ucbvi-sdp|small": "36e3374963f123d8",
    "rs6|pucb|default": "58e0f6cd7460e6c7", "rs6|pucb|noise0": "dcaf529f63918d1b",
    "rs6|pucb|small": "f972385b8595ce6b", "rs6|rlsvi|default": "dbb773cc857f8a91",
    "rs6|shuffled-obi|default": "d260dbb37e315df3", "rs6|shuffled-obi|noise0": "6be881ad34ec2ee0",
    "rs6|shuffled-obi|small": "0b29b0c9bcad1ee4", "rs6|ucbvi|default": "3328e59b92617e3f",
    "rs6|ucbvi|small": "3328e59b92617e3f",
}


def test_every_agent_gives_its_recorded_bytes():
    got = digests()
    assert set(got) == set(EXPECTED)
    diff = {k: (EXPECTED[k], got[k]) for k in EXPECTED if got[k] != EXPECTED[k]}
    assert not diff, f"per-seed outputs changed: {diff}"


LEAK_SCRIPT = """
import numpy as np
from numba.core.runtime import rtsys
from privrl.agents import get
from privrl.rl import engine, envs, seeding
mdp = envs.riverswim(S=2, H=3)
env = engine.env_arrays(mdp)
for name in ("ucbvi", "rlsvi", "pucb"):
    spec = get(name)
    pv = spec.param_vector({})
    spec.kernel(env, pv, 50, seeding.generator("leak", name, 0), engine.new_recorder(50, np.array([0.1])))
    s0 = rtsys.get_allocation_stats()
    spec.kernel(env, pv, 5000, seeding.generator("leak", name, 1), engine.new_recorder(5000, np.array([0.1])))
    s1 = rtsys.get_allocation_stats()
    assert s1.alloc - s0.alloc == s1.free - s0.free, (name, s0, s1)
    assert s1.mi_alloc - s0.mi_alloc == s1.mi_free - s0.mi_free, (name, s0, s1)
print("ok")
"""


def test_episode_loops_without_reference_counting_leak_nothing():
    """The agents whose ``run_episodes`` is compiled without numba's reference counting
    (``_nrt=False``: the episode loop only reads and writes the arrays its caller owns) free every
    array numba allocates during a run (NRT statistics, which must be switched on at start-up)."""
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "NUMBA_NRT_STATS": "1",
           "PYTHONPATH": os.pathsep.join(p for p in (str(src), os.environ.get("PYTHONPATH", "")) if p)}
    out = subprocess.run([sys.executable, "-c", LEAK_SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]


if __name__ == "__main__":
    print(json.dumps(digests(), indent=1, sort_keys=True))
