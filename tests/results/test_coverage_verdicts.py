"""Coverage verdicts (privrl.results.coverage_verdicts): the one-sided failure-rate rule the coverage
checks use."""

from privrl.results.coverage_verdicts import failure_rate_lower, within_stated


def test_one_sided_rate_rule():
    assert failure_rate_lower(0, 50) == 0.0 and within_stated(0, 50, 1e-9)
    assert within_stated(10, 100, 0.1)                      # at the stated rate: never rejected
    assert not within_stated(30, 100, 0.1)                  # 30 % of 100 excludes 10 %
    assert within_stated(15, 100, 0.1) and not within_stated(16, 100, 0.1)   # the boundary, exact
    lo = failure_rate_lower(30, 100)                        # one-sided 95 %: the 5 % quantile of Beta(30, 71)
    assert 0.22 < lo < 0.30
