# privrl: full reproduction with `snakemake --cores 8`; smoke run with
# `snakemake --cores 2 --configfile config/smoke.yaml`. The rules read as the data flow:
# MDPs -> runs -> aggregates and fits -> figures, tables, the papers' analyses and theorem
# checks -> CLAIMS.md.
from snakemake.utils import min_version, validate

min_version("9.0")

# A --configfile on the command line replaces the default config instead of being merged
# into it (Snakemake deep-merges configs, which would mix the smoke and full experiments).
if "experiments" not in config:

    configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/mdps.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/fits.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/analyses.smk"
include: "workflow/rules/theorem_checks.smk"
include: "workflow/rules/tables.smk"


rule all:
    input:
        all_targets(),
    default_target: True
