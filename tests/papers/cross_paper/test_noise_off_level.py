"""The privacy-cost analysis's noise-off level row on a bandit (privrl.papers.cross_paper): the regret with
the noise off against 10 x what the agent's own widths predict, and its over-exploring twin realised from a
control cell (widths x10) through the same check; the claim plan lists the same row."""
import dataclasses

import numpy as np

from privrl.agents.crossover import first_step_gap
from privrl.agents.registry import agent_crossover
from privrl.papers import registry
from privrl.results import controls as C
from privrl.rl import engine, envs

from tests.papers.synthetic import privacy_context

BANDIT = {"name": "garnet", "params": {"S": 1, "A": 2, "branching": 1, "H": 1, "seed": 0}}
PUCB = {"bonus_scale": 1.0, "beta": 0.05, "z": 3.0}


def _prediction() -> float:
    mdp = envs.make(BANDIT["name"], **BANDIT["params"])
    return C.noise_off_prediction(first_step_gap(mdp), agent_crossover("pucb", {**PUCB, "noise": 0.0}, mdp), mdp.A)


def _curves(final, n_seeds=4, seed=0):
    """Regret curves rising like log K to about ``final`` at the last checkpoint, 3 % seed noise."""
    ep = engine.checkpoints(100_000, 120)  # as tests.papers.synthetic.long_frame
    shape = np.log1p(ep) / np.log1p(ep[-1])
    scale = final * (1 + 0.03 * np.random.default_rng(seed).standard_normal(n_seeds))
    return scale[:, None] * shape[None, :]


def _context(tmp_path, twin_factor):
    pred = _prediction()
    base = _curves(2.0 * pred)
    cells = [("pucb_off", "pucb", {**PUCB, "epsilon": 1.0, "noise": 0.0}, {}, base, [])]
    cells += [(f"pucb_{e:g}", "pucb", {**PUCB, "epsilon": e, "noise": 1.0}, {}, base + 50.0 / e, []) for e in (1.0, 10.0)]
    if twin_factor is not None:
        cells.append(("pucb_x10", "pucb", {**PUCB, "epsilon": 1.0, "noise": 0.0, "bonus_scale": 10.0, "z": 30.0},
                      {"control": "over_exploring"}, _curves(twin_factor * 2.0 * pred, seed=1), []))
    ctx = privacy_context(tmp_path, cells)
    return dataclasses.replace(ctx, config={**ctx.config, "envs": {"riverswim": BANDIT}})  # the env key is a name


def _row(res):
    rows = res.claims[res.claims.claim_id.str.endswith("_noise_off")]
    assert len(rows) == 1
    return rows.iloc[0]


def test_the_real_agent_passes_and_its_over_exploring_twin_is_rejected(tmp_path):
    res = registry.analysis("privacy_cost")(_context(tmp_path, twin_factor=60.0))
    r = _row(res)
    assert r.verdict == "reproduced" and r.controls == "rejects: over-exploring", r.regime
    assert f"twin over-exploring: rejects ({C.RUN_MARK}: pucb_x10" in r.regime
    assert r.kind == "bound" and r.paper == "vietri2020" and "= 2.0" in r.measured and "x the widths' prediction" in r.measured
    # the project's control check, filed as context beside the agent's paper item, not as the paper's statement
    assert r.scope == "context" and r.statement.startswith("project control check, not a paper's statement")
    assert "its statistical widths" in r.statement and "pre-registered" in r.statement
    assert "Noise-off level" in res.markdown
    # the control cell is no group of its own: one table row, the twin's cell only in the noise-off row
    assert len(res.table) == 1


def test_without_the_control_cell_the_row_has_no_power(tmp_path):
    r = _row(registry.analysis("privacy_cost")(_context(tmp_path, twin_factor=None)))
    assert r.verdict == "consistent" and r.controls == "not run: over-exploring"
    assert C.RUN_MARK not in r.regime


def test_a_twin_within_the_factor_passes(tmp_path):
    # a "twin" only 2x above the agent (4 x the prediction) passes the row: it cannot tell them apart
    r = _row(registry.analysis("privacy_cost")(_context(tmp_path, twin_factor=2.0)))
    assert r.verdict == "consistent" and r.controls == "passes: over-exploring"


def test_the_claim_plan_lists_the_row_with_its_scope():
    from privrl.design import config_files
    from privrl.plan import claims

    planned = [c.text() for c in claims.plan(config_files.load_yaml("config/config.yaml"))[0]]
    rows = [t for t in planned if "_noise_off " in t]
    # the project's control check, no paper's statement: context for every agent, listed with its noise-off crossover
    assert rows and all("[context]" in t for t in rows)
    assert any("privacy_cost_eps_pucb_bandit_bonus_scale1_z3_noise_off " in t and "crossovers pucb noise off 1.21e+03" in t
               for t in rows)


def test_the_check_and_the_control_cell_match():
    from privrl.results import verdicts as V

    # one-sided against 10 x the prediction; not reached before 10 x the noise-off crossover
    assert C.score_noise_off_level((50.0, 40.0, 60.0), 10.0, 1e6, 1e3, 1e4).verdict == V.REPRODUCED
    assert C.score_noise_off_level((500.0, 400.0, 600.0), 10.0, 1e6, 1e3, 1e4).verdict == V.CONTRADICTED
    assert C.score_noise_off_level((100.0, 90.0, 110.0), 10.0, 1e6, 1e3, 1e4).verdict == V.INCONCLUSIVE
    early = C.score_noise_off_level((50.0, 40.0, 60.0), 10.0, 1e6, 2e5, 2e6)
    assert early.verdict == V.NOT_REACHED and early.k_needed == 2e6
    assert C.score_noise_off_level((50.0, 40.0, 60.0), float("nan"), 1e6, 1e3, 1e4).verdict == V.INCONCLUSIVE
    assert C.noise_off_prediction(0.5, 1000.0, 2) == 250.0
    # the control cell: the real cell's resolved bonus_scale and z x10, every other parameter equal
    real = {"agent": "pucb", "env_key": "b", "params": {**PUCB, "epsilon": 1.0, "noise": 0.0}}
    twin = {**real, "params": {**real["params"], "bonus_scale": 10.0, "z": 30.0}, "tags": {"control": "over_exploring"}}
    assert C.control_cell([twin], real, "over_exploring") is twin
    assert C.control_cell([{**twin, "params": {**twin["params"], "z": 3.0}}], real, "over_exploring") is None
    assert C.control_cell([{**twin, "params": {**twin["params"], "epsilon": 2.0}}], real, "over_exploring") is None
