"""The shipped designs' tau = K^(1/3) cells run their local randomizer at the eps Garcelon et al.
(Sec. 4, Table 1) prescribe for the experiment's own K, ln(1 + eps0 K^(1/6)): a K changed without
the cell's eps would label a cell eps0 that delivers another eps0."""
import math
from pathlib import Path

import pytest

from privrl.design import config_files
from privrl.design.experiments import SHIPPED_DESIGNS, resolve_overlay

ROOT = Path(__file__).resolve().parents[2]


def _k13_cells(design: str):
    path = ROOT / design
    cfg = resolve_overlay(config_files.load_yaml(path), ROOT, path)
    for name, exp in (cfg.get("experiments") or {}).items():
        for cell in (exp or {}).get("cells") or []:
            params, tags = cell.get("params") or {}, cell.get("tags") or {}
            if params.get("tau_power") and "eps0" in tags:
                yield name, int(exp["episodes"]), float(params["epsilon"]), float(tags["eps0"])


@pytest.mark.parametrize("design", SHIPPED_DESIGNS)
def test_k13_cells_run_at_the_local_eps_of_their_K(design):
    cells = list(_k13_cells(design))
    assert cells, f"{design}: no tau = K^(1/3) cell found"
    for name, K, eps, eps0 in cells:
        want = math.log(1.0 + eps0 * K ** (1.0 / 6.0))
        assert math.isclose(eps, want, rel_tol=1e-8), (
            f"{design}: {name} runs its tau = K^(1/3) cell at local eps {eps}, but K = {K:g} and eps0 = {eps0:g} "
            f"prescribe ln(1 + eps0 K^(1/6)) = {want:.9f}")
