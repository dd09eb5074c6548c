"""The non-circular noise calibration (privrl.audit.label_noise): the noise the kernel releases against
the noise the agent's label implies. A correct agent's variance ratio is ~1 (no false alarm), the
probe's reduced noise is flagged, and a wrong agent that under-noises in its own code (PUCB's kernel
handed eps x10 while the label says eps) is flagged -- the rank-sum test against the kernel's own x1
cannot see it."""
import math

import numpy as np
import pytest

from privrl.audit import label_noise as ln
from privrl.audit import privacy as pa
from privrl.mechanisms import events as ev
from privrl.mechanisms.bitsum import bitsum_tau
from privrl.mechanisms.bounds import bitsum_variance

N = 2000
ALPHA = 0.05 / 100  # a family-wise-sized level


def test_label_variance_formulas():
    """Tree: popcount(t) nodes of Lap(L(K) 3H/eps); local Laplace: 2 b^2 per user so far; bit-sum:
    n_bits q (1 - q) per release so far -- from the label's eps, per counter."""
    p = {"epsilon": 1.0, "beta": 0.05}
    serial, t, m = np.array([1, 1, 1, 1]), np.array([1, 2, 3, 4]), np.array([1.0, 1.0, 2.0, 4.0])
    tree = ln.label_variance(ln.LABELS["pucb"], p, 2, 4, serial, t, m)
    b = 3 / (1.0 / 6.0)  # L(4) = 3 levels, eps' = eps / (3H) = 1/6
    assert np.allclose(tree, 2 * b * b * np.array([1, 1, 2, 1]))
    lap = ln.label_variance(ln.LABELS["private-ucbvi-ldp"], p, 2, 4, serial, t, m)
    assert np.allclose(lap, 2 * 12.0 ** 2 * np.array([1, 2, 4, 8]))
    obi = ln.label_variance(ln.LABELS["ldp-obi"], p, 2, 4, serial[:1], t[:1], m[:1])
    assert np.isclose(obi[0], 2 * 10.0 ** 2)
    bs = ln.label_variance(ln.LABELS["private-ucbvi-sdp"], p, 2, 4, serial, t, m)
    tau = bitsum_tau(1.0 / 6.0, 0.05)
    assert np.allclose(bs, np.cumsum([bitsum_variance(int(k), tau) for k in m]))
    assert set(ln.LABELS) == set(pa.AGENTS) - {"rlsvi"}  # RLSVI: privrl.audit.perturbation


def test_variance_ratio_test_is_calibrated():
    """Laplace noise at the label's variance: p-values ~ uniform; at 0.9 x the s.d. flagged."""
    rng = np.random.default_rng(1)
    v = np.array([2.0, 8.0, 18.0])
    ps = [ln.variance_ratio_test(rng.laplace(scale=np.sqrt(v / 2), size=(500, 3)), v)[0] for _ in range(200)]
    assert 0.04 < np.mean(np.array(ps) <= 0.1) < 0.18
    p, ratio, _ = ln.variance_ratio_test(0.9 * rng.laplace(scale=np.sqrt(v / 2), size=(N, 3)), v)
    assert p < 1e-6 and 0.75 < ratio < 0.87


@pytest.mark.parametrize("relation", ev.NEIGHBOURS)
def test_pucb_passes_at_its_label_and_reduced_noise_is_flagged(relation):
    rows = {r["variant"]: r for r in pa.power_curve("pucb", relation, np.random.default_rng(5), N, ALPHA,
                                                    (1.0, 1 / 1.02, 0.5))}
    assert rows["noise x1"]["verdict"] == "pass" and 0.97 < rows["noise x1"]["variance_ratio"] < 1.03
    assert rows["noise x1/1.02"]["verdict"] == "flagged" and rows["noise x1/2"]["verdict"] == "flagged"
    assert 0.24 < rows["noise x1/2"]["variance_ratio"] < 0.26
    assert "label" in rows["noise x1"]["statistic"] and math.isnan(rows["noise x1"]["spread_ratio"])


@pytest.mark.parametrize("relation", ev.NEIGHBOURS)
def test_an_agent_that_hands_its_privatizer_eps_x10_is_flagged(relation):
    """PUCB's kernel run with epsilon = 10 while its label says epsilon = 1 (the agent under-noises in
    its own code): the label calibration flags it at x1, variance ratio ~ 1/100; the table's row."""
    row = pa.wrong_agent_rows("pucb", relation, np.random.default_rng(6), N, ALPHA, {"epsilon": 10.0},
                              {"epsilon": 1.0})[0]
    assert row["test"] == pa.WRONG_AGENT and row["verdict"] == "flagged", row
    assert 0.008 < row["variance_ratio"] < 0.012
    assert row["claimed_epsilon"] == pa.claimed("pucb", relation, {"epsilon": 1.0})[0]


@pytest.mark.slow  # compiles each agent's noise probe (15-60 s each)
@pytest.mark.parametrize("agent", sorted(ln.LABELS))
def test_every_labelled_agent_passes_at_x1_and_its_half_noise_is_flagged(agent):
    """The non-circular 0-false-alarm test: every private agent with a label reference, its kernel
    as registered, at x1 under its headline relation (replacement)."""
    rows = {r["variant"]: r for r in pa.power_curve(agent, ev.REPLACEMENT, np.random.default_rng(7), N, ALPHA,
                                                    (1.0, 0.5))}
    assert rows["noise x1"]["verdict"] == "pass", rows["noise x1"]
    assert 0.95 < rows["noise x1"]["variance_ratio"] < 1.05, rows["noise x1"]
    assert rows["noise x1/2"]["verdict"] == "flagged", rows["noise x1/2"]


@pytest.mark.slow  # compiles the private-UCBVI noise probe (~20 s)
def test_a_central_privatizer_where_shuffle_noise_is_claimed_is_flagged(temporary_agent):
    """A new agent (no LABELS entry: its label is the default of the privacy model it claims) that
    declares the shuffle bit-sum privatizer and the SDP guarantee but whose code calls the central
    tree (private-UCBVI's kernels with the central-tree kind): flagged at x1; the same kernels
    registered honestly (central-tree declared) pass."""
    import dataclasses

    from privrl.agents import registry
    from privrl.agents.private_ucbvi import CENTRAL_TREE

    sdp = registry.get("private-ucbvi-sdp")
    probe = dataclasses.replace(sdp.audit_probe, extra=lambda p: (CENTRAL_TREE, False))
    wrong = temporary_agent(dataclasses.replace(sdp, name="test-central-door-claims-shuffle", audit_probe=probe))
    assert ln.label_of(wrong) is ln.DEFAULT_BY_MODEL["SDP"]
    row = pa.power_curve(wrong, ev.REPLACEMENT, np.random.default_rng(8), 1000, ALPHA, (1.0,))[0]
    assert row["verdict"] == "UNDER-NOISED" and row["variance_ratio"] < 0.5, row
    jdp = registry.get("private-ucbvi-jdp")
    honest = temporary_agent(dataclasses.replace(jdp, name="test-central-door-honest"))
    assert ln.label_of(honest) is ln.DEFAULT_BY_MODEL["JDP"]
    # an agent claiming SDP that declares the central tree still gets the shuffle label
    liar = temporary_agent(dataclasses.replace(sdp, name="test-declares-central-claims-shuffle",
                                               privatizer="central-tree"))
    assert ln.label_of(liar) is ln.DEFAULT_BY_MODEL["SDP"]
    row = pa.power_curve(honest, ev.REPLACEMENT, np.random.default_rng(9), 1000, ALPHA, (1.0,))[0]
    assert row["verdict"] == "pass" and 0.93 < row["variance_ratio"] < 1.07, row
