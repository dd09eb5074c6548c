"""Code digests follow static imports: a new module reruns and recompiles nothing else."""
import shutil

from privrl import digests


def test_closure_follows_imports_and_registry_strings():
    names = {f.relative_to(digests.ROOT).as_posix() for f in digests.closure(["privrl.agents.pucb"])}
    assert {"agents/pucb.py", "rl/planning.py", "mechanisms/privatizer.py", "mechanisms/tree.py"} <= names
    assert "agents/ucbvi.py" not in names and "papers/registry.py" not in names


def test_new_module_changes_no_existing_digest(tmp_path, monkeypatch):
    src = tmp_path / "privrl"
    shutil.copytree(digests.ROOT, src, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(digests, "ROOT", src)
    digests.module_file.cache_clear()
    prefixes = ("agents/", "mechanisms/", "rl/")
    before = (digests.digest(["privrl.agents.pucb"]), digests.numba_cache_key(prefixes))
    (src / "agents" / "toy_agent.py").write_text("from privrl.rl import planning\\nfrom privrl.agents import ucbvi\\n")
    digests.module_file.cache_clear()
    assert (digests.digest(["privrl.agents.pucb"]), digests.numba_cache_key(prefixes)) == before
    (src / "rl" / "planning.py").write_text((src / "rl" / "planning.py").read_text() + "\\n# edit\\n")
    assert digests.digest(["privrl.agents.pucb"]) != before[0]
    assert digests.numba_cache_key(prefixes) != before[1]
    digests.module_file.cache_clear()
