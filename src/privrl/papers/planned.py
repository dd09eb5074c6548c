"""What a claim-plan rule reads and returns (:mod:`privrl.plan.claims`), and what an analysis declares.

Each paper's folder maps its analyses to their rules (its ``plan`` module's ``RULES``, found by
:func:`privrl.papers.registry.claim_rules`). An analysis declares its rows once: a declaration
``declare(experiment, infos, mdps, config) -> list[Row]`` beside the analysis lists each row's id, the
cells it reads, its K needed (the rule its own verdict uses) and its scope from the run infos alone
(agent, resolved params, env_key, cell, label, tags, episodes: no data); the analysis names and files its
rows by it, and the plan rule is that declaration run on the design's cells (:func:`declared`,
:func:`design_infos`).
This module holds the shared shapes: the declared row, the planned claim, an experiment's cells with
their crossovers, and the K needed of the common kinds of row.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping

from privrl.design import experiments
from privrl.papers.designs import window_k
from privrl.results.verdicts import THRESHOLDS
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
    k_max: float = math.inf  # the largest K in regime: a phase that ends (still exploring: the crossover)
    scope: str = "paper_claim"  # as the ledger files it ("context" rows are listed, not counted)

    @property
    def in_regime(self) -> bool:
        return bool(self.k_needed <= self.k_run <= self.k_max)

    @property
    def past_its_phase(self) -> bool:
        """K run beyond the claim's phase (e.g. "still exploring" past the crossover): a smaller K,
        not a larger one, reaches it."""
        return bool(self.k_run > self.k_max)

    @property
    def out_of_reach(self) -> bool:
        """Not in regime and K needed > ``out_of_reach_k`` (or never): no design reaches it episode by
        episode (an aggregate-simulated cell run past that K is in regime, not out of reach)."""
        return not self.in_regime and not self.past_its_phase and not self.k_needed <= THRESHOLDS.out_of_reach_k

    def text(self) -> str:
        cs = ", ".join(f"{a} {c:.3g}" for a, c in self.crossovers.items())
        ctx = "" if self.scope == "paper_claim" else f" [{self.scope}]"
        need = "none" if self.k_needed == NO_K else ("never" if math.isinf(self.k_needed) else f"{self.k_needed:.3g}")
        where = ("in regime" if self.in_regime else "past phase" if self.past_its_phase
                 else "OUT OF REACH" if self.out_of_reach else "not reached")
        if self.past_its_phase:
            need = f"<= {self.k_max:.3g}"
        return (f"{self.experiment:26s} {self.claim:48s} {where:12s} K needed {need:>9s} K run {self.k_run:.3g}"
                f" | {self.instance}; crossovers {cs or '-'}{ctx}")


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
        return fit_decades(self.config)

    def private(self, agent: str | None = None, env: str | None = None, **eq) -> list[experiments.Cell]:
        """Cells with noise on (noise-off twins are baselines), of ``agent`` / ``env``, params equal to ``eq``;
        not the control cells (wrong twins a claim is scored against, ``tags: {control: ...}``)."""
        return [c for c in self.cells if float(c.params.get("noise", 1.0)) > 0.5 and not (c.tags or {}).get("control")
                and (agent is None or c.agent == agent) and (env is None or c.env == env)
                and all(k in c.params and math.isclose(float(c.params[k]), float(v)) for k, v in eq.items())]

    def window(self, c: experiments.Cell, decades: float | None = None) -> float:
        return window_k(self.cross[c.setting], self.decades if decades is None else decades)

    def point(self, cells: Iterable[experiments.Cell]) -> float:
        return THRESHOLDS.regime_factor * max((self.cross[c.setting] for c in cells), default=math.nan)

    def claim(self, name: str, rule: str, cells: Iterable[experiments.Cell], need: float,
              k_max: float = math.inf, scope: str = "paper_claim") -> PlannedClaim:
        cells = list(cells)
        if scope == "paper_claim" and "check" not in rule:  # the ledger's rule: an agent row above eps 10 is context
            from privrl.results.claims import eps_scope

            eps = [float((c.tags or {}).get("eps0", cell_eps(c))) for c in cells]  # the level the row is labelled at
            scope = eps_scope([e for e in eps if math.isfinite(e)])
        envs_ = sorted({c.env for c in cells}) or sorted(self.instance)
        inst = "; ".join(f"{e} = {self.instance[e]}" for e in envs_)
        return PlannedClaim(self.name, name, rule, inst, {c.cell: self.cross[c.setting] for c in cells}, need, self.K,
                            k_max, scope)


def second_eps_need(values: list[float]) -> float:
    v = sorted(values)
    return v[THRESHOLDS.min_eps_cells - 1] if len(v) >= THRESHOLDS.min_eps_cells else math.inf


def two_sided_eps_need(pairs: list[tuple[float, float]]) -> float:
    """K at which a two-sided eps exponent is read (``pairs``: (eps, K needed) per cell), by the
    verdicts' own rule (:func:`privrl.results.eps_verdicts.k_for_eps_grid`)."""
    from privrl.results.eps_verdicts import k_for_eps_grid

    return k_for_eps_grid(pairs, THRESHOLDS.two_sided_eps_cells, THRESHOLDS.two_sided_eps_decades)


def gamma_need(x: "ExperimentCells", cells: Iterable[experiments.Cell], two_sided: bool = False) -> float:
    """K needed of an eps exponent by the verdict's own rule (:func:`privrl.results.eps_verdicts.gamma_need`):
    D read at one K, each cell past 10 x its crossover (two cells; two-sided: four over a decade, on eps in
    [1, 10] where that grid suffices), its flattening checked on the data."""
    from privrl.results.eps_verdicts import gamma_need as need

    return need([(cell_eps(c), x.cross[c.setting]) for c in cells], two_sided)


def cell_eps(c: experiments.Cell) -> float:
    return float(c.params.get("epsilon", math.nan))


def order_need(x: ExperimentCells, forms: tuple[str, str, str], eps: float, cells: list) -> float | None:
    """K needed of a JDP-vs-LDP order as the analyses read it: 10 x the largest crossover and the K
    from which the table's forms put the slower >= MARGIN x the faster
    (:func:`privrl.papers.table_orders.dominance`); None where they never do (a context row)."""
    from privrl.papers import table_orders

    _, k_priv, _ = table_orders.dominance(*forms, eps, x.K, x.mdp[cells[0].env])
    return max(x.point(cells), k_priv) if math.isfinite(k_priv) else None


Rule = Callable[[ExperimentCells], list[PlannedClaim]]


@dataclass(frozen=True)
class Row:
    """One row an analysis declares before any data: its id, the plan's name of its K rule, the cells it
    reads ((env key, cell id) pairs), the K its verdict needs, its scope ("paper_claim" rows above eps 10
    become context by :func:`privrl.results.claims.eps_scope`, in the ledger and the plan alike), the
    crossovers the plan prints for it where they are not its cells' own (``crossovers``, e.g. a noise-off
    crossover; None: its cells') and, for the analysis's scorer, what it needs to score the row (``args``;
    neither compared)."""

    id: str
    rule: str
    cells: tuple[tuple[str, str], ...] = ()
    need: float = NO_K
    scope: str = "paper_claim"
    k_max: float = math.inf
    crossovers: Mapping[str, float] | None = field(default=None, compare=False)
    args: Mapping = field(default_factory=dict, compare=False)


Declaration = Callable[[str, list, Mapping, Mapping], list[Row]]  # (experiment, run infos, env key -> MDP, its config)


def design_infos(x: ExperimentCells) -> list[dict]:
    """The design's cells as an analysis's run infos carry them (agent, params resolved by the agent's
    defaults, env_key, cell, label, tags, episodes = the experiment's K): what a declaration reads."""
    from privrl import agents

    return [{"agent": c.agent, "params": dict(agents.get(c.agent).resolve(c.params)), "env_key": c.env,
             "cell": c.cell, "label": c.label, "tags": dict(c.tags or {}), "episodes": int(x.K)} for c in x.cells]


def declared(declare: Declaration) -> Rule:
    """The plan rule of an analysis: its declaration run on the design's cells, each row a
    :class:`PlannedClaim` with its cells' crossovers (or the row's own ``crossovers``)."""
    def rule(x: ExperimentCells) -> list[PlannedClaim]:
        by = {(c.env, c.cell): c for c in x.cells}
        out = []
        for r in declare(x.name, design_infos(x), x.mdp, x.config):
            claim = x.claim(r.id, r.rule, [by[k] for k in r.cells], r.need, r.k_max, r.scope)
            out.append(claim if r.crossovers is None else replace(claim, crossovers=dict(r.crossovers)))
        return out

    rule.declaration = declare
    return rule


def fit_decades(config: Mapping) -> float:
    """The decades of an experiment's fit window (config ``fit_decades``; the verdicts' default)."""
    return float(config.get("fit_decades", THRESHOLDS.fit_decades))
