"""The package's layers import one way (io < rl < mechanisms < agents < run/experiments <
results < papers < validate/cost/cli/privacy_audit), with no import cycle and modules < 400 lines."""
import ast
import pathlib

import privrl

ROOT = pathlib.Path(privrl.__file__).parent
# first dotted component below privrl -> layer rank; a module may import its own rank or lower
RANK = {"claim_rules": 7, "claim_plan": 7, "__init__": 0, "io": 0, "joblog": 0, "digests": 0, "rl": 1, "mechanisms": 2, "agents": 3, "run": 4, "experiments": 4,
        "results": 5, "papers": 6, "validate": 7, "cost": 7, "cli": 8, "privacy_audit": 7, "privacy_probe": 7,
        "workflow_plan": 7, "agent_check": 7, "run_state": 4, "cli_args": 8, "config_files": 0, "store": 4, "output_dirs": 7,
        "memory_bounds": 7}
MAX_LINES = 400


def _modules():
    for f in sorted(ROOT.rglob("*.py")):
        rel = f.relative_to(ROOT).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        yield f, "privrl" + "".join(f".{p}" for p in parts), rel.parts[0]


def _imports(f, name):
    pkg = name if f.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(f.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("privrl"):
                yield mod, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("privrl"):
                    yield a.name, []


def test_every_top_level_module_has_a_layer():
    missing = {top for _, _, top in _modules()} - set(RANK)
    assert not missing, f"give these a layer in RANK: {sorted(missing)}"


def test_no_import_climbs_a_layer():
    bad = []
    for f, name, top in _modules():
        for mod, _ in _imports(f, name):
            target = mod.split(".")[1] if "." in mod else "__init__"
            if RANK.get(target, 0) > RANK[top]:
                bad.append(f"{f.relative_to(ROOT)} imports {mod}")
    assert not bad, "\n".join(bad)


def test_mechanisms_know_nothing_of_rl():
    bad = [f"{f.relative_to(ROOT)} imports {mod}" for f, name, top in _modules() if top == "mechanisms"
           for mod, _ in _imports(f, name) if mod.startswith(("privrl.rl", "privrl.agents"))]
    assert not bad, "\n".join(bad)


def test_no_import_cycle_between_subpackages():
    graph = {}
    for f, name, top in _modules():
        for mod, _ in _imports(f, name):
            target = mod.split(".")[1] if "." in mod else "__init__"
            if target != top and target != "__init__":
                graph.setdefault(top, set()).add(target)

    def reach(a, seen):
        for b in graph.get(a, ()):
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    cycles = [a for a in graph if a in reach(a, set())]
    assert not cycles, f"import cycle through {cycles}"


def test_modules_are_short():
    long = [f"{f.relative_to(ROOT)}: {n}" for f, _, _ in _modules()
            if (n := len(f.read_text().splitlines())) >= MAX_LINES]
    assert not long, long
