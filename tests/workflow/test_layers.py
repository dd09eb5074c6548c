"""The package's wings import one way (ground floor io/digests/numba_cache < rl < mechanisms < agents <
design/runs < audit/results < papers < plan < cli), every module sits in a wing, and no module
import cycle exists anywhere (function-level imports included)."""
import ast
import pathlib

import privrl

ROOT = pathlib.Path(privrl.__file__).parent
# first dotted component below privrl -> layer rank; a module may import its own rank or lower
RANK = {"__init__": 0, "io": 0, "digests": 0, "numba_cache": 0,  # the ground floor
        "rl": 1, "mechanisms": 2, "agents": 3, "design": 4, "runs": 4, "audit": 5, "results": 5,
        "papers": 6, "plan": 7, "cli": 8}
GROUND_FLOOR = {"__init__", "io", "digests", "numba_cache"}


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


def test_every_module_is_in_a_wing():
    loose = sorted(f.name for f in ROOT.glob("*.py") if f.stem not in GROUND_FLOOR)
    assert not loose, f"give these modules a wing (a sub-package): {loose}"


def _module_graph():
    names = {name for _, name, _ in _modules()}
    graph = {}
    for f, name, _ in _modules():
        out = graph.setdefault(name, set())
        for mod, imported in _imports(f, name):
            # "from pkg import module" imports the module; "from module import name" the module
            subs = [f"{mod}.{a}" for a in imported if f"{mod}.{a}" in names]
            out.update(subs or ([mod] if mod in names else []))
        out.discard(name)
    return graph


def _cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_import_cycle_anywhere():
    cycles = _cycles(_module_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
