"""Lu et al. (2026) Cor. 14 check (privrl.papers.lu2026.cor14) at smoke size, its grid from the
experiments, and where the library's order grid ends."""

from privrl.papers.lu2026 import cor14 as lu2026_cor14


def test_lu_cor14(tmp_path):
    grid = [{"K": 100, "H": 5, "S": 3, "A": 2}, {"K": 10**4, "H": 20, "S": 10, "A": 4}]
    df = lu2026_cor14.check_lu_cor14(None, grid=grid, deltas=(1e-3, 1e-6))
    assert len(df) == 4 and df["holds"].all()
    assert (df["rel_diff"] <= 1e-9).all()
    lu2026_cor14.figure_lu_cor14(df, tmp_path / "e.png")


def test_lu_grid_from_experiments():
    cfg = {"experiments": {
        "a": {"envs": {"r": {"name": "riverswim", "params": {"S": 4, "H": 5}}}, "cells": [{"agent": "rlsvi"}],
              "episodes": 100},
        "b": {"envs": {"r": {"name": "riverswim", "params": {"S": 4, "H": 5}}}, "cells": [{"agent": "ucbvi"}],
              "episodes": 100}}}
    assert lu2026_cor14.lu_grid_from_experiments(cfg) == [{"K": 100, "H": 5, "S": 4, "A": 2}]


def test_lu_cor14_holds_where_the_library_order_grid_ends():
    """alpha* <= 1.01 (RLSVI's own eps at K = 4e6 on S=2 H=3): dp_accounting cannot use the optimal
    order and is looser than Cor. 14; the check compares with the exact Gaussian there and holds."""
    df = lu2026_cor14.check_lu_cor14(None, grid=[{"K": 4_000_000, "H": 3, "S": 2, "A": 2},
                                           {"K": 1000, "H": 5, "S": 5, "A": 2}], deltas=(1e-5,))
    far, near = df.iloc[0], df.iloc[1]
    assert not far.library_in_domain and far.eps_rdp_library > far.eps_cor14  # the library's limit
    assert far.eps_exact_gaussian <= far.eps_cor14 and far.holds
    assert near.library_in_domain and near.holds
    assert "exact Gaussian only" in lu2026_cor14._cor14_measured(df)
