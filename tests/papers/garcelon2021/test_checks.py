"""Garcelon et al. (2021) theorem checks: the Eq. 7-8 coverage and Prop. 5 at smoke size, Prop. 7's
widths and the one-sided rule catching narrow ones."""

import numpy as np

from privrl.papers import garcelon2021
from privrl.papers.garcelon2021 import prop7 as g7


def test_garcelon_coverage(tmp_path):
    df = garcelon2021.check_garcelon_coverage(np.random.SeedSequence(1), k_grid=(10, 100), n_trials=300)
    assert len(df) == 6 and df["holds"].all()
    garcelon2021.figure_garcelon_coverage(df, tmp_path / "b.png")


def test_garcelon_prop5(tmp_path):
    df = garcelon2021.check_garcelon_prop5(None, k_grid=(100, 1000), eps0_grid=(1.0, 2.0))
    assert df["holds"].all()
    assert (df.groupby("eps0")["eps_ck"].apply(lambda s: s.is_monotonic_decreasing)).all()
    garcelon2021.figure_prop5(df, tmp_path / "d.png")


def test_prop7_widths_cover_and_the_rule_catches_narrow_widths():
    d = g7.check_garcelon_prop7(np.random.default_rng(1), k_grid=(30,), n_trials=20)
    assert d["holds"].all() and (d["quantile_ratio_r"] < 1).all() and (d["quantile_ratio_p"] < 1).all()
    # without privacy noise (eps0 huge: p ~ 0) the statistical widths remain and still cover
    d = g7.check_garcelon_prop7(np.random.default_rng(2), k_grid=(200,), eps0=200.0, n_trials=20)
    assert d["holds"].all() and d["p"].iloc[0] < 1e-3
