# Integrity at start-up, in the main process only (remote and subprocess jobs re-read the rules).
#
# A run file whose content no longer matches the sha256 in its metadata (truncated, edited) is
# forced to rerun as soon as a job that reads it is in the DAG (regenerated_if_corrupt in
# common.smk). Snakemake has no public hook for this: a Snakefile cannot set --forcerun (its DAG
# settings are assigned after parsing), and a missing intermediate file is not regenerated while
# its consumers are up to date; so the input functions add the file to the DAG's forced files
# (what --forcerun fills). Temporaries of writes killed with their job (io.atomic_path) are
# deleted once the lock is held.
import sys

if workflow.is_main_process:
    CORRUPT_RUNS.update((str(p), why) for p, why in privrl_io.corrupt_run_files(R))
    for _why in CORRUPT_RUNS.values():
        print(f"privrl: {_why.split('; regenerate')[0]}: it will be rerun", file=sys.stderr)


onstart:
    for _tmp in privrl_io.remove_stale_temps(R):
        print(f"privrl: removed stale temporary {_tmp}", file=sys.stderr)
