"""A copy of the workflow (Snakefile, rules, scripts, schemas, profiles, base configs) for tests
that run Snakemake in a temporary folder, and the job table of its dry runs."""
import re
import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def workflow_copy(dest: Path) -> Path:
    """The Snakefile with its rules, scripts, schemas, profiles and base config, in ``dest``."""
    for name in ("workflow", "profiles", "config", "envs"):
        shutil.copytree(ROOT / name, dest / name)
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    return dest


def job_counts(output: str) -> dict[str, int]:
    """rule -> job count of a dry run's "Job stats" table ({} when nothing is to be done)."""
    m = re.search(r"^job\s+count\s*$(.*?)^total\s", output, re.M | re.S)
    table = m.group(1) if m else ""
    return {g.group(1): int(g.group(2)) for g in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def smoke_mechanisms() -> dict:
    """The smoke design's ``mechanisms`` block as a whole design's (its overlay nulls -- the checks
    it leaves out -- dropped, not run at their defaults)."""
    mech = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())["mechanisms"]
    mech["checks"] = {k: v for k, v in mech["checks"].items() if v is not None}
    return mech
