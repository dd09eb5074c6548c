"""The papers' theorem checks through the registry: every registered check runs at tiny sizes and yields
one claim row; the check figures pass the figure check; Vietri's counters and Lu's Lemma 11 chain."""
from __future__ import annotations

import numpy as np
import pytest

from privrl.papers import registry


def test_claims_of_every_registered_check(tmp_path):
    """Every registered check runs at tiny sizes through its registry record and yields one claim row."""
    sizes = {"binary_mechanism": {"T_grid": [64], "n_trials": 50}, "garcelon_coverage": {"k_grid": [10], "n_trials": 50},
             "bitsum_lemma42": {"eps_grid": [0.5, 0.9], "n_trials": 500}, "garcelon_prop5": {"k_grid": [100]},
             "lu_cor14": {"from_experiments": False}, "lu2026_rlsvi_audit": {"eps_targets": [4.0], "n_trials": 400},
             "vietri_claim1": {"grid": [{"S": 2, "A": 2, "H": 2}]},
             "vietri_counters": {"T_grid": [64], "n_trials": 20}, "lu_lemma11": {"grid": [{"S": 2, "A": 2, "H": 3}]},
             "vietri_lemma8": {"grid": [{"S": 2, "A": 2, "H": 2}], "betas": [0.01]},
             "garcelon_prop7": {"k_grid": [10], "n_trials": 10}, "bai_assumption4": {"n_users": 50, "n_trials": 10},
             "bai_elimination": {"agents": ["pe"], "C_grid": [0.18], "K": 200, "n_seeds": 5}}
    checks = registry.theorem_checks()
    assert set(checks) == {"binary_mechanism", "vietri_claim1", "vietri_counters", "garcelon_coverage",
                           "garcelon_prop5", "bitsum_lemma42", "lu_cor14", "lu2026_rlsvi_audit", "lu_lemma11",
                           "vietri_lemma8", "garcelon_prop7", "bai_assumption4", "bai_elimination"}
    config = {"mechanisms": {"checks": sizes}, "experiments": {}}
    valid = registry.check_sizes(config)
    tables = {n: c.run(np.random.default_rng(0), **c.arguments(valid[n], config)) for n, c in checks.items()}
    rows = registry.theorem_check_claims(tables, {n: f"{n}.png" for n in tables})
    assert [r.claim_id for r in rows] == list(checks)
    # bai_elimination at K = 200 eliminates nothing: its lemmas untested, "not reached"
    assert all(r.verdict in ({"checked", "contradicted"} if r.kind == "check" else {"reproduced", "contradicted"})
               for r in rows if r.claim_id not in ("bai_elimination", "lu2026_rlsvi_audit"))
    assert next(r for r in rows if r.claim_id == "bai_elimination").verdict == "not reached"
    # the end-to-end RLSVI audit does not flag half the noise at these sizes: no power, "consistent"
    audit = next(r for r in rows if r.claim_id == "lu2026_rlsvi_audit")
    assert audit.verdict == "consistent" and "with noise sd x0.5" in audit.measured
    assert {r.claim_id for r in rows if r.kind == "check"} == {"lu_cor14", "vietri_claim1", "lu_lemma11", "vietri_lemma8"}


@pytest.mark.slow  # ~7 s: compiles SDP-PE's kernel and renders four figures
def test_new_check_figures_pass_the_figure_check(tmp_path):
    """The four checks' figures at tiny sizes: column width, readable, legends off the data."""
    from privrl.papers import registry
    from privrl.results import figure_check

    tiny = {"vietri_lemma8": {}, "garcelon_prop7": {"k_grid": [10, 100], "n_trials": 10},
            "bai_assumption4": {"n_users": 50, "n_trials": 10},
            "bai_elimination": {"agents": ["pe", "sdp-pe-jdp"], "C_grid": [0.18, 1.0], "K": 500, "n_seeds": 5}}
    checks = registry.theorem_checks()
    for name, sizes in tiny.items():
        c = checks[name]
        c.figure(c.run(np.random.default_rng(0), **c.arguments(sizes, {"experiments": {}})), tmp_path / f"{name}.png")
    assert figure_check.figure_problems(tmp_path) == []


def test_vietri_counters_within_e_and_lu_lemma11_chain():
    from privrl.papers import registry
    from privrl.papers.lu2026.lemma11 import check_lemma11
    from privrl.papers.vietri2020.checks import check_counters_within_e

    d = check_counters_within_e(np.random.default_rng(0), S=1, A=2, H=2, T_grid=(64, 512), n_trials=30)
    assert d["holds"].all() and (d["quantile_max_error"] < d["E_eps"]).all()
    lem = check_lemma11(None, ({"S": 2, "A": 2, "H": 3}, {"S": 1, "A": 2, "H": 1}))
    assert lem["holds"].all() and (lem["worst_step_ratio"] <= 1 + 1e-12).all()
    checks = registry.theorem_checks()
    assert checks["lu_lemma11"].kind == "check" and "vietri_counters" in checks
