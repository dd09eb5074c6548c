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
    # its power is measured beside it: half the noise is not flagged at K = 4 (it reads "consistent")
    assert not df.powered.any() and (df.eps_lower_bound_half_noise < df.eps_cor14).all()


def test_cor14_check_reads_the_library_on_its_own_orders():
    """The Cor. 14 check's copy of the library's order grid is the grid the library conversion runs on."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    from privrl.mechanisms import accounting as acc
    from privrl.papers.lu2026 import cor14

    d, K, H, S, A = 1e-7, 3_000_000, 5, 2, 2
    event = dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / (2.0 * acc.lu_rho(K, H, S, A)) ** 0.5)
    mine = rdp_privacy_accountant.RdpAccountant(orders=list(cor14.LIBRARY_ORDERS)).compose(event).get_epsilon(d)
    assert mine == acc.lu_library_epsilon(d, K, H, S, A)
    # alpha* = 1.011 lies between the grid's 1.01 (inf in the library) and 1.0275: the library is above
    # Cor. 14 there, below Thm 13 on its own orders, and the check holds
    assert acc.lu_cor14_epsilon(d, K, H, S, A) < mine <= cor14.thm13_on_library_orders(d, K, H, S, A)
    assert cor14.check_lu_cor14(grid=({"K": K, "H": H, "S": S, "A": A},), deltas=(d,)).holds.all()


def test_rlsvi_audit_figure_marks_a_lower_bound_it_cannot_draw(tmp_path):
    """An audited lower bound <= 0 (no privacy loss found) is drawn at the log axis' floor as its own
    marker with its own legend entry, not as the value 1e-3; a figure without one has no such entry."""
    import matplotlib.pyplot as plt
    import pandas as pd
    from matplotlib.figure import Figure

    from privrl.papers.lu2026 import audit as au

    df = pd.DataFrame({"K": 4, "delta": 1e-5, "eps_cor14": [1.0, 4.0, 16.0], "eps_exact_gaussian": [0.7, 3.2, 14.0],
                       "eps_lower_bound": [-0.0014, 0.14, 0.51]})
    made = []
    savefig = Figure.savefig

    def keep(fig, *args, **kwargs):
        made.append(fig)
        return savefig(fig, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Figure, "savefig", keep)
        au.figure_rlsvi_audit(df, tmp_path / "floored")
        au.figure_rlsvi_audit(df.assign(eps_lower_bound=[0.2, 0.3, 0.5]), tmp_path / "drawn")
    floored, drawn = made[0].axes[0], made[-1].axes[0]
    [note] = [t.get_text() for t in floored.get_legend().get_texts() if "drawn at" in t.get_text()]
    assert "≤ 0" in note
    [mark] = [ln for ln in floored.get_lines() if ln.get_marker() == "v"]
    assert list(mark.get_xdata()) == [1.0] and list(mark.get_ydata()) == [au.LOG_FLOOR]
    [bound] = [ln for ln in floored.get_lines() if ln.get_marker() == "o"]
    assert list(bound.get_markevery()) == [1, 2]  # the floored point has no ordinary marker
    assert not any("drawn at" in t.get_text() for t in drawn.get_legend().get_texts())
    assert not any(ln.get_marker() == "v" for ln in drawn.get_lines())
    plt.close("all")
