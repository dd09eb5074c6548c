"""Bound verdicts (privrl.results.bound_verdicts): a one-sided bound never contradicts an O expression,
the lower-bound scorer, and a lower bound met only by linear regret is not a reproduction."""
from __future__ import annotations

import math

from privrl.results import bound_verdicts as BV
from privrl.results import verdicts as V


def test_one_sided_bound_never_contradicts_an_O_expression():
    s = BV.score_bound_one_sided((50.0, 45.0, 55.0), lambda k: 10.0, 1e6, 1.0, "constants")
    assert s.verdict == V.INCONCLUSIVE
    s = BV.score_bound_one_sided((5.0, 4.0, 6.0), lambda k: 10.0, 1e6, 1.0, "constants")
    assert s.verdict == V.REPRODUCED
    s = BV.score_bound_one_sided((5.0, 4.0, 6.0), lambda k: 1e7, 1e6, 1.0, "constants")
    assert s.verdict == V.NOT_REACHED and s.k_needed > 1e6  # vacuous until K = ...


def test_lower_bound_scorer():
    lb = lambda k: math.sqrt(24 * k)  # noqa: E731
    assert BV.score_lower_bound((1e5, 9e4, 1.1e5), lb, 1e6, 0.3, "c").verdict == V.REPRODUCED
    assert BV.score_lower_bound((10.0, 9.0, 11.0), lb, 1e6, 0.3, "c").verdict == V.INCONCLUSIVE
    s = BV.score_lower_bound((10.0, 9.0, 11.0), lb, 10.0, 0.3, "c")
    assert s.verdict == V.NOT_REACHED and s.k_needed > 10.0


def test_lower_bound_met_only_by_linear_regret_is_not_a_reproduction():
    """Regret accrued in the linear phase (crossover x gap) meets any sqrt-K bound, before and after
    the crossover: the row is informative only where the bound exceeds that accrued regret."""
    lb = lambda k: math.sqrt(24 * k)  # noqa: E731
    met = (1e5, 9e4, 1.1e5)
    s = BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=1e5)  # accrued 3e4 > lb(1e6) = 4.9e3
    assert s.verdict == V.NOT_REACHED and "uninformative" in s.regime
    assert lb(s.k_needed) >= 3e4 and lb(s.k_needed / 1.5) < 3e4  # where the bound overtakes 3e4 (grid step)
    s = BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=1e11)  # accrued 3e10: no K <= k_max
    assert s.verdict == V.INCONCLUSIVE and "uninformative" in s.regime
    s = BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=float("nan"))
    assert s.verdict == V.INCONCLUSIVE and "unknown" in s.regime
    assert BV.score_lower_bound(met, lb, 1e6, 0.3, "c", linear_until=1e4).verdict == V.REPRODUCED  # 3e3 < 4.9e3
    s = BV.score_lower_bound((10.0, 9.0, 11.0), lb, 1e6, 0.3, "c", linear_until=1e11)
    assert s.verdict == V.INCONCLUSIVE and "below" in s.regime  # below the bound: the same at any crossover
