"""Rule run_cell: one cell's shards merged in seed order (privrl.runs.run.merge_shards).

A script, not a ``run:`` block: Snakemake spawns every ``run:`` job as a second Snakemake that
re-parses the whole workflow (seconds per cell); a script job is one short Python process.
"""
from privrl.runs.joblog import logged
from privrl.runs.run import merge_shards

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    merge_shards(sm.input.shards, sm.input.mdp, sm.params.cell, sm.output.results, sm.output.info)
    log.info("%s: %d shard(s) merged", sm.output.results, len(sm.input.shards))
