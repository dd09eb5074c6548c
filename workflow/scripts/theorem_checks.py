"""Thin glue: run the theorem checks the design names (privrl.papers.registry), write each CSV and figure atomically."""
from privrl import io
from privrl.rl import seeding
from privrl.papers import registry
from privrl.runs import provenance
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    checks = registry.theorem_checks()
    for name, args in sm.params.arguments.items():  # each check's run() arguments, prepared from the config
        check = checks[name]
        log.info("check %s with arguments %s", name, args)
        df = check.run(seeding.generator("mechanisms", name, int(sm.params.seed)), **args)
        log.info("\n%s", df.to_string())
        io.write_csv(sm.output[f"{name}_csv"], df)
        check.figure(df, sm.output[f"{name}_png"])
    # the provenance sidecar: what made these outputs (the stamp) and their sha256 (privrl.runs.provenance)
    provenance.record(sm.output.provenance, sm.input.stamp, [p for k, p in sm.output.items() if k != "provenance"])
