"""Bai et al. Thm 6 against its explicit Eq. (29) (privrl.papers.bai_sdp_pe.eq29): Lemma 25's sum over
the run's stages; regret above it is inconclusive, never contradicted."""
from __future__ import annotations

import math

import pytest

from privrl.papers.bai_sdp_pe import eq29
from privrl.results import verdicts as V
from privrl.rl import envs


def test_eq29_is_lemma_25s_sum_over_the_runs_stages():
    """K = 12: stages L = (2, 4) (2 x (2 + 4) = 12); PE's E is 1 (pe_privacy.error_level)."""
    mdp = envs.make("garnet", S=2, A=2, branching=2, H=1, seed=1)
    info = {"agent": "pe", "params": {"delta": 0.05, "C": 0.5, "C1": 3.0, "max_policies": 65536.0}}
    X, A, H, iota = 2, 2, 1, math.log(2 * 1 * 2 * 12 / 0.05)
    want = 4 * H + 8 * 0.5 * 4 * (math.sqrt(H**5 * X**2 * A * iota / 2) + 1.0 * X**3 * A**2 * H**5 * iota / 2)
    assert eq29.eq29_bound(info, mdp, 12) == pytest.approx(want)


def test_regret_above_eq29_is_inconclusive_never_contradicted():
    mdp = envs.make("garnet", S=2, A=2, branching=2, H=1, seed=1)
    info = {"agent": "pe", "params": {"delta": 0.05, "C": 1.0, "C1": 6.0, "max_policies": 65536.0}}
    K = 1e10
    b = eq29.eq29_bound(info, mdp, int(K))
    assert b < K * 0.1  # non-vacuous at K = 1e10 on this garnet
    assert eq29.score_below_eq29((b / 10, b / 11, b / 9), info, mdp, K, 0.1).verdict == V.REPRODUCED
    above = eq29.score_below_eq29((10 * b, 9 * b, 11 * b), info, mdp, K, 0.1)
    assert above.verdict == V.INCONCLUSIVE and "C = 1" in above.regime
    vac = eq29.score_below_eq29((1.0, 1.0, 1.0), info, mdp, 1e3, 0.1)
    assert vac.verdict == V.NOT_REACHED and vac.k_needed > 1e3
