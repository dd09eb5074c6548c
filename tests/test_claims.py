"""Claim scoring (privrl.results.claims): the verdict rules, including the saturation rule."""
import pandas as pd

from privrl.results.claims import score_claims
from privrl.results.fits import SATURATED_FRACTION


def _fits(a, lo, hi, sat):
    return pd.DataFrame([{"env": "e", "cell": "c", "exponent": a, "exponent_lo": lo, "exponent_hi": hi,
                          "K": 1000, "n_seeds": 5, "saturated_fraction": sat}])


CLAIM = [{"id": "x", "statement": "sublinear", "source": "paper",
          "check": {"type": "exponent_below", "env": "e", "cell": "c", "threshold": 0.75}}]


def _verdict(fits):
    return score_claims("exp", CLAIM, fits, "artifact").verdict.iloc[0]


def test_exponent_below_three_verdicts_when_learning():
    assert _verdict(_fits(0.5, 0.45, 0.55, 0.1)) == "reproduced"
    assert _verdict(_fits(1.0, 0.98, 1.02, 0.1)) == "not reproduced"
    assert _verdict(_fits(0.75, 0.7, 0.8, 0.1)) == "inconclusive"


def test_saturated_cell_is_inconclusive_either_way():
    sat = SATURATED_FRACTION + 0.05
    for a, lo, hi in [(1.0, 0.98, 1.02), (0.5, 0.45, 0.55)]:
        out = score_claims("exp", CLAIM, _fits(a, lo, hi, sat), "artifact")
        assert out.verdict.iloc[0] == "inconclusive"
        assert "saturated" in out.measured.iloc[0]
