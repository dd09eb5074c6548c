"""Thin glue: the theorem checks and the privacy audits as rows of the claims table."""
import pandas as pd

from privrl import io
from privrl.runs.joblog import logged
from privrl.papers import registry
from privrl.papers.cross_paper import agent_audit_claim, privacy_audit_claim
from privrl.results import claims

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    art = sm.params.artifacts  # name -> the figure or table each claim row cites
    tables = {name: pd.read_csv(p) for name, p in zip(sm.params.checks, sm.input.checks)}
    rows = registry.theorem_check_claims(tables, {n: art[n] for n in tables})
    for path in sm.input.audit:  # each audit only where the design names it
        rows.append(privacy_audit_claim(pd.read_csv(path), art["privacy_audit"]))
    for path in sm.input.agent_audit:
        rows.append(agent_audit_claim(pd.read_csv(path), art["agent_audit"]))
    frame = claims.claims_frame(rows)
    log.info("\n%s", frame.to_string())
    io.write_csv(sm.output.csv, frame)
