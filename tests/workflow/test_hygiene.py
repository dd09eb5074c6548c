"""Repository hygiene over the tracked files: no absolute path of a machine, and every module,
function or file the code and docs name exists (names drift when modules are renamed)."""
from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT = (".py", ".md", ".smk", ".rst", ".yaml", ".yml", ".toml", ".cfg", ".sh", ".cff", ".txt", ".csv", "Snakefile")

# A path that names one machine: a user's or a workspace's home, or a temporary directory some
# run created (pytest's, mktemp's). A generic scratch default such as /tmp/privrl_slurm is not one.
# (Built from pieces so that this file does not match itself.)
_S = "/"
MACHINE_PATH = re.compile(rf"(?<![\w.~-]){_S}(?:work|root|home|Users|mnt|scratch){_S}"
                          rf"|{_S}tmp{_S}(?:pytest-of-|tmp[a-z0-9_]{{4,}}|bash_jobs)")


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [f for f in out.splitlines() if f.endswith(TEXT) and (ROOT / f).is_file()]


def test_machine_path_rule():
    for bad in ("/" + "work/main/src", "/" + "root/.cache", "/" + "home/me/x", "/" + "tmp/pytest-of-root/p0"):
        assert MACHINE_PATH.search(f"see {bad} here"), bad
    for fine in ("../shared/papers", "~/.cache/privrl", "/tmp/privrl_slurm", "src/privrl/work/x", "a/home/b"):
        assert not MACHINE_PATH.search(fine), fine


def test_no_absolute_machine_path_in_the_repository():
    hits = [f"{f}:{i}: {m.group(0)}" for f in _tracked()
            for i, line in enumerate((ROOT / f).read_text(errors="replace").splitlines(), 1)
            for m in MACHINE_PATH.finditer(line)]
    assert not hits, "absolute machine paths (use paths relative to the project root):\n" + "\n".join(hits)


# ---------------------------------------------------------------- references
DOTTED = re.compile(r"(?<![\w/.-])privrl(?:\.[A-Za-z_]\w*)+(?![\w-])")
REPO_PATH = re.compile(r"(?<![\w/.-])((?:src/privrl|workflow|bench|config|docs)/[\w./-]*\w)")
PY_FILE = re.compile(r"(?<![\w/.-])([\w/]*\w\.py)\b")
FILE_EXTENSIONS = {"yaml", "yml", "sh", "py", "md", "csv", "txt", "toml"}  # privrl.yaml is a file, not a module


def _resolves(name: str) -> bool:
    """A dotted ``privrl...`` name is a module, or an attribute path inside one."""
    parts = name.split(".")
    if parts[-1] in FILE_EXTENSIONS:
        return True
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def _references(files: list[str]):
    """(file, line, kind, name) of every module / path / .py file a tracked file names (tests
    name synthetic files of their own and are left out)."""
    for f in files:
        if f.startswith("tests/"):
            continue
        for i, line in enumerate((ROOT / f).read_text(errors="replace").splitlines(), 1):
            yield from ((f, i, "module", m.group(0)) for m in DOTTED.finditer(line))
            yield from ((f, i, "path", m.group(1)) for m in REPO_PATH.finditer(line)
                        if not set("{}<>*") & set(m.group(1)))
            yield from ((f, i, "file", m.group(1)) for m in PY_FILE.finditer(line))


def test_every_named_module_function_and_file_exists():
    files = _tracked()
    names = {Path(f).name for f in files}
    paths = set(files) | {str(Path(f).parent) for f in files}
    bad = []
    for f, i, kind, name in _references(files):
        ok = {"module": lambda n: _resolves(n),
              "path": lambda n: n.rstrip("/.") in paths or (ROOT / n).exists(),
              "file": lambda n: (n in names) if "/" not in n else any(p == n or p.endswith("/" + n) for p in files),
              }[kind](name)
        if not ok:
            bad.append(f"{f}:{i}: {kind} {name}")
    assert not bad, "names of things that do not exist (renamed?):\n" + "\n".join(bad)
