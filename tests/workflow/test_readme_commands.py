"""Every command the README shows runs: the lines of its shell code blocks and the commands of its
"Ways to run" table (any table with a ``command`` column), found automatically, so a command
added to the README later is run here too.

How each runs, in a copy of the workflow (Snakefile, workflow/, profiles/, config/, envs/,
paper_figures/):

* the install steps (``python3 -m venv .venv``, ``. .venv/bin/activate``, ``pip install ...``) are
  not run: their form is asserted (the lock file, ``--no-deps -e .`` / ``".[test]"``, the SLURM
  plugin), and the test command ``python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder`` is the one ``.ci/run`` runs;
* ``snakemake`` at smoke size (``--configfile config/smoke.yaml``) runs for real, a report command
  after the runs it reports on; every other ``snakemake`` command runs as a dry run (``-n``); one
  with a ``--workflow-profile`` (SLURM) is dry-run if its executor plugin is installed, else its
  profile must exist (the profile is run end to end by workflow/scripts/slurm_single_node.sh);
* ``privrl ...`` (as ``python -m privrl.cli.main``) and ``python ...`` run as written: the README
  shows them at sizes that take seconds.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SMOKE = "config/smoke.yaml"
TEST_COMMAND = ["python", "-m", "pytest", "-q", "-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder"]  # .ci/run's, as the README shows it
SHELL_BLOCKS = {"", "bash", "sh", "shell", "console"}
COPIED = ("Snakefile", "workflow", "profiles", "config", "envs", "paper_figures")


# ---------------------------------------------------------------- extraction
def code_block_commands(text: str) -> list[str]:
    """Each command line of the shell code blocks (a fenced block without a language counts as
    shell: a block that is not commands says so, e.g. ```text), comments dropped."""
    out = []
    for lang, body in re.findall(r"^```([\w-]*)[^\n]*\n(.*?)^```", text, re.S | re.M):
        if lang not in SHELL_BLOCKS:
            continue
        joined = re.sub(r"\\\n\s*", " ", body)
        for line in joined.splitlines():
            tokens = shlex.split(line, comments=True)  # drops "# ..." and blank lines
            if tokens:
                out.append(_join(tokens))
    return out


def _join(tokens: list[str]) -> str:
    return " ".join(t if t == "&&" else shlex.quote(t) for t in tokens)


def table_commands(text: str) -> list[str]:
    """The backticked commands in the ``command`` column of every markdown table that has one."""
    out, col = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            col = None
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if col is None:
            col = cells.index("command") if "command" in cells else -1
            continue
        if col < 0 or set(line) <= set("|-: ") or col >= len(cells):
            continue
        out += [_join(shlex.split(c.replace("\\|", "|"))) for c in re.findall(r"`([^`]+)`", cells[col])]
    return out


def readme_commands(text: str | None = None) -> list[str]:
    """Every command the README shows, in order, each once."""
    text = README.read_text() if text is None else text
    return list(dict.fromkeys(code_block_commands(text) + table_commands(text)))


def segments(command: str) -> list[list[str]]:
    """A command line's ``&&``-separated commands, each as argv."""
    out, cur = [], []
    for tok in shlex.split(command):
        if tok == "&&":
            out.append(cur)
            cur = []
        else:
            cur.append(tok)
    return out + [cur]


# ---------------------------------------------------------------- install steps
def is_install_step(argv: list[str]) -> bool:
    return (argv[:3] == ["python3", "-m", "venv"] or argv[:1] in (["."], ["source"])
            or argv[:2] == ["pip", "install"] or argv[:4] == ["python", "-m", "pip", "install"])


def check_install_step(argv: list[str]) -> None:
    """The README's install steps are the CI's: a venv, the lock file, privrl without deps."""
    if argv[:3] == ["python3", "-m", "venv"]:
        assert argv == ["python3", "-m", "venv", ".venv"], argv
    elif argv[0] in (".", "source"):
        assert argv[1:] == [".venv/bin/activate"], argv
    else:
        args = argv[argv.index("install") + 1:]
        allowed = (["-r", "requirements-lock.txt"], ["--no-deps", "-e", "."], ["--no-deps", "-e", ".[test]"],
                   ["snakemake-executor-plugin-slurm"])
        assert args in allowed, f"unexpected install step {argv}: add its form to this test"
        if args[0] == "-r":
            assert (ROOT / args[1]).is_file()
        if args[-1] == ".[test]":
            assert re.search(r"^test\s*=", (ROOT / "pyproject.toml").read_text(), re.M)


def is_test_suite(argv: list[str]) -> bool:
    return argv[:3] == ["python", "-m", "pytest"]


# ---------------------------------------------------------------- fast checks
def test_the_readme_shows_commands_from_code_blocks_and_the_table():
    cmds = readme_commands()
    assert len(cmds) >= 10
    assert any(c.startswith("python3 -m venv") and c.endswith("snakemake --cores 8") for c in cmds)
    assert "snakemake --cores 2 --configfile config/smoke.yaml" in cmds
    for c in cmds:  # a placeholder cannot run: the README shows runnable commands only
        assert not re.search(r"<[^>]*>|\s\[-|\bNAME\b|\.\.\.", c), f"not a runnable command: {c}"


def test_extraction_rules():
    text = ("```bash\nsnakemake -n   # plan\n\n# a comment\nprivrl agents\n```\n```text\nnot a command\n```\n"
            "| what | command |\n|---|---|\n| lists | `privrl agents`, `privrl envs` |\n\n| a | b |\n|---|---|\n| `x` | `y` |\n")
    assert readme_commands(text) == ["snakemake -n", "privrl agents", "privrl envs"]
    assert segments("a b && c") == [["a", "b"], ["c"]]


def test_install_commands_are_the_ci_commands():
    """The two install-and-run commands keep their form; the test command is .ci/run's."""
    chains = [segments(c) for c in readme_commands() if c.startswith("python3 -m venv")]
    assert len(chains) == 2, chains
    for chain in chains:
        for argv in chain[:-1]:
            assert is_install_step(argv), argv
            check_install_step(argv)
    run, test = chains[0][-1], chains[1][-1]
    assert run == ["snakemake", "--cores", "8"]
    assert test == TEST_COMMAND
    ci = (ROOT / ".ci/run").read_text()
    assert "pip install --quiet -r requirements-lock.txt" in ci
    assert 'pip install --quiet --no-deps -e ".[test]"' in ci
    assert re.search(rf"^{re.escape(shlex.join(TEST_COMMAND))} ", ci, re.M)


# ---------------------------------------------------------------- running them
def _workdir(tmp: Path) -> Path:
    for name in COPIED:
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp / name)
    return tmp


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def _argv(argv: list[str]) -> list[str]:
    if argv[0] == "privrl":
        return [sys.executable, "-m", "privrl.cli.main", *argv[1:]]
    if argv[0] == "snakemake":
        return [sys.executable, "-m", "snakemake", *argv[1:]]
    if argv[0] in ("python", "python3"):
        return [sys.executable, *argv[1:]]
    raise AssertionError(f"the README runs {argv[0]!r}: teach tests/workflow/test_readme_commands.py how to run it")


def _configfile(argv: list[str]) -> str | None:
    return argv[argv.index("--configfile") + 1] if "--configfile" in argv else None


def plan(commands: list[str]) -> list[tuple[str, list[str] | None]]:
    """(command, argv to run, or None if only its form is checked), in the order they run: the
    smoke-size runs first, report commands last."""
    out = []
    for command in commands:
        for argv in segments(command):
            if is_install_step(argv):
                check_install_step(argv)
                continue
            if is_test_suite(argv):
                assert argv == TEST_COMMAND, argv  # the whole suite: not run here
                continue
            if argv[0] == "snakemake" and "--workflow-profile" in argv:
                profile = ROOT / argv[argv.index("--workflow-profile") + 1]
                assert (profile / "config.yaml").is_file(), profile
                executor = re.search(r"^executor:\s*(\S+)", (profile / "config.yaml").read_text(), re.M)
                plugin = f"snakemake_executor_plugin_{executor.group(1)}" if executor else None
                if plugin and importlib.util.find_spec(plugin) is None:
                    out.append((command, None))  # its plugin is not installed: the profile exists
                    continue
                out.append((command, _argv(argv + ["-n"] * ("-n" not in argv))))
            elif argv[0] == "snakemake" and _configfile(argv) == SMOKE:
                out.append((command, _argv(argv)))  # smoke size: for real
            elif argv[0] == "snakemake":
                out.append((command, _argv(argv + ["-n"] * ("-n" not in argv))))
            else:
                out.append((command, _argv(argv)))
    rank = {True: 1, False: 0}
    return sorted(out, key=lambda c: rank["--report" in c[0]])


@pytest.mark.slow  # a smoke run (~0.5-1 min on 2 cores), dry runs of the default design, a few privrl runs
def test_every_readme_command_runs(tmp_path):
    wd = _workdir(tmp_path)
    env = _env()
    failed = []
    for command, argv in plan(readme_commands()):
        if argv is None:
            continue
        proc = subprocess.run(argv, cwd=wd, env=env, capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            failed.append(f"$ {command}\n  ran as {shlex.join(argv)} in {wd}: exit {proc.returncode}\n"
                          f"{proc.stderr[-2000:]}")
    assert not failed, "README commands that fail:\n" + "\n".join(failed)
    # the first ten minutes: every output the README names under results/smoke/ is there
    named = set(re.findall(r"`(results/smoke/[^`<>*{}]*)`", README.read_text()))
    missing = [p for p in sorted(named) if not (wd / p).exists()]
    assert named and not missing, f"the README names smoke outputs the smoke run did not write: {missing}"
