"""Lu et al. (2026) RLSVI audit (privrl.papers.lu2026.audit): it catches a false certificate."""

import numpy as np
import pytest


def test_rlsvi_audit_catches_a_false_certificate():
    """With beta_scale -> 0 the released sequence reveals r1: the audited lower bound exceeds a
    certificate of eps = 0.1 claimed for it (the audit has power); the true certificate holds."""
    from privrl.mechanisms.audit import epsilon_bounds
    from privrl.papers.lu2026 import audit as au

    rng = np.random.default_rng(3)
    t1 = au.released_action_counts(1.0, 4, 1e-6, 2000, rng)
    t0 = au.released_action_counts(0.0, 4, 1e-6, 2000, rng)
    b = epsilon_bounds(int((t1 >= 3).sum()), t1.size, int((t0 >= 3).sum()), t0.size, 1e-5)
    assert b["ci_low"] > 0.1
    df = au.check_rlsvi_audit(np.random.default_rng(4), eps_targets=(4.0,), n_trials=4000)
    assert df.holds.all() and df.eps_cor14.iloc[0] == pytest.approx(4.0)
