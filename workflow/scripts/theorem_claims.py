"""Thin glue: the theorem checks and the privacy audits as rows of the claims table."""
from pathlib import Path

import pandas as pd

from privrl import io
from privrl.joblog import logged
from privrl.papers import registry
from privrl.papers.cross_paper import agent_audit_claim, privacy_audit_claim
from privrl.results import claims

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    figs = Path(sm.output.csv).parent
    tables = {name: pd.read_csv(p) for name, p in zip(sm.params.checks, sm.input.checks)}
    rows = registry.theorem_check_claims(tables, {n: str(figs / f"{n}.png") for n in tables})
    rows.append(privacy_audit_claim(pd.read_csv(sm.input.audit), str(figs / "privacy_audit.md")))
    rows.append(agent_audit_claim(pd.read_csv(sm.input.agent_audit), str(figs / "agent_audit.md")))
    frame = claims.claims_frame(rows)
    log.info("\n%s", frame.to_string())
    io.write_csv(sm.output.csv, frame)
