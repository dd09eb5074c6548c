"""Audit probes are compiled once per numba cache (privrl.audit.probe, "Compiled once per cache"):
a second process loads an agent's probe driver from the on-disk cache -- no compilation -- and
samples the same releases; nothing process-specific (the log buffer's address) is compiled in."""
import subprocess
import sys
import textwrap

import numpy as np

from privrl.audit import privacy as pa
from privrl.audit import probe

AGENT = "pucb"

SAMPLE = textwrap.dedent("""
    import hashlib, json, sys
    import numpy as np
    from privrl.audit import privacy as pa
    from privrl.audit import probe

    script = pa.script(4, 0, "A")
    out = probe.sample_releases("{agent}", pa.audit_params("{agent}"), pa.tiny_mdp().P, script, 64,
                                np.random.default_rng(5), 0.5, "reused-noise")
    drive, _ = probe.driver("{agent}", 0)
    print(json.dumps({{"sha": hashlib.sha256(out.tobytes()).hexdigest(), "hits": sum(drive.stats.cache_hits.values()),
                      "misses": sum(drive.stats.cache_misses.values())}}))
""")


def _sample_here() -> np.ndarray:
    return probe.sample_releases(AGENT, pa.audit_params(AGENT), pa.tiny_mdp().P, pa.script(4, 0, "A"), 64,
                                 np.random.default_rng(5), 0.5, "reused-noise")


def test_a_second_process_loads_the_probe_from_the_cache_and_samples_the_same_releases():
    import hashlib
    import json

    here = _sample_here()  # compiles the driver into this process's numba cache (or it was already)
    out = subprocess.run([sys.executable, "-c", SAMPLE.format(agent=AGENT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    other = json.loads(out.stdout.splitlines()[-1])
    assert (other["hits"], other["misses"]) == (1, 0), other  # loaded, not compiled
    assert other["sha"] == hashlib.sha256(here.tobytes()).hexdigest()


def test_the_probe_key_names_what_the_driver_is_made_of():
    """Presets that share their kernels share a key; another agent's kernels give another key."""
    keys = {a: probe.driver(a, len(probe.probe_of(a)[1].extra(pa.audit_params(a))))[1]
            for a in ("private-ucbvi-jdp", "private-ucbvi-ldp", "pucb")}
    assert keys["private-ucbvi-jdp"] == keys["private-ucbvi-ldp"] != keys["pucb"]
    assert all(len(k) == 24 and int(k, 16) >= 0 for k in keys.values())
