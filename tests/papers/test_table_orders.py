"""Table orders (privrl.papers.table_orders): scored only where the tables' privacy terms dominate
(Garcelon et al. Table 1, Bai et al. Table I)."""
from __future__ import annotations

import math

import pytest

from privrl.papers import table_orders as T
from privrl.results import verdicts as V
from privrl.rl import envs


@pytest.mark.parametrize("K", [1e4, 1e6, 1e10])
def test_table1_forms_put_ldp_above_jdp_only_below_eps0_one_half(K):
    mdp = envs.make("riverswim", S=2, H=3)
    assert T.eps_threshold("garcelon2021", "LDP", "JDP", K, mdp) == pytest.approx(T.garcelon_eps_threshold(K), rel=1e-6)
    assert T.garcelon_eps_threshold(K) < 0.5 and T.MARGIN == V.THRESHOLDS.strong_ratio
    r, k_from, note = T.dominance("garcelon2021", "LDP", "JDP", 100.0, K, mdp)
    assert r == pytest.approx(math.sqrt(K) / 100 / (math.sqrt(K) + 0.01)) and k_from == math.inf
    assert "at no K" in note
    assert math.isfinite(T.dominance("garcelon2021", "LDP", "JDP", 0.25, K, mdp)[1])


def test_bai_table_i_forms_on_the_cross_model_instance():
    """RiverSwim S=2, H=3 (X=2, A=2): LDP/JDP -> 1 + sqrt(X^3 A H^3)/eps = 1 + 20.8/eps, so eps = 10 is
    dominated; the SDP row's larger statistical term sqrt(X^2AH^5K) needs eps below ~2.8."""
    mdp = envs.make("riverswim", S=2, H=3)
    r, k_from, _ = T.dominance("bai_sdp_pe", "LDP", "JDP", 10.0, 1e7, mdp)
    assert r == pytest.approx(1 + math.sqrt(2**3 * 2 * 3**3) / 10, rel=1e-2) and k_from <= 1e7
    assert T.dominance("bai_sdp_pe", "LDP", "SDP", 10.0, 1e7, mdp)[1] == math.inf
    assert T.dominance("bai_sdp_pe", "LDP", "SDP", 1.0, 1e7, mdp)[1] <= 1e7
