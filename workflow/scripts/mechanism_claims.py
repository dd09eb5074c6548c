"""Thin glue: verdicts of the mechanism checks and audit -> a CLAIMS.md section."""
from pathlib import Path

import pandas as pd

from privrl import io
from privrl.papers import theorem_checks as mc
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    checks = {name: pd.read_csv(p) for name, p in zip(sm.params.names, sm.input.checks)}
    audit_df = pd.read_csv(sm.input.audit)
    figs = Path(sm.output.md).parent
    artifacts = {n: str(figs / f"{n}.png") for n in sm.params.names} | {"privacy_audit": str(figs / "privacy_audit.md")}
    table = mc.mechanism_claims(checks, audit_df, artifacts)
    log.info("\n%s", table.to_string())
    io.write_text(sm.output.md, mc.mechanism_claims_markdown(table))
