"""Thin glue: run the privrl.papers.theorem_checks checks, write each CSV and figure atomically."""
from privrl import io
from privrl.rl import seeding
from privrl.papers import theorem_checks as mc
from privrl.joblog import logged

CHECKS = {
    "binary_mechanism": (mc.check_binary_mechanism, mc.figure_binary_mechanism),
    "garcelon_coverage": (mc.check_garcelon_coverage, mc.figure_garcelon_coverage),
    "bitsum_lemma42": (mc.check_bitsum_lemma42, mc.figure_bitsum),
    "garcelon_prop5": (mc.check_garcelon_prop5, mc.figure_prop5),
    "lu_cor14": (mc.check_lu_cor14, mc.figure_lu_cor14),
}

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    for name in sm.params.checks:
        sizes = dict(sm.params.sizes[name])
        if name == "lu_cor14":
            grid = [dict(g) for g in sizes.pop("grid", [])]
            if sizes.pop("from_experiments", True):
                grid += [g for g in mc.lu_grid_from_experiments(sm.config) if g not in grid]
            if grid:
                sizes["grid"] = grid
        check, figure = CHECKS[name]
        log.info("check %s with sizes %s", name, sizes)
        df = check(seeding.generator("mechanisms", name, int(sm.params.seed)), **sizes)
        log.info("\n%s", df.to_string())
        io.write_csv(sm.output[f"{name}_csv"], df)
        figure(df, sm.output[f"{name}_png"])
