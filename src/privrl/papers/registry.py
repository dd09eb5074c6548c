"""The papers privrl reproduces: one record per paper, with its tables (analyses) and its
theorem checks. This registry drives the workflow (which analyses exist, which theorem-check
outputs to build) and validates the config's ``mechanisms.checks`` sizes.

Each module named in :data:`PAPER_MODULES` defines ``PAPER``, a :class:`Paper`. Adding a table
to a paper touches that paper's module and the config (``experiments.<e>.analyses``); adding a
paper adds its module and one line here (or :func:`register` for a module outside the package).
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import pandas as pd

from privrl.papers.analysis import Analysis

PAPER_MODULES: list[str] = [
    "privrl.papers.vietri2020",
    "privrl.papers.garcelon2021",
    "privrl.papers.bai_sdp_pe",
    "privrl.papers.lu2026",
    "privrl.papers.cross_paper",
]
CHECK_CLAIM_COLUMNS = ["id", "statement", "source", "artifact", "measured", "verdict"]


def sah_grid_sizes(maximum: int | None = None) -> dict:
    """The ``sizes`` schema of a check run over a grid of instance sizes: ``grid``, a non-empty list
    of {S, A, H} integers >= 1 (and <= ``maximum``)."""
    bound = {"type": "integer", "minimum": 1, **({"maximum": maximum} if maximum is not None else {})}
    return {"grid": {"type": "array", "minItems": 1, "items": {
        "type": "object", "required": ["S", "A", "H"], "additionalProperties": False,
        "properties": {k: dict(bound) for k in ("S", "A", "H")}}}}


@dataclass(frozen=True)
class TheoremCheck:
    """A check of one theorem on the mechanism alone (no RL run): a table, a figure, a claim.

    ``run(rng, **sizes)`` -> DataFrame with a boolean ``holds`` column (the verdict is
    ``holds.all()``); ``figure(table, path)`` writes the figure; ``measured(table)`` is the
    claim's measured text. ``sizes`` is the JSON schema (``properties``) of the config's
    ``mechanisms.checks.<name>``; ``prepare(sizes, config)`` turns those into ``run``'s
    keyword arguments (default: as they are).
    """
    name: str
    statement: str
    source: str
    run: Callable[..., pd.DataFrame]
    figure: Callable[[pd.DataFrame, Any], None]
    measured: Callable[[pd.DataFrame], str]
    sizes: Mapping[str, Any] = field(default_factory=dict)
    prepare: Callable[[dict, Mapping], dict] | None = None
    kind: str = "bound"  # "bound": a mechanism's bound checked by sampling; "check": algebra

    def arguments(self, sizes: Mapping[str, Any], config: Mapping) -> dict:
        sizes = dict(sizes or {})
        return self.prepare(sizes, config) if self.prepare else sizes


@dataclass(frozen=True)
class Paper:
    """A paper's record (``file``: its text in ``../shared/papers`` from the project root) and what
    reproduces it."""
    key: str
    title: str
    authors: tuple[str, ...]
    year: int | None
    venue: str
    link: str  # arXiv / DOI address when the paper text gives one, else ""
    file: str
    note: str = ""
    analyses: Mapping[str, Analysis] = field(default_factory=dict)
    theorem_checks: tuple[TheoremCheck, ...] = ()


_loaded: dict[str, Paper] = {}
_module_of: dict[str, str] = {}  # paper key -> the module that defines it


def register(module: str) -> None:
    """Add a paper module (by import name) to the registry, e.g. a paper kept outside privrl."""
    if module not in PAPER_MODULES:
        PAPER_MODULES.append(module)
    _loaded.clear()


def papers() -> dict[str, Paper]:
    """key -> Paper for every module of :data:`PAPER_MODULES` (names checked unique)."""
    if not _loaded:
        out: dict[str, Paper] = {}
        seen_a: dict[str, str] = {}
        seen_c: dict[str, str] = {}
        for mod in PAPER_MODULES:
            p: Paper = importlib.import_module(mod).PAPER
            for name, seen in [(a, seen_a) for a in p.analyses] + [(c.name, seen_c) for c in p.theorem_checks]:
                if name in seen or p.key in out:
                    raise ValueError(f"{mod}: {p.key}/{name} registered twice (also in {seen.get(name, p.key)})")
                seen[name] = p.key
            out[p.key] = p
            _module_of[p.key] = mod
        _loaded.update(out)
    return dict(_loaded)


def analyses() -> dict[str, Analysis]:
    """analysis name -> function, over every paper."""
    return {name: fn for p in papers().values() for name, fn in p.analyses.items()}


def claim_rules() -> dict[str, Callable]:
    """analysis name -> its claim-plan rule, over every paper: each paper package's ``plan``
    module (its ``RULES``: analysis -> rule, :mod:`privrl.papers.planned`), found by convention
    and imported only here, so that no job's code digest holds it (an edit of a rule reruns
    nothing; the claim plan reads it before any run). A rule for an analysis its paper does not
    register is an error."""
    out: dict[str, Callable] = {}
    for key, p in papers().items():
        mod = _module_of[key] + ".plan"
        if importlib.util.find_spec(mod) is None:
            continue
        rules = importlib.import_module(mod).RULES
        if stray := sorted(set(rules) - set(p.analyses)):
            raise ValueError(f"{mod}: rules for {stray}, which are not analyses of {key}")
        out.update(rules)
    return out


def theorem_checks() -> dict[str, TheoremCheck]:
    """theorem-check name -> TheoremCheck, over every paper (registry order)."""
    return {c.name: c for p in papers().values() for c in p.theorem_checks}


def analysis(name: str) -> Analysis:
    found = analyses()
    if name not in found:
        raise ValueError(f"unknown analysis {name!r}; registered: {sorted(found)}")
    return found[name]


def analysis_targets(config: Mapping) -> list[tuple[str, str]]:
    """(experiment, analysis) of every analysis the config asks for; unknown names raise."""
    known = analyses()
    out = []
    for exp, spec in config["experiments"].items():
        for a in spec.get("analyses", []) or []:
            if a not in known:
                raise ValueError(f"experiments.{exp}.analyses: unknown analysis {a!r}; registered: {sorted(known)}")
            out.append((exp, a))
    return out


CROSS_PAPER = "cross_paper"  # the folder of experiments and audits that compare several papers


def experiment_paper(name: str, spec: Mapping) -> str:
    """The paper (registry key) an experiment's figures and tables are filed under,
    ``{figures_dir}/{paper}/{experiment}/``: its ``paper`` key if given, else the one paper all its
    analyses belong to, else :data:`CROSS_PAPER`. An unknown ``paper`` raises."""
    known = papers()
    if spec.get("paper") is not None:
        if spec["paper"] not in known:
            raise ValueError(f"experiments.{name}.paper: unknown paper {spec['paper']!r}; choose one of {sorted(known)}")
        return str(spec["paper"])
    owners = {k for a in spec.get("analyses") or [] for k, p in known.items() if a in p.analyses}
    return owners.pop() if len(owners) == 1 else CROSS_PAPER


def check_paper(check: str) -> str:
    """The paper (registry key) a theorem check belongs to: its figures go to ``{paper}/mechanisms/``."""
    return next(k for k, p in papers().items() if any(c.name == check for c in p.theorem_checks))


def check_sizes(config: Mapping) -> dict[str, dict]:
    """Validated sizes of each theorem check the design names (config ``mechanisms.checks``; {} =
    its defaults); a check the design does not name does not run."""
    import jsonschema

    checks = theorem_checks()
    given = dict(((config.get("mechanisms") or {}).get("checks")) or {})
    unknown = sorted(set(given) - set(checks))
    if unknown:
        raise ValueError(f"mechanisms.checks: unknown theorem checks {unknown}; registered: {list(checks)}")
    out = {}
    for name, check in checks.items():
        if name not in given:
            continue
        sizes = dict(given.get(name) or {})
        schema = {"type": "object", "additionalProperties": False, "properties": dict(check.sizes)}
        try:
            jsonschema.validate(sizes, schema)
        except jsonschema.ValidationError as e:
            raise ValueError(f"mechanisms.checks.{name}: {e.message}") from None
        out[name] = sizes
    return out


def theorem_check_claims(tables: Mapping[str, pd.DataFrame], artifacts: Mapping[str, str]) -> list:
    """One Claim per theorem check (privrl.results.verdicts): a sampled bound that holds in every
    row is "reproduced" (else "contradicted"), "not reached" if a ``reached`` column is false somewhere,
    "consistent" if a ``powered`` column (the check flags its wrong twin) is false somewhere;
    an algebra check is "checked" (else "contradicted")."""
    from privrl.results import verdicts as V

    checks = theorem_checks()
    paper_of = {c.name: k for k, p in papers().items() for c in p.theorem_checks}
    out = []
    for name, df in tables.items():
        c = checks[name]
        ok = bool(df["holds"].all())
        if c.kind == "check":
            score = V.score_check(ok, c.measured(df))
        elif ok and "reached" in df and not df["reached"].all():   # the check's precondition not met at this size
            score = V.Score(V.NOT_REACHED, c.measured(df))
        elif ok and "powered" in df and not df["powered"].all():   # its wrong twin (e.g. half the noise) passes too
            score = V.Score(V.CONSISTENT, c.measured(df), "no power: the same check does not flag the under-noised "
                                                          "twin (measured beside each row)")
        else:
            score = V.Score(V.REPRODUCED if ok else V.CONTRADICTED, c.measured(df))
        item = c.source.split(" et al. ", 1)[-1]
        out.append(V.make_claim(paper_of[name], item, name, c.statement, c.kind, artifacts.get(name, ""), score,
                                experiment="mechanisms", source=c.source))
    return out


