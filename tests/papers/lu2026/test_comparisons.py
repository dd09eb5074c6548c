"""Lu et al. (2026) comparisons (privrl.papers.lu2026.comparisons) on synthetic runs: beta_scale for a
target eps, two explorers order nothing, fixed-eps RLSVI never in regime, Sec. 4's order as context."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privrl.results import claims as C
from privrl.results import verdicts as V
from privrl.papers.lu2026 import comparisons as luc

from tests.papers.synthetic import EP, run_context as _context, tagged_context as _ctx


@pytest.mark.parametrize("eps", [1.0, 10.0, 100.0])
def test_beta_scale_certifies_the_target_eps(eps):
    from privrl.agents.rlsvi import privacy_table

    bs = luc.beta_scale_for_epsilon(eps, 1e-5, 4_000_000, 3, 2, 2)
    assert privacy_table(1e-5, 4_000_000, 3, 2, 2, bs)["eps_cor14"] == pytest.approx(eps, rel=1e-9)


def test_two_explorers_order_nothing(tmp_path):
    ctx = _context(tmp_path, [("pe", {}, lambda k: k, 1.0)])
    x = np.full(6, 100.0)
    s = luc.order_no_larger(ctx, "t", x, 2 * x, {"rlsvi": 1e9, "pucb": 1e8}, 1e6)
    assert s.verdict == V.NOT_REACHED and s.k_needed == pytest.approx(1e10)
    s = luc.order_no_larger(ctx, "t", 2 * x, x, {"rlsvi": 1e3, "pucb": 1e8}, 1e6)
    assert s.verdict == V.NOT_REACHED  # PUCB still explores: its regret says nothing of its rate
    s = luc.order_no_larger(ctx, "t", 2 * x, x, {"rlsvi": 1e3, "pucb": 1e4}, 1e6)
    assert s.verdict == V.CONTRADICTED  # both in regime, RLSVI clearly worse


def test_fixed_eps_rlsvi_never_reaches_its_regime_and_rival_orders_are_context(tmp_path):
    """At a fixed eps beta_scale = K / K_e: RLSVI's perturbation no longer shrinks with K, so its
    K needed is never (inf); orders against other private agents are context, not Lu et al.'s claims."""
    K = int(EP[-1])
    rl = {"beta_scale": luc.beta_scale_for_epsilon(10.0, 1e-5, K, 1, 2, 2), "delta": 1e-5}
    ctx = _context(tmp_path, [("rlsvi", rl, lambda k: 0.2 * k, 1.0),
                              ("pucb", {"epsilon": 10.0, "beta": 0.05}, lambda k: 0.1 * k, 1.0)])
    ctx.infos[0]["tags"] = {"certify_eps": 10.0}
    ctx.infos[1]["tags"] = {"fixed_eps": 10.0}
    got = C.claims_from_frame(luc.lu2026_fixed_eps(ctx).claims)
    order = [c for c in got if c.kind == "order"]
    assert order and all(c.scope == "context" and c.verdict == V.NOT_REACHED and c.k_needed == math.inf for c in order)
    assert all(c.scope == "context" for c in C.with_scope_of_reach(order))  # context stays context


def test_lu_rlsvi_against_ucbvi_is_context(tmp_path):
    from privrl.papers import lu2026

    bandit = {"name": "garnet", "params": {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}}
    cells = [("rlsvi", {"beta_scale": 1.0}, lambda k: 5 * np.log(k), "b", {}),
             ("ucbvi", {"bonus_scale": 1.0}, lambda k: 50 * np.log(k), "b", {})]
    ctx = _ctx(tmp_path, cells, {"b": bandit})
    reg = pd.DataFrame([{"env": "b", "cell": "rlsvi_0", "K": int(EP[-1]), "eps_cor14": 1e6, "delta": 1e-5}])
    got = [c for c in lu2026._claims(ctx, pd.DataFrame(columns=["env"]), reg, pd.DataFrame())
           if "no_privacy_cost" in c.claim_id]
    assert len(got) == 1 and got[0].scope == "context" and "compare RLSVI with no other agent" in got[0].statement
    assert got[0].crossovers.startswith("rlsvi: ") and "ucbvi: " in got[0].crossovers
    remark2 = [c for c in lu2026._claims(ctx, pd.DataFrame(columns=["env"]), reg, pd.DataFrame())
               if "remark2" in c.claim_id]
    assert "Every RLSVI run (b) reports" in remark2[0].statement  # one per experiment: its instances named
