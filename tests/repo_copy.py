"""A copy of the repository's tracked files, for tests that add a module or a design to it."""
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_tracked(dest: Path) -> Path:
    """Copy every file git tracks (or, outside a checkout, every file but caches and results) to ``dest``."""
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    files = out.stdout.split() if out.returncode == 0 and out.stdout else [
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
        if p.is_file() and not {".git", ".venv", "results", ".snakemake"} & set(p.relative_to(ROOT).parts)]
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    return dest
