"""Private for real at the agent path: an epsilon outside the supported range (inf, NaN, 1e300,
1e-300, 5e-324) is refused before any episode with one line naming it; RLSVI refuses non-finite
parameters; a reward outside [0, 1] is refused by the mechanisms the agents release it through;
the run-level privacy manifest lists every guarantee with its relation and amplification."""
import math

import numpy as np
import pytest

from privrl.runs import run as R
from privrl.mechanisms import kinds
from privrl.mechanisms import privatizer as pz
from privrl.audit.privacy import MANIFEST_COLUMNS, privacy_manifest
from privrl.rl import envs

MDP = envs.riverswim(S=2, H=2)


@pytest.mark.parametrize("eps", [math.inf, math.nan, 1e300, 1e-300, 5e-324, -1.0])
@pytest.mark.parametrize("agent", ["pucb", "ldp-obi", "shuffled-obi", "sdp-pe", "private-ucbvi-sdp"])
def test_run_seed_refuses_epsilon_outside_the_range_before_any_episode(agent, eps):
    with pytest.raises(ValueError, match=r"epsilon = .* (outside the supported range|is not a number)") as e:
        R.run_seed(agent, {"epsilon": eps}, MDP, 10, 0)
    assert agent in str(e.value) and "[1e-06, 10000]" in str(e.value) and "\n" not in str(e.value)


def test_the_range_is_the_documented_one():
    assert (kinds.AGENT_EPSILON_MIN, kinds.EPSILON_MIN, kinds.EPSILON_MAX) == (1e-6, 1e-9, 1e4)
    assert kinds.check_epsilon_range(1e4) == 1e4 and kinds.check_epsilon_range(1e-6) == 1e-6


@pytest.mark.parametrize("params", [{"beta_scale": math.nan}, {"beta_scale": math.inf}, {"delta": math.nan},
                                    {"beta_scale": 0.0}, {"delta": 1.0}])
def test_rlsvi_refuses_non_finite_parameters(params):
    with pytest.raises(ValueError, match="rlsvi"):
        R.run_seed("rlsvi", params, MDP, 10, 0)


def test_a_reward_outside_its_domain_is_refused():
    """A reward of 2 (rewards lie in [0, 1]): the central tree (one user adds at most 1 per counter)
    and the unary reward code of Shuffled-OBI refuse it."""
    st = pz.make_privatizer("central-tree", 2, 4, 1.0)
    with pytest.raises(ValueError, match="per-user domain"):
        pz.release_python(st, np.array([2.0, 0.0]), np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        pz.unary_count(np.array([2.0]), 3, np.random.default_rng(0), np.empty(1))
    st = pz.make_privatizer("shuffle-bitsum", 2, 4, 0.5, beta=0.1)
    with pytest.raises(ValueError, match="one bit per user"):  # more ones than users
        pz.release_python(st, np.array([3.0, 0.0]), np.random.default_rng(0), m=2)
    pz.release_python(st, np.array([2.0, 0.0]), np.random.default_rng(0), m=2)  # in the domain: accepted


def test_privacy_manifest_rows():
    infos = [R.run_info(a, p, MDP, 100, [0], "e", "s") | {"cell": c}
             for a, p, c in (("pucb", {}, "c1"), ("shuffled-obi", {"epsilon": 100.0, "tau": 1e5}, "c2"),
                             ("ucbvi", {}, "c3"))]
    df = privacy_manifest(infos)
    assert list(df.columns) == MANIFEST_COLUMNS
    pucb = df[df.agent == "pucb"].set_index("relation")
    assert pucb.loc["add/remove", "epsilon"] == 1.0 and pucb.loc["replacement", "epsilon"] == 2.0
    obi = df[(df.agent == "shuffled-obi") & (df.model == "JDP")]
    assert obi["epsilon"].tolist() == [100.0] and not obi["amplified"].any()  # messages released per user
    assert df.loc[df.agent == "ucbvi", "model"].tolist() == ["none"]
