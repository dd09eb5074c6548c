"""Intermediates lost or changed while what was made from them remains: found at start-up, rebuilt.

Snakemake regenerates a missing file only when a job that reads it has to run; a missing
intermediate whose consumers are up to date is left missing ("Nothing to be done"). So an MDP,
aggregate, fit or mechanism-claims table deleted by hand, or removed by Snakemake with its job when
that job was killed mid-write (a ``fit`` rerun after a code edit: the edit then never reached
CLAIMS.md), stayed lost. The workflow's start-up scan (``workflow/rules/integrity.smk``) lists
every planned intermediate that is missing while all its inputs and one of its consumers exist,
and forces it (Snakemake then reruns what reads it, by mtime). A missing intermediate whose inputs
are missing too (a clean clone, a new experiment) is Snakemake's own to plan, and is not named.

An MDP file is also checked by content: one whose arrays are not the MDP the plan builds (the
digest in its shards' run keys) is rebuilt instead of failing the merge that reads it.
"""
from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence


def lost_intermediates(planned: Iterable[tuple[str, Sequence[str], Sequence[str]]]) -> list[tuple[str, str]]:
    """(path, one-line problem) of every planned intermediate (``planned``: (path, the files it is
    made from, the files made from it)) that is missing while every input and some consumer exist.
    Cheap: a few stats per intermediate."""
    out = []
    for path, inputs, consumers in planned:
        if os.path.exists(path) or not all(os.path.exists(f) for f in inputs):
            continue
        made = next((c for c in consumers if os.path.exists(c)), None)
        if made is not None:
            out.append((str(path), f"{path}: missing, although {made} was made from it (deleted, or its job "
                                   f"killed mid-write); regenerate it with: snakemake --forcerun {path}"))
    return out


def changed_mdps(planned: Mapping[str, str]) -> list[tuple[str, str]]:
    """(path, one-line problem) of every MDP file of ``planned`` (path -> the digest its shards' run
    keys hold, privrl.runs.run.mdp_digest) that exists and holds another MDP (edited, or unreadable)."""
    from privrl.rl import mdp as mdp_io
    from privrl.runs.run import mdp_digest

    out = []
    for path, want in planned.items():
        if not os.path.exists(path):
            continue
        try:
            have = mdp_digest(mdp_io.load(path))
        except Exception as e:  # noqa: BLE001 (any reader error: not the planned MDP)
            have = f"unreadable ({type(e).__name__})"
        if have != want:
            out.append((str(path), f"{path}: MDP content {have} is not the {want} its runs were keyed by (edited?); "
                                   f"regenerate it with: snakemake --forcerun {path}"))
    return out
