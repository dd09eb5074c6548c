"""The privatizer door: agents' imports, the kind registry (a toy kind added from outside),
domain checks of the counting releases, and guarantees with their neighbour relations."""
import ast
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import privrl.agents
from privrl.audit.agent_check import DOOR_MODULES
from privrl.mechanisms import accounting as acc
from privrl.mechanisms import audit, events, kinds
from privrl.mechanisms import privatizer as pz

ALLOWED = set(DOOR_MODULES)  # the door, as check_agent reads it


def _mechanism_imports(path: Path):
    """(module, name) pairs of every import from privrl.mechanisms in a source file."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("privrl.mechanisms"):
            sub = node.module[len("privrl.mechanisms"):].lstrip(".")
            for alias in node.names:
                yield (sub.split(".")[0] if sub else alias.name), node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("privrl.mechanisms."):
                    yield alias.name.split(".")[2], alias.name


def test_agents_import_only_the_door():
    agent_dir = Path(privrl.agents.__file__).parent
    bad = [(p.name, mod, name) for p in sorted(agent_dir.glob("*.py"))
           for name, mod in _mechanism_imports(p) if name not in ALLOWED]
    assert not bad, f"agents bypass the privatizer door: {bad}"


TOY = '''
import numpy as np
from numba import njit

from privrl.mechanisms.events import LaplaceEvent
from privrl.mechanisms.kinds import (
    F_SCALE, ROW_LAST, MechanismKind, check_counts, check_epsilon, commit_release, register_kind)


@njit(cache=True)
def toy_setup(istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
    check_epsilon(epsilon)
    fparams[F_SCALE] = sensitivity / epsilon
    return 2


@njit(cache=True)
def toy_release(fstate, istate, fparams, t, x, m, rng, out):
    check_counts(x)
    last = fstate[ROW_LAST]
    for c in range(x.shape[0]):  # Laplace as the difference of two exponentials
        last[c] = x[c] + fparams[F_SCALE] * (rng.standard_exponential() - rng.standard_exponential())
    commit_release(fstate, out)


KIND = register_kind(MechanismKind(
    name="toy-laplace", code=77, model="DP", module=__name__, setup="toy_setup", release="toy_release",
    event=lambda d: LaplaceEvent(d["scale"], d["sensitivity"]), reference="toy kind (test)"))
'''


@pytest.fixture
def toy_kind(tmp_path, monkeypatch):
    (tmp_path / "privrl_toy_kind.py").write_text(textwrap.dedent(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    import privrl_toy_kind  # noqa: F401  (registers the kind)
    yield "toy-laplace"
    kinds.unregister_kind("toy-laplace")
    sys.modules.pop("privrl_toy_kind", None)


@pytest.mark.slow  # > 5 s
def test_toy_kind_releases_is_accounted_and_audited(toy_kind):
    state = pz.make_privatizer(toy_kind, 4, 10, 2.0)
    assert pz.describe_privatizer(state)["kind"] == toy_kind
    out = pz.release_python(state, np.array([0.0, 1.0, 2.0, 3.0]), np.random.default_rng(0))
    assert out.shape == (4,) and np.all(np.isfinite(out))
    d = pz.door("none", toy_kind)  # compiled door for this kind only, numba njit
    st = d.new(np.int64(77), np.int64(3), np.int64(5), 1.0, 1.0, 0.0, np.int64(1))
    o = np.empty(3)
    d.release(np.int64(77), st, np.ones(3), np.random.default_rng(1), o)
    assert st[1][kinds.I_T] == 1
    with pytest.raises(ValueError):
        d.release(np.int64(77), st, -np.ones(3), np.random.default_rng(1), o)
    eps, delta = acc.event_epsilon(pz.privatizer_event(state))
    assert eps == pytest.approx(2.0) and delta == 0.0
    row = audit.audit_kind(toy_kind, np.random.default_rng(2), 100_000, 1.0)
    assert row["verdict"] == "pass" and set(audit.COLUMNS) <= set(row)


@pytest.mark.parametrize("kind,bad", [
    ("none", -1.0), ("central-tree", -1.0), ("local-laplace", -0.5), ("shuffle-bitsum", -1.0),
    ("shuffle-bitsum", 0.5), ("shuffle-rr", 0.5), ("shuffle-rr", -1.0), ("central-tree", np.nan),
])
def test_counting_releases_refuse_values_outside_their_domain(kind, bad):
    state = pz.make_privatizer(kind, 3, 4, 1.0, beta=0.1, bits_per_entry=2)
    x = np.array([1.0, bad, 0.0])
    with pytest.raises(ValueError):
        pz.privatizer_release(np.int64(pz.KIND_CODES[kind]), state, x, np.random.default_rng(0), np.empty(3))


def test_restricted_door_refuses_other_kinds():
    d = pz.door("none", "central-tree")
    state = pz.make_privatizer("local-laplace", 2, 4, 1.0)
    with pytest.raises(ValueError):
        d.release(np.int64(pz.LOCAL_LAPLACE), state, np.ones(2), np.random.default_rng(0), np.empty(2))


def test_registry_declares_builtin_kinds():
    for name in pz.BUILTIN_KINDS:
        k = kinds.KINDS[name]
        state = pz.make_privatizer(name, 2, 4, 1.0, beta=0.1)
        assert type(pz.privatizer_event(state)).__module__ == events.__name__
        from privrl.mechanisms import bounds
        assert all(hasattr(bounds, f) for f in k.bounds.values())


def test_guarantees_state_neighbour_relations():
    g = acc.pucb_guarantee(0.7, H=5, K=1000)
    assert g.neighbour == "add/remove" and g.epsilon == 0.7
    assert g.for_relation("replacement") == (pytest.approx(1.4), 0.0)
    ldp = acc.ldp_obi_guarantee(1.3, H=4)
    assert ldp.epsilon == 1.3 and ldp.neighbour == "replacement" and ldp.for_relation("add/remove") is None
    with pytest.raises(ValueError):
        acc.Guarantee("DP", 1.0, 0.0, "x", neighbour="swap")


def test_shuffle_amplification_never_worse_than_local():
    assert acc.shuffle_amplification(1.0, 10, 1e-6) == 1.0
    amp = acc.shuffle_amplification(1.0, 10**6, 1e-6)
    assert 0 < amp < 0.1
