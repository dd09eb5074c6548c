"""Config claim checks (privrl.results.claims.score_claims) under the verdict rules."""
import dataclasses
from pathlib import Path

import pandas as pd

from privrl.results.claims import score_claims
from privrl.results.fits import SATURATED_FRACTION
from privrl.rl import envs
from privrl.results import claims as C
from privrl.results import verdicts as V


def _fits(a, lo, hi, sat, agent=None, **params):
    row = {"env": "e", "cell": "c", "exponent": a, "exponent_lo": lo, "exponent_hi": hi, "window_lo": 1e3,
           "window_hi": 1e5, "K": 100000, "n_seeds": 5, "saturated_fraction": sat}
    if agent:
        row.update(agent=agent, **{f"param_{k}": v for k, v in params.items()})
    return pd.DataFrame([row])


CLAIM = [{"id": "x", "statement": "sublinear", "source": "paper",
          "check": {"type": "exponent_below", "env": "e", "cell": "c", "threshold": 0.75}}]


def _verdict(fits, mdps=None):
    return score_claims("exp", CLAIM, fits, "artifact", mdps).verdict.iloc[0]


def test_exponent_below_is_one_sided_and_needs_a_regime():
    for a in (0.5, 1.0, 0.75):  # no MDP: crossover unknown, nothing can be scored
        assert _verdict(_fits(a, a - 0.05, a + 0.05, 0.0)) == "inconclusive"
    mdps = {"e": envs.riverswim(S=2, H=3)}  # UCBVI at bonus 1e-4 crosses over long before K = 1e3
    assert _verdict(_fits(0.5, 0.45, 0.55, 0.0, agent="ucbvi", bonus_scale=1e-4, delta=0.05), mdps) == "reproduced"
    assert _verdict(_fits(0.75, 0.7, 0.8, 0.0, agent="ucbvi", bonus_scale=1e-4, delta=0.05), mdps) == "inconclusive"


def test_regime_from_the_agents_crossover():
    mdps = {"e": envs.riverswim(S=2, H=3)}
    fits = _fits(1.0, 0.98, 1.02, 0.0, agent="ucbvi", bonus_scale=1.0, delta=0.05)
    out = score_claims("exp", CLAIM, fits, "artifact", mdps)
    assert out.verdict.iloc[0] == "not reached" and out.k_needed.iloc[0] > 1e3
    assert out.paper.iloc[0] == "cross_paper" and out.kind.iloc[0] == "rate"  # source names no paper
    fits = _fits(1.0, 0.98, 1.02, 0.0, agent="ucbvi", bonus_scale=1e-4, delta=0.05)
    assert _verdict(fits, mdps) == "contradicted"


def test_saturated_cell_is_never_contradicted():
    mdps = {"e": envs.riverswim(S=2, H=3)}
    fits = _fits(1.0, 0.98, 1.02, SATURATED_FRACTION + 0.05, agent="ucbvi", bonus_scale=1e-4, delta=0.05)
    out = score_claims("exp", CLAIM, fits, "artifact", mdps)
    assert out.verdict.iloc[0] == "inconclusive" and "saturation" in out.regime.iloc[0]


def test_not_reached_rows_name_the_design_that_reaches_them():
    from privrl.design import experiments
    from privrl.results import claims as C
    from privrl.results import verdicts as V

    def claim(k, verdict=V.NOT_REACHED, exp="rates"):
        return V.make_claim("vietri2020", "Thm 4", f"c{k}", "s", "rate", "a", V.Score(verdict, "m", "r", k), exp)

    designs = {"config/config.yaml": {"rates": 10**5}, "config/paper.yaml": {"rates": 10**8}}
    got = C.with_reach([claim(1e7), claim(1e9), claim(float("inf")), claim(1e7, exp="other"),
                        claim(float("nan"), V.INCONCLUSIVE)], designs)
    assert got[0].reached_by == "config/paper.yaml (K = 1e+08)"
    assert got[1].reached_by.startswith("no shipped design: largest K run")
    assert "another instance" in got[2].reached_by
    assert got[3].reached_by == "no shipped design runs this experiment" and got[4].reached_by == ""
    # the run already has the K: what is missing is not episodes (e.g. Prop. 5's users, an elimination)
    assert "not a matter of K" in C.with_reach([claim(120.0)], designs, {"rates": 10**5})[0].reached_by
    # the same statement (and instance) read by another experiment of this design at the K needed
    rerun = dataclasses.replace(claim(1e7, V.REPRODUCED, exp="rates_at_k"), claim_id="c_rerun")
    near = dataclasses.replace(claim(1e7), claim_id="c_near")
    elsewhere = C.with_reach([near, rerun], designs, {"rates": 10**5, "rates_at_k": 10**7})
    assert elsewhere[0].reached_by == "this design's rates_at_k (K = 1e+07: reproduced, c_rerun)"
    other_instance = dataclasses.replace(rerun, instance="garnet(seed=4)")
    assert C.with_reach([near, other_instance], designs, {"rates": 10**5, "rates_at_k": 10**7})[0].reached_by \
        == "config/paper.yaml (K = 1e+08)"
    short = C.with_reach([near, rerun], designs, {"rates": 10**5, "rates_at_k": 10**6})[0]  # below the K needed
    assert short.reached_by == "config/paper.yaml (K = 1e+08)"
    shipped = experiments.design_episodes(Path(__file__).resolve().parents[2])
    assert set(shipped) == {"config/config.yaml", "config/paper.yaml"}
    assert shipped["config/paper.yaml"]["garcelon_table1"] >= shipped["config/config.yaml"]["garcelon_table1"]
    back = C.claims_from_frame(C.claims_frame(got))
    assert back[:4] == got[:4] and back[4].reached_by == ""  # (nan k_needed: nan != nan)


def test_config_claim_may_be_labelled_context():
    from privrl.results.claims import score_claims

    fits = pd.DataFrame([{"env": "e", "cell": "c", "exponent": 1.0, "exponent_lo": 0.98, "exponent_hi": 1.02,
                          "window_lo": 1e3, "window_hi": 1e5, "K": 100000, "n_seeds": 5, "saturated_fraction": 1.0}])
    spec = [{"id": "x", "statement": "UCBVI at Azar's constant still explores", "source": "Azar et al. 2017",
             "scope": "context", "check": {"type": "exploring", "env": "e", "cell": "c"}},
            {"id": "y", "statement": "UCBVI O~(sqrt K)", "source": "Azar et al. 2017, Thm 1",
             "check": {"type": "rate_upper", "env": "e", "cell": "c", "claimed": 0.5}}]
    got = C.claims_from_frame(score_claims("e", spec, fits, "a"))
    assert [c.scope for c in got] == ["context", "paper_claim"]


def test_shipped_config_labels_the_azar_constant_row_context():
    import yaml

    cfg = yaml.safe_load(open("config/config.yaml"))
    spec = {c["id"]: c for c in cfg["experiments"]["ucbvi_constant"]["claims"]}
    assert spec["ucbvi_paper_constant_saturates"]["scope"] == "context"


def test_checks_are_checked_and_config_claims_are_claims():
    from privrl.results.claims import score_claims
    fits = pd.DataFrame([{"env": "e", "cell": "c", "exponent": 0.5, "exponent_lo": 0.45, "exponent_hi": 0.55,
                          "window_lo": 1e3, "window_hi": 1e5, "K": 100000, "n_seeds": 5,
                          "saturated_fraction": 0.0}])
    spec = [{"id": "x", "statement": "UCBVI O~(sqrt K)", "source": "Azar et al. 2017, Thm 1",
             "check": {"type": "rate_upper", "env": "e", "cell": "c", "claimed": 0.5}}]
    new = C.claims_frame([V.make_claim("lu2026", "Cor. 14", "c", "Cor. 14 equals Thm 13's min", "check", "a",
                                       V.score_check(True, "ok"))])
    got = C.claims_from_frame(pd.concat([score_claims("e", spec, fits, "a"), new], ignore_index=True))
    # no MDP given: the crossover, hence the regime, is unknown -> inconclusive, never reproduced
    assert [c.verdict for c in got] == [V.INCONCLUSIVE, V.CHECKED] and got[1].paper == "lu2026"
    assert (got[0].paper, got[0].item, got[0].kind) == ("cross_paper", "Thm 1", "rate")
