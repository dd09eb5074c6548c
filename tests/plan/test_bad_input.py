"""A researcher's own experiment: every class of bad input is refused before any job with one line
naming the key (or file:line) and the true cause, by the one door the Snakefile, ``privrl
estimate`` and ``privrl run --experiment`` share (privrl.plan.validate.checked_design). One test
per class; each asserts the line, and that no job ran and nothing was written (``snakemake -n`` in
a copy of the workflow, its file tree compared before and after).

Not reachable from here: a ``--configfile`` that is not UTF-8 is read by Snakemake itself before
the Snakefile runs (its own UnicodeDecodeError traceback); the same file as an overlay's base, or
given to ``privrl estimate``, is refused in one line (test 3).
"""
from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.workflow_copy import workflow_copy

from privrl.cli.main import main as privrl_cli
from privrl.design import config_files
from privrl.plan import validate
from privrl.plan.workflow import WorkflowPlan
from privrl.results.claims import CHECK_TYPES
from privrl.runs import output_dirs

ROOT = Path(__file__).resolve().parents[2]
SMOKE_TEXT = (ROOT / "config/smoke.yaml").read_text()  # an overlay of config/config.yaml; ends in its experiments:
BANNER = validate.BANNER


def _with_experiment(spec: str, text: str = SMOKE_TEXT) -> str:
    """The smoke overlay with one more experiment (a YAML flow mapping ``name: {...}``)."""
    assert text.rstrip().splitlines()[-1].startswith("  ")  # the last block is experiments:
    return text + f"  {spec}\n"


def _mine(extra: str = "", env: str = "r: {name: riverswim}", cells: str = "[{agent: ucbvi}]") -> str:
    return _with_experiment(f"mine: {{episodes: 100, seeds: 1, envs: {{{env}}}, cells: {cells}{extra}}}")


# --- the door, called as the Snakefile calls it -------------------------------------------------

def _door(tmp_path: Path, content: str | bytes, name: str = "mine.yaml") -> list[str]:
    """Problems the door finds in a config file (``[]``: accepted), output dirs resolved in
    ``tmp_path``; each is one line."""
    f = tmp_path / name
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    try:
        config = config_files.load_yaml(f)
        validate.checked_design(config, ROOT, [f], cwd=tmp_path)
    except config_files.ConfigFileError as e:
        return [str(e)]
    except validate.InvalidDesign as e:
        assert all("\n" not in p for p in e.problems), e.problems
        return e.problems
    return []


def _only(problems: list[str]) -> str:
    assert len(problems) == 1, problems
    return problems[0]


# --- end to end: snakemake -n in a copy of the workflow ------------------------------------------

@pytest.fixture(scope="module")
def wd(tmp_path_factory):
    return workflow_copy(tmp_path_factory.mktemp("bad_input"))


def _tree(wd: Path) -> list[Path]:
    return sorted(p.relative_to(wd) for p in wd.rglob("*") if ".snakemake" not in p.parts)


def _snakemake(wd: Path, content: str | bytes, env: dict | None = None) -> tuple[subprocess.CompletedProcess, str]:
    cfg = wd / "mine.yaml"
    cfg.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = _tree(wd)
    out = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(wd / "Snakefile"), "-d", str(wd), "-n",
                          "--cores", "1", "--configfile", str(cfg)], capture_output=True, text=True, timeout=300,
                         env=env)
    assert _tree(wd) == before  # nothing written, whatever the verdict
    return out, out.stdout + out.stderr


def _refused(wd: Path, content: str | bytes, needle: str, env: dict | None = None) -> str:
    """The one problem line of a design snakemake refuses before any job (no traceback, nothing written)."""
    out, text = _snakemake(wd, content, env)
    assert out.returncode != 0 and BANNER in text, text[-3000:]
    assert "Traceback" not in text and "Exception" not in text, text[-3000:]
    problems = [ln[2:] for ln in text.split(BANNER + "\n", 1)[1].splitlines() if ln.startswith("  ")]
    hits = [p for p in problems if needle in p]
    assert len(hits) == 1, problems
    return hits[0]


def _planned(wd: Path, content: str | bytes, env: dict | None = None) -> str:
    out, text = _snakemake(wd, content, env)
    assert out.returncode == 0 and "This was a dry-run" in text, text[-3000:]
    return out.stdout


# --- 1. names that are path components ------------------------------------------------------------

def test_experiment_and_env_names_must_be_single_safe_path_components(tmp_path, wd):
    """``..`` was accepted and its outputs planned in results_dir's parent (results/smoke/../mdp/r.npz)."""
    line = _refused(wd, _with_experiment('"..": {episodes: 100, seeds: 1, envs: {r: {name: riverswim}}, '
                                         'cells: [{agent: ucbvi}]}'), "experiments...")
    assert line == ("experiments...: experiment name '..' is a path step (the folder above), not a name: its "
                    "outputs would be planned outside results_dir and figures_dir")
    cases = {  # experiment name -> what its one line says
        ".": "'.' is a path step (the folder itself), not a name: its outputs would be mixed into results_dir",
        "a/b": "'a/b' contains a path separator",
        "../../etc": "'../../etc' contains a path separator",
        ".hidden": "'.hidden' starts with '.': a hidden folder",
        "-rf": "'-rf' starts with '-'",
        "sp ace": "'sp ace': names may use only letters, digits, _ . -",
        "x" * 256: "is 256 bytes long, more than 255: a folder name",
        "": "is empty",
    }
    for name, why in cases.items():
        spec = f'"{name}": {{episodes: 100, seeds: 1, envs: {{r: {{name: riverswim}}}}, cells: [{{agent: ucbvi}}]}}'
        assert why in _only(_door(tmp_path, _with_experiment(spec))), name
    assert "experiments.7: experiment name 7 is an integer, not a name" == _only(_door(
        tmp_path, _with_experiment("7: {episodes: 100, seeds: 1, envs: {r: {name: riverswim}}, cells: [{agent: ucbvi}]}")))
    # env keys are path components too: results_dir/mine/runs/<env>/<cell>.parquet
    assert _only(_door(tmp_path, _mine(env='"..": {name: riverswim}'))) == (
        "experiments.mine.envs...: env key '..' is a path step (the folder above), not a name: its outputs would "
        "be planned outside its experiment's folders")
    assert _door(tmp_path, _mine(env="river.swim-2_b: {name: riverswim}")) == []  # dots inside a name are fine


# --- 2. ~ and environment variables ---------------------------------------------------------------

def test_home_and_environment_variables_are_expanded_in_every_path(tmp_path, wd, monkeypatch):
    """``results_dir: ~/x`` and ``$HOME/x`` were taken literally (a folder named ``~`` in the project)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PRIVRL_TEST_OUT", str(home / "out"))
    text = SMOKE_TEXT.replace("results_dir: results/smoke", "results_dir: ~/x\nstore_dir: $HOME/store")
    text = text.replace("figures_dir: results/smoke/figures", "figures_dir: ${PRIVRL_TEST_OUT}/figures")
    f = tmp_path / "mine.yaml"
    f.write_text(text)
    design = validate.checked_design(config_files.load_yaml(f), ROOT, [f], cwd=tmp_path)
    assert (design["results_dir"], design["store_dir"], design["figures_dir"]) == (
        str(home / "x"), str(home / "store"), str(home / "out/figures"))
    # the plan writes there, and no folder named ~ or $HOME appears in the working directory
    plan = _planned(wd, text, env={**os.environ, "HOME": str(home), "PRIVRL_TEST_OUT": str(home / "out")})
    assert f"{home}/x/ucbvi_baseline/mdp/bandit.npz" in plan and f"{home}/store/" in plan
    assert f"{home}/out/figures/CLAIMS.md" in plan
    assert "~/x" not in plan and "$HOME" not in plan and not (wd / "~").exists()
    # an overlay's base: the same expansion
    shutil.copy(ROOT / "config/config.yaml", home / "base.yaml")
    for base in ("~/base.yaml", "$HOME/base.yaml", "${HOME}/base.yaml"):
        assert _door(tmp_path, f"overlay_of: {base}\nresults_dir: res\n") == [], base
    # what cannot be expanded is refused, naming the key and the variable
    monkeypatch.delenv("PRIVRL_NOT_SET", raising=False)
    line = _refused(wd, SMOKE_TEXT.replace("results_dir: results/smoke", "results_dir: $PRIVRL_NOT_SET/x"),
                    "results_dir")
    assert line == "results_dir: '$PRIVRL_NOT_SET/x': environment variable PRIVRL_NOT_SET is not set"
    assert _only(_door(tmp_path, "overlay_of: $PRIVRL_NOT_SET/config.yaml\n")) == (
        f"{tmp_path / 'mine.yaml'}: overlay_of: '$PRIVRL_NOT_SET/config.yaml': environment variable PRIVRL_NOT_SET "
        "is not set")
    assert "no such user" in _only(_door(tmp_path, SMOKE_TEXT.replace("results_dir: results/smoke",
                                                                      "results_dir: ~nosuchuser_privrl/x")))
    assert "home directory" in _only(_door(tmp_path, SMOKE_TEXT.replace("results_dir: results/smoke",
                                                                        "results_dir: '~'")))


# --- 3. shapes and encodings ending in tracebacks ------------------------------------------------------

def test_experiments_list_and_non_utf8_config_refused_in_one_line(tmp_path, wd, capsys):
    """``experiments:`` as a list (in an overlay: AttributeError) and a UTF-16 file (UnicodeDecodeError)."""
    line = _refused(wd, "overlay_of: config/config.yaml\nexperiments:\n  - mine\n", "experiments")
    assert line == (f"{wd / 'mine.yaml'}:2: experiments: a list, not a mapping of experiment names to experiments "
                    "(name: {envs: ..., cells: ..., episodes: ..., seeds: ...})")
    assert _only(_door(tmp_path, "experiments:\n  - a\n  - b\n")).startswith(f"{tmp_path / 'mine.yaml'}:1: experiments: a list,")
    assert _only(_door(tmp_path, "overlay_of: config/config.yaml\nexperiments:\n  ucbvi_baseline: [1]\n")) == (
        f"{tmp_path / 'mine.yaml'}:3: experiments.ucbvi_baseline: a list, not an experiment (a mapping: envs, cells, "
        "episodes, seeds; null removes it)")
    assert "a string, not a mapping of config keys" in _only(_door(tmp_path, "just text\n"))
    # UTF-16: as an overlay's base through snakemake, and as privrl estimate's --configfile
    (wd / "config/base16.yaml").write_bytes((ROOT / "config/config.yaml").read_text().encode("utf-16"))
    line = _refused(wd, "overlay_of: config/base16.yaml\n", "base16.yaml")
    assert line == (f"{wd / 'config/base16.yaml'}: not UTF-8 text: it is UTF-16 (little-endian) (it starts with "
                    "that byte-order mark); save it as UTF-8")
    (tmp_path / "u16.yaml").write_bytes(SMOKE_TEXT.encode("utf-16"))
    before = sorted(tmp_path.rglob("*"))
    assert privrl_cli(["estimate", "--configfile", str(tmp_path / "u16.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"privrl estimate: error: --configfile: {tmp_path / 'u16.yaml'}: not UTF-8 text: it is UTF-16 "
                   "(little-endian) (it starts with that byte-order mark); save it as UTF-8")
    assert sorted(tmp_path.rglob("*")) == before
    latin1 = SMOKE_TEXT.replace("# The default design", "# The d\u00e9fault design").encode("latin-1")
    assert _only(_door(tmp_path, latin1)).endswith(
        "not UTF-8 text: byte 0xe9 at line 1, column 8 (Latin-1, Windows-1252 or another 8-bit encoding?); "
        "save it as UTF-8")
    assert "NUL bytes from line 1" in _only(_door(tmp_path, SMOKE_TEXT.encode("utf-16-le")))


# --- 4. claim checks: the fields each type reads, from the scorer's table ----------------------------

def test_claim_check_fields_required_by_type_from_one_table(tmp_path, wd):
    """A rate_upper without claimed, an exponent_below without threshold passed every check and
    failed in the claims job (KeyError)."""
    def claim(check: str) -> str:
        return _mine(f", claims: [{{id: mine_c, statement: s, check: {check}}}]")

    line = _refused(wd, claim("{type: rate_upper, env: r, select: {agent: ucbvi}}"), "claims[0]")
    assert line == ("experiments.mine.claims[0].check.claimed: missing; a check of type rate_upper needs it "
                    "(the paper's K-exponent, compared with the log allowance)")
    assert _only(_door(tmp_path, claim("{type: exponent_below, env: r, select: {agent: ucbvi}}"))) == (
        "experiments.mine.claims[0].check.threshold: missing; a check of type exponent_below needs it "
        "(the K-exponent the fitted exponent is compared with)")
    # every type: its line field required, the other line fields refused as unread (the table decides)
    for kind, t in CHECK_TYPES.items():
        lines = {f: 0.5 for f in ("threshold", "claimed")}
        ok = {f: v for f, v in lines.items() if f in t.required}
        body = ", ".join([f"type: {kind}", "env: r", "select: {agent: ucbvi}"] + [f"{f}: {v}" for f, v in ok.items()])
        assert _door(tmp_path, claim("{" + body + "}")) == [], kind
        for f in lines.keys() - ok.keys():
            assert "does not read it" in _only(_door(tmp_path, claim("{" + body + f", {f}: 0.5}}"))), (kind, f)
    assert "names no cell" in _only(_door(tmp_path, claim("{type: exploring, env: r}")))
    assert _only(_door(tmp_path, claim("{type: exploring, env: r, cell: ucbvi__x}"))) == (
        "experiments.mine.claims[0].check.cell: 'ucbvi__x' is not a cell of env 'r'; did you mean 'ucbvi'?")
    assert _door(tmp_path, claim("{type: exploring, env: r, cell: ucbvi}")) == []
    # the schema's list of types is the table's
    schema = yaml.safe_load((ROOT / validate.SCHEMA).read_text())
    check = schema["$defs"]["experiment"]["properties"]["claims"]["items"]["properties"]["check"]
    assert set(check["properties"]["type"]["enum"]) == set(CHECK_TYPES)


# --- 5. what a path is -------------------------------------------------------------------------------

def test_overlay_base_and_output_dirs_say_what_the_path_is(tmp_path, wd):
    """overlay_of at a directory or a device said "no such file"; a results_dir that is a regular file
    got the advice to touch a marker inside it."""
    (wd / "adir").mkdir(exist_ok=True)
    assert _refused(wd, "overlay_of: adir\n", "overlay_of") == (
        f"{wd / 'mine.yaml'}: overlay_of: 'adir': a directory, not a config file")
    assert _only(_door(tmp_path, "overlay_of: /dev/null\n")).endswith(
        "overlay_of: '/dev/null': a character device, not a config file")
    assert _only(_door(tmp_path, "overlay_of: /dev/zero\n")).endswith(  # never read: it has no end
        "overlay_of: '/dev/zero': a character device, not a config file")
    assert _only(_door(tmp_path, "overlay_of: config/nothere.yaml\n")).endswith(
        f"overlay_of: 'config/nothere.yaml': no such file (relative to {ROOT})")
    (wd / "notes.txt").write_text("a researcher's notes\n")
    line = _refused(wd, SMOKE_TEXT.replace("results_dir: results/smoke", "results_dir: notes.txt"), "results_dir")
    assert line == "results_dir: 'notes.txt' is a regular file, not a directory"
    assert "touch" not in line
    (tmp_path / "notes.txt").write_text("")
    for key in ("results_dir", "store_dir", "figures_dir"):
        assert output_dirs.output_dir_errors({key: "notes.txt"}, tmp_path) == [
            f"{key}: 'notes.txt' is a regular file, not a directory"]
        assert output_dirs.output_dir_errors({key: "notes.txt/sub"}, tmp_path) == [
            f"{key}: 'notes.txt/sub' passes through 'notes.txt', which is a regular file"]
    assert output_dirs.output_dir_errors({"results_dir": "/dev/null"}, tmp_path) == [
        "results_dir: '/dev/null' is a character device, not a directory"]
    # a config file that is a directory or a device, given to privrl estimate
    for path, kind in ((tmp_path, "a directory"), (Path("/dev/zero"), "a character device")):
        assert validate.yaml_errors(path) == [f"{path}: {kind}, not a config file"]


# --- 6. results_dir and store_dir --------------------------------------------------------------------

def test_results_dir_and_store_dir_must_not_overlap(tmp_path, wd):
    """results_dir equal to store_dir ended in Snakemake's AmbiguousRuleException (so did results_dir
    inside store_dir, and an experiment named after the store's folder inside results_dir); the
    store inside results_dir (the schema's defaults, results/ and results/store) plans."""
    def dirs(results: str, store: str, text: str = SMOKE_TEXT) -> str:
        return text.replace("results_dir: results/smoke", f"results_dir: {results}\nstore_dir: {store}")

    assert _refused(wd, dirs("results/mine", "results/mine"), "store_dir") == (
        "store_dir: 'results/mine' is results_dir itself; the run store needs its own directory (its "
        "<digest>.parquet files would clash with the results' files), e.g. results/mine/store")
    assert "is results_dir itself" in _only(_door(tmp_path, dirs("./results/mine/", "results/mine")))
    assert _only(_door(tmp_path, dirs("results/mine/res", "results/mine"))) == (
        "results_dir: 'results/mine/res' is inside store_dir 'results/mine'; the store's <digest>.parquet files "
        "would clash with the results' files: put results_dir outside the store")
    nested = dirs("results/mine", "results/mine/store")
    assert "results/mine/store/" in _planned(wd, nested)
    store = _with_experiment("store: {episodes: 100, seeds: 1, envs: {r: {name: riverswim}}, cells: [{agent: ucbvi}]}",
                             nested)
    assert _only(_door(tmp_path, store)) == (
        "experiments.store: named after store_dir's folder inside results_dir ('results/mine/store'): its files "
        "would clash with the store's; rename the experiment or move the store")


# --- 7. privrl estimate / run --experiment: the Snakefile's door -------------------------------------

def test_privrl_estimate_and_run_use_the_snakefile_door(tmp_path, wd, capsys, monkeypatch):
    """``privrl estimate`` priced ``episodes: -3`` at 0.06 CPU-hours: it read the design without the
    Snakefile's validation. Now both call privrl.plan.validate.checked_design: the same lines."""
    bad = _mine().replace("episodes: 100", "episodes: -3")
    snake = _refused(wd, bad, "experiments.mine")
    assert snake == "experiments.mine.episodes: -3 is less than the minimum of 10"
    monkeypatch.chdir(wd)
    calls = []
    door = validate.checked_design
    monkeypatch.setattr(validate, "checked_design", lambda *a, **k: calls.append(a) or door(*a, **k))
    before = _tree(wd)
    for argv in (["estimate", "--configfile", "mine.yaml"],
                 ["run", "--experiment", "mine", "--setting", "r/ucbvi", "--config", "mine.yaml"]):
        assert privrl_cli(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"privrl {argv[0]}: error: {snake}"
    assert len(calls) == 2 and _tree(wd) == before
    # several problems: one line each, the Snakefile's lines
    two = bad.replace("cells: [{agent: ucbvi}]", "cells: [{agent: ucbvi, params: {delta: 2}}]").replace(
        "results_dir: results/smoke", "results_dir: $PRIVRL_NOT_SET")
    (wd / "mine.yaml").write_text(two)
    assert privrl_cli(["estimate", "--configfile", "mine.yaml"]) == 2
    assert capsys.readouterr().err.strip() == (
        "privrl estimate: error: results_dir: '$PRIVRL_NOT_SET': environment variable PRIVRL_NOT_SET is not set")
    # the Snakefile calls the same door, then its own cost gate (which estimate reports instead)
    snakefile = (ROOT / "Snakefile").read_text()
    assert "V.design_or_exit(" in snakefile and "V.cost_or_exit(config)" in snakefile
    assert privrl_cli(["estimate", "--configfile", str(ROOT / "config/paper.yaml"), "--cores", "2"]) == 0
    assert "CPU-hours" in capsys.readouterr().out


# --- 8. vacuous privacy guarantees --------------------------------------------------------------------

VACUOUS = _mine(env="r: {name: riverswim, params: {S: 3, H: 20}}", cells="[{agent: private-ucbvi-sdp}]",
                extra=", sweep: {epsilon: [1, 10]}")


def test_vacuous_guarantee_refused_unless_opted_in(tmp_path, wd):
    """Private-UCBVI-SDP at its default beta (0.05) on H = 20 ran and recorded SDP eps = inf."""
    line = _refused(wd, VACUOUS, "experiments.mine.cells[0]")
    assert line == ("experiments.mine.cells[0]: cell r/private-ucbvi-sdp__epsilon=1: its SDP guarantee is vacuous "
                    "(eps = inf, delta = 0: 6 H beta = 6 >= 1) (and 1 more of its cells); set allow_vacuous_guarantee: "
                    "true on the cell or the experiment to run it anyway")
    # opted in, per cell or per experiment: accepted; a beta that gives a guarantee needs no opt-in
    assert _door(tmp_path, VACUOUS.replace("{agent: private-ucbvi-sdp}",
                                           "{agent: private-ucbvi-sdp, allow_vacuous_guarantee: true}")) == []
    assert _door(tmp_path, VACUOUS.replace("episodes: 100,", "episodes: 100, allow_vacuous_guarantee: true,")) == []
    assert _door(tmp_path, VACUOUS.replace("{agent: private-ucbvi-sdp}",
                                           "{agent: private-ucbvi-sdp, params: {beta: 0.001}, noise_off: true}")) == []
    assert "is not of type 'boolean'" in _only(_door(tmp_path, VACUOUS.replace(
        "episodes: 100,", "episodes: 100, allow_vacuous_guarantee: yes please,")))
    # opting in changes no job's params (it is read by the validation only)
    f = tmp_path / "mine.yaml"
    f.write_text(VACUOUS.replace("episodes: 100,", "episodes: 100, allow_vacuous_guarantee: true,"))
    cfg = validate.checked_design(config_files.load_yaml(f), ROOT, [f], cwd=tmp_path)
    cfg_cell = copy.deepcopy(cfg)
    del cfg_cell["experiments"]["mine"]["allow_vacuous_guarantee"]
    cfg_cell["experiments"]["mine"]["cells"][0]["allow_vacuous_guarantee"] = True
    blocks = [WorkflowPlan({**c, "results_dir": "r", "figures_dir": "f"}, ROOT).experiment_block("mine")
              for c in (cfg, cfg_cell)]
    assert blocks[0] == blocks[1] and "allow_vacuous_guarantee" not in str(blocks[0])


def test_an_instance_shorter_than_the_agent_accepts_is_refused(tmp_path, wd):
    """config/paper.yaml's rates experiment once put Shuffled-OBI on the H = 1 bandit and passed the door: every
    job of those cells would have failed in the agent's init_state. AgentSpec.min_horizon declares what
    init_state refuses (the agent contract checks that, privrl.audit.agent_check.check_min_horizon), and the
    door reads it before any job."""
    bandit = "b: {name: garnet, params: {S: 1, A: 2, branching: 1, H: 1, seed: 0}}"
    line = _refused(wd, _mine(env=bandit, cells="[{agent: shuffled-obi}, {agent: ucbvi}]"), "shuffled-obi")
    assert line == "experiments.mine.cells: shuffled-obi needs an instance of horizon H >= 2; envs.b has H = 1"
    assert _door(tmp_path, _mine(env=bandit.replace("H: 1", "H: 2"), cells="[{agent: shuffled-obi}]")) == []


# --- the shipped designs pass the door -------------------------------------------------------------

@pytest.mark.parametrize("name", ["config.yaml", "smoke.yaml", "paper.yaml"])
def test_shipped_designs_pass_the_door(tmp_path, name):
    f = ROOT / "config" / name
    design = validate.checked_design(config_files.load_yaml(f), ROOT, [f], cwd=tmp_path)
    assert design["experiments"] and "overlay_of" not in design


# --- the door, turn 5: non-finite numbers, every job priced, file-name limits, unwritable folders, env shapes

def _design(tmp_path: Path, content: str) -> dict:
    f = tmp_path / "mine.yaml"
    f.write_text(content)
    return validate.checked_design(config_files.load_yaml(f), ROOT, [f], cwd=tmp_path)


def test_non_finite_numbers_refused_in_every_key(tmp_path):
    """``cost_limit_cpu_hours: .nan`` switched the cost gate off (NaN > limit is False): a 737 CPU-hour
    design was planned. No key of a design takes a NaN or an infinity: one line naming the key."""
    assert _only(_door(tmp_path, SMOKE_TEXT + "cost_limit_cpu_hours: .nan\n")) == (
        "cost_limit_cpu_hours: .nan is not a finite number (NaN and infinities are refused in every key of a design)")
    cases = {  # where the number goes -> the key its line names
        _mine(cells="[{agent: pucb, params: {epsilon: .inf}}]"): "experiments.mine.cells[0].params.epsilon: .inf",
        _mine(env="r: {name: hard_instance, params: {gap: -.inf}}"): "experiments.mine.envs.r.params.gap: -.inf",
        SMOKE_TEXT.replace("multipliers: [1.0, 0.5]", "multipliers: [1.0, .nan]"):
            "mechanisms.agent_audit.multipliers[1]: .nan",
        SMOKE_TEXT + "chunk_minutes: .inf\n": "chunk_minutes: .inf",
    }
    for text, line in cases.items():
        assert _only(_door(tmp_path, text)).startswith(line + " is not a finite number"), line
    # and the gate itself refuses a limit that is no number > 0, however it was given (--config)
    assert validate.cost_error({**_design(tmp_path, SMOKE_TEXT), "cost_limit_cpu_hours": float("nan")}) == \
        "cost_limit_cpu_hours: nan is not a finite number > 0"


def test_the_cost_gate_prices_every_job_kind(tmp_path):
    """The gate priced the runs only: a binary-mechanism check at T = 2^40 and an agent audit of 1e9
    kernel runs per sequence passed. The theorem checks and both audits are priced from their sizes
    (privrl.plan.cost.mechanism_seconds) and the line names what costs."""
    smoke = _design(tmp_path, SMOKE_TEXT)
    assert validate.cost_error(smoke) is None
    parts = validate.cost_parts(smoke)
    assert set(parts) == {"runs", "theorem_checks", "privacy_audit", "agent_audit"} and sum(parts.values()) < 600
    huge_t = SMOKE_TEXT.replace("binary_mechanism: {T_grid: [64, 256, 1024]", "binary_mechanism: {T_grid: [1099511627776]")
    line = validate.cost_error(_design(tmp_path, huge_t))
    assert line.startswith("cost: the design needs an estimated ") and "(theorem checks " in line, line
    assert "\n" not in line and "accept_cost=True" in line
    huge_n = SMOKE_TEXT.replace("agent_audit: {n: 1000,", "agent_audit: {n: 1000000000,")
    line = validate.cost_error(_design(tmp_path, huge_n))
    assert line is not None and "(agent audit " in line, line
    assert validate.cost_error({**_design(tmp_path, huge_n), "accept_cost": True}) is None


def test_the_cost_gate_refuses_in_snakemake_before_any_job(wd):
    huge_t = SMOKE_TEXT.replace("binary_mechanism: {T_grid: [64, 256, 1024]", "binary_mechanism: {T_grid: [1099511627776]")
    assert "(theorem checks " in _refused(wd, huge_t, "cost: ")


def test_names_fit_the_file_name_limits_they_meet(tmp_path):
    """A 200-byte env key passed and the run failed after its runs, writing a figure ("File name too
    long"): {env}_regret_vs_K.png is written through .{env}_regret_vs_K.png.<host>.<pid>.<token>.partial.png.
    Each name is checked against the longest path component it will be part of (255 bytes)."""
    limit = validate.max_name_bytes("env key")
    assert limit == 255 - len("._regret_vs_K.png." + "h" * 63 + ".1234567." + "0" * 16 + ".partial.png")
    assert _door(tmp_path, _mine(env="r" * limit + ": {name: riverswim}")) == []
    assert _only(_door(tmp_path, _mine(env="r" * 200 + ": {name: riverswim}"))).endswith(
        f"env key is 200 bytes long, more than {limit}: the file {{name}}_regret_vs_K.png and its temporary "
        ".{name}_regret_vs_K.png.<host>.<pid>.<token>.partial.png must fit in 255 bytes")
    long_label = "x" * 150  # a cell's id is a file name too ({cell}.parquet): its tag makes it
    line = _only(_door(tmp_path, _mine(cells=f"[{{agent: ucbvi, tag: {long_label}}}]")))
    assert line.startswith("experiments.mine.cells: cell id ucbvi+") and "more than 141" in line, line
    # the tails are the longest the rules append to an env key or a cell id (one path component)
    rules = "\n".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    for noun, wildcard in (("env key", "env"), ("cell id", "cell")):
        tails = set(re.findall(r"\{\{" + wildcard + r"\}\}([^/\"{}]*)\"", rules))
        assert tails and validate.NAME_TAILS[noun] in tails, tails
        assert all(validate.component_bytes("", t) <= validate.component_bytes("", validate.NAME_TAILS[noun])
                   for t in tails), tails


@pytest.fixture
def unwritable(tmp_path):
    """A folder nobody can create anything in (chmod for a user, chattr +i for root), restored after."""
    d = tmp_path / "locked"
    d.mkdir()
    if os.geteuid() != 0:
        d.chmod(0o555)
    elif subprocess.run(["chattr", "+i", str(d)], capture_output=True).returncode != 0:
        pytest.skip("root without chattr: no folder root cannot write")
    yield d
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(d)], capture_output=True)
    d.chmod(0o755)


def test_unwritable_output_dir_refused_in_one_line(tmp_path, unwritable):
    """An unwritable store_dir ended in a Python exception at start-up."""
    assert _only(_door(tmp_path, SMOKE_TEXT + f"store_dir: {unwritable}/store\n")).startswith(
        f"store_dir: '{unwritable}/store' cannot be written: creating a folder in {unwritable} failed (")
    figures = re.sub(r"(?m)^figures_dir: .*$", f"figures_dir: {unwritable}", SMOKE_TEXT)
    assert _only(_door(tmp_path, figures)).startswith(
        f"figures_dir: '{unwritable}' cannot be written: creating a folder in it failed (")


def test_unwritable_store_dir_refused_by_snakemake_in_one_line(wd, unwritable):
    assert "cannot be written" in _refused(wd, SMOKE_TEXT + f"store_dir: {unwritable}/store\n", "store_dir: ")


def test_every_environment_declares_its_shape_for_the_memory_guard():
    """An environment missing from the memory guard's side table (ENV_SHAPES) was never priced: a
    100,000-state chain passed where RiverSwim of that size is refused. The registry declares each
    environment's shape (privrl.rl.envs.register); one added without is refused. (A new environment
    is also added to the schema's enum of names; the env checks are called here directly.)"""
    from privrl.rl import envs

    def chain(S: int = 3, H: int = 2):
        return envs.riverswim(S=S, H=H)

    def errs(name, S):
        return validate._env_errors("experiments.mine.envs.c", {"name": name, "params": {"S": S}})

    try:
        envs.ENVS["chain"] = chain  # by hand: no shape
        assert _only(errs("chain", 4)).startswith(
            "experiments.mine.envs.c.name: environment 'chain' declares no shape (H, S, A)")
        envs.register("chain", chain, lambda p: (p["H"], p["S"], 2))
        assert errs("chain", 4) == []
        big = [_only(errs(name, 1_000_000)) for name in ("chain", "riverswim")]
        assert all(line.startswith("experiments.mine.envs.c.params: a run needs ") and "more than this machine's" in line
                   for line in big), big  # the chain (H = 2) 1.28e5 GB, RiverSwim (H = 20) 1.28e6 GB
    finally:
        envs.ENVS.pop("chain", None)
    assert all(callable(getattr(f, "shape", None)) for f in envs.ENVS.values())
