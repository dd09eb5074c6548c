"""Bad input refused before any job, one line naming the key or file:line, one test per class:
unsafe or foreign output directories, YAML size and alias bombs, merge keys (accepted), syntax
errors, overlay cycles, chains and missing bases, unknown label fields and theorem checks, sizes
that cannot fit in memory; and a late job failure prints its reason on the console."""
from __future__ import annotations

import copy
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.workflow_copy import workflow_copy as _workflow_copy

from privrl.design import config_files
from privrl.design import experiments
from privrl.plan import memory_bounds
from privrl.runs import output_dirs
from privrl.plan import validate

ROOT = Path(__file__).resolve().parents[2]
SMOKE = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)


def _one_line(errs: list[str], needle: str) -> str:
    assert errs and all("\n" not in e for e in errs), errs
    hits = [e for e in errs if needle in e]
    assert hits, errs
    return hits[0]


# --- output directories -------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["", "  ", "/", "..", ".", "../.."])
def test_output_dir_at_or_above_the_root_refused(tmp_path, value):
    (tmp_path / "work").mkdir()
    for key in ("results_dir", "store_dir", "figures_dir"):
        _one_line(output_dirs.output_dir_errors({key: value}, tmp_path / "work"), f"{key}: ")


@pytest.mark.parametrize("layout, value, needle", [
    ({"a": "b", "b": "a"}, "a", "symlink loop"),                 # a loop of two links
    ({"a": "b", "b": "a"}, "a/sub", "symlink loop"),             # below a loop
    ({"r": "r/x"}, "r", "symlink loop"),                         # a link into itself
    ({"r": ".."}, "r", "one above it"),                          # a link to the parent of the working directory
    ({"r": "."}, "r", "working directory"),                      # a link to the working directory
])
def test_output_dir_symlink_loops_refused_in_one_line(tmp_path, layout, value, needle):
    work = tmp_path / "work"
    work.mkdir()
    for name, target in layout.items():
        (work / name).symlink_to(target)
    for key in ("results_dir", "store_dir", "figures_dir"):
        assert needle in _one_line(output_dirs.output_dir_errors({key: value}, work), f"{key}: ")


def test_output_dir_holding_a_link_back_up_is_walked_once(tmp_path):
    """A results_dir whose subdirectory links back to it (or above) is not privrl's; the walk stops."""
    (tmp_path / "res" / "smoke").mkdir(parents=True)
    (tmp_path / "res" / "smoke" / output_dirs.MARKER).write_text("")
    assert output_dirs.output_dir_errors({"results_dir": "res"}, tmp_path) == []
    for i in range(8):  # links back up: the walk stops at a directory seen again (not ~40 links deep at ELOOP)
        (tmp_path / "res" / f"up{i}").symlink_to("." if i % 2 else "..")
    line = _one_line(output_dirs.output_dir_errors({"results_dir": "res", "store_dir": "st"}, tmp_path), "results_dir")
    assert "did not create" in line


def test_foreign_non_empty_results_dir_refused_and_its_files_never_deleted(tmp_path):
    from privrl import io

    foreign = tmp_path / "theirs"
    foreign.mkdir()
    lookalike = foreign / f".a.parquet.{io._host()}.999999999.0123abcd{io.TEMP_MARK}.parquet"
    lookalike.write_text("not privrl's")
    for key in ("results_dir", "store_dir"):
        line = _one_line(output_dirs.output_dir_errors({key: "theirs"}, tmp_path), key)
        assert "did not create" in line and output_dirs.MARKER in line
    assert io.remove_stale_temps(foreign) == [] and lookalike.exists()
    # new, empty or marked directories are privrl's
    (tmp_path / "empty").mkdir()
    assert output_dirs.output_dir_errors({"results_dir": "new", "store_dir": "empty"}, tmp_path) == []
    cfg = {"results_dir": str(tmp_path / "new"), "store_dir": str(tmp_path / "empty")}
    assert len(output_dirs.claim(cfg)) == 2
    (tmp_path / "new" / "x.txt").write_text("privrl output")
    assert output_dirs.output_dir_errors(cfg, tmp_path) == []
    around = {"results_dir": str(tmp_path)}  # holds only privrl's directories (and the empty 'work')
    shutil.rmtree(foreign)
    assert output_dirs.output_dir_errors(around, ROOT) == []
    (tmp_path / "stray.txt").write_text("not privrl's")
    assert output_dirs.output_dir_errors(around, ROOT) != []


# --- YAML files ---------------------------------------------------------------------------------

def _bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_refused_without_expanding(tmp_path):
    p = tmp_path / "bomb.yaml"
    p.write_text(_bomb())  # < 2 KB; 9^9 = 387 million strings expanded
    assert p.stat().st_size < 2048
    t0 = time.perf_counter()
    line = _one_line(validate.yaml_errors(p), str(p))
    assert "alias" in line and time.perf_counter() - t0 < 2.0


def test_oversized_config_file_refused(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("x: " + "1" * (config_files.MAX_CONFIG_BYTES + 1) + "\n")
    assert "bytes" in _one_line(validate.yaml_errors(p), str(p))


def test_merge_keys_accepted(tmp_path):
    p = tmp_path / "design.yaml"
    p.write_text("experiments:\n  one: &one {episodes: 100, seeds: 2, envs: {r: {name: riverswim}}, cells: [{agent: ucbvi}]}\n"
                 "  two:\n    <<: *one\n    seeds: 3\n")
    assert validate.yaml_errors(p) == []
    cfg = config_files.load_yaml(p)
    assert cfg["experiments"]["two"] == {**cfg["experiments"]["one"], "seeds": 3}
    assert validate.config_errors(cfg) == []
    p.write_text("a: &a {x: 1}\nb:\n  <<: *a\n  y: 2\n  y: 3\n")  # an explicit duplicate is still one
    assert _one_line(validate.yaml_errors(p), f"{p}:5:").endswith("duplicate key 'y' (first at line 4)")


def test_syntax_error_names_file_and_line(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("results_dir: res\nexperiments: [1, 2\nseeds: 3\n")
    assert _one_line(validate.yaml_errors(p), str(p)).startswith(f"{p}:3: ")


# --- overlays -----------------------------------------------------------------------------------

def test_overlay_cycle_chain_and_missing_base(tmp_path):
    (tmp_path / "a.yaml").write_text("overlay_of: b.yaml\n")
    (tmp_path / "b.yaml").write_text("overlay_of: a.yaml\n")
    (tmp_path / "self.yaml").write_text("overlay_of: self.yaml\n")
    (tmp_path / "c.yaml").write_text("overlay_of: a.yaml\n")
    (tmp_path / "d.yaml").write_text("overlay_of: nowhere.yaml\n")

    def refusal(name):
        with pytest.raises(config_files.ConfigFileError) as e:
            config_files.resolve_overlay(config_files.load_yaml(tmp_path / name), tmp_path, tmp_path / name)
        assert "\n" not in str(e.value)
        return str(e.value)

    assert "cycle" in refusal("a.yaml") and "cycle" in refusal("self.yaml")
    assert "chains unsupported" in refusal("c.yaml")
    assert "nowhere.yaml" in refusal("d.yaml") and "no such file" in refusal("d.yaml")


# --- meaning ------------------------------------------------------------------------------------

def test_unknown_label_field_refused_naming_the_cells():
    cfg = copy.deepcopy(SMOKE)
    cfg["experiments"]["ucbvi_baseline"]["cells"][0]["label"] = "UCBVI {bogus}"
    assert "bogus" in _one_line(validate.config_errors(cfg), "experiments.ucbvi_baseline.cells")


def test_unknown_theorem_check_refused():
    cfg = copy.deepcopy(SMOKE)
    cfg["mechanisms"]["checks"]["no_such_check"] = {"n": 1}
    assert "no_such_check" in _one_line(validate.config_errors(cfg), "mechanisms.checks")


def test_sizes_that_cannot_fit_in_memory_refused_with_the_need():
    cfg = copy.deepcopy(SMOKE)
    cfg["bootstrap"]["n"] = 10**9
    line = _one_line(validate.config_errors(cfg), "bootstrap.n")
    need = memory_bounds.bootstrap_bytes(10**9, 2, 100) / 1e9
    assert f"{need:.3g} GB" in line
    cfg = copy.deepcopy(SMOKE)
    cfg["experiments"]["ucbvi_baseline"]["envs"]["bandit"]["params"]["S"] = 10**5
    t0 = time.perf_counter()  # refused before the environment is built
    line = _one_line(validate.config_errors(cfg), "experiments.ucbvi_baseline.envs.bandit.params")
    H = cfg["experiments"]["ucbvi_baseline"]["envs"]["bandit"]["params"].get("H", 20)
    assert f"{memory_bounds.TRANSITION_ARRAYS * H * 10**10 * 2 * 8 / 1e9:.3g} GB" in line
    assert time.perf_counter() - t0 < 5.0


def test_bounds_follow_the_data_structures():
    assert memory_bounds.run_bytes("garnet", {"S": 10, "A": 3, "H": 10}) == 4 * 10 * 10 * 10 * 3 * 8
    assert memory_bounds.run_bytes("hard_instance", {"n": 4, "m": 2, "H": 5}) == 4 * 5 * 6 * 6 * 3 * 8
    assert memory_bounds.bootstrap_bytes(1000, 10, 120) == 1000 * 10 * 121 * 8 + 1000 * 10 * 8
    assert memory_bounds.memory_limit_bytes() > 0
    assert validate.config_errors(SMOKE) == []


def test_sdp_pe_policy_table_is_in_the_bound():
    """SDP-PE's A^(S H) policies (actions, active flag, occupancy, value) are what init_state allocates;
    a cell whose table cannot fit, or that the agent would refuse, is refused before any job."""
    import numpy as np

    from privrl.agents import sdp_pe

    H, S, A = 2, 3, 2
    st = sdp_pe.init_state((np.zeros((H, S, A, S)),), None, 100)
    assert sum(a.nbytes for a in st[:4]) == memory_bounds.policy_table_bytes(H, S, A, {}) == 2**6 * (6 + 1 + 8 * 9)
    assert set(sdp_pe.PRESETS) <= set(memory_bounds.AGENT_TABLES)
    big = {"S": 4, "A": 2, "H": 6, "branching": 2}            # 2^24 policies
    refused = memory_bounds.cell_memory_error("cells[0]", "sdp-pe", {}, "garnet", big)
    assert refused.startswith("cells[0]: sdp-pe: ") and "max_policies" in refused and "\n" not in refused
    line = memory_bounds.cell_memory_error("cells[0]", "pe", {"max_policies": 2**30}, "garnet", big, limit=10**9)
    assert f"{(2**24 * (24 + 1 + 8 * 31) + memory_bounds.run_bytes('garnet', big)) / 1e9:.3g} GB" in line
    assert memory_bounds.cell_memory_error("cells[0]", "ucbvi", {}, "garnet", big, limit=1) is None  # no table
    cfg = copy.deepcopy(SMOKE)
    cfg["experiments"]["ucbvi_baseline"]["cells"] = [{"agent": "sdp-pe"}]
    cfg["experiments"]["ucbvi_baseline"]["envs"] = {"g": {"name": "garnet", "params": big}}
    _one_line(validate.config_errors(cfg), "experiments.ucbvi_baseline.cells[0] on envs.g: sdp-pe")


# --- a late job failure prints its reason -------------------------------------------------------

def test_failed_job_prints_its_one_line_reason_on_the_console(tmp_path):
    code = ("from types import SimpleNamespace\nfrom privrl.runs.joblog import logged\n"
            f"sm = SimpleNamespace(log=[{str(tmp_path / 'job.log')!r}], rule='run_cell')\n"
            "with logged(sm):\n    print('to the log')\n"
            "    raise ValueError('store/abc.parquet: content sha256 1 != 2\\nsecond line')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("privrl: rule")]
    assert lines == [f"privrl: rule run_cell failed: ValueError: store/abc.parquet: content sha256 1 != 2 "
                     f"(traceback in {tmp_path / 'job.log'})"]
    assert "Traceback" in (tmp_path / "job.log").read_text()


# --- end to end: snakemake -n refuses before any job ---------------------------------------------

@pytest.fixture(scope="module")
def wd(tmp_path_factory):
    return _workflow_copy(tmp_path_factory.mktemp("refusals"))


SMOKE_TEXT = (ROOT / "config/smoke.yaml").read_text()
E2E = [
    ("empty results_dir", SMOKE_TEXT.replace("results_dir: results/smoke", "results_dir: ''"), "results_dir: empty"),
    ("results_dir at root", SMOKE_TEXT.replace("results_dir: results/smoke", "results_dir: /"), "file-system root"),
    ("foreign results_dir", SMOKE_TEXT.replace("results_dir: results/smoke", "results_dir: theirs"), "did not create"),
    ("overlay chain", "overlay_of: config/smoke.yaml\n", "chains unsupported"),
    ("missing overlay", "overlay_of: config/nothere.yaml\n", "no such file"),
    ("label field", SMOKE_TEXT + "  extra: {episodes: 50, seeds: 1, envs: {r: {name: riverswim}}, "
                                 "cells: [{agent: ucbvi, label: 'U {nope}'}]}\n", "experiments.extra.cells: label"),
    ("alias bomb", SMOKE_TEXT + "\n" + _bomb(), "alias"),
]


@pytest.mark.parametrize("name,text,needle", E2E, ids=[e[0] for e in E2E])
def test_snakemake_refuses_before_any_job(wd, name, text, needle):
    (wd / "theirs").mkdir(exist_ok=True)
    (wd / "theirs" / "notes.txt").write_text("someone else's")
    cfg = wd / "bad.yaml"
    cfg.write_text(text)
    before = sorted(p.relative_to(wd) for p in wd.rglob("*") if ".snakemake" not in p.parts)
    out = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(wd / "Snakefile"), "-d", str(wd), "-n",
                          "--cores", "1", "--configfile", str(cfg)], capture_output=True, text=True, timeout=300)
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "privrl: invalid config (nothing was run):" in text, text[-2000:]
    assert "Traceback" not in text
    problems = text.split("privrl: invalid config (nothing was run):\n", 1)[1].splitlines()
    assert any(needle in ln for ln in problems if ln.startswith("  ")), text[-2000:]
    after = sorted(p.relative_to(wd) for p in wd.rglob("*") if ".snakemake" not in p.parts)
    assert after == before  # nothing written
