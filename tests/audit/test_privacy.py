"""End-to-end agent privacy audits (several users and releases, statistics over the joint release):
each private agent's kernel passes at its claimed eps under every relation it claims, and every
broken class -- half noise, noise dropped at the tree's higher levels, noise reused across
releases, noise shared across counters, RLSVI at a tenth of its noise -- is flagged (the audit
has power). The broken variants are the probe's swapped door (privrl.audit.probe)."""
import numpy as np
import pandas as pd
import pytest

from privrl.audit import privacy as pa
from privrl.audit import probe
from privrl.agents import registry
from privrl.agents import pucb, ucbvi
from privrl.mechanisms import events as ev

CASES = [(a, r) for a in pa.AGENTS for r in ev.NEIGHBOURS if pa.claimed(a, r) is not None]
N_FAST = 4000


def test_every_private_agent_is_audited_under_its_relations():
    assert {a for a, _ in CASES} == set(pa.AGENTS) and "rlsvi" in pa.AGENTS
    central = {"pucb", "private-ucbvi-jdp", "dp-ucbvi-jdp", "sdp-pe-jdp"}
    assert {a for a, r in CASES if r == ev.ADD_REMOVE} == central
    assert all((a, ev.REPLACEMENT) in CASES for a in pa.AGENTS)


@pytest.mark.parametrize("relation", ev.NEIGHBOURS)
def test_tree_agent_passes_and_its_broken_doors_are_flagged(relation):
    """PUCB (binary-mechanism counters), 4 users: the agent passes at its claim; noise dropped at the
    tree's levels >= 1, noise reused across releases and noise shared across counters are flagged."""
    rng = np.random.default_rng(11)
    ok = pa.audit_agent("pucb", relation, rng, N_FAST)
    assert ok["verdict"] == "pass", ok
    for variant in pa.BROKEN:
        bad = pa.audit_agent("pucb", relation, rng, N_FAST, variant=variant)
        assert bad["verdict"] == "flagged" and bad["epsilon_lower_bound"] > bad["claimed_epsilon"], bad


@pytest.mark.slow  # ~1 min: 3e5 runs per sequence
def test_half_noise_on_a_tree_agent_is_flagged():
    """Half of every node's noise, same claim: the first user lies in every level's node of its
    counters, so its privacy loss doubles (2 eps against the claimed eps under add/remove)."""
    bad = pa.audit_agent("pucb", ev.ADD_REMOVE, np.random.default_rng(12), 300_000, 0.5, positions=(0,))
    assert bad["verdict"] == "flagged", bad


def test_rlsvi_passes_and_a_tenth_of_its_noise_is_flagged():
    """RLSVI's perturbed Q-values (rewards-only neighbours, Lu et al. Remark 2) against its tightest
    claim; beta_k / 100 (noise sd / 10) with the same claim is flagged."""
    rng = np.random.default_rng(15)
    ok = pa.audit_agent("rlsvi", ev.REPLACEMENT, rng, 30_000)
    assert ok["verdict"] == "pass", ok
    bad = pa.audit_agent("rlsvi", ev.REPLACEMENT, rng, 30_000, 0.1)
    assert bad["verdict"] == "flagged", bad


@pytest.mark.slow  # ~1 min
def test_rlsvi_tenth_of_its_noise_is_flagged_at_a_larger_sample():
    bad = pa.audit_agent("rlsvi", ev.REPLACEMENT, np.random.default_rng(16), 100_000, 0.1)
    assert bad["verdict"] == "flagged", bad


@pytest.mark.slow
@pytest.mark.parametrize("agent,relation", CASES)
def test_every_agent_passes_at_its_claim(agent, relation):
    ok = pa.audit_agent(agent, relation, np.random.default_rng(7), 20_000)
    assert ok["verdict"] == "pass", ok


def test_probe_runs_the_agent_kernel_on_scripted_users():
    """PUCB, one user: the released counters are exactly that user's counts plus the tree's
    Laplace noise (scale 3H/eps at K = 1), and the empty user releases noise alone."""
    mdp = pa.tiny_mdp()
    rng = np.random.default_rng(0)
    y = probe.sample_releases("pucb", {}, mdp.P, pa.script(1, 0, "A"), 20000, rng)
    z = probe.sample_releases("pucb", {}, mdp.P, pa.script(1, 0, "empty"), 20000, rng)
    diff = y.mean(0) - z.mean(0)
    assert np.sort(np.round(diff))[-6:].tolist() == [1.0] * 6 and np.abs(np.round(diff)).sum() == 6
    assert np.allclose(z.std(0), np.sqrt(2) * 3 * 2 / 1.0, rtol=0.05)


def test_broken_variants_do_what_they_say():
    """On PUCB's releases (4 users): reused noise makes consecutive releases differ by exact
    counts, shared noise makes counters of one release differ by exact counts, dropped levels
    make the release at t = 2 (level 1 alone) exact; the dyadic increments are the tree's nodes."""
    mdp, rng = pa.tiny_mdp(), np.random.default_rng(5)
    sc = pa.script(4, 0, "A")
    Y = probe.sample_releases("pucb", {}, mdp.P, sc, 200, rng, variant="reused-noise")
    D = Y.shape[1] // 4
    assert np.all(np.abs(Y[:, D:2 * D] - Y[:, :D] - np.round(Y[:, D:2 * D] - Y[:, :D])) < 1e-9)
    Y = probe.sample_releases("pucb", {}, mdp.P, sc, 200, rng, variant="shared-noise")
    assert np.all(np.abs((Y[:, :D] - Y[:, :1]) - np.round(Y[:, :D] - Y[:, :1])) < 1e-9)
    Y = probe.sample_releases("pucb", {}, mdp.P, sc, 200, rng, variant="dropped-levels")
    assert np.all(Y[:, D:2 * D] == np.round(Y[:, D:2 * D])) and np.ptp(Y[:, :D], axis=0).max() > 1
    Y = probe.sample_releases("pucb", {}, mdp.P, sc, 4000, rng)
    Z = pa.dyadic_increments(Y, *probe.release_layout(Y.shape[1]))
    assert np.allclose(Z[:, 2 * D:3 * D].std(0), 18 * np.sqrt(2), rtol=0.1)  # t = 3: one node of scale L 3H/eps
    assert abs(np.corrcoef(Z[:, D], Z[:, 2 * D])[0, 1]) < 0.05  # nodes independent (releases at t=2, 3 are not)


def test_noise_multiplier_is_test_only():
    """The probe's noise multiplier defaults to the agent's own noise (claim unchanged)."""
    mdp = pa.tiny_mdp()
    a = probe.sample_releases("ldp-obi", {}, mdp.P, pa.script(1, 0, "A"), 20000, np.random.default_rng(1))
    b = probe.sample_releases("ldp-obi", {}, mdp.P, pa.script(1, 0, "A"), 20000, np.random.default_rng(1), 0.5)
    assert np.allclose(a.std(0), 2 * b.std(0), rtol=0.05)


def test_a_new_agent_using_the_door_is_audited_without_a_declaration(temporary_agent):
    """An agent that only calls the door (here PUCB's kernels under a new name, no audit_probe) is
    probed generically; a private agent whose kernels never reach the door is an error."""
    base = registry.get("pucb")
    name = temporary_agent(registry.AgentSpec(
        name="test-door-agent", init_state=pucb.init_state, run_episodes=pucb.run_episodes, defaults=base.defaults,
        privacy_model="JDP", reference="test", guarantees=base.guarantees, domains=base.domains))
    row = pa.audit_agent(name, ev.ADD_REMOVE, np.random.default_rng(2), 2000)
    assert row["verdict"] == "pass" and row["claimed_epsilon"] == 1.0
    plain = registry.get("ucbvi")
    bad = temporary_agent(registry.AgentSpec(
        name="test-unprobeable", init_state=ucbvi.init_state, run_episodes=ucbvi.run_episodes,
        defaults=plain.defaults, domains=plain.domains, privacy_model="JDP", reference="test"))
    with pytest.raises(ValueError, match="cannot be probed"):
        probe.sample_releases(bad, {}, pa.tiny_mdp().P, pa.script(4, 0, "A"), 10, np.random.default_rng(0))


N_CAL = 400  # runs per sequence and sample of the calibration test: x1/2 gives p ~ 1e-100, x1 is exact


def _power(agent, relation, seed, multipliers=(1.0, 0.5), n=N_CAL):
    rows = pa.power_curve(agent, relation, np.random.default_rng(seed), n, 0.05 / 100, multipliers)
    return {r["variant"]: r for r in rows}


@pytest.mark.parametrize("agent,relation", [("pucb", ev.ADD_REMOVE), ("pucb", ev.REPLACEMENT),
                                            ("ldp-obi", ev.REPLACEMENT), ("rlsvi", ev.REPLACEMENT)])
def test_half_noise_is_flagged_and_the_agent_passes(agent, relation):
    """The power curve's calibration test at a family-wise-sized level (alpha / 100): the agent
    itself (noise x1) is not flagged, half its noise is (the agents whose probes the fast tests
    compile anyway; every agent: the slow test below)."""
    rows = _power(agent, relation, 21)
    assert rows["noise x1"]["verdict"] == "pass", rows["noise x1"]
    assert rows["noise x1/2"]["verdict"] == "flagged", rows["noise x1/2"]
    # the label's variance (RLSVI: its perturbation's, privrl.audit.perturbation): ratio 1 at x1, 1/4 at half the noise
    assert 0.22 < rows["noise x1/2"]["variance_ratio"] < 0.28 and 0.95 < rows["noise x1"]["variance_ratio"] < 1.05


@pytest.mark.slow  # 15-30 s per agent: compiles its probe (the statistic itself takes < 0.1 s)
@pytest.mark.parametrize("agent,relation", CASES)
def test_every_agent_flags_its_half_noise_under_each_relation(agent, relation):
    rows = _power(agent, relation, 22)
    assert rows["noise x1"]["verdict"] == "pass", rows["noise x1"]
    assert rows["noise x1/2"]["verdict"] == "flagged", rows["noise x1/2"]


def test_power_curve_rows_and_what_they_detect():
    """PUCB's whole curve: every under-noising multiplier flagged; the summary names the largest;
    a curve with a gap reads from the strongest under-noising up."""
    rows = pa.power_curve("pucb", ev.ADD_REMOVE, np.random.default_rng(23), N_CAL, 0.05 / 100)
    df = pd.DataFrame(rows, columns=pa.COLUMNS)
    assert df["variant"].tolist() == ["noise x1", "noise x1/1.2", "noise x1/2", "noise x1/3", "noise x1/10"]
    assert (df["test"] == pa.CALIBRATION).all() and df["epsilon_lower_bound"].isna().all()
    assert pa.smallest_detected(df) == "x1/2 and below" or pa.smallest_detected(df) == "x1/1.2 and below"
    gap = df.assign(verdict=["pass", "flagged", "not flagged", "flagged", "flagged"])
    assert pa.smallest_detected(gap) == "x1/3 and below"
    none = df.assign(verdict=["pass"] + ["not flagged"] * 4)
    assert pa.smallest_detected(none) == "none down to x1/10"
    assert [pa.noise_name(m) for m in pa.POWER_MULTIPLIERS] == df["variant"].tolist()


def test_calibration_test_is_exact_under_the_null_and_sees_a_scale():
    """Laplace releases: the same law gives uniform p-values (false alarms at rate alpha); a
    scale of 0.8 is flagged at n = 2000."""
    rng = np.random.default_rng(24)
    ps = []
    for _ in range(200):
        fit, ref, aud = ({"U": rng.laplace(size=(300, 5))} for _ in range(3))
        ps.append(pa.calibration_test(fit, ref, aud)[0])
    assert 0.02 < np.mean(np.array(ps) <= 0.1) < 0.2 and 0.35 < np.median(ps) < 0.65
    fit, ref = ({"U": rng.laplace(size=(2000, 5))} for _ in range(2))
    p, ratio = pa.calibration_test(fit, ref, {"U": 0.8 * rng.laplace(size=(2000, 5))})
    assert p < 1e-6 and 0.75 < ratio < 0.85


def test_table_columns_and_verdicts():
    df = pa.agent_audit_table(np.random.default_rng(3), {"n": 2000, "agents": ["pucb"], "variants": ["shared-noise"]})
    assert list(df.columns) == pa.COLUMNS
    assert set(df["relation"]) == {ev.ADD_REMOVE, ev.REPLACEMENT} and len(df) == 4
    assert set(df.loc[df["variant"] == "noise x1", "verdict"]) == {"pass"}
    assert set(df.loc[df["variant"] == "shared-noise", "verdict"]) == {"flagged"}
    assert (df["row_alpha"] == 0.05 / 4).all()           # Bonferroni: family-wise false alarm <= 0.05
    assert (df["n_samples"] == pa.held_out(2000)).all() and pa.held_out(2000) == 1000
    md = pa.agent_audit_markdown(df)
    assert "agent" in md and "alpha / 4 = 0.0125 per row" in md and "family-wise false-alarm rate" in md


def test_held_out_runs_follow_the_splits():
    """n_samples is what the bound is read on: n minus the fit and selection splits (not a fixed half)."""
    assert pa.held_out(1000, 0.3, 0.2) == 500
    assert pa.held_out(1000, 0.4, 0.3) == 300
    assert pa.held_out(999, 0.3, 0.2) == 999 - int(999 * 0.5)


def test_table_with_the_power_curve_and_its_claim():
    """variants ["noise"]: per relation the agent's privacy-loss row and its power curve, all rows
    in one Bonferroni family; the markdown's power table and the claim's text say what was seen."""
    from privrl.papers.cross_paper import agent_audit_claim

    df = pa.agent_audit_table(np.random.default_rng(25), {"n": 2000, "n_calibration": N_CAL, "agents": ["pucb"],
                                                           "variants": ["noise"], "false_alarm_seeds": 3,
                                                           "false_alarm_n": 500})
    # + the wrong agent of the table's agents (PUCB handed eps x10) under both relations, in the same family;
    # the false-alarm seeds (3 per relation) outside it, at the same row level
    family = 2 * (1 + len(pa.POWER_MULTIPLIERS)) + 2
    assert len(df) == family + 2 * 3 * 2 and (df["row_alpha"] == 0.05 / family).all()
    fa = df[df["test"] == pa.FALSE_ALARMS]
    assert len(fa) == 12 and set(fa["verdict"]) == {"pass"}
    assert fa["variant"].str.startswith("noise x1, audit seed").sum() == 6
    assert fa["variant"].str.startswith("privacy loss x1, audit seed").sum() == 6
    assert set(df["size"]) == {"K = 4, S = 2, H = 2"}
    assert set(df.loc[df["test"] == pa.WRONG_AGENT, "verdict"]) == {"flagged"}
    cal = df[df["test"] == pa.CALIBRATION]
    assert set(cal.loc[cal["variant"] == "noise x1", "verdict"]) == {"pass"}
    assert set(cal.loc[cal["variant"] != "noise x1", "verdict"]) == {"flagged"}
    assert "cpu_seconds" not in df.columns  # no timing in an output: byte-identical run to run
    power = pa.power_table(df)
    assert len(power) == 2 and set(power["smallest_detected"]) == {"x1/1.2 and below"}
    assert set(power["smallest_overstatement"]) == {"eps x1.2 the label and above"}
    assert set(power["true_eps_2x_flagged"]) == {"yes"} and power["false_alarms"].str.startswith("0/3").all()
    assert power["false_alarms_privacy_loss"].str.startswith("0/3 audit seeds (n = 250 held out)").all()
    md = pa.agent_audit_markdown(df)
    assert "## Power" in md and "smallest_detected" in md and "noise x1/2" in md
    claim = agent_audit_claim(df, "agent_audit.md")
    text = str(claim)
    assert "noise x1/2 flagged 2/2" in text and "false alarms at x1 0/2" in text
    assert "smallest under-noising detected: x1/1.2 and below (2 pairs)" in text
    assert "pucb handed epsilon = 10 flagged 2/2" in text
    assert "wrong agent" in md and "flagged" in power["wrong_agent"].iloc[0]
