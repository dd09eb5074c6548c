"""Claims that span the papers: the privacy cost of every private agent, and the privacy audit.

* analysis ``privacy_cost`` -- exponents (b, eps law) per agent against each paper's prediction;
* analysis ``cross_model_coverage`` -- :mod:`privrl.papers.cross_paper.cross_model` (JDP vs shuffle vs LDP);
* analysis ``privacy_surface`` -- :mod:`privrl.papers.cross_paper.surface` (D(K, eps) per trust model);
* analysis ``trust_model_separation`` -- :mod:`privrl.papers.cross_paper.separation` (D_LDP / D_JDP ~ sqrt(K)
  over a gap family: the separation as a worst case);
* :func:`privacy_audit_claim` -- the claim row of the privacy audit of every mechanism
  (:mod:`privrl.mechanisms.audit`; the ``privacy_audit`` rule builds the table).

Analysis ``privacy_cost``: D(K, eps) = R(K, eps) - R(K, non-private) ~ K^b g(eps)^gamma.

For every environment and private agent, cells are grouped by agent and all parameters except
``epsilon`` and ``noise``; the group's baseline is its ``noise = 0`` cell, the private cells its
``noise = 1`` cells over the eps sweep. :func:`privrl.results.privacy_fits.fit_privacy_cost`
gives per-eps K-slopes and D at the last K with seed-bootstrap CIs; each eps cell carries its
own :class:`~privrl.results.verdicts.Regime` (its crossover K from the agent's width on the
run's MDP: ~1/eps for JDP widths, ~1/eps^2 for LDP ones, so eps cells sit in different regimes).
:func:`privrl.results.eps_verdicts.score_eps_dependence` scores (docs/decisions/verdicts.md):
only eps cells in regime, per-eps slopes homogeneous before any pooled b or gamma; b one-sided
(an upper bound: pooled b <= b_paper + log allowance); gamma against the paper's own g(eps)
within the range the widths allow on a gap instance:

* JDP (PUCB: Vietri et al. Thm 4; DP-UCBVI / Private-UCB-VI JDP rows of Bai et al. Table I) and
  SDP (Bai et al. Lemma 10 / Thm 11): additive ``polylog(K)/eps`` -> b <= 0, g = 1/eps, gamma = 1;
* LDP (LDP-OBI: Garcelon et al. Table 1; LDP rows of Bai et al. Table I): ``sqrt(K)/eps`` ->
  b <= 0.5, g = 1/eps, gamma in [1, 2] (the regret up to the crossover ~ 1/eps^2);
* Shuffled-OBI at fixed eps0 (Garcelon Thm 6, Eq. 9): ``sqrt(2K) e^{eps/2}/(e^eps - 1)`` -> b <= 0.5,
  g = e^{eps/2}/(e^eps - 1) (``eps_verdicts.EPS_LAWS["garcelon_shuffle"]``), gamma in [1, 2].
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import pandas as pd

from privrl.agents.crossover import first_step_gap
from privrl.agents.registry import agent_crossover
from privrl.agents.registry import get as agent_spec
from privrl.rl import seeding
from privrl.results import verdicts as V
from privrl.results import controls
from privrl.results import eps_verdicts as EV
from privrl.results.claims import claims_frame
from privrl.results.privacy_fits import eps_cells, fit_privacy_cost
from privrl.results.stats import mean_ci, seed_matrix
from privrl.papers.cross_paper import cross_model, separation, surface
from privrl.papers.analysis import AnalysisContext, AnalysisResult
from privrl.papers.common import env_mdp
from privrl.papers.designs import window_k
from privrl.papers.planned import Row, fit_decades
from privrl.papers.registry import Paper

ADDITIVE = (0.0, "power", (1.0, 1.0))
MULTIPLICATIVE = (0.5, "power", (1.0, 2.0))
TARGETS = {  # agent -> ((b_paper, eps law, gamma range), paper id, item, source)
    "pucb": (ADDITIVE, "vietri2020", "Thm 4", "Vietri et al. 2020, Thm 4 (additive O~((SAH^3 + S^2AH^3)/eps))"),
    # Private-UCB-VI (Chowdhury & Zhou 2022) is Bai et al.'s ref. [16], cited in Sec. I but not a row of
    # Table I: its rows are scored against the form of Table I's row for its trust model, under their own item
    "private-ucbvi-jdp": (ADDITIVE, "bai_sdp_pe", "Sec. I, ref. [16]",
                          "Private-UCB-VI (Chowdhury & Zhou 2022, Bai et al. ref. [16]; not a row of Table I), "
                          "against the form of Table I's JDP row (additive X^2AH^3/eps)"),
    "dp-ucbvi-jdp": (ADDITIVE, "bai_sdp_pe", "Table I", "Bai et al. Table I, DP-UCBVI eps-JDP row (additive X^2AH^3/eps)"),
    "private-ucbvi-sdp": (ADDITIVE, "bai_sdp_pe", "Lemma 10 / Thm 11",
                          "Bai et al. Lemma 10 / Thm 11 (SDP error level O~(H/eps), additive)"),
    "private-ucbvi-ldp": (MULTIPLICATIVE, "bai_sdp_pe", "Sec. I, ref. [16]",
                          "Private-UCB-VI (Chowdhury & Zhou 2022, Bai et al. ref. [16]; not a row of Table I), "
                          "against the form of Table I's LDP row (X^2AH^3 sqrt(K)/eps)"),
    "dp-ucbvi-ldp": (MULTIPLICATIVE, "bai_sdp_pe", "Table I", "Bai et al. Table I, DP-UCBVI eps-LDP row (X^2AH^3 sqrt(K)/eps)"),
    "ldp-obi": (MULTIPLICATIVE, "garcelon2021", "Table 1", "Garcelon et al. note, Table 1, LDP-OBI row (O~(sqrt(K)/eps0))"),
    "shuffled-obi": ((0.5, "garcelon_shuffle", (1.0, 2.0)), "garcelon2021", "Thm 6",
                     "Garcelon et al. note, Thm 6, Eq. 9 (sqrt(2K) e^{eps0/2}/(e^eps0 - 1))"),
}
# agents whose privacy-cost bound no shipped paper states: their rows are context, not a paper's claim.
# Private-UCB-VI (Chowdhury & Zhou 2022) is cited (Bai et al. Sec. I, ref. [16], among the LDP works;
# Lu et al. Sec. 1.1 as JDP and LDP), never specified or bounded in ../shared/papers; its rows are read
# against the form of Table I's row for the trust model, which is a statement about DP-UCBVI (and, for
# SDP, Bai et al.'s Lemma 10 / Thm 11 hold for SDP-PE at eps < 1), not about this reconstruction
UNSTATED = frozenset({"private-ucbvi-jdp", "private-ucbvi-ldp", "private-ucbvi-sdp"})
UNSTATED_NOTE = ("context: a reconstruction (Private-UCB-VI, Chowdhury & Zhou 2022) whose bound no shipped paper "
                 "states; read against the form of Bai et al.'s Table I row for its trust model")
MODEL_TARGETS = {"JDP": ADDITIVE, "SDP": ADDITIVE, "LDP": MULTIPLICATIVE}
# trust model -> the lower bound whose 1/eps makes the eps exponent two-sided (docs/decisions/controls.md):
# both are minimax (a hard instance); on a gap instance the widths' 1/eps gives the same dependence, and a
# measurement below it is "inconclusive" for the paper (one instance does not contradict a minimax bound)
PINNED = {
    "JDP": "Vietri et al. Thm 6: Omega(sqrt(HSAT) + SAH log(T)/eps), minimax",
    "LDP": "Omega(sqrt(K)/eps), minimax (Garcelon et al. 2021, cited in the Garcelon et al. note, Sec. 1)",
}
FIXED = ("epsilon", "noise")
# private agent -> its non-private run when that is another agent (the same algorithm without a Privatizer:
# Bai et al. Alg. 1 with exact counts is PE); matched on the baseline's own parameters (C, C1, delta, ...)
BASELINE_AGENT = {"sdp-pe": "pe", "sdp-pe-jdp": "pe", "sdp-pe-ldp": "pe"}


def _groups(infos: list[dict]) -> dict:
    """(env, agent, other params) -> {'base': info or None, 'private': {eps: info}} of the run infos: the
    baseline is the agent's ``noise = 0`` cell, or the run of ``BASELINE_AGENT`` with the same shared parameters."""
    out: dict = {}
    others = []
    for info in infos:
        p = info["params"]
        if "epsilon" not in p or ("noise" not in p and info["agent"] not in BASELINE_AGENT):
            others.append(info)
            continue
        key = (info["env_key"], info["agent"], tuple(sorted((k, v) for k, v in p.items() if k not in FIXED)))
        g = out.setdefault(key, {"base": None, "private": {}})
        if p.get("noise", 1.0) < 0.5:
            g["base"] = info
        else:
            g["private"][float(p["epsilon"])] = info
    for (env, agent, items), g in out.items():
        if agent in BASELINE_AGENT:
            mine = dict(items)
            g["base"] = next((o for o in others if o["env_key"] == env and o["agent"] == BASELINE_AGENT[agent]
                              and all(mine.get(k) == v for k, v in o["params"].items())), None)
    return out


def _fmt_params(items) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in items if k in ("bonus_scale", "tau", "tau_power", "z")) or "defaults"




def _mdp_or_none(ctx: AnalysisContext, env: str):
    return env_mdp(ctx, env) if env in (ctx.config.get("envs") or {}) else None


def _saturation(ctx: AnalysisContext, env: str, cell: str) -> float:
    f = ctx.fits[(ctx.fits.env == env) & (ctx.fits.cell == cell)]
    return float(f.saturated_fraction.mean()) if len(f) and "saturated_fraction" in f else float("nan")


def _mdps(ctx: AnalysisContext) -> dict:
    """env key -> the run's MDP (None for an env the config does not list)."""
    return {env: _mdp_or_none(ctx, env) for env in sorted({info["env_key"] for info in ctx.infos})}


def _declared(ctx: AnalysisContext) -> list[Row]:
    """The analysis's rows, declared on its run infos (:func:`privacy_cost_declaration`)."""
    return privacy_cost_declaration(ctx.experiment, ctx.infos, _mdps(ctx), ctx.config)


def _fits(ctx: AnalysisContext, declared: list[Row] | None = None) -> dict:
    """(env, agent, other params) -> (group, fit, regimes, base, priv, ep0) for every group the declaration
    lists (``declared``, by default :func:`_declared`: a baseline and private cells)."""
    decades = float(ctx.config.get("fit_decades", 2))
    out = {}
    for row in (_declared(ctx) if declared is None else declared):
        env, agent, items = row.args["group"]
        if (env, agent, items) in out:
            continue
        g = {"base": row.args["base"], "private": row.args["private"]}
        _, ep0, base = seed_matrix(ctx.runs(env, g["base"]["cell"]))
        priv = {}
        for eps, info in g["private"].items():
            _, ep, cur = seed_matrix(ctx.runs(env, info["cell"]))
            if not np.array_equal(ep, ep0):
                raise ValueError(f"{env}/{info['cell']}: checkpoints differ from the baseline's")
            priv[eps] = cur
        rng = seeding.generator("privacy_cost", f"{ctx.experiment}/{env}/{agent}/{items}", 0)
        fit = fit_privacy_cost(ep0, priv, base, rng, decades=decades, n_boot=ctx.n_boot)
        mdp = _mdp_or_none(ctx, env)
        regimes = {e: V.Regime(agent_crossover(agent, info["params"], mdp), fit["window_lo"], fit["window_hi"],
                               _saturation(ctx, env, info["cell"])) for e, info in g["private"].items()}
        out[(env, agent, items)] = (g, fit, regimes, base, priv, ep0)
    return out


SHARED = ("bonus_scale", "z")  # parameters a twin under the other trust model must share


def _sibling(fits: dict, env: str, agent: str, items, delivered: str) -> tuple[str, list | None, str]:
    """The wrong-trust-model twin's eps cells on the same env with the same shared parameters
    (``controls.SIBLINGS``), or None when it was not run -- or when its runs deliver the trust model
    this group's runs deliver (``delivered``; Shuffled-OBI at tau = 0 is eps0-LDP, as LDP-OBI is):
    then it is no twin under another model, and the third element says so."""
    twin = controls.SIBLINGS.get(agent, "")
    nearest = "" if twin else controls.NEAREST_SIBLINGS.get(agent, "")  # no same-algorithm twin: another algorithm
    untwinned = controls.UNTWINNED_B.get(agent, "")
    mine = {k: v for k, v in items if k in SHARED}
    for (e, a, its), (g, fit, regimes, *_rest) in fits.items():
        if e == env and a == (twin or nearest) and {k: v for k, v in its if k in SHARED} == mine:
            theirs = surface.delivered_model(next(iter(g["private"].values())))
            if theirs == delivered:
                return a, None, "; ".join(t for t in (
                    f"{a} delivers the same trust model as this run ({delivered})", untwinned) if t)
            return a, eps_cells(fit, regimes), (f"nearest twin under {theirs}: {a}, another algorithm (no "
                                                f"same-algorithm sibling)" if nearest else "")
    return twin, None, "" if twin else untwinned


def cost_target(agent: str, model: str) -> tuple:
    """((b_paper, eps law, gamma range), paper id, item, source) of ``agent``'s privacy-cost rows: its entry of
    :data:`TARGETS`, else its trust model's form (:data:`MODEL_TARGETS`) under the cross-paper item."""
    return TARGETS.get(agent, (MODEL_TARGETS.get(model, ADDITIVE), "cross_paper", "privacy cost", f"{model} theory"))


def eps_exponent_test(agent: str, model: str, eps: Sequence[float]) -> tuple[str, bool]:
    """(the lower bound that pins ``agent``'s eps exponent under ``model``, or "" where none does: a law
    other than 1/eps, or no matching lower bound; whether the design's ``eps`` grid reads it two-sided).
    The declaration (:func:`privacy_cost_declaration`: the eps row's K needed) and the analysis (the row's
    statement) both decide by it."""
    (_, law, _), *_ = cost_target(agent, model)
    lower = PINNED.get(model, "") if law == "power" else ""
    return lower, bool(lower) and EV.reads_two_sided(eps)


def privacy_cost_tag(agent: str, env: str, items) -> str:
    """The claim-id stem of a privacy-cost group: agent, env and the parameters that tell groups apart."""
    return f"{agent}_{env}_{_fmt_params(items).replace('=', '').replace(', ', '_').replace('.', 'p')}"


def privacy_cost_ids(experiment: str, env: str, agent: str, items, eps) -> list[tuple[str, str]]:
    """(claim id, scope) of the two rows (b, then the eps exponent) the privacy-cost analysis registers
    for one group -- (env, agent, its other parameters ``items``) over the eps cells ``eps`` -- as the
    ledger files them: context for an agent no shipped paper bounds (``UNSTATED``) and for a group with a
    cell above eps 10 (:func:`privrl.results.claims.eps_scope`); :func:`privacy_cost_declaration` names
    its rows by it."""
    from privrl.results.claims import eps_scope

    tag = f"{experiment}_{privacy_cost_tag(agent, env, items)}"
    scope = "context" if agent in UNSTATED else eps_scope(eps)
    return [(f"{tag}_b", scope), (f"{tag}_eps", scope)]


def privacy_cost_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``privacy_cost``, declared from the run infos alone (no data). Per group of the infos
    (:func:`_groups`: env, agent and its parameters other than eps and noise) with a noise-off baseline and
    private cells, in the analysis's order (sorted by group), each reading the group's private cells:

    * the b row: K needed the first eps cell's fit window (:func:`privrl.papers.designs.window_k` over the
      config's ``fit_decades``, from 10 x its crossover: the smallest over the eps cells);
    * the eps-exponent row: K needed by the verdict's own rule (:func:`privrl.results.eps_verdicts.gamma_need`:
      two eps cells past 10 x their crossover, or four over a decade where :func:`eps_exponent_test` reads
      the exponent two-sided on the group's eps grid; a multiplicative cost's cells with their whole fit
      window past it, :func:`privrl.results.eps_verdicts.point_regime`);
    * on a one-state, one-step instance, the noise-off level row (:func:`noise_off_declaration`: context,
      its K needed 10 x the noise-off crossover, the crossover the plan prints for it).

    Ids and scopes by :func:`privacy_cost_ids`. ``args``: the group key, its baseline and private infos
    ({eps: info}) and the row's kind ("b", "eps", "noise_off"; the noise-off crossover). The analysis scores
    the groups and names the rows it lists; the claim plan (:mod:`privrl.papers.cross_paper.plan`) runs it
    on the design's cells."""
    decades = fit_decades(config)
    out = []
    for (env, agent, items), g in sorted(_groups(infos).items(), key=lambda kv: kv[0]):
        if g["base"] is None or not g["private"]:
            continue
        mdp = mdps.get(env)
        cross = {e: agent_crossover(agent, info["params"], mdp) for e, info in g["private"].items()}
        cells = tuple((env, info["cell"]) for info in g["private"].values())
        (b_id, scope), (eps_id, _) = privacy_cost_ids(experiment, env, agent, items, list(cross))
        model = agent_spec(agent).privacy_model
        two_sided = eps_exponent_test(agent, model, list(cross))[1]
        (b_paper, _, _), *_ = cost_target(agent, model)
        span = 1.0 if EV.point_regime(b_paper) else 10.0 ** decades  # rule (a) where flattening tells the regime
        args = {"group": (env, agent, items), "base": g["base"], "private": g["private"]}
        out.append(Row(b_id, "privacy cost b: first eps cell", cells, min(window_k(k, decades) for k in cross.values()),
                       scope, args={**args, "kind": "b"}))
        out.append(Row(eps_id, "eps exponent, two-sided: 4 eps cells over a decade past 10 x crossover" if two_sided
                       else "eps exponent: second eps cell past 10 x crossover", cells,
                       EV.gamma_need(list(cross.items()), two_sided, span=span), scope, args={**args, "kind": "eps"}))
        off = noise_off_declaration(experiment, env, agent, items, mdp)
        if off is not None:  # the noise-off level row (one-state, one-step instances): the project's control check
            off_id, off_scope, off_need, off_cross = off
            out.append(Row(off_id, "noise-off level: 10 x noise-off crossover", cells, off_need, off_scope,
                           crossovers={f"{agent} noise off": off_cross},
                           args={**args, "kind": "noise_off", "crossover": off_cross}))
    return out


def privacy_surface_declaration(experiment: str, infos: list[dict], mdps, config) -> list[Row]:
    """The rows of ``privacy_surface``, declared from the run infos alone (no data): all context, never
    scored (:data:`surface.SEPARATION_WHY`, :data:`surface.ORDER_WHY`). Its members are the privacy-cost
    analysis's groups (:func:`privacy_cost_declaration`; per env and agent the last in its order, as the
    surface keys its members). Per env, family of :data:`surface.FAMILIES` with a central and a local member,
    and eps both ran, in the analysis's order:

    * the separation row (D_LDP / D_JDP): K needed the central cell's fit window from 10 x its crossover
      (:func:`privrl.papers.designs.window_k`), read only up to the local cell's crossover (``k_max``: past
      it :func:`surface.score_separation` is inconclusive);
    * with a shuffle member at that eps, "central < shuffle" and "shuffle < local": K needed both cells'
      fit windows.

    ``args``: env, family, eps, the row's kind ("separation", "order"), its members' agents (lower first;
    the order's text). The analysis (:func:`surface.trust_model_rows`) measures and names the rows it lists;
    the claim plan runs it on the design's cells."""
    decades = fit_decades(config)
    by = {}
    for row in privacy_cost_declaration(experiment, infos, mdps, config):
        env, agent, _ = row.args["group"]
        by[(env, agent)] = row.args["private"]

    def cell(env: str, agent: str, eps: float) -> tuple[tuple[str, str], float]:
        info = by[(env, agent)][eps]
        return (env, info["cell"]), agent_crossover(agent, info["params"], mdps.get(env))

    out = []
    for env in sorted({e for e, _ in by}):
        for fam, (c_ag, s_ag, l_ag) in surface.FAMILIES.items():
            c, sh, loc = by.get((env, c_ag)), by.get((env, s_ag)), by.get((env, l_ag))
            if c is None or loc is None:
                continue
            for eps in sorted(set(c) & set(loc)):
                stem = f"{experiment}_{env}_{fam.lower().replace('-', '_')}_"
                args = {"env": env, "family": fam, "eps": eps}
                (c_cell, c_cross), (l_cell, l_cross) = cell(env, c_ag, eps), cell(env, l_ag, eps)
                out.append(Row(f"{stem}separation_eps{eps:g}".replace(".", "p"),
                               "separation: central past 10 x crossover, before the local crossover (context)",
                               (c_cell, l_cell), window_k(c_cross, decades), "context",
                               l_cross if np.isfinite(l_cross) else float("inf"),
                               args={**args, "kind": "separation", "members": (c_ag, l_ag)}))
                if sh is None or eps not in sh:
                    continue
                s_cell, s_cross = cell(env, s_ag, eps)
                for (lo_ag, lo_cell, lo_cross), (hi_ag, hi_cell, hi_cross), what in (
                        ((c_ag, c_cell, c_cross), (s_ag, s_cell, s_cross), "central < shuffle"),
                        ((s_ag, s_cell, s_cross), (l_ag, l_cell, l_cross), "shuffle < local")):
                    out.append(Row(f"{stem}{what.replace(' < ', '_below_')}_eps{eps:g}".replace(".", "p"),
                                   "order: both cells past 10 x crossover (context)", (lo_cell, hi_cell),
                                   max(window_k(lo_cross, decades), window_k(hi_cross, decades)), "context",
                                   args={**args, "kind": "order", "what": what, "members": (lo_ag, hi_ag)}))
    return out


def _instance_scope(mdp, items) -> str:
    """What a privacy-cost row on ``mdp`` with the group's parameters ``items`` states, in words: the one
    instance and whether its widths are the paper's or tuned (labelled). "" without an MDP."""
    if mdp is None:
        return ""
    p = dict(items)
    size = (f"one {mdp.A}-armed bandit (S = H = 1)" if mdp.S == 1 and mdp.H == 1
            else f"one instance (S = {mdp.S}, A = {mdp.A}, H = {mdp.H})")
    widths = [f"the privacy width tuned to z = {p['z']:g} sd of the agent's own noise (labelled)"] if p.get("z") else []
    if "bonus_scale" in p and float(p["bonus_scale"]) != 1.0:
        widths.append(f"the statistical width x{float(p['bonus_scale']):g} (tuned)")
    return (f"; scope: {size}, {' and '.join(widths) or 'the paper widths'}, not every tabular MDP the bound is "
            "stated for")


def noise_off_declaration(experiment: str, env: str, agent: str, items, mdp) -> tuple[str, str, float, float] | None:
    """(claim id, scope, K needed, noise-off crossover) of the noise-off level row the privacy-cost analysis
    registers for one group (:func:`privacy_cost_ids`'s experiment, env, agent and parameters ``items``;
    ``mdp`` its instance; :func:`privacy_cost_declaration` lists it), or None where it has none: an
    instance that is not one state and one step (the widths' prediction is a bandit's,
    :func:`privrl.results.controls.noise_off_prediction`) or an agent whose baseline is another agent
    (elimination: no widths). Scope "context": no paper states
    it -- it is the project's control check, built to reject the over-exploring twin. K needed:
    ``regime_factor`` x the agent's noise-off crossover; the scorer
    (:func:`privrl.results.controls.score_noise_off_level`) takes it from here."""
    if mdp is None or mdp.S != 1 or mdp.H != 1 or agent in BASELINE_AGENT:
        return None
    tag = f"{experiment}_{privacy_cost_tag(agent, env, items)}"
    cross = _noise_off_crossover(agent, items, mdp)
    return f"{tag}{controls.NOISE_OFF_SUFFIX}", "context", V.THRESHOLDS.regime_factor * cross, cross


def _noise_off_crossover(agent: str, items, mdp) -> float:
    return agent_crossover(agent, {**dict(items), "noise": 0.0}, mdp)


def _noise_off_claim(ctx: AnalysisContext, row: Row | None, env: str, agent: str, items, g: dict, base: np.ndarray,
                     ep0, paper: str, item: str, src: str, model_text: str):
    """The noise-off level row of one group (``row``, declared by :func:`privacy_cost_declaration`: id, scope,
    K needed, noise-off crossover), scored with :func:`privrl.results.controls.score_noise_off_level` on the
    baseline's runs and on its over-exploring control cell's (statistical widths x10,
    :func:`privrl.results.controls.control_cell`); None where the group has none. A context row: the
    project's control check, filed beside the agent's paper item."""
    if row is None:
        return None
    mdp = _mdp_or_none(ctx, env)
    claim_id, scope, k_needed, cross = row.id, row.scope, row.need, row.args["crossover"]
    K = float(ep0[-1])
    predicted = controls.noise_off_prediction(first_step_gap(mdp), cross, mdp.A)
    rng = seeding.generator("privacy_cost_noise_off", f"{ctx.experiment}/{env}/{agent}/{items}", 0)

    def score(final: np.ndarray) -> V.Score:
        return controls.score_noise_off_level(mean_ci(final, rng, ctx.n_boot), predicted, K, cross, k_needed)

    twin_info = controls.control_cell(ctx.infos, g["base"], "over_exploring")
    twin_score = None
    if twin_info is not None:
        _, ep_t, twin = seed_matrix(ctx.runs(env, twin_info["cell"]))
        if not np.array_equal(ep_t, ep0):
            raise ValueError(f"{env}/{twin_info['cell']}: checkpoints differ from the baseline's")
        twin_score = score(twin[:, -1])
    own = score(base[:, -1])
    judged, cell = controls.judge(own, "noise_off_level",
                                  [controls.over_exploring_run_outcome(twin_score, (twin_info or {}).get("label", ""))])
    b = float(dict(items).get("bonus_scale", 1.0))
    widths = "its statistical widths" + (f" (bonus_scale {b:g})" if b != 1.0 else "")
    statement = (f"project control check, not a paper's statement: {agent} ({model_text}, {_fmt_params(items)}) on "
                 f"{env}, noise off (exact counts: the non-private algorithm with {widths}): regret at K <= "
                 f"{controls.NOISE_OFF_FACTOR:g} x what {widths} predict on this one-state, one-step instance (each "
                 f"suboptimal arm pulled until its width falls below the gap); the factor {controls.NOISE_OFF_FACTOR:g}"
                 f" is pre-registered, the over-exploring twin's width factor")
    claim = dataclasses.replace(V.make_claim(paper, item, claim_id, statement, "bound", ctx.artifact("privacy_cost", "md"),
                                             judged, ctx.experiment, src), controls=cell)
    note = "the project's control check (rejects the over-exploring twin), not a paper's statement"
    return dataclasses.replace(claim, scope=scope, regime=f"{note}; {claim.regime}")


def privacy_cost_rows(ctx: AnalysisContext) -> tuple[pd.DataFrame, dict, list]:
    """One row per (env, agent group) with its per-eps fits and the two scores, each run on its
    wrong twins (:mod:`privrl.results.controls`); the D curves for the figure; the Claims."""
    rows, curves, claims = [], {}, []
    art = ctx.artifact("privacy_cost", "md")
    declared = _declared(ctx)
    fits = _fits(ctx, declared)
    named = {}  # group -> {kind: declared row}
    for row in declared:
        named.setdefault(row.args["group"], {})[row.args["kind"]] = row
    for (env, agent, items), (g, fit, regimes, base, priv, ep0) in fits.items():
        info0 = g["base"] if agent not in BASELINE_AGENT else next(iter(g["private"].values()))
        model = info0["privacy_model"]
        delivered = surface.delivered_model(next(iter(g["private"].values())))
        # the trust model the runs deliver beside the registered one (Shuffled-OBI at tau = 0: eps0-LDP)
        model_text = model if delivered == model else f"{model} registered, {delivered} as run"
        (b_paper, law, gamma_range), paper, item, src = cost_target(agent, model)
        lower, two_sided = eps_exponent_test(agent, model, list(regimes))

        def score(cells, two_sided=two_sided, b_paper=b_paper, law=law, gamma_range=gamma_range):
            return EV.score_eps_dependence(cells, b_paper, law, gamma_range, gamma_two_sided=two_sided)

        twin_name, sibling, sibling_why = _sibling(fits, env, agent, items, delivered)
        (b_score, b_controls), (g_score, g_controls) = controls.privacy_cost_with_twins(
            score, eps_cells(fit, regimes), sibling, twin_name, sibling_why)
        params = _fmt_params(items)
        mine = named[(env, agent, items)]
        b_id, eps_id = mine["b"].id, mine["eps"].id
        kind = "additive" if b_paper == 0.0 else "multiplicative"
        pin = ""
        if two_sided:
            pin = f"; eps exponent two-sided: {lower}"
        elif lower:
            pin = f"; eps exponent one-sided: the design's {len(regimes)} eps cells cannot read the lower side of {lower}"
        claims.append(dataclasses.replace(V.make_claim(
            paper, item, b_id,
            f"{agent} ({model_text}, {params}) on {env}: {kind} privacy cost, D(K, eps) <~ K^{b_paper:g} (upper bound)"
            + _instance_scope(_mdp_or_none(ctx, env), items),
            "rate", art, b_score, ctx.experiment, src), controls=b_controls))
        claims.append(dataclasses.replace(V.make_claim(
            paper, item, eps_id,
            f"{agent} ({model_text}, {params}) on {env}: D(K, eps) ~ g(eps)^gamma, g = {law}, "
            + EV.gamma_claim_text(gamma_range, two_sided) + _instance_scope(_mdp_or_none(ctx, env), items),
            "rate", art, g_score, ctx.experiment, src + pin), controls=g_controls))
        if agent in UNSTATED:  # no shipped paper bounds this agent: both rows are context
            claims[-2:] = [dataclasses.replace(c, scope="context", regime=f"{UNSTATED_NOTE}; {c.regime}")
                           for c in claims[-2:]]
        off = _noise_off_claim(ctx, mine.get("noise_off"), env, agent, items, g, base, ep0, paper, item, src, model_text)
        if off is not None:
            claims.append(off)
        rows.append({
            "env": env, "agent": agent, "privacy_model": model, "delivered_model": delivered, "reconstruction": info0["reconstruction"],
            "params": params, "n_eps": fit["n_eps"], "n_seeds": int(base.shape[0]),
            "b_paper": b_paper, "eps_law": law, "b_verdict": b_score.verdict, "b_measured": b_score.measured, "b_note": b_score.regime,
            "eps_verdict": g_score.verdict, "eps_measured": g_score.measured, "eps_note": g_score.regime,
            "b_controls": b_controls, "eps_controls": g_controls,
            "regime": "; ".join(f"eps {e:g}: {r.note()}" for e, r in sorted(regimes.items())),
            "k_needed": b_score.k_needed, "frac_dropped": fit["frac_dropped"],
            "window_lo": fit["window_lo"], "window_hi": fit["window_hi"],
            "b_per_eps": "; ".join(f"{e:g}: {v[0]:.2f} [{v[1]:.2f}, {v[2]:.2f}]" for e, v in fit["b_eps"].items()),
            "D_at_K": "; ".join(f"{e:g}: {d:.4g}" for e, d in fit["D_at_K"].items()),
            "source": src, "label": info0.get("label", agent),
            "noise_off_verdict": off.verdict if off else "", "noise_off_measured": off.measured if off else "",
            "noise_off_controls": off.controls if off else "",
        })
        curves[(env, agent, items)] = (ep0, {e: c.mean(axis=0) - base.mean(axis=0) for e, c in priv.items()},
                                       fit, regimes)
    return pd.DataFrame(rows), curves, claims


def _markdown(ctx: AnalysisContext, table: pd.DataFrame) -> str:
    lines = [f"# Privacy cost D(K, eps) = R(K, eps) - R(K, non-private): {ctx.experiment}", "",
             "Per-eps K-slopes b of log D (last decades of K) and D at the last K, 95% seed-bootstrap CIs; "
             "baseline = the same agent with noise off. Scored by `eps_verdicts.score_eps_dependence`: only eps "
             "cells past 10 x their own crossover K count; their slopes must agree before a pooled b or an "
             "eps exponent is read; b is an upper bound (<= paper's b + log allowance); the eps law is the "
             "paper's own g(eps) (both two-sided where a lower bound pins them). Each score is also run on the "
             "wrong twins its statement is about (`controls`: privrl.results.controls); `dropped` = window "
             "points with D <= 0.", "",
             "| env | agent | privacy | params | b: verdict | b: measured | b: controls | eps law | eps: verdict "
             "| eps: measured | eps: controls | notes | regime per eps | dropped |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        rec = " (reconstruction)" if r.reconstruction else ""
        model = r.privacy_model if r.delivered_model == r.privacy_model else f"{r.privacy_model} ({r.delivered_model} as run)"
        lines.append(f"| {r.env} | {r.agent}{rec} | {model} | {r.params} | {r.b_verdict} | {r.b_measured} "
                     f"| {r.b_controls} | {r.eps_law} | {r.eps_verdict} | {r.eps_measured} | {r.eps_controls} "
                     f"| {r.b_note}; {r.eps_note} | {r.regime} | {r.frac_dropped:.0%} |")
    if table.empty:
        lines.append("| (no agent with both a noise-off baseline and private cells) |||||||||||||")
    off = table[table["noise_off_verdict"] != ""] if "noise_off_verdict" in table else table.iloc[:0]
    if len(off):
        lines += ["", "Noise-off level (one-state, one-step instances): the regret at K with the noise off against "
                  f"{controls.NOISE_OFF_FACTOR:g} x what the agent's own statistical widths predict (each suboptimal "
                  "arm pulled until its width falls below the gap), one-sided; its wrong twin is the over-exploring "
                  "control cell (widths x10: bonus_scale and z x10), scored by the same check.", "",
                  "| env | agent | params | verdict | measured | controls |", "|---|---|---|---|---|---|"]
        lines += [f"| {r.env} | {r.agent} | {r.params} | {r.noise_off_verdict} | {r.noise_off_measured} "
                  f"| {r.noise_off_controls} |" for r in off.itertuples()]
    return "\n".join(lines) + "\n"


def _figure(ctx: AnalysisContext, curves: dict):
    """D(K, eps) / K (per-episode privacy cost; a linear axis carries D <= 0) vs K through the
    figure layer: a panel per agent group, eps on a colour bar, crossover K dotted, fit window grey."""
    if not curves:
        return None
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from privrl.results import facets, style  # matplotlib: imported only to draw
    from privrl.results.labels import env_title

    envs = sorted({k[0] for k in curves})
    items_of = {}
    for env, agent, items in curves:
        items_of.setdefault(agent, []).append(dict(items))
    vary = {a: [k for k in ("bonus_scale", "tau", "tau_power", "z") if len({p.get(k) for p in ps}) > 1]
            for a, ps in items_of.items()}
    recon = {i["agent"]: bool(i.get("reconstruction", False)) for i in ctx.infos}
    parts, info = [], {}
    for (env, agent, items), (ep, D, fit, regimes) in curves.items():
        p = dict(items)
        name = ", ".join([style.agent_name(agent, recon.get(agent, False))] + [style.param_text(k, p[k]) for k in vary[agent]])
        name = f"{env_title(ctx.config['envs'][env])}: {name}" if len(envs) > 1 else name
        info[name] = (fit, regimes)
        for eps in sorted(D):
            parts.append(pd.DataFrame({"x": ep, "y": D[eps] / ep, "eps": eps, "panel": name,
                                       "curve": f"{name}|{eps:g}"}))

    def marks(ax, name, rows):
        fit, regimes = info[name]
        ax.axhline(0.0, color="0.5", lw=0.6, label="_guide")
        ax.axvspan(fit["window_lo"], fit["window_hi"], color="0.92", zorder=0, lw=0)
        colour = {ln.get_label(): ln.get_color() for ln in ax.get_lines()}
        ep = rows["x"].to_numpy(float)
        for eps, reg in regimes.items():
            k = reg.crossover_K
            if np.isfinite(k) and ep.min() <= k <= ep.max():
                ax.axvline(k, color=colour.get(f"_{name}|{eps:g}", "0.3"), ls=":", lw=0.8, label="_guide")

    title = "privacy cost per episode" + (f", {env_title(ctx.config['envs'][envs[0]])}" if len(envs) == 1 else "")
    extra = [(Line2D([], [], color="0.3", ls=":", lw=0.8), "crossover K of that ε"),
             (Patch(color="0.92"), "fit window")]
    return facets.line_grid(pd.concat(parts, ignore_index=True), xlabel="episodes K", ylabel="D(K, ε) / K",
                            title=title, yscale="linear", decorate=marks, extra_legend=extra, bands=False)


def privacy_cost(ctx: AnalysisContext) -> AnalysisResult:
    table, curves, claims = privacy_cost_rows(ctx)
    return AnalysisResult(table=table, markdown=_markdown(ctx, table), figure=_figure(ctx, curves),
                          claims=claims_frame(claims))


def privacy_surface(ctx: AnalysisContext) -> AnalysisResult:
    """The privacy-cost surface (:mod:`privrl.papers.cross_paper.surface`) on this module's per-group fits."""
    declared = privacy_surface_declaration(ctx.experiment, ctx.infos, _mdps(ctx), ctx.config)
    return surface.privacy_surface(ctx, _fits(ctx), declared)


def privacy_audit_claim(audit: pd.DataFrame, artifact: str):
    """The mechanism audit's Claim: no mechanism's empirical or exact eps exceeds its claim
    (:mod:`privrl.mechanisms.audit`): "reproduced", or "contradicted" naming the failures."""
    from privrl.results import verdicts as V

    bad = audit.loc[audit["verdict"] != "pass", "mechanism"].tolist()
    score = V.Score(V.CONTRADICTED if bad else V.REPRODUCED,
                    f"{len(audit) - len(bad)}/{len(audit)} pass" + (f"; failing: {', '.join(bad)}" if bad else ""))
    return V.make_claim("cross_paper", "privacy of every mechanism", "privacy_audit",
                        "no mechanism's empirical or exact eps exceeds its claimed eps", "bound", artifact, score,
                        experiment="mechanisms", source="privacy audit of every mechanism (privrl.mechanisms.audit)")


def agent_audit_claim(audit: pd.DataFrame, artifact: str):
    """The end-to-end agent audit's Claim (privrl.audit.privacy): every agent as run stays below its
    claimed eps under each neighbour relation it claims (privacy-loss rows at noise x1) and its noise
    calibration raises no false alarm at x1; the measured text states what the audit could have seen:
    the smallest under-noising its power curve detects per (agent, relation) (the worst named), how
    many pairs flag noise x1/2, and the broken variants flagged."""
    from privrl.audit import privacy as pa
    from privrl.results import verdicts as V

    test = audit["test"] if "test" in audit else pd.Series(pa.PRIVACY_LOSS, index=audit.index)
    as_run = audit[audit["variant"] == "noise x1"]
    bad = sorted(set(as_run.loc[as_run["verdict"] != "pass", "agent"]))
    loss = audit[(test == pa.PRIVACY_LOSS)]
    pairs = loss[loss["variant"] == "noise x1"]
    measured = (f"{int((pairs['verdict'] == 'pass').sum())}/{len(pairs)} (agent, relation) pairs pass at the claimed eps (privacy-loss lower bound, "
                f"n = {int(loss['n_samples'].max()) if len(loss) else 0} held-out runs)"
                + (f"; failing: {', '.join(bad)}" if bad else ""))
    cal = audit[test == pa.CALIBRATION]
    if len(cal):
        power = pa.power_table(audit)
        half = cal[cal["variant"] == "noise x1/2"]
        alarms = int((cal.loc[cal["variant"] == "noise x1", "verdict"] != "pass").sum())
        mults = sorted({pa._multiplier(v) for v in cal["variant"] if v != "noise x1"}, reverse=True)
        detected = {}
        for r in power.itertuples():
            detected.setdefault(r.smallest_detected, []).append(f"{r.agent} {r.relation}")
        weakest = min(detected, key=lambda d: (pa._multiplier(d.split()[0]) if d.endswith("and below") else 0.0))
        measured += (f"; noise variance and law (KS, tails) against the label's mechanism, RLSVI's perturbation against "
                     f"N(0, beta_k/(N+1)); the others' actions observed as JDP's output (what each test certifies and cannot "
                     f"see: docs/decisions/audit.md) (power curve at noise x{', x'.join(pa.noise_name(m)[7:] for m in mults)}, "
                     f"{int(cal['n_samples'].max())} runs per sequence): false alarms at x1 {alarms}/{len(power)}, "
                     f"noise x1/2 flagged {int((half['verdict'] == 'flagged').sum())}/{len(half)}; smallest "
                     "under-noising detected: " + "; ".join(f"{d} ({len(v)} pairs)" for d, v in detected.items())
                     + (f" (worst: {weakest}, {', '.join(detected[weakest])})" if len(detected) > 1 else ""))
    else:
        measured += "; no power curve run: the audit's power against under-noising is not measured"
    wrong = audit[test == pa.WRONG_AGENT]
    if len(wrong):
        measured += "; wrong agents (kernel under-noising in its own code, label kept): " + "; ".join(
            f"{a} {v.split(' (')[0].replace('kernel run with ', 'handed ')} flagged "
            f"{int((g['verdict'] == 'flagged').sum())}/{len(g)} (variance ratio <= {float(g['variance_ratio'].max()):.3g})"
            for (a, v), g in wrong.groupby(["agent", "variant"], sort=False))
    else:
        measured += "; no wrong agent run (under-noising in an agent's own code not measured)"
    broken = loss[loss["variant"] != "noise x1"]
    measured += (f"; broken variants (dropped levels, reused or shared noise) flagged: "
                 f"{int((broken['verdict'] == 'flagged').sum())}/"
                 f"{int((~broken['verdict'].str.startswith('not applicable')).sum())}; family-wise alpha "
                 f"{float(audit['row_alpha'].iloc[0]) * len(audit):.2g} (Bonferroni over {len(audit)} rows)")
    score = V.Score(V.CONTRADICTED if bad else V.REPRODUCED, measured)
    return V.make_claim("cross_paper", "privacy of every agent (JDP/LDP/SDP)", "agent_audit",
                        "no private agent's end-to-end empirical eps exceeds its claimed eps (each neighbour relation "
                        "it claims); the audit sees under-noising down to the smallest multiplier its power curve "
                        "flags (released noise against the variance the label's eps implies per counter; an agent that "
                        "under-noises in its own code, e.g. hands its privatizer eps x10, is flagged)",
                        "bound", artifact, score, experiment="mechanisms",
                        source="end-to-end audit of every private agent (privrl.audit.privacy)")


PAPER = Paper(
    key="cross_paper",
    title="Privacy cost across the papers (Vietri et al. 2020, Garcelon et al. 2021, Bai et al.)",
    authors=(), year=None, venue="", link="", file="",
    note="no single paper: scores each private agent's privacy cost against the paper that predicts it",
    analyses={"privacy_cost": privacy_cost, "cross_model_coverage": cross_model.cross_model_coverage,
              "privacy_surface": privacy_surface, **separation.ANALYSES},
)
