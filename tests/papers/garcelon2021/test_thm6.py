"""Garcelon et al. (2021) Thm 6 and Prop. 5 (privrl.papers.garcelon2021.thm6) on synthetic data: the
coverage caveat, the JDP-vs-LDP order, Prop. 5 on the exact eps and the release sequence, and which
rows are context or registered once."""
from __future__ import annotations

import math

import numpy as np
import pytest

from privrl.papers.garcelon2021 import thm6 as G
from privrl.results import verdicts as V

from tests.papers.synthetic import RS, tagged_context as _ctx


def test_coverage_hook():
    matched, note = G.coverage_note({"epsilon": 1.0}, {"epsilon": 1.0})
    assert not matched and "paper constants" in note
    matched, note = G.coverage_note({"z": 3.0}, {"z": 3.0})
    assert matched and "3 sd" in note


def test_jdp_ldp_order_before_crossover_is_not_reached():
    s = V.score_order((2.0, 1.8, 2.2), False, False, G.COVERAGE_CAVEAT, k_needed=1e10)
    assert s.verdict == V.NOT_REACHED and s.k_needed == 1e10


def test_prop5_at_tau_100_hypothesis_fails():
    s, row = G.amplification_score(1.0, 1.0, 100, 3, 1, 1e-3, releases=10 ** 6)
    assert not row["prop5_hypothesis"] and row["k_hypothesis"] > 100
    assert s.verdict == V.NOT_REACHED and "repeated releases" in s.regime
    s2, row2 = G.amplification_score(1.0, 1.0, 1000, 3, 1, 1e-3, releases=10 ** 6)
    assert row2["prop5_hypothesis"] and row2["exact_eps"] < row2["prop5_eps"]
    assert s2.verdict == V.REPRODUCED


def test_claim_checks_are_checked_not_reproduced():
    c = V.make_claim("garcelon2021", "Table 1", "x", "local eps", "check", "a", V.score_check(True, "ok"))
    assert c.verdict == V.CHECKED
    assert np.isfinite(G.amplification_score(10.0, 4.615, 100, 3, 1, 1e-3, 1)[1]["exact_eps"])


def test_garcelon_tau_h_difference_row_is_context():
    """The tau H reading (R(K; tau) - R(K; 0)) is declared context; the eps0 term beside it is a paper claim."""
    from privrl.papers.garcelon2021 import thm6 as G
    from privrl.rl import envs

    infos = [{"agent": "shuffled-obi", "env_key": "riverswim", "cell": f"c{tau}_{e:g}", "episodes": 10**6,
              "tags": {"thm6": "grid"}, "params": {"epsilon": e, "bonus_scale": 1.0, "tau": float(tau),
                                                   "tau_power": 0.0, "m": 1.0, "delta0": 1e-3, "noise": 1.0}}
             for tau in (0, 100) for e in (1.0, 10.0)]
    rows = {r.id: r for r in G.thm6_declaration("exp", infos, {"riverswim": envs.make("riverswim", S=2, H=3)}, {})}
    tau_rows = [r for i, r in rows.items() if i.startswith("thm6_tau_term_")]
    assert len(tau_rows) == 2 and all(r.scope == "context" for r in tau_rows)
    assert rows["thm6_eps_term_riverswim_s1"].scope == "paper_claim"


def test_prop5_rows_only_where_its_hypothesis_holds_and_the_sequence_is_checked():
    from privrl.mechanisms import accounting as acc
    from privrl.papers.garcelon2021 import thm6 as G

    # shuffled sums after consecutive episodes differ by one user's randomised messages, whatever the order
    rng = np.random.default_rng(0)
    msgs = rng.integers(0, 2, size=(50, 12))
    sums = [msgs[rng.permutation(k)].sum(0) for k in range(1, 51)]
    assert all(np.array_equal(sums[k] - sums[k - 1], msgs[k]) for k in range(1, 50))
    H, m, d0 = 3, 1, 1e-3
    # tau = 100 at eps 1: Prop. 5's hypothesis fails (k needs ~119): no Prop. 5 row, and the sequence
    # is not "checked" although its eps (<= eps_l) is below eps0: Thm 6 states no eps_(c,tau) there
    _, amp = G.amplification_score(1.0, 1.0, 100, H, m, d0, 1)
    assert not amp["prop5_hypothesis"]
    s, seq = G.release_sequence_score(1.0, 1.0, 100, H, m, d0)
    assert s.verdict == V.INCONCLUSIVE and "hypothesis fails" in s.regime and seq["sequence_eps"] <= 1.0
    assert seq["sequence_eps"] == pytest.approx(acc.msh_exact_ldp_epsilon(acc.garcelon_lemma4_epsilon(1.0, m, H), m, H))
    # the tau = K^(1/3) row labelled eps0 = 1 runs at local eps ln(1 + K^(1/6)) = 2.398 (K = 1e6, tau = 100):
    # the sequence reveals each user's M_sh output (2.131-DP) -> not certified at eps0 = 1, though Prop. 5's
    # eps_(c,tau) is larger still (vacuous); an upper bound on the policies' leak, not a contradiction
    eps_l = math.log(1.0 + 1e6 ** (1 / 6))
    s, seq = G.release_sequence_score(1.0, eps_l, 1000, H, m, d0)
    assert seq["prop5_hypothesis"] and seq["sequence_eps"] <= seq["eps_c_tau"]
    assert s.verdict == V.INCONCLUSIVE and seq["sequence_eps"] == pytest.approx(2.1315, abs=1e-3)
    assert "not certified at eps0 = 1" in s.regime and "2.13-DP" in s.regime and "not a contradiction" in s.regime
    # labelled eps0 = 10 at local eps 4.615: the sequence (4.10-DP) is certified at eps0
    s, seq = G.release_sequence_score(10.0, math.log(1.0 + 10 * 1e6 ** (1 / 6)), 1000, H, m, d0)
    assert s.verdict == V.CHECKED and seq["sequence_eps"] <= 10.0
    # no "checked" where the bandit's eps_(c,tau) is inf (eps0 = 100, tau = 229): the hypothesis fails
    s, seq = G.release_sequence_score(100.0, 100.0, 229, 2, m, d0)
    assert s.verdict == V.INCONCLUSIVE and "hypothesis fails" in s.regime
    # the shipped RiverSwim row (eps0 = 1, tau = K^(1/3) = 100 at local eps 2.398): both gaps named
    s, _ = G.release_sequence_score(1.0, eps_l, 100, H, m, d0)
    assert s.verdict == V.INCONCLUSIVE and "hypothesis fails" in s.regime and "only 2.13-DP" in s.regime


def test_amplification_rows_are_context_once_per_env_eps_tau():
    """The exact eps of tau shuffled users below eps0 is amplification as measured, not Prop. 5's
    statement (eps_(c,tau) = 14.09 at eps 1, 63.02 at eps 10, tau = 1000, RiverSwim H = 3)."""
    import inspect

    from privrl.papers.garcelon2021 import thm6 as G

    assert G.amplification_score(1.0, 1.0, 1000, 3, 1, 1e-3, 1)[1]["prop5_eps"] == pytest.approx(14.09, abs=0.01)
    assert G.amplification_score(10.0, 10.0, 1000, 3, 1, 1e-3, 1)[1]["prop5_eps"] == pytest.approx(63.02, abs=0.01)
    src = inspect.getsource(G.amplification_context)
    assert 'scope="context"' in src
    from privrl.rl import envs

    infos = [{"agent": "shuffled-obi", "env_key": "riverswim", "cell": f"c{tau}_{e:g}_{s:g}", "episodes": 10**6,
              "tags": {"thm6": "grid"}, "params": {"epsilon": e, "bonus_scale": s, "tau": float(tau), "tau_power": 0.0,
                                                   "m": 1.0, "delta0": 1e-3, "noise": 1.0}}
             for tau in (0, 1000) for e in (1.0, 10.0) for s in (0.1, 1.0)]
    rows = G.thm6_declaration("exp", infos, {"riverswim": envs.make("riverswim", S=2, H=3)}, {})
    amp = [r for r in rows if r.id.startswith("thm6_amplification_")]  # no bonus_scale in the id: once per (env, eps0, tau)
    assert sorted(r.id for r in amp) == ["thm6_amplification_riverswim_eps10_tau1000",
                                         "thm6_amplification_riverswim_eps1_tau1000"]
    assert all(r.scope == "context" for r in amp)


def test_garcelon_jdp_vs_ldp_at_eps0_100_is_labelled_context(tmp_path):
    from privrl.papers.garcelon2021.thm6 import jdp_vs_ldp_claim

    cells = [("pucb", {"epsilon": 50.0}, lambda k: 200 * np.log(k), "rs", {}),
             ("ldp-obi", {"epsilon": 100.0}, lambda k: 100 * np.log(k), "rs", {})]
    c = jdp_vs_ldp_claim(_ctx(tmp_path, cells, {"rs": RS}), "rs", "pucb_0", "ldp-obi_1", "cid", "rs, eps0=100", "a")
    assert c.scope == "context" and "not Table 1's statement" in c.statement and "at no K" in c.regime
    assert c.crossovers.startswith("pucb: ") and "ldp-obi: " in c.crossovers


def test_garcelon_bonus_independent_checks_are_registered_once(tmp_path):
    from privrl.papers.garcelon2021.thm6 import garcelon2021_thm6

    local = {"epsilon": 2.397895273, "tau_power": 1 / 3}
    cells = [("shuffled-obi", {**local, "bonus_scale": b}, lambda k: 10 * np.sqrt(k), "rs",
              {"thm6": "k13_local", "eps0": "1"}) for b in (1.0, 0.1)]
    claims = garcelon2021_thm6(_ctx(tmp_path, cells, {"rs": RS})).claims
    checks = claims[claims.kind == "check"]
    assert len(checks) == len(set(checks.statement)) == 2  # the local eps and the release sequence, once each
    rates = claims[claims.kind == "rate"]
    assert len(rates) == 2 and len(set(rates.statement)) == 2  # one per bonus_scale, which the statement names
    seq = checks[checks.claim_id.str.endswith("_release_sequence")].iloc[0]
    assert seq.verdict != "checked"  # labelled eps0 = 1: never certified by a sequence run at local eps 2.4


def test_garcelon_amplification_rows_are_context_once_per_env_eps_tau(tmp_path):
    """The exact eps of tau = 1000 shuffled users vs eps0 is context (Prop. 5 states eps_(c,tau)),
    registered once per (env, eps0, tau) whatever the bonus_scale."""
    from privrl.papers.garcelon2021.thm6 import garcelon2021_thm6

    cells = [("shuffled-obi", {"epsilon": 1.0, "tau": t, "bonus_scale": b}, lambda k: 10 * np.sqrt(k), "rs",
              {"thm6": "grid"}) for b in (1.0, 0.1) for t in (0, 1000)]
    claims = garcelon2021_thm6(_ctx(tmp_path, cells, {"rs": RS})).claims
    amp = claims[claims.claim_id.str.startswith("thm6_amplification_")]
    assert list(amp.claim_id) == ["thm6_amplification_rs_eps1_tau1000"]
    assert (amp.scope == "context").all() and "Prop. 5 states eps_(c,tau) = 14.09" in amp.statement.iloc[0]
    assert "bonus_scale" not in amp.statement.iloc[0]
