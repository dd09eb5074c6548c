"""Helpers for the thin Snakemake scripts: logging to the rule's log file."""
from __future__ import annotations

import contextlib
import logging
import traceback
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def logged(snakemake) -> Iterator[logging.Logger]:  # noqa: ANN001 (the snakemake object)
    """Send stdout/stderr and a logger to the rule's first log file; log tracebacks."""
    path = Path(snakemake.log[0])
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh, contextlib.redirect_stdout(fh), contextlib.redirect_stderr(fh):
        log = logging.getLogger(f"privrl.{snakemake.rule}")
        log.handlers[:] = [logging.StreamHandler(fh)]
        log.setLevel(logging.INFO)
        try:
            yield log
        except Exception:
            traceback.print_exc(file=fh)
            raise
