"""Vietri et al. (2020) theorem checks: Claim 1's sensitivity under both neighbour relations, Lemma 8's
closed forms, and the binary mechanism (App. A Thm 12) at smoke size."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.papers.vietri2020 import checks as vc
from privrl.papers import vietri2020


def test_claim1_sensitivity_is_h_for_add_remove_and_2h_for_replacement():
    from privrl.papers import registry
    from privrl.papers.vietri2020.checks import check_claim1, visit_counts

    assert visit_counts(2, 2, 3).shape == (4 ** 3, 3 * 4)
    df = check_claim1(None, ({"S": 2, "A": 2, "H": 2}, {"S": 3, "A": 2, "H": 3}))
    assert df["holds"].all()
    assert list(df["l1_replacement"]) == [4, 6] and list(df["l1_add_remove"]) == [2, 3]
    chk = registry.theorem_checks()["vietri_claim1"]
    assert chk.kind == "check"


def test_lemma8_closed_forms_and_range():
    # the last line of Lemma 10's proof at beta -> 0 is H S (A-1) ln(7/4) / (336 eps alpha)
    assert vc.hard_instance_first_step(2, 3, 4, 1.0, 0.1, 1e-300) == pytest.approx(4 * 2 * 2 * math.log(7 / 4) / 33.6)
    assert vc.lemma8_pulls(1.0, 0.5, 0.25) == 0.0           # ln(1/(4 beta)) vanishes at beta = 1/4
    d = vc.check_lemma8(None, grid=({"S": 2, "A": 2, "H": 2},), betas=(1e-3, 0.124))
    assert d["holds"].all() and (d["beta_s"] < 0.25).all() and (d["eq4_gap"] > 0.0625 - 1e-12).all()
    # beta_s reaches 1/4 at beta = 1/8: the proof's beta < 1/8 is exactly what Lemma 8 needs
    assert 1 - 6 / 7 * (1 - 0.125) == pytest.approx(0.25)


def test_binary_mechanism_thm12(tmp_path):
    df = vietri2020.check_binary_mechanism(np.random.default_rng(0), T_grid=(64, 256, 1024), n_trials=200)
    assert df["holds"].all() and list(df["T"]) == [64, 256, 1024]
    assert (df["quantile_max_error"].diff().dropna() > 0).all()
    vietri2020.figure_binary_mechanism(df, tmp_path / "a.png")
    assert (tmp_path / "a.png").stat().st_size > 0
