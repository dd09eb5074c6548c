"""Thin glue: a privacy audit table (CSV and markdown), written atomically.

Rule ``privacy_audit``: every mechanism (privrl.mechanisms.audit); rule ``agent_audit``: every
private agent end to end (privrl.audit.privacy).
"""
from privrl import io
from privrl.rl import seeding
from privrl.runs import provenance
from privrl.runs.joblog import logged


def _mechanisms(rng, sizes):
    from privrl.mechanisms import audit

    alpha = sizes.get("alpha", 0.05)
    df = audit.privacy_audit_table(rng, sizes)
    header = ("# Privacy audit\n\nEmpirical lower bounds are Clopper-Pearson limits; shuffled mechanisms: "
              "distribution tests against the exact law and exact epsilon vs claim (privrl.mechanisms.audit). "
              f"Each of the {len(df)} rows is tested at alpha / {len(df)} = {audit.row_alpha(alpha, len(df)):.3g} "
              f"(Bonferroni): the family-wise false-alarm rate (some correct mechanism flagged) is <= {alpha}.\n\n")
    return df, header + audit.audit_table_markdown(df)


def _agents(rng, sizes):
    from privrl.audit import privacy as privacy_audit

    df = privacy_audit.agent_audit_table(rng, sizes)
    return df, privacy_audit.agent_audit_markdown(df, float(sizes.get("alpha", 0.05)))


TABLES = {"privacy_audit": _mechanisms, "agent_audit": _agents}  # rule -> (table, markdown) builder

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    sizes = dict(sm.params.sizes)
    log.info("%s sizes %s", sm.rule, sizes)
    df, md = TABLES[sm.rule](seeding.generator("mechanisms", sm.rule, int(sm.params.seed)), sizes)
    log.info("\n%s", df.to_string())
    io.write_csv(sm.output.csv, df)
    io.write_text(sm.output.md, md)
    provenance.record(sm.output.provenance, sm.input.stamp, [sm.output.csv, sm.output.md])  # privrl.runs.provenance
