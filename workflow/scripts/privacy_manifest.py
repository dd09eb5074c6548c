"""Rule ``privacy_manifest``: every cell's privacy guarantees as its run recorded them
(privrl.audit.privacy.privacy_manifest), one CSV for the run and the report."""
import json

from privrl import io
from privrl.runs.joblog import logged
from privrl.audit.privacy import privacy_manifest

with logged(snakemake) as log:  # noqa: F821
    sm = snakemake  # noqa: F821
    infos = [json.loads(open(p).read()) for p in sm.input.infos]
    df = privacy_manifest(infos)
    log.info("%d guarantee rows from %d cells", len(df), len(infos))
    io.write_csv(sm.output.csv, df)
