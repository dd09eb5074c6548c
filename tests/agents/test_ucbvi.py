"""UCBVI rate on RiverSwim (S=6, H=20) at K = 2e4, seeds 0..3 (fixed).

Stated bonus scale: 0.003 x Azar et al.'s 7 H L sqrt(1/N). At the paper's constant
(bonus_scale = 1) every optimistic value stays clipped at H - h + 1 throughout K = 2e4,
the agent explores uniformly and regret is linear; both facts are asserted.
"""

from privrl.rl import envs, seeding
from privrl.runs import run
from privrl.results.aggregate import fit_cell

K = 20_000


def _fit(scale):
    df, _ = run.run("ucbvi", {"bonus_scale": scale}, envs.riverswim(S=6, H=20), K, range(4),
                    experiment="test_ucbvi", setting=f"scale={scale}")
    return fit_cell(df, seeding.generator("test", "fit", 0), n_boot=200)


def test_ucbvi_sublinear_at_stated_bonus_scale():
    f = _fit(0.003)
    assert f["exponent_hi"] < 0.75, f


def test_ucbvi_paper_constant_still_saturated_at_2e4():
    f = _fit(1.0)
    assert f["saturated_fraction"] > 0.99 and f["exponent"] > 0.95, f


def test_episode_loop_refuses_a_state_of_another_instance():
    """UCBVI's episode loop indexes every array with n_sa's (H, S, A) (docs/decisions/performance.md,
    "A lean engine, continued"), so a state built for another instance is refused, not misread."""
    import numpy as np
    import pytest

    from privrl.agents import ucbvi
    from privrl.rl import engine

    small, other = (engine.env_arrays(envs.riverswim(S=S, H=3)) for S in (2, 3))
    params = np.array([1.0, 0.05])
    state = ucbvi.init_state(small, params, 10)
    rec = engine.new_recorder(10, np.array([0.1]))
    with pytest.raises(ValueError, match="different"):
        ucbvi.run_episodes(other, params, np.int64(10), np.int64(0), np.int64(10), seeding.generator("t", "u", 0),
                           rec, state)
