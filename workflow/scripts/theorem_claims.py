"""Thin glue: verdicts of the theorem checks and the privacy audit -> the mechanism-level CLAIMS.md section."""
from pathlib import Path

import pandas as pd

from privrl import io
from privrl.papers import registry
from privrl.papers.cross_paper import privacy_audit_claim
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    figs = Path(sm.output.md).parent
    tables = {name: pd.read_csv(p) for name, p in zip(sm.params.checks, sm.input.checks)}
    table = registry.theorem_check_claims(tables, {n: str(figs / f"{n}.png") for n in tables})
    audit = privacy_audit_claim(pd.read_csv(sm.input.audit), str(figs / "privacy_audit.md"))
    table = pd.concat([table, pd.DataFrame([audit])], ignore_index=True)
    log.info("\n%s", table.to_string())
    io.write_text(sm.output.md, registry.claims_section_markdown(table))
