from privrl import io
from privrl.papers import analysis, registry
from privrl.results import figures
from privrl.runs.joblog import logged

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    ctx = analysis.load_context(sm.wildcards.experiment, sm.params.experiment, sm.input.fits, sm.input.aggs,
                                sm.input.runs, sm.params.figures_dir, sm.params.n_boot, sm.params.runs)
    result = registry.analysis(sm.wildcards.analysis)(ctx)
    io.write_csv(sm.output.csv, result.table)
    io.write_text(sm.output.md, result.markdown)
    for path in (sm.output.pdf, sm.output.png):  # vector and raster copies (a closed Figure still saves)
        figures.save_or_placeholder(result.figure, path, sm.wildcards.analysis)
    io.write_csv(sm.output.claims, result.claims)
