"""The noise's law, not only its variance (privrl.audit.label_noise.law_test, privrl.audit.perturbation):
noise with the label's variance but another law -- bounded support (eps = inf), or Gaussian where the
label is a Laplace sum -- is flagged, which the variance-ratio test cannot see; the label's own law is
not; RLSVI's perturbation is calibrated against its label's analytic law, not against its own x1."""
import numpy as np
import pytest

from privrl.audit import label_noise as ln
from privrl.audit import perturbation as pt
from privrl.audit import privacy as pa
from privrl.mechanisms import events as ev

P = {"epsilon": 1.0, "beta": 0.05, "m": 1.0, "_K": 4}
H, K, N = 2, 4, 2000


def _layout(counters=32, releases=4):
    """PUCB's release layout on the audit's instance: one privatizer, ``counters`` values per release."""
    t = np.repeat(np.arange(1, releases + 1), counters)
    return np.ones(len(t), np.int64), t, np.ones(len(t))


def _law(noise, label, serial, t, m, rng):
    exact = np.zeros_like(noise)
    samples = {"U": (noise, serial, t, m, exact)}
    return ln.law_calibration(label, samples, P, H, rng)


@pytest.mark.parametrize("agent", ["pucb", "ldp-obi", "private-ucbvi-sdp"])
def test_noise_of_the_label_law_passes_and_bounded_noise_of_its_variance_is_flagged(agent):
    """The fixture: the label's own law (drawn by label_law_draw) against two impostors with exactly the
    label's variance per value: uniform noise (bounded support) and, for the Laplace labels, a Gaussian."""
    lab, rng = ln.LABELS[agent], np.random.default_rng(1)
    serial, t, m = _layout()
    v = ln.label_variance(lab, P, H, K, serial, t, m)
    good = ln.label_law_draw(lab, P, H, K, serial, t, m, np.zeros((N, len(t))), rng)
    p, ks, tail = _law(good, agent, serial, t, m, rng)
    assert p > 1e-3 and 0.7 < tail < 1.3, (p, ks, tail)
    assert 0.95 < ln.variance_ratio_test(good, v)[1] < 1.05
    uniform = rng.uniform(-1.0, 1.0, good.shape) * np.sqrt(3.0 * v)
    assert ln.variance_ratio_test(uniform, v)[0] > 1e-3  # the second moment is the label's: not seen there
    p, ks, tail = _law(uniform, agent, serial, t, m, rng)
    assert p < 1e-12 and tail == 0.0, (p, ks, tail)
    if lab.kind != "shuffle-bitsum":  # a Laplace (sum) label: a Gaussian of its variance has lighter tails
        p, _, tail = _law(rng.normal(size=good.shape) * np.sqrt(v), agent, serial, t, m, rng)
        assert p < 1e-6 and tail < 0.5, (p, tail)


def test_the_law_test_is_calibrated_under_its_null():
    """20 audit seeds of the label's own law (PUCB's tree layout): about alpha of them below alpha."""
    lab = ln.LABELS["pucb"]
    serial, t, m = _layout(8)
    ps = []
    for seed in range(20):
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        good = ln.label_law_draw(lab, P, H, K, serial, t, m, np.zeros((1000, len(t))), rng)
        ps.append(_law(good, "pucb", serial, t, m, rng)[0])
    assert np.mean(np.array(ps) <= 0.05) <= 0.15 and np.median(ps) > 0.2, ps


def test_rlsvi_perturbation_is_calibrated_against_its_label_law():
    """RLSVI's perturbation w (its kernel's perturbed_plan argument, N recounted from the script): at its
    label the variance ratio is ~1 and it passes; its kernel at beta_scale 10/9 against the label 10 (sd/3 in
    its own code: the accountant's eps 7.7 against 2.16) and the probe's x1/1.2 are flagged."""
    rows = {r["variant"]: r for r in pa.power_curve("rlsvi", ev.REPLACEMENT, np.random.default_rng(5), 1000,
                                                    0.05 / 100, (1.0, 1 / 1.2))}
    assert rows["noise x1"]["verdict"] == "pass" and 0.95 < rows["noise x1"]["variance_ratio"] < 1.05, rows["noise x1"]
    assert rows["noise x1/1.2"]["verdict"] == "flagged" and "label's law" in rows["noise x1"]["statistic"]
    wrong = pa.wrong_agent_rows("rlsvi", ev.REPLACEMENT, np.random.default_rng(6), 1000, 0.05 / 100,
                                {"beta_scale": 10.0 / 9.0}, {"beta_scale": 10.0})[0]
    assert wrong["verdict"] == "flagged" and 0.09 < wrong["variance_ratio"] < 0.13, wrong
    sd = pt.label_sd(pa.script(4, 0, "A", 1), np.zeros((1, 4, H), np.int64), 10.0, 2, 2)
    assert np.isclose(sd[0, 0, 0, 1, 0], np.sqrt(10.0 * 0.5 * 2 * 8 * np.log(2 * 2 * 2 * 2 * 1)))  # k = 1, N = 0
    beta2 = 10.0 * 0.5 * 2 * 8 * np.log(16 * 2)  # k = 2: user 0 (A, state 0, action 0) visited (h, 0, 0)
    assert np.isclose(sd[0, 1, 0, 0, 0], np.sqrt(beta2 / 2)) and np.isclose(sd[0, 1, 0, 1, 0], np.sqrt(beta2))


def test_a_door_releasing_bounded_noise_of_the_label_variance_is_flagged_by_its_law(agent="pucb"):
    """The probe's bounded-noise door (every released value's noise replaced by +-sd of its own variance:
    the label's second moment, eps = inf): the variance ratio reads ~1 and the variance test alone would
    pass it; the law test flags it (tail ratio 0)."""
    row = pa.power_curve(agent, ev.REPLACEMENT, np.random.default_rng(9), 1000, 0.05 / 100, (1.0,),
                         variant="bounded-noise")[0]
    assert row["verdict"] == "flagged" and row["variant"] == "bounded-noise, noise x1", row
    assert 0.95 < row["variance_ratio"] < 1.05 and row["law_p_value"] < 1e-12 and row["tail_ratio"] == 0.0, row
