"""The measured throughput of every agent (``throughput.csv``, written by
``bench/agent_throughput.py --write``): per agent, measured instance (env, S, A, H), variant and K,
the episodes x seeds / s on one core. :mod:`privrl.plan.cost` prices designs from it;
``check_agent`` reports whether an agent has rows."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

TABLE = Path(__file__).parent.parent / "throughput.csv"
VARIANT_NOISE_OFF, VARIANT_AGGREGATE = "noise-off", "aggregate"
#: an agent at matched coverage (``z > 0``: its privacy width z sd of its own release noise), whose
#: episode can cost another amount than at the paper's width (z = 0): the LDP agents then skip the
#: per-episode summed-noise bound (``laplace_sum_bound``, a fixed cost past n = 100 ln(2/d)); measured at z = 3
VARIANT_MATCHED = "matched-coverage"


def load_table(path: str | Path = TABLE) -> pd.DataFrame:
    return with_variant(pd.read_csv(path))


def with_variant(table: pd.DataFrame) -> pd.DataFrame:
    """The table with its ``variant`` column ('' where absent: a table of plain agents only)."""
    if "variant" in table.columns and table["variant"].dtype == object and not table["variant"].isna().any():
        return table
    old = table["variant"] if "variant" in table.columns else pd.Series("", index=table.index)
    return table.assign(variant=old.fillna("").astype(str))
