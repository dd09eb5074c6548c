# Integrity at start-up, in the main process only (remote and subprocess jobs re-read the rules).
# Included after the rules: the scan names their outputs.
#
# A run file whose content no longer matches the sha256 in its metadata (truncated, edited), a
# store shard of this DAG that no longer matches its own or that its cell's merge record does not
# vouch for (privrl.runs.store: parquet and JSON both rewritten), a run file the store does not
# vouch for, and a planned run file missing while the aggregate or fit made from it exists (a
# run_cell job killed mid-write; privrl.results.run_files.lost_run_files), and any other
# intermediate (MDP, aggregate, fit, mechanism claims) missing while its inputs and a consumer
# exist, or an MDP file that is not the plan's (privrl.runs.lost), and an aggregate or fit that
# does not match its record (privrl.runs.intermediates), are forced to rerun as
# soon as a job that reads it is in the DAG (regenerated_if_corrupt in common.smk). Snakemake has no public
# hook for this: a Snakefile cannot set --forcerun (its DAG settings are assigned after parsing),
# and a missing intermediate file is not regenerated while its consumers are up to date; so the
# input functions add the file to the DAG's forced files (what --forcerun fills). Temporaries of
# writes killed with their job (io.atomic_path) are deleted once the lock is held, and the
# output directories are marked as privrl's (privrl.runs.output_dirs).
import sys

from privrl.results import run_files as privrl_run_files
from privrl.runs import lost as privrl_lost
from privrl.runs import output_dirs
from privrl.runs import store as privrl_store


def planned_intermediates():
    """(path, its inputs, its consumers' files) of every intermediate no target names: per
    (experiment, env) its MDP, aggregate and fit; the mechanism claims (privrl.runs.lost)."""
    claims_rst = rules.claims.output.rst
    for e, v in EXP_ENVS:
        runs = [rules.run_cell.output.results.format(experiment=e, env=v, cell=c.cell) for c in cells_of(e, v)]
        paper = PAPER_OF[e]
        figures = [rules.regret_figure.output[x].format(paper=paper, experiment=e, env=v) for x in ("pdf", "png")]
        analyses = [rules.analysis.output.claims.format(paper=paper, experiment=e, analysis=a)
                    for e_, a in ANALYSIS_TARGETS if e_ == e]
        yield rules.mdp.output[0].format(experiment=e, env=v), [], runs
        yield rules.aggregate.output[0].format(experiment=e, env=v), runs, figures + analyses
        yield (rules.fit.output[0].format(experiment=e, env=v), runs,
               figures + [rules.fit_table.output.md.format(paper=paper, experiment=e, env=v)] + analyses + [claims_rst])
    if PLAN.mechanism_claims:
        checked = ([check_path(c, "csv") for c in THEOREM_CHECKS]
                   + ([rules.privacy_audit.output.csv] if PLAN.mechanism_audit else [])
                   + ([rules.agent_audit.output.csv] if PLAN.audited_agents else []))
        yield rules.theorem_claims.output.csv, checked, [claims_rst]


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
    # Any other intermediate missing while its inputs and a consumer exist (an MDP, aggregate, fit or
    # the mechanism claims deleted, or removed by Snakemake with a job killed mid-write), or an MDP
    # file that is not the plan's MDP: forced like a corrupt run file (privrl.runs.lost).
    LOST.update(privrl_lost.lost_intermediates(planned_intermediates()))
    LOST.update(privrl_lost.changed_mdps({rules.mdp.output[0].format(experiment=c.experiment, env=c.env):
                                          SHARDS[PLAN.cell_shards[c.experiment, c.env, c.cell][0]]["key"]["mdp"]
                                          for c in CELLS if PLAN.cell_shards[c.experiment, c.env, c.cell]}))
    # An aggregate or fit whose bytes, provenance (code, params) or run files are not the ones its
    # record holds (edited by hand, copied from another run): rebuilt, never trusted
    # (privrl.runs.intermediates).
    for _e, _v in EXP_ENVS:
        _runs = [rules.run_cell.output.results.format(experiment=_e, env=_v, cell=c.cell) for c in cells_of(_e, _v)]
        for _name, _rule in (("aggregate", rules.aggregate), ("fit", rules.fit)):
            _path = _rule.output[0].format(experiment=_e, env=_v)
            _why = privrl_intermediates.mismatch(_path, made_by(_name, _e, _v), _runs)
            if _why is not None and _path not in LOST:
                LOST[_path] = f"{_why}; regenerate it with: snakemake --forcerun {_path}"
    for _why in list(CORRUPT_RUNS.values()) + list(LOST.values()):
        print(f"privrl: {_why.split('; regenerate')[0]}: it will be rerun", file=sys.stderr)


onstart:
    output_dirs.claim(config)  # results_dir and store_dir marked as privrl's (privrl.runs.output_dirs)
    for _tmp in privrl_io.remove_stale_temps(R) + privrl_io.remove_stale_temps(STORE):
        print(f"privrl: removed stale temporary {_tmp}", file=sys.stderr)
