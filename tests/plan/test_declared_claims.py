"""Each claim declared once: an analysis declares its rows (id, cells, K needed by its verdict's rule,
scope) from the run infos alone, names the rows it scores by that declaration, and the claim plan is the
declaration run on the design's cells (:mod:`privrl.papers.planned`). So the plan of config/config.yaml
lists the ids and scopes the ledger (paper_figures/claims.csv) scores for the same design.

The committed ledger may lag the config: an experiment whose ledger rows ran at another K than the config
asks (the ledger's ``k_run``) was re-planned since, and is compared once claims.csv is regenerated. Its
ids do not come from the ledger anyway: they are the analyses' own, run on the current design here."""
import math

import pandas as pd
import pytest

from privrl.papers import registry
from privrl.plan import claims as claim_plan
from privrl.plan import validate

from tests.papers.synthetic import privacy_context



@pytest.fixture(scope="module")
def design():
    config = validate.read_design("config/config.yaml")
    claims, unplanned = claim_plan.plan(config)
    assert not unplanned
    ledger = pd.read_csv("paper_figures/claims.csv")
    ledger["experiment"] = ledger.experiment.fillna("")
    return config, claims, ledger


def _stale(config, ledger) -> set[str]:
    """Experiments whose ledger rows ran at another K than the config now asks (re-planned since)."""
    out = set()
    for name, rows in ledger.groupby("experiment"):
        K = (config["experiments"].get(name) or {}).get("episodes")
        ks = set(rows.k_run.dropna())
        if K is not None and ks and ks != {float(K)}:
            out.add(name)
    return out


def test_the_plan_lists_the_ledgers_ids_and_scopes(design):
    """Per experiment of config/config.yaml whose ledger is current: the plan's (id, scope) set equals the
    ledger's. A ledger row "out_of_reach" is a paper claim whose verdict stayed undecided with K needed >
    1e11 (data): it compares as a paper claim."""
    config, claims, ledger = design
    stale = _stale(config, ledger)
    planned, scored = {}, {}
    for c in claims:
        planned.setdefault(c.experiment, set()).add((c.claim, c.scope))
    for r in ledger.itertuples():
        scored.setdefault(r.experiment, set()).add((r.claim_id, "paper_claim" if r.scope == "out_of_reach" else r.scope))
    current = (set(planned) | set(scored)) - stale
    assert len(current) >= 20, sorted(current)
    differ = {e: (sorted(planned.get(e, set()) - scored.get(e, set())), sorted(scored.get(e, set()) - planned.get(e, set())))
              for e in current if planned.get(e, set()) != scored.get(e, set())}
    assert not differ, differ


def test_the_plan_counts_the_ledgers_paper_claims(design):
    """The paper claims counted per current experiment are the ledger's (they were 114 and 89 before the
    plan listed the analyses' own rows)."""
    config, claims, ledger = design
    stale = _stale(config, ledger)
    planned = pd.Series([c.experiment for c in claims if c.scope == "paper_claim" and c.experiment not in stale])
    counted = ledger[(ledger.scope != "context") & ~ledger.experiment.isin(stale)].experiment
    assert planned.value_counts().sort_index().to_dict() == counted.value_counts().sort_index().to_dict()


#: analyses run on synthetic runs by test_every_plan_rule_is_its_analysis_declaration: the rows they score must
#: be exactly the rows their declaration lists (ids and scopes)
RUN_ON_SYNTHETIC = ("vietri2020_pac", "vietri2020_thm4", "vietri2020_lower_bound")


def _synthetic_pucb(tmp_path):
    """One PUCB cell on RiverSwim S=2 H=3 with log-like regret and mistakes that plateau (every alpha recorded)."""
    import numpy as np

    from privrl.rl import engine
    from privrl.runs.run import DEFAULT_ALPHAS
    from tests.papers.vietri2020.test_bounds import _pucb_context

    rng = np.random.default_rng(0)
    ep = engine.checkpoints(100_000, 120)
    curves = np.tile(30 * np.log(ep)[None, :], (6, 1)) * (1 + 0.01 * rng.standard_normal((6, 1)))
    plateau = np.floor(np.minimum(ep, 500.0)[None, :] * (1 + 0.01 * rng.standard_normal((6, 1))))
    return _pucb_context(tmp_path, curves, {a: plateau for a in DEFAULT_ALPHAS})[0]


def test_every_plan_rule_is_its_analysis_declaration(tmp_path):
    """Every plan rule is the analysis's declaration run on the design (planned.declared); and the analyses of RUN_ON_SYNTHETIC, run on synthetic runs, score exactly the
    rows (id, scope) their declaration lists on the same run infos: the analysis iterates its declaration."""
    from privrl.papers.common import env_mdp

    rules = registry.claim_rules()
    assert set(rules) == set(registry.analyses())  # every analysis has a rule
    undeclared = {a for a, r in rules.items() if not hasattr(r, "declaration")}
    assert not undeclared
    ctx = _synthetic_pucb(tmp_path)
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    for name in RUN_ON_SYNTHETIC:
        declared = [(r.id, r.scope) for r in rules[name].declaration(ctx.experiment, ctx.infos, mdps, ctx.config)]
        scored = [(r.claim_id, r.scope) for r in registry.analysis(name)(ctx).claims.itertuples()]
        assert declared and sorted(scored) == sorted(declared), (name, declared, scored)


def test_the_privacy_cost_analysis_scores_its_declared_rows(tmp_path):
    """The privacy-cost analysis, run on synthetic runs of one PUCB group on a bandit (noise-off baseline,
    eps 1 and 10, its over-exploring control cell), scores exactly the rows (id, scope) its declaration --
    the plan rule -- lists on the same run infos: b, the eps exponent and the noise-off level (context)."""
    from privrl.papers.common import env_mdp
    from tests.papers.cross_paper.test_noise_off_level import _context

    ctx = _context(tmp_path, twin_factor=60.0)
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    rows = registry.claim_rules()["privacy_cost"].declaration(ctx.experiment, ctx.infos, mdps, ctx.config)
    scored = [(r.claim_id, r.scope) for r in registry.analysis("privacy_cost")(ctx).claims.itertuples()]
    assert sorted(scored) == sorted((r.id, r.scope) for r in rows)
    assert [r.args["kind"] for r in rows] == ["b", "eps", "noise_off"] and rows[-1].scope == "context"
    assert {r.cells for r in rows} == {(("riverswim", "pucb_1"), ("riverswim", "pucb_10"))}  # the private cells


def test_the_privacy_surface_measures_its_declared_rows(tmp_path, monkeypatch):
    """The privacy surface, run on synthetic runs of one algorithm under the three trust models (three eps
    each), measures exactly the context rows (id, scope) its declaration -- the plan rule -- lists, in its
    order: per eps the separation, central < shuffle and shuffle < local."""
    from privrl.papers import cross_paper
    from privrl.papers.common import env_mdp
    from tests.papers.cross_paper.test_privacy_surface import EPS, _family

    monkeypatch.setattr(cross_paper.surface, "figure", lambda ctx, ms: None)
    p = {"bonus_scale": 1.0, "delta": 0.05, "z": 3.0}
    cells = [c for i, a in enumerate(("private-ucbvi-jdp", "private-ucbvi-sdp", "private-ucbvi-ldp"))
             for c in _family(a, 0.5 * (a == "private-ucbvi-ldp"), 300.0, i, p)]
    ctx = privacy_context(tmp_path, cells)
    mdps = {env: env_mdp(ctx, env) for env in ctx.config["envs"]}
    rows = registry.claim_rules()["privacy_surface"].declaration(ctx.experiment, ctx.infos, mdps, ctx.config)
    scored = [(r.claim_id, r.scope) for r in registry.analysis("privacy_surface")(ctx).claims.itertuples()]
    assert scored == [(r.id, r.scope) for r in rows] and len(rows) == 3 * len(EPS)
    assert {r.scope for r in rows} == {"context"} and [r.args["kind"] for r in rows[:3]] == ["separation", "order", "order"]


def test_stale_experiments_are_planned_with_the_analyses_ids(design):
    """The re-planned experiments (ledger at another K) still list every row of their declared analyses
    under the ids those analyses give, with a K needed each (a number, inf for never, or none)."""
    config, claims, ledger = design
    for name in _stale(config, ledger):
        rows = [c for c in claims if c.experiment == name]
        assert rows and all(c.claim.startswith(name) for c in rows), name
        assert all(c.k_needed >= 0 or math.isinf(c.k_needed) for c in rows)
