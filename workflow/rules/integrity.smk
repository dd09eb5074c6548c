# Integrity at start-up, in the main process only (remote and subprocess jobs re-read the rules).
# Included after the rules: the scan names their outputs.
#
# A run file whose content no longer matches the sha256 in its metadata (truncated, edited), a
# store shard of this DAG that no longer matches its own or that its cell's merge record does not
# vouch for (privrl.runs.store: parquet and JSON both rewritten), a run file the store does not
# vouch for, and a planned run file missing while the aggregate or fit made from it exists (a
# run_cell job killed mid-write; privrl.results.run_files.lost_run_files) are forced to rerun as
# soon as a job that reads it is in the DAG (regenerated_if_corrupt in common.smk). Snakemake has no public
# hook for this: a Snakefile cannot set --forcerun (its DAG settings are assigned after parsing),
# and a missing intermediate file is not regenerated while its consumers are up to date; so the
# input functions add the file to the DAG's forced files (what --forcerun fills). Temporaries of
# writes killed with their job (io.atomic_path) are deleted once the lock is held, and the
# output directories are marked as privrl's (privrl.runs.output_dirs).
import sys

from privrl.results import run_files as privrl_run_files
from privrl.runs import output_dirs
from privrl.runs import store as privrl_store

if workflow.is_main_process:
    CORRUPT_RUNS.update((str(p), why) for p, why in privrl_io.corrupt_run_files(R))
    CORRUPT_RUNS.update(privrl_store.corrupt_shards(STORE, SHARDS))  # store shards: privrl.runs.store
    CORRUPT_RUNS.update((p, why) for p, why in privrl_store.unrecorded_shards(STORE, PLAN.cell_shards)
                        if p not in CORRUPT_RUNS)
    CORRUPT_RUNS.update(privrl_store.tampered_cells(R, STORE, PLAN.cell_shards))
    CORRUPT_RUNS.update(privrl_run_files.lost_run_files(
        (c.cell, rules.run_cell.output.results.format(experiment=c.experiment, env=c.env, cell=c.cell),
         [rules.aggregate.output[0].format(experiment=c.experiment, env=c.env),
          rules.fit.output[0].format(experiment=c.experiment, env=c.env)]) for c in CELLS))
    for _why in CORRUPT_RUNS.values():
        print(f"privrl: {_why.split('; regenerate')[0]}: it will be rerun", file=sys.stderr)


onstart:
    output_dirs.claim(config)  # results_dir and store_dir marked as privrl's (privrl.runs.output_dirs)
    for _tmp in privrl_io.remove_stale_temps(R) + privrl_io.remove_stale_temps(STORE):
        print(f"privrl: removed stale temporary {_tmp}", file=sys.stderr)
