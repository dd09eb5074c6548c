"""Registration rules of each analysis, as the K its claims need (:mod:`privrl.claim_plan`).

One function per analysis (:data:`RULES`), each mirroring what the analysis registers and the regime
its verdict reads (docs/decisions/claims.md, "Paper scale (config/paper.yaml) and the claim plan"):
it returns one :class:`PlannedClaim` per paper claim (context rows left out).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from privrl import agents, experiments
from privrl.papers.designs import window_k
from privrl.results.verdicts import THRESHOLDS, first_k
from privrl.rl.mdp import TabularMDP

NO_K = 0.0  # K needed of a row scored at any K (checks, a bound below the trivial one from K = 1)


@dataclass(frozen=True)
class PlannedClaim:
    """One claim a design registers: its rule, instance, its cells' crossovers and the K needed vs run."""

    experiment: str
    claim: str
    rule: str
    instance: str
    crossovers: Mapping[str, float] = field(default_factory=dict)
    k_needed: float = NO_K
    k_run: float = 0.0

    @property
    def in_regime(self) -> bool:
        return bool(self.k_needed <= self.k_run)

    @property
    def out_of_reach(self) -> bool:
        """Not in regime and K needed > ``out_of_reach_k`` (or never): no design reaches it episode by
        episode (an aggregate-simulated cell run past that K is in regime, not out of reach)."""
        return not self.in_regime and not self.k_needed <= THRESHOLDS.out_of_reach_k

    def text(self) -> str:
        cs = ", ".join(f"{a} {c:.3g}" for a, c in self.crossovers.items())
        need = "none" if self.k_needed == NO_K else ("never" if math.isinf(self.k_needed) else f"{self.k_needed:.3g}")
        where = "in regime" if self.in_regime else ("OUT OF REACH" if self.out_of_reach else "not reached")
        return (f"{self.experiment:26s} {self.claim:48s} {where:12s} K needed {need:>9s} K run {self.k_run:.3g}"
                f" | {self.instance}; crossovers {cs or '-'}")


@dataclass
class ExperimentCells:
    """An experiment's cells with their crossovers, as the rules read them."""

    name: str
    config: Mapping
    cells: list[experiments.Cell]
    cross: dict[str, float]      # cell.setting -> crossover K
    instance: dict[str, str]     # env key -> "name(params)"
    mdp: dict[str, TabularMDP]   # env key -> instance

    @property
    def K(self) -> float:
        return float(self.config["episodes"])

    @property
    def decades(self) -> float:
        return float(self.config.get("fit_decades", THRESHOLDS.fit_decades))

    def private(self, agent: str | None = None, env: str | None = None, **eq) -> list[experiments.Cell]:
        """Cells with noise on (noise-off twins are baselines), of ``agent`` / ``env``, params equal to ``eq``."""
        return [c for c in self.cells if float(c.params.get("noise", 1.0)) > 0.5
                and (agent is None or c.agent == agent) and (env is None or c.env == env)
                and all(k in c.params and math.isclose(float(c.params[k]), float(v)) for k, v in eq.items())]

    def window(self, c: experiments.Cell, decades: float | None = None) -> float:
        return window_k(self.cross[c.setting], self.decades if decades is None else decades)

    def point(self, cells: Iterable[experiments.Cell]) -> float:
        return THRESHOLDS.regime_factor * max((self.cross[c.setting] for c in cells), default=math.nan)

    def claim(self, name: str, rule: str, cells: Iterable[experiments.Cell], need: float) -> PlannedClaim:
        cells = list(cells)
        envs_ = sorted({c.env for c in cells}) or sorted(self.instance)
        inst = "; ".join(f"{e} = {self.instance[e]}" for e in envs_)
        return PlannedClaim(self.name, name, rule, inst, {c.cell: self.cross[c.setting] for c in cells}, need, self.K)


def _second(values: list[float]) -> float:
    v = sorted(values)
    return v[THRESHOLDS.min_eps_cells - 1] if len(v) >= THRESHOLDS.min_eps_cells else math.inf


def _eps(c: experiments.Cell) -> float:
    return float(c.params.get("epsilon", math.nan))


# ---------------------------------------------------------------- one rule per analysis
def config_claims(x: ExperimentCells, config: Mapping) -> list[PlannedClaim]:
    out = []
    for spec in experiments.resolve_claims(config, x.name):
        check = spec["check"]
        if spec.get("scope", "paper_claim") != "paper_claim" or "cell" not in check:
            continue
        c = next(c for c in x.cells if c.env == check["env"] and c.cell == check["cell"])
        out.append(x.claim(spec["id"], f"config {check['type']}", [c], x.window(c)))
    return out


def _privacy_cost(x: ExperimentCells) -> list[PlannedClaim]:
    out, groups = [], {}
    for c in x.cells:  # resolved params, as the analysis reads them (a private cell's noise is its default 1)
        p = agents.get(c.agent).resolve(c.params)
        if "noise" in p and "epsilon" in p:
            rest = tuple(sorted((k, float(v)) for k, v in c.params.items() if k not in ("epsilon", "noise")))
            groups.setdefault((c.env, c.agent, rest), []).append(c)
    for (env, agent, rest), cells in sorted(groups.items()):
        priv = [c for c in cells if float(c.params.get("noise", 1.0)) > 0.5]
        if len(priv) == len(cells) or not priv:
            continue
        needs = [x.window(c) for c in priv]
        tag = f"{agent}_{env}" + "".join(f"_{k}{v:g}" for k, v in rest)
        out += [x.claim(f"{tag}_b", "privacy cost b: first eps cell", priv, min(needs)),
                x.claim(f"{tag}_eps", "eps exponent: second eps cell", priv, _second(needs))]
    return out


def _order_need(x: ExperimentCells, forms: tuple[str, str, str], eps: float, cells: list) -> float | None:
    """K needed of a JDP-vs-LDP order as the analyses read it: 10 x the largest crossover and the K
    from which the table's forms put the slower >= MARGIN x the faster
    (:func:`privrl.papers.table_orders.dominance`); None where they never do (a context row)."""
    from privrl.papers import table_orders

    _, k_priv, _ = table_orders.dominance(*forms, eps, x.K, x.mdp[cells[0].env])
    return max(x.point(cells), k_priv) if math.isfinite(k_priv) else None


def _garcelon_table1(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    rows = [c for c in x.private() if "table1" in c.tags]
    for c in rows:
        out.append(x.claim(f"table1_{c.tags['table1']}_{c.env}_eps{_eps(c):g}", "rate window", [c], x.window(c)))
    for ldp in (c for c in rows if c.tags["table1"] == "ldp_obi"):
        jdp = [c for c in rows if c.tags["table1"] == "pucb" and c.env == ldp.env and math.isclose(_eps(c), _eps(ldp) / 2)]
        need = _order_need(x, ("garcelon2021", "LDP", "JDP"), _eps(ldp), [jdp[0], ldp]) if jdp else None
        if need is not None:  # PUCB at eps0 / 2 is eps0-JDP under replacement (Vietri Claim 1)
            out.append(x.claim(f"table1_jdp_cheaper_{ldp.env}_eps{_eps(ldp):g}",
                               "order: 10 x max crossover, privacy term dominant", [jdp[0], ldp], need))
    for c in rows:
        if c.tags["table1"] == "shuffled_tau_k13":
            # the exact amplification of one release is context (amplification_context): not planned
            out.append(x.claim(f"table1_amplification_{c.env}_eps{_eps(c):g}_release_sequence",
                               "check (release sequence)", [], NO_K))
    return out


def _vietri_pucb(x: ExperimentCells, thm: str) -> list[PlannedClaim]:
    from privrl.papers.vietri2020 import bounds as vb  # the papers' explicit bounds (App. B.1, B.2)
    from privrl.agents.crossover import max_policy_gap
    from privrl.run import DEFAULT_ALPHAS

    out = []
    for c in x.private("pucb"):
        m, p = x.mdp[c.env], agents.get("pucb").resolve(c.params)
        if thm == "pac":  # one mistake series per gap interval (alpha between two policy gaps)
            for alpha in vb.series_alphas(m, list(x.config.get("alphas", DEFAULT_ALPHAS))):
                B = vb.thm3_explicit_bound(m.S, m.A, m.H, alpha, p["epsilon"], x.K, p.get("beta", 0.05))
                out += [x.claim(f"pac_bound_{c.cell}_a{alpha:g}", "explicit bound below K", [c], first_k(1.0, lambda k: B < k)),
                        x.claim(f"pac_rate_{c.cell}_a{alpha:g}", "rate window (2 decades)", [c], x.window(c, THRESHOLDS.fit_decades))]
        else:
            gap = max_policy_gap(m)
            need = first_k(1.0, lambda k: vb.thm4_explicit_bound(k, m.S, m.A, m.H, p["epsilon"], p["beta"]) < k * gap)
            out += [x.claim(f"thm4_bound_{c.cell}", "explicit bound below trivial", [c], need),
                    x.claim(f"thm4_rate_{c.cell}", "rate window", [c], x.window(c))]
    return out


def _garcelon_thm6(x: ExperimentCells) -> list[PlannedClaim]:
    out, grid = [], [c for c in x.private("shuffled-obi") if c.tags.get("thm6") == "grid"]
    # the exact amplification of tau users vs eps0 is context (amplification_context): not planned
    for (env, scale) in sorted({(c.env, float(c.params.get("bonus_scale", 1.0))) for c in grid}):
        tau0 = [c for c in grid if (c.env, float(c.params.get("bonus_scale", 1.0))) == (env, scale)
                and int(c.params.get("tau", 0)) == 0]
        out.append(x.claim(f"thm6_eps_term_{env}_s{scale:g}", "eps exponent: second eps cell", tau0,
                           _second([x.window(c) for c in tau0])))
    seen = set()  # the local-eps check and the guarantees do not depend on bonus_scale: once per (env, eps0)
    for c in (c for c in x.private("shuffled-obi") if c.tags.get("thm6") == "k13_local"):
        gid = f"{c.env}_eps0{float(c.tags['eps0']):g}"
        if gid not in seen:
            seen.add(gid)
            out.append(x.claim(f"thm6_k13_local_eps_{gid}", "check", [], NO_K))
            out.append(x.claim(f"thm6_k13_amplification_{gid}_release_sequence", "check (release sequence)", [], NO_K))
        out.append(x.claim(f"thm6_k13_rate_{c.cell}", "rate window", [c], x.window(c)))
    return out


def _rlsvi_privacy(x: ExperimentCells) -> list[PlannedClaim]:
    """The analysis's checks (three per RLSVI instance, Remark 2 once); "RLSVI no larger than UCBVI"
    and the matched-eps orders are context (Lu et al. compare RLSVI with no other agent)."""
    envs_ = sorted({c.env for c in x.cells if c.agent == "rlsvi"})
    return [x.claim(f"{name}_{env}", "check", [], NO_K) for env in envs_
            for name in ("cor14_equals_thm13_min", "library_not_looser", "eps_linear_in_K")] + (
        [x.claim("remark2_rewards_only", "check", [], NO_K)] if envs_ else [])


def _lu_fixed_eps(x: ExperimentCells) -> list[PlannedClaim]:  # the orders against other agents are context
    return [x.claim(f"rlsvi_sqrtK_{c.env}", "rate window", [c], x.window(c))
            for c in x.private("rlsvi") if float(c.params.get("beta_scale", 1.0)) == 1.0]


def _bai_error_level(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    for env in sorted(x.instance):
        priv = sorted((c for c in x.private(env=env) if c.agent in ("sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp")),
                      key=lambda c: x.cross[c.setting])
        out.append(x.claim(f"error_level_{env}", "point: 10 x the two smallest crossovers", priv[:2], x.point(priv[:2])))
    return out


def _bai_thm11(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    for env in sorted(x.instance):
        inside = [c for c in x.private("sdp-pe", env) if _eps(c) < 1.0]
        needs = [x.window(c) for c in inside]
        out += [x.claim(f"sqrtK_eps{_eps(c):g}_{env}", "rate window", [c], n) for c, n in zip(inside, needs)]
        if inside and x.private("pe", env):
            out += [x.claim(f"additive_b_{env}", "privacy cost b: first eps cell", inside, min(needs)),
                    x.claim(f"eps_dependence_{env}", "eps exponent: second eps cell", inside, _second(needs))]
    return out


def _eq29_info(c: experiments.Cell) -> dict:
    return {"agent": c.agent, "params": agents.get(c.agent).resolve(c.params)}


def _eq29_dominance(x: ExperimentCells, shuffle: experiments.Cell, local: experiments.Cell) -> float:
    """First K at which Eq. (29) of the local run is >= MARGIN x the shuffle run's (inf: never), as
    the Table I analysis computes it."""
    from privrl.papers import table_orders
    from privrl.papers.bai_sdp_pe.eq29 import eq29_bound

    m, a, b = x.mdp[shuffle.env], _eq29_info(local), _eq29_info(shuffle)
    return first_k(1.0, lambda k: eq29_bound(a, m, int(k)) / eq29_bound(b, m, int(k)) >= table_orders.MARGIN)


def _bai_scaling(x: ExperimentCells) -> list[PlannedClaim]:
    """One row per agent: regret below Eq. (29) at every size; its K needed is the largest over the
    sizes of the K from which Eq. (29) is below the trivial K x max policy gap (``score_below_eq29``'s
    vacuity). The slopes across X, A, H are context (instance-dependent regret)."""
    from privrl.agents.crossover import max_policy_gap
    from privrl.papers.bai_sdp_pe.eq29 import eq29_bound

    out = []
    for agent in ("pe", "sdp-pe"):
        cells = x.private(agent)
        if not cells:
            continue
        needs = [first_k(1.0, lambda k, c=c, m=x.mdp[c.env]: eq29_bound(_eq29_info(c), m, int(k)) < k * max_policy_gap(m))
                 for c in cells]
        out.append(x.claim(f"below_eq29_{agent}", "explicit bound (Eq. 29) below trivial, every size", cells, max(needs)))
    return out


def _bai_table1(x: ExperimentCells) -> list[PlannedClaim]:
    out = []
    for env in sorted(x.instance):
        for agent in ("dp-ucbvi-jdp", "dp-ucbvi-ldp", "sdp-pe"):
            key = (lambda c: (c.params["C"], c.params["C1"])) if agent == "sdp-pe" else (
                lambda c: (float(c.params.get("bonus_scale", 1.0)),))
            cells = x.private(agent, env)
            for s in sorted({key(c) for c in cells}, reverse=True):
                by_eps = {_eps(c): c for c in cells if key(c) == s}
                ref = by_eps[1.0 if 1.0 in by_eps else min(by_eps)]
                tag = f"{agent}_{'_'.join(f'{v:g}' for v in s)}_{env}"
                out.append(x.claim(f"{tag}_sqrtK", "rate window (eps_ref)", [ref], x.window(ref)))
                base = (x.private("pe", env, C=s[0], C1=s[1]) if agent == "sdp-pe" else
                        [c for c in x.cells if c.env == env and c.agent.startswith("dp-ucbvi")
                         and float(c.params.get("noise", 1.0)) == 0.0 and float(c.params.get("bonus_scale", 1.0)) == s[0]])
                if base:
                    needs = [x.window(c) for c in by_eps.values()]
                    out += [x.claim(f"{tag}_b", "privacy cost b: first eps cell", by_eps.values(), min(needs)),
                            x.claim(f"{tag}_gamma", "eps exponent: second eps cell", by_eps.values(), _second(needs))]
        for sh in x.private("sdp-pe", env):
            p = {k: sh.params[k] for k in ("epsilon", "C", "C1")}
            central, local = x.private("sdp-pe-jdp", env, **p), x.private("sdp-pe-ldp", env, **p)
            tag = f"eps{_eps(sh):g}_C{p['C']:g}_{env}"
            if central:
                out.append(x.claim(f"shuffle_matches_central_{tag}", "ratio: shuffle's window", [sh, central[0]], x.window(sh)))
            if local:  # scored where Thm 6's own sum (Eq. 29) puts local >= MARGIN x shuffle, else context
                k_priv = _eq29_dominance(x, sh, local[0])
                if math.isfinite(k_priv):
                    out.append(x.claim(f"shuffle_lt_local_{tag}", "order: shuffle's crossover, Eq. (29) dominant",
                                       [sh, local[0]], max(x.cross[sh.setting], k_priv)))
    return out


def _cross_model(x: ExperimentCells) -> list[PlannedClaim]:
    from privrl.papers.cross_paper.cross_model import ORDERS, TABLE_FORMS, replacement_epsilon  # the analysis's own

    out = []
    for a, b, *_ in ORDERS:
        for ca in x.private(a):
            ea = replacement_epsilon(a, dict(ca.params), x.mdp[ca.env], x.K)
            for cb in x.private(b, ca.env):
                if (math.isclose(ea, replacement_epsilon(b, dict(cb.params), x.mdp[cb.env], x.K))
                        and math.isclose(float(ca.params.get("z", 0)), float(cb.params.get("z", 0)))
                        and math.isclose(float(ca.params.get("bonus_scale", 1)), float(cb.params.get("bonus_scale", 1)))):
                    need = _order_need(x, TABLE_FORMS[(a, b)], ea, [ca, cb])
                    if need is None:  # the table's privacy terms never dominate at this eps: context
                        continue
                    z = float(ca.params.get("z", 0))  # z = 0: paper widths, coverage not matched: never scored
                    out.append(x.claim(f"{a}_below_{b}_{ca.env}_eps{ea:g}_z{z:g}",
                                       "order: 10 x max crossover, privacy term dominant" if z > 0 else
                                       "order at unmatched coverage (never)", [ca, cb], need if z > 0 else math.inf))
    return out


def _minimax(x: ExperimentCells) -> list[PlannedClaim]:
    out, groups = [], {}
    for c in x.private():
        if "gap" in x.mdp[c.env].params:
            groups.setdefault((c.agent, _eps(c)), []).append(c)
    for (agent, eps), cells in sorted(groups.items()):
        cross = {float(x.mdp[c.env].params["gap"]): x.cross[c.setting] for c in cells}
        lo = THRESHOLDS.regime_factor * cross[max(cross)]
        need = 10.0 * lo if cross[min(cross)] >= 10.0 * lo else math.inf  # a decade of window inside the grid
        out += [x.claim(f"minimax_{kind}_{agent}_eps{eps:g}", "minimax: a decade past 10 x the largest gap's crossover",
                        cells, need) for kind in ("upper", "lower")]
    return out


def _lower_bound(x: ExperimentCells) -> list[PlannedClaim]:
    """Thm 6's privacy term SAH ln K / eps at constant 1 is informative once it exceeds the regret of
    the linear phase, crossover x max policy gap (``score_lower_bound``)."""
    from privrl.agents.crossover import max_policy_gap

    out = []
    for c in x.private("pucb"):
        m, cr = x.mdp[c.env], x.cross[c.setting]
        accrued = cr * max_policy_gap(m)
        need = first_k(1.0, lambda k: m.S * m.A * m.H * math.log(k) / _eps(c) >= accrued)
        out.append(x.claim(f"lower_bound_{c.env}_{c.cell}", "privacy term past the linear phase", [c], need))
    return out


RULES: dict[str, Callable[[ExperimentCells], list[PlannedClaim]]] = {
    "privacy_cost": _privacy_cost, "garcelon_table1": _garcelon_table1,
    "vietri2020_pac": lambda x: _vietri_pucb(x, "pac"), "vietri2020_thm4": lambda x: _vietri_pucb(x, "thm4"),
    "garcelon2021_thm6": _garcelon_thm6, "rlsvi_privacy": _rlsvi_privacy, "lu2026_fixed_eps": _lu_fixed_eps,
    "bai_sdp_pe_error_level": _bai_error_level, "bai_sdp_pe_thm11": _bai_thm11, "bai_sdp_pe_scaling": _bai_scaling,
    "bai_table1": _bai_table1, "cross_model_coverage": _cross_model, "vietri2020_minimax": _minimax,
    "vietri2020_lower_bound": _lower_bound,
}


