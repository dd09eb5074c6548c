"""Bai et al. Table I's trust rows on synthetic runs (privrl.papers.bai_sdp_pe.trust_rows): shuffle vs
local needs an elimination and a minimum effect; shuffle over central bounded only in regime."""
import math

import numpy as np

from privrl.results import verdicts as V
from privrl.papers import bai_sdp_pe as bai

from tests.papers.synthetic import SDP, run_context as _context


def test_shuffle_vs_local_needs_an_elimination_and_a_minimum_effect(tmp_path):
    lin = lambda k: 0.3 * k  # noqa: E731  explorers: linear regret
    cells = [("sdp-pe-jdp", SDP, lin, 1.0), ("sdp-pe", SDP, lin, 1.0),
             ("sdp-pe-ldp", SDP, lambda k: 0.3 * 1.15 * k, 1.0)]
    _, claims = bai.trust_rows(_context(tmp_path, cells))
    got = {c.claim_id.split("_")[1]: c for c in claims}
    local = [c for c in claims if "shuffle_lt_local" in c.claim_id][0]
    assert local.verdict == V.NOT_REACHED and math.isfinite(local.k_needed)  # ratio 1.15, nothing eliminated
    assert "no policy eliminated" in local.regime
    assert got  # the ratio claim is emitted too
    # with an elimination and R_local / R_shuffle = 3 the strong order is reproduced
    cells = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: 40 * np.sqrt(k), 0.5),
             ("sdp-pe-ldp", SDP, lambda k: 120 * np.sqrt(k), 1.0)]
    _, claims = bai.trust_rows(_context(tmp_path, cells))
    local = [c for c in claims if "shuffle_lt_local" in c.claim_id][0]
    assert local.verdict == V.REPRODUCED


def test_shuffle_over_central_ratio_bounded_only_in_regime(tmp_path):
    cells = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: 60 * np.sqrt(k), 0.5)]
    _, claims = bai.trust_rows(_context(tmp_path, cells))
    ratio = [c for c in claims if "shuffle_matches_central" in c.claim_id][0]
    assert ratio.kind == "ratio" and ratio.verdict == V.REPRODUCED  # crossover ~ 4e3 << window [2e5, 2e6]
    assert "central <= shuffle" in ratio.statement and "not scored" in ratio.statement
    grow = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: k**0.75, 0.5)]
    _, claims = bai.trust_rows(_context(tmp_path, grow))
    assert [c for c in claims if "shuffle_matches_central" in c.claim_id][0].verdict == V.CONTRADICTED
    # a shuffle run still linear at K after eliminating policies has lost pi*: never contradicted
    lost = [("sdp-pe-jdp", SDP, lambda k: 30 * np.sqrt(k), 0.5), ("sdp-pe", SDP, lambda k: 0.3 * k, 0.5)]
    _, claims = bai.trust_rows(_context(tmp_path, lost))
    c = [c for c in claims if "shuffle_matches_central" in c.claim_id][0]
    assert c.verdict == V.INCONCLUSIVE and "eliminated pi* on 6/6 seeds" in c.regime
    # the same growing ratio before the shuffle run's crossover (C = 1: crossover ~ 6e7) is "not reached"
    big = {**SDP, "C": 1.0, "C1": 6.0}
    grow = [("sdp-pe-jdp", big, lambda k: 30 * np.sqrt(k), 1.0), ("sdp-pe", big, lambda k: 0.3 * k, 1.0)]
    _, claims = bai.trust_rows(_context(tmp_path, grow))
    c = [c for c in claims if "shuffle_matches_central" in c.claim_id][0]
    assert c.verdict == V.NOT_REACHED and c.k_needed > 1e8
