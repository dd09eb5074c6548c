"""Bad configs are rejected before any job, one line per problem naming the config key."""
import copy
from pathlib import Path

import pytest
import yaml

from privrl.design import experiments
from privrl.plan import validate

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/config.schema.yaml"
SMOKE = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
# the default design (every experiment; the smoke overlay keeps two): what the mutations edit
DESIGN = yaml.safe_load((ROOT / "config/config.yaml").read_text())


def _errors(cfg):
    import jsonschema

    schema = yaml.safe_load(SCHEMA.read_text())
    errs = [validate.schema_error_line(e) for e in jsonschema.Draft202012Validator(schema).iter_errors(cfg)]
    return errs or validate.config_errors(cfg)


def _cell(cfg, exp, i):
    return cfg["experiments"][exp]["cells"][i]


def _set_param(exp, i, k, v):
    def f(c):
        _cell(c, exp, i).setdefault("params", {})[k] = v
    return f


# (name, mutation, text the one-line message must contain)
BAD = [
    ("ucbvi delta 1.5", _set_param("ucbvi_baseline", 0, "delta", 1.5), "ucbvi_baseline.cells[0].params.delta"),
    ("ucbvi delta 0", _set_param("ucbvi_baseline", 0, "delta", 0), "params.delta"),
    ("ucbvi delta nan", _set_param("ucbvi_baseline", 0, "delta", float("nan")), "params.delta"),
    ("bonus_scale -1", _set_param("ucbvi_baseline", 0, "bonus_scale", -1), "params.bonus_scale"),
    ("bonus_scale inf", _set_param("ucbvi_baseline", 0, "bonus_scale", float("inf")), "params.bonus_scale"),
    ("epsilon inf", _set_param("regret_vs_K", 0, "epsilon", float("inf")), "params.epsilon"),
    ("epsilon 0", _set_param("regret_vs_K", 0, "epsilon", 0), "params.epsilon"),
    ("epsilon negative", _set_param("regret_vs_K", 0, "epsilon", -1), "params.epsilon"),
    ("epsilon nan", _set_param("regret_vs_K", 0, "epsilon", float("nan")), "params.epsilon"),
    ("noise 0.5", _set_param("regret_vs_K", 0, "noise", 0.5), "params.noise"),
    ("pucb beta 2", _set_param("regret_vs_K", 0, "beta", 2), "params.beta"),
    ("shuffled tau -1", _set_param("regret_vs_K", 2, "tau", -1), "params.tau"),
    ("shuffled tau 1.5", _set_param("regret_vs_K", 2, "tau", 1.5), "params.tau"),
    ("shuffled m 0", _set_param("regret_vs_K", 2, "m", 0), "params.m"),
    ("shuffled tau_power 2", _set_param("regret_vs_K", 2, "tau_power", 2), "params.tau_power"),
    ("shuffled delta0 0", _set_param("regret_vs_K", 2, "delta0", 0), "params.delta0"),
    ("rlsvi delta 2", _set_param("rlsvi_matched", 0, "delta", 2), "params.delta"),
    ("rlsvi beta_scale 0", _set_param("rlsvi_matched", 0, "beta_scale", 0), "params.beta_scale"),
    ("param the agent lacks", _set_param("ucbvi_baseline", 0, "epsilon", 1), "has no parameter 'epsilon'"),
    ("unknown agent", lambda c: _cell(c, "ucbvi_baseline", 0).update(agent="ucbvii"), "cells[0].agent"),
    ("noise_off on ucbvi", lambda c: _cell(c, "ucbvi_baseline", 0).update(noise_off=True), "noise_off"),
    ("sweep key nobody has", lambda c: c["experiments"]["regret_vs_K"]["sweep"].update(epsiln=[1]), "sweep.epsiln"),
    ("sweep value out of domain", lambda c: c["experiments"]["regret_vs_K"]["sweep"].update(epsilon=[0]),
     "sweep.epsilon[0]"),
    ("zipped sweep wrong arity", lambda c: c["experiments"]["bai_sdp_pe_error_level"]["sweep"].update({"C,C1": [[1, 2, 3]]}),
     "sweep.C,C1[0]"),
    ("S = 1", lambda c: c["experiments"]["ucbvi_constant"]["envs"]["riverswim"]["params"].update(S=1), "params.S"),
    ("H = 0", lambda c: c["experiments"]["ucbvi_constant"]["envs"]["riverswim"]["params"].update(H=0), "params.H"),
    ("S a string", lambda c: c["experiments"]["ucbvi_constant"]["envs"]["riverswim"]["params"].update(S="four"),
     "params.S"),
    ("S a float", lambda c: c["experiments"]["ucbvi_constant"]["envs"]["riverswim"]["params"].update(S=4.5),
     "params.S"),
    ("unknown env param", lambda c: c["experiments"]["ucbvi_constant"]["envs"]["riverswim"]["params"].update(X=1),
     "params.X"),
    ("garnet branching > S", lambda c: c["experiments"]["bai_sdp_pe_error_level"]["envs"]["garnet"]["params"].update(branching=9),
     "envs.garnet.params"),
    ("unknown env name", lambda c: c["experiments"]["ucbvi_constant"]["envs"]["riverswim"].update(name="nope"),
     "envs.riverswim.name"),
    ("experiment name with a slash", lambda c: c["experiments"].update({"ucbvi/baseline": c["experiments"].pop("ucbvi_baseline")}),
     "experiments.ucbvi/baseline"),
    ("unknown paper", lambda c: c["experiments"]["regret_vs_K"].update(paper="vietri2021"), "regret_vs_K.paper"),
    ("unknown analysis", lambda c: c["experiments"]["regret_vs_K"].update(analyses=["privacy_costs"]), "analyses[0]"),
    ("claim on a missing env", lambda c: c["experiments"]["ucbvi_baseline"]["claims"][0]["check"].update(env="chain"),
     "claims[0].check.env"),
    ("claim selector matches nothing", lambda c: c["experiments"]["ucbvi_baseline"]["claims"][0]["check"].update(
        select={"bonus_scale": 0.5}), "ucbvi_sublinear_bandit"),
    ("claim selector ambiguous", lambda c: c["experiments"]["regret_vs_K"]["claims"][0]["check"].update(select={}),
     "matches 3 cells"),
    ("duplicate claim ids", lambda c: c["experiments"]["ucbvi_constant"]["claims"][0].update(
        id="ucbvi_sublinear_bandit"), "ucbvi_sublinear_bandit"),
    ("claim template unknown agent", lambda c: c["experiments"]["regret_vs_K"]["claims"][0]["agents"].append("pucbb"),
     "claims[0].agents"),
    ("unknown check type", lambda c: c["experiments"]["ucbvi_baseline"]["claims"][0]["check"].update(type="below"),
     "check.type"),
    ("seeds 0", lambda c: c["experiments"]["ucbvi_baseline"].update(seeds=0), "ucbvi_baseline.seeds"),
    ("seeds a float", lambda c: c["experiments"]["ucbvi_baseline"].update(seeds=2.5), "ucbvi_baseline.seeds"),
    ("episodes a string", lambda c: c["experiments"]["ucbvi_baseline"].update(episodes="many"), "episodes"),
    ("unknown experiment key", lambda c: c["experiments"]["ucbvi_baseline"].update(episdes=10), "episdes"),
    ("unknown top-level key", lambda c: c.update(typo_key=1), "typo_key"),
    ("results_dir not a string", lambda c: c.update(results_dir=3), "results_dir"),  # absent: default results/
    ("bootstrap n 1", lambda c: c["bootstrap"].update(n=1), "bootstrap.n"),
    ("matched without matched_eps", lambda c: c["experiments"]["rlsvi_matched"].pop("matched_eps"), "matched_eps"),
    ("duplicate cells", lambda c: c["experiments"]["ucbvi_baseline"]["cells"].append({"agent": "ucbvi", "params": {"bonus_scale": 1.0}}),
     "declared twice"),
]


@pytest.mark.parametrize("name,mutate,needle", BAD, ids=[b[0] for b in BAD])
def test_bad_config_rejected_naming_the_key(name, mutate, needle):
    cfg = copy.deepcopy(DESIGN)
    mutate(cfg)
    errs = _errors(cfg)
    assert errs, f"{name}: accepted"
    assert all("\n" not in e for e in errs)
    assert any(needle in e for e in errs), errs


def test_shipped_configs_have_no_errors():
    for name in ("config.yaml", "smoke.yaml"):
        cfg = experiments.resolve_overlay(yaml.safe_load((ROOT / "config" / name).read_text()), ROOT)
        assert _errors(cfg) == []
        assert validate.yaml_errors(ROOT / "config" / name) == []


def test_duplicate_yaml_key_and_syntax_error_name_the_line(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("experiments:\n  e:\n    episodes: 20\n    episodes: 2000\n")
    assert validate.yaml_errors(p) == [f"{p}:4: duplicate key 'episodes' (first at line 3)"]
    p.write_text("a: [1, 2\nb: 3\n")
    (err,) = validate.yaml_errors(p)
    assert err.startswith(f"{p}:")


def test_every_agent_parameter_has_a_domain():
    from privrl.agents import REGISTRY

    for spec in REGISTRY.values():
        for k, v in spec.defaults.items():
            assert validate.check_param(k, v, [spec.name]) is None, (spec.name, k)


def test_an_agent_declares_its_parameter_domains():
    """A new agent's domains live in its own AgentSpec: the config validation reads them from the
    spec, and a spec with a parameter but no domain (or a default outside it) is refused."""
    from dataclasses import replace

    from privrl.agents import ucbvi
    from privrl.agents.registry import POSITIVE, Domain

    with pytest.raises(ValueError, match="none for \\['gamma'\\]"):
        replace(ucbvi.SPEC, name="x", defaults={**ucbvi.SPEC.defaults, "gamma": 0.5})
    with pytest.raises(ValueError, match="default gamma = 0.5 is not a finite number > 1"):
        replace(ucbvi.SPEC, name="x", defaults={**ucbvi.SPEC.defaults, "gamma": 0.5},
                domains={**ucbvi.SPEC.domains, "gamma": Domain("a finite number > 1", lambda v: v > 1)})
    assert validate.check_param("bonus_scale", -1, ["ucbvi"]) == "-1 is not a finite number >= 0"
    assert validate.check_param("epsilon", 0.0, ["pucb"]) == "0.0 is not a finite number > 0"
    assert validate.check_param("epsilon", 2.0, ["ucbvi", "pucb"]) is None and POSITIVE.why_not(2.0) is None


def test_costly_design_refused_unless_accepted():
    cfg = copy.deepcopy(SMOKE)
    cfg["experiments"]["ucbvi_baseline"].update(episodes=10**10, seeds=1000)
    assert "CPU-hours" in validate.cost_error(cfg) and "accept_cost=True" in validate.cost_error(cfg)
    cfg["accept_cost"] = True
    assert validate.cost_error(cfg) is None
    assert validate.cost_error(SMOKE) is None


def test_config_validation_suggests_the_closest_agent_and_environment():
    import copy

    from privrl.plan import validate

    smoke = experiments.resolve_overlay(yaml.safe_load((ROOT / "config/smoke.yaml").read_text()), ROOT)
    bad = copy.deepcopy(smoke)
    bad["experiments"]["ucbvi_baseline"]["cells"][0]["agent"] = "ucbv"
    bad["experiments"]["ucbvi_baseline"]["envs"]["bandit"]["name"] = "riverswin"
    errs = "\n".join(validate.experiment_errors(bad, "ucbvi_baseline"))
    assert "unknown environment 'riverswin'; did you mean 'riverswim'?" in errs
    bad["experiments"]["ucbvi_baseline"]["envs"]["bandit"]["name"] = "garnet"
    assert "unknown agent 'ucbv'; did you mean 'ucbvi'?" in "\n".join(validate.experiment_errors(bad, "ucbvi_baseline"))
