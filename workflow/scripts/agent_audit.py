"""Thin glue: the end-to-end agent privacy audit table (CSV and markdown), written atomically."""
from privrl import io, privacy_audit
from privrl.rl import seeding
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    sizes = dict(sm.params.sizes)
    log.info("agent audit sizes %s", sizes)
    df = privacy_audit.agent_audit_table(seeding.generator("mechanisms", "agent_audit", int(sm.params.seed)), sizes)
    log.info("\n%s", df.to_string())
    io.write_csv(sm.output.csv, df)
    io.write_text(sm.output.md, privacy_audit.agent_audit_markdown(df, float(sizes.get("alpha", 0.05))))
