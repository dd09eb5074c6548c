"""Thin glue: the privacy audit table (CSV and markdown), written atomically."""
from privrl.mechanisms import audit
from privrl import io
from privrl.rl import seeding
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    sizes = dict(sm.params.sizes)
    log.info("audit sizes %s", sizes)
    df = audit.privacy_audit_table(seeding.generator("mechanisms", "privacy_audit", int(sm.params.seed)), sizes)
    log.info("\n%s", df.to_string())
    io.write_csv(sm.output.csv, df)
    alpha = sizes.get("alpha", 0.05)
    header = ("# Privacy audit\n\nEmpirical lower bounds are Clopper-Pearson limits at level "
              f"alpha = {alpha} (false-alarm rate <= alpha); shuffled mechanisms: distribution tests "
              "against the exact law and exact epsilon vs claim (privrl.mechanisms.audit).\n\n")
    io.write_text(sm.output.md, header + audit.audit_table_markdown(df))
