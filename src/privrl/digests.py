"""Code digests: what a job's output depends on, by static imports.

A job reruns when the code it runs changes, and only then. ``closure(modules)`` follows the
``privrl`` imports written in the source (``import``/``from ... import``, relative or absolute,
at any depth of a function), transitively; ``digest(modules)`` hashes those files. So adding a
new agent module changes no existing agent's digest (nothing imports it), while an edit to a
mechanism reruns every agent that reaches it. Module names written as strings (``"privrl.mechanisms.tree"`` in a registry's list that an
``importlib`` loop loads) are followed too.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable

ROOT = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def module_file(name: str) -> Path | None:
    """The source file of a dotted ``privrl...`` module (package -> its __init__.py), or None."""
    rel = Path(*name.split(".")[1:]) if name != "privrl" else Path()
    for cand in (ROOT / rel / "__init__.py", (ROOT / rel).with_suffix(".py")):
        if cand.is_file():
            return cand
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["privrl", *parts])


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(privrl[\w.]*)", re.M)
_STRING = re.compile(r"[\"'](privrl(?:\.[A-Za-z_]\w*)+)[\"']")


@lru_cache(maxsize=None)
def _direct_imports(path: Path, stamp: int) -> tuple[str, ...]:
    """privrl modules a file imports (regex over the source: fast enough for every job start)."""
    name = _module_name(path) if path.is_relative_to(ROOT) else ""
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    text = path.read_text()
    out = []
    for mod, names in _FROM.findall(text):
        if mod.startswith("."):
            level = len(mod) - len(mod.lstrip("."))
            base = pkg.split(".")[: len(pkg.split(".")) - level + 1]
            mod = ".".join(base + ([mod.lstrip(".")] if mod.lstrip(".") else []))
        if mod == "privrl" or mod.startswith("privrl."):
            out.append(mod)
            for n in names.strip("()").replace("\n", ",").split(","):  # "from pkg import module"
                n = n.split("#")[0].split(" as ")[0].strip()
                if n.isidentifier():
                    out.append(f"{mod}.{n}")
    out += _IMPORT.findall(text)
    out += _STRING.findall(text)  # a registry's list of module names, loaded by importlib
    return tuple(out)


def closure(sources: Iterable[str | Path]) -> list[Path]:
    """Sorted files reached from ``sources`` (dotted privrl modules, or paths of scripts)."""
    todo = [Path(s) if isinstance(s, Path) or str(s).endswith(".py") else module_file(str(s)) for s in sources]
    seen: set[Path] = set()
    while todo:
        f = todo.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        todo += _reached(f, f.stat().st_mtime_ns)
    return sorted(seen)


@lru_cache(maxsize=None)
def _reached(path: Path, stamp: int) -> tuple[Path, ...]:
    """Files one file's imports execute (the packages on the way included)."""
    out = set()
    for mod in _direct_imports(path, stamp):
        parts = mod.split(".")
        for i in range(1, len(parts) + 1):
            f = module_file(".".join(parts[:i]))
            if f is not None:
                out.add(f)
    return tuple(sorted(out))


def digest(sources: Iterable[str | Path]) -> str:
    """sha256 (16 hex) of every file in the closure of ``sources`` (paths relative to the package)."""
    h = hashlib.sha256()
    for f in closure(sources):
        h.update((f.relative_to(ROOT).as_posix() if f.is_relative_to(ROOT) else f.name).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


RUN_MODULES = ("privrl.runs.run", "privrl.rl.envs", "privrl.rl.mdp", "privrl.rl.seeding", "privrl.io")


def numba_cache_key(prefixes: tuple[str, ...]) -> str:
    """Key of the numba cache directory: the njit modules (files under ``prefixes``) that another
    module imports. numba invalidates a cached function when its own file changes, not when a
    callee in another file does, so every such callee file is in the key; a module nobody
    imports (a new agent) is not, and adding one recompiles nothing else."""
    files = [f for f in sorted(ROOT.rglob("*.py")) if f.relative_to(ROOT).as_posix().startswith(prefixes)]
    callees: set[Path] = set()
    for f in files:
        callees.update(g for g in closure([f]) if g != f and g in files)
    h = hashlib.sha256()
    for f in sorted(callees):
        h.update(f.relative_to(ROOT).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]
