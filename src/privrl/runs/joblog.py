"""Helpers for the thin Snakemake scripts: logging to the rule's log file."""
from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def logged(snakemake) -> Iterator[logging.Logger]:  # noqa: ANN001 (the snakemake object)
    """Send stdout/stderr and a logger to the rule's first log file; log tracebacks, and print the
    exception's one-line reason on the console (:func:`failure_line`)."""
    path = Path(snakemake.log[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh, contextlib.redirect_stdout(fh), contextlib.redirect_stderr(fh):
        log = logging.getLogger(f"privrl.{snakemake.rule}")
        log.handlers[:] = [logging.StreamHandler(fh)]
        log.setLevel(logging.INFO)
        try:
            yield log
        except Exception as exc:
            traceback.print_exc(file=fh)
            print(failure_line(snakemake, exc), file=sys.__stderr__, flush=True)  # the console: Snakemake's
            raise  # own error block says "message: None" (the rule's message directive, which we do not set)


def failure_line(snakemake, exc: BaseException) -> str:  # noqa: ANN001 (the snakemake object)
    """The one line a failed job prints on the console: rule, reason, log file."""
    reason = str(exc).splitlines()[0] if str(exc).strip() else ""
    return (f"privrl: rule {snakemake.rule} failed: {type(exc).__name__}: {reason} "
            f"(traceback in {snakemake.log[0]})")
