# privrl: full reproduction with `snakemake --cores 8`; smoke run with
# `snakemake --cores 2 --configfile config/smoke.yaml`. The rules read as the data flow:
# MDPs -> runs -> aggregates and fits -> figures, tables, the papers' analyses and theorem
# checks -> CLAIMS.md.
from snakemake.utils import min_version, validate

min_version("9.0")

# A --configfile on the command line is a whole design, or an overlay of one (key overlay_of,
# e.g. config/smoke.yaml: sizes deep-merged onto config/config.yaml).
if "experiments" not in config and "overlay_of" not in config:

    configfile: "config/config.yaml"


import os  # noqa: E402

import privrl  # noqa: E402
from privrl.design import experiments as X  # noqa: E402
from privrl.plan import validate as V  # noqa: E402
from privrl.results.report_params import readable  # noqa: E402  (params as plain text in the report)

_given = [str(f) for f in getattr(workflow, "overwrite_configfiles", None) or []]
_given = _given or [Path(workflow.basedir, "config/config.yaml")]
# the door (privrl.plan.validate.checked_design, also `privrl estimate` and `privrl run --experiment`):
# one line per problem (file:line, schema paths, output directories, agent/env parameter domains,
# claim checks, vacuous guarantees) before any job; the design with its overlay merged and its
# directories' ~ and $VARS expanded
_resolved = V.design_or_exit(config, workflow.basedir, _given)
config.clear()
config.update(_resolved)
V.cost_or_exit(config)  # the run's cost gate (privrl estimate prints the cost instead)
validate(config, "workflow/schemas/config.schema.yaml")  # Snakemake's own: fills the schema defaults


# where envs/privrl.post-deploy.sh installs privrl from under --software-deployment-method conda
os.environ.setdefault("PRIVRL_SOURCE", workflow.basedir)


report: "workflow/report/workflow.rst"  # `snakemake --report report.html`: captions in workflow/report/


include: "workflow/rules/common.smk"
include: "workflow/rules/mdps.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/fits.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/analyses.smk"
include: "workflow/rules/theorem_checks.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/integrity.smk"  # the start-up scan: after the rules, whose outputs it names


rule all:
    input:
        all_targets(),
    default_target: True


onsuccess:
    from privrl.results import claims

    print("\n".join(["privrl: done."] + claims.run_summary(F)))


# Rules that run in the main Snakemake process's host, never as cluster jobs: each reads a few
# small files (seconds; the SLURM profile leaves only the runs and the mechanism checks to SLURM).
localrules:
    mdp,
    aggregate,
    fit,
    regret_figure,
    fit_table,
    analysis,
    claims,
