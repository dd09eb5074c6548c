"""Runs: one cell's seeds through the engine (:mod:`.run`), their resumable state (:mod:`.state`),
the content-keyed store of shards (:mod:`.store`), the output folders (:mod:`.output_dirs`) and the
Snakemake jobs' logging (:mod:`.joblog`)."""
