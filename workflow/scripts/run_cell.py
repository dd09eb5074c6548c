from privrl import io, run
from privrl.rl import mdp
from privrl.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    cell = sm.params.cell
    m = mdp.load(sm.input.mdp)
    df, info = run.run(cell.agent, cell.params, m, sm.params.episodes, sm.params.seeds,
                       experiment=cell.experiment, setting=cell.setting, n_checkpoints=sm.params.n_checkpoints)
    info.update(cell=cell.cell, label=cell.label, tags=dict(cell.tags))
    log.info("%s: %d seeds x %d episodes in %.2fs", cell.cell, len(info["seeds"]), info["episodes"], info["seconds"])
    io.write_run(sm.output.results, sm.output.info, df, info)  # the JSON records the parquet's sha256
