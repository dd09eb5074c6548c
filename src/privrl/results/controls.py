"""Negative controls: the wrong twins a claim must reject before it counts as reproduced.

A check that any learner passes says nothing about the agent it scores. So every agent-level
paper row is run, through exactly its own scoring function, on the *wrong twins its statement is
about*, and reads "reproduced" only when the real agent passes and every relevant twin is
rejected (the same check fails on it, in regime). A row whose real agent
passes but some relevant twin is not rejected (it passes too, or is undecided: short of its
regime, inside the CI) reads "consistent" and names the twin it has no power against; a row whose
twins were not run reads "consistent" and says so. docs/decisions/controls.md
gives each twin's meaning and why it is relevant to which statement.

The twins (``CONTROLS``) are data, not new code paths: each is realised from runs the design
already makes, exactly in law --

* ``non_private`` -- the same algorithm on exact counts (``noise = 0``; PE for SDP-PE). Its
  privacy cost D is 0 by definition (it *is* the baseline D is measured from): its rejection is
  definitional, and the row says so;
* ``eps_blind`` -- widths and noise at one fixed eps whatever the label: at every labelled eps
  it produces what the real agent produces at the fixed eps, so its eps cells are the real
  agent's cell at the largest eps of the sweep (the least noise: the misreport that helps it
  most), relabelled;
* ``wrong_model`` -- the same algorithm under the other trust model (local noise where central
  is claimed and the reverse; ``SIBLINGS``), run beside it on the same instance, K and seeds;
* ``over_exploring`` -- statistical widths x10 (``bonus_scale`` x10). Its control cell also sets ``z`` x10
  (z sd of the agent's own release noise), but it is run with the noise off, where z is inert (PUCB's
  privacy term E is 0; Private-UCBVI's privacy term is scaled by ``bonus_scale``, not z): the twin
  actually run is statistical widths x10 only, and a twin inflating only its privacy width (z x10, the
  ~9 x privacy cost) is rejected by no row realised from runs. Realised from runs where the design runs its
  control cell beside the agent (``tags: {control: over_exploring}``, parameters x :data:`CONTROL_SCALES`,
  found by :func:`control_cell`): the noise-off level row (:func:`score_noise_off_level`, the project's
  control check, a context row) scores its runs through its own check. For an explicit regret bound its rejection is read from the
  bound's measured slack: the twin's regret is at least 10 x the measured lower CI end (capped at
  K x the largest gap), rejected only where that exceeds the bound. Not defined for elimination
  agents (no widths) nor for PAC mistake counts (no premise): "not run" there;
* ``greedy`` -- the same agent with no exploration bonus and the same noise (``bonus_scale = 0``,
  ``z = 0``: PrivQ's conf and threshold are 0, so Q+ = Q~ wherever the released count n~ > 0 and
  Q+ = H where the noise makes it <= 0 -- the release noise still explores for it): a control cell
  the design runs beside the agent (``tags: {control: greedy}``, found by :func:`control_cell`),
  scored through the row's own check on its own runs; "not run" where the design runs none;
* ``linear`` -- a learner that never learns: a uniformly random deterministic policy every episode.
  Its regret and alpha-mistakes are linear in K with known slopes (:func:`uniform_gap`: the regret
  is that of a uniformly random action at every step; :func:`uniform_mistake_rate`: the share of
  deterministic policies more than alpha sub-optimal, Def. 1 counting the episode's policy),
  realised by their expectation (the sampling deviation is O(sqrt K)): analytic, not a run. Against
  an explicit bound it goes through the row's own scoring function at K (a bound whose polylog is
  dropped cannot reject it: undecided); on a rate row its K-exponent is 1 and the row's check
  rejects it wherever the statement is not vacuous -- a vacuity check, not a measured power.

Which twins a statement is about (``RELEVANT``): the K-exponent b of a privacy cost
(``privacy_cost_b``) is about the trust model (a local twin has b = 1/2, a central one b = 0); its
eps exponent (``privacy_cost_eps``) about whether the cost follows eps;
an explicit regret bound (``regret_bound``) about over-exploration and about learning at all (the
linear twin); a statement that the agent learns (``learns``: PAC mistakes stop growing, regret
sublinear) about exploring enough (greedy) and learning at all (linear); any other statement about a
private agent's regret (``agent_regret``) about privacy at all and over-exploration; the regret with the
noise off against what the agent's own widths predict (``noise_off_level``) about over-exploration. A fixed-gap rate row is a
convergence check (:func:`privrl.results.claims.with_power`), not a statement any twin could
fail, and is never a reproduction.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from privrl.results import verdicts as V
from privrl.results.eps_verdicts import BELOW_LOWER, EpsCell


@dataclass(frozen=True)
class Control:
    """One wrong twin: its name in the ledger and what it is."""

    name: str       # as printed in CLAIMS.md ("non-private")
    meaning: str    # one sentence


CONTROLS: dict[str, Control] = {
    "non_private": Control("non-private", "the same algorithm on exact counts (noise 0; PE for SDP-PE)"),
    "eps_blind": Control("eps-blind", "widths and noise at one fixed eps (the sweep's largest) whatever the label"),
    "wrong_model": Control("wrong trust model", "the same algorithm with local noise where central or shuffle "
                                                "noise is claimed, central where local is"),
    "over_exploring": Control("over-exploring", "statistical widths x10 (bonus_scale x10; z x10 inert with the noise "
                                                "off, as every run of it is): regret at least x10 on a gap instance. "
                                                "A twin inflating only its privacy width is not rejected by any "
                                                "run-realised row"),
    "greedy": Control("greedy", "the same agent and noise with no exploration bonus (bonus_scale 0)"),
    "linear": Control("linear", "a learner that never learns: a uniformly random policy every episode "
                                "(regret and mistakes linear in K, exact slopes)"),
}

# statement kind -> the twins it is about (and must reject). The K-exponent b of a privacy cost is an
# upper bound on how the cost grows: it separates the trust models (local noise: b = 1/2 before the
# gap is resolved), while the non-private twin (D = 0) satisfies any upper bound on D -- it is the eps
# exponent's twin, whose two-sided test needs a cost that follows eps (docs/decisions/controls.md)
RELEVANT: dict[str, tuple[str, ...]] = {
    "privacy_cost_b": ("wrong_model",),
    "privacy_cost_eps": ("non_private", "eps_blind"),
    "regret_bound": ("over_exploring", "linear"),
    "separation": ("wrong_model",),  # D_LDP / D_JDP ~ K^(1/2) over a gap family: about the trust model
    "learns": ("greedy", "linear"),  # PAC mistakes stop growing / regret sublinear: the agent explores and learns
    "agent_regret": ("non_private", "over_exploring"),  # any other statement about a private agent's regret
    "noise_off_level": ("over_exploring",),  # noise-off regret vs the agent's own widths' prediction: its level
}

# agent -> the same algorithm under the other trust model (its privatizer swapped; central <-> local,
# shuffle -> local: the OBI family has no central member, PUCB no local one)
SIBLINGS: dict[str, str] = {
    "shuffled-obi": "ldp-obi",
    "dp-ucbvi-jdp": "dp-ucbvi-ldp", "dp-ucbvi-ldp": "dp-ucbvi-jdp",
    "private-ucbvi-jdp": "private-ucbvi-ldp", "private-ucbvi-ldp": "private-ucbvi-jdp",
    "private-ucbvi-sdp": "private-ucbvi-ldp",
    "sdp-pe": "sdp-pe-ldp", "sdp-pe-jdp": "sdp-pe-ldp", "sdp-pe-ldp": "sdp-pe-jdp",
}

# agent with no same-algorithm sibling -> the nearest agent under the other trust model that a design may run
# beside it (same instance, K, seeds, bonus_scale and z): the b row's wrong-trust-model twin, labelled as another
# algorithm (docs/decisions/controls.md, "Twins that do not exist")
NEAREST_SIBLINGS: dict[str, str] = {"pucb": "ldp-obi"}

# agent -> what would test its privacy-cost b row where no twin under the other trust model can (printed in the
# row's controls note when no twin is run)
UNTWINNED_B: dict[str, str] = {
    "pucb": ("no local PUCB exists; the nearest LDP agent (ldp-obi, same instance, bonus_scale and z) would test it "
             "and is not run beside it here; a PUCB whose counters are randomised per user (Laplace per user, "
             "D ~ sqrt(K)/eps before the gap resolves) would be the same-algorithm twin"),
    "ldp-obi": ("no twin under another trust model can fail this upper bound: a central twin's additive cost "
                "meets b <= 0.6 as well; what would test it is a twin whose cost still grows ~K on the window "
                "(over-exploring: widths x10, run beside it, not in this design) or the gap-family separation "
                "(privacy_surface, context)"),
    "shuffled-obi": ("the shuffle run at tau = 0 delivers eps0-LDP, as ldp-obi does, and a central twin's additive "
                     "cost meets b <= 0.6 too: no trust-model twin can fail it; what would test it is a twin whose "
                     "cost still grows ~K on the window (over-exploring: widths x10, run beside it, not in this "
                     "design)"),
}

OUTCOMES = ("rejects", "passes", "undecided", "not run")  # a twin's outcome, in the order the controls cell lists them

# the twins realised from runs (a run's cells through the row's check) vs analytic or definitional ones
# (the scoreboard counts them apart: only the first measure a check's power)
RUN_TWINS = frozenset({"eps_blind", "wrong_model", "greedy"})

OVER_EXPLORING_FACTOR = 10.0  # widths x10 -> regret x >= 10 on a gap instance (docs/decisions/controls.md)

# control -> the parameters its cell sets (the rest equal to the real cell's): how a control cell of
# the design (tags: {control: <name>}) is matched to the cell it is the twin of
CONTROL_PARAMS: dict[str, dict[str, float]] = {"greedy": {"bonus_scale": 0.0, "z": 0.0}}
# control -> the parameters its cell multiplies (the real cell's resolved value x the factor): how the cell is
# matched. The over-exploring cell is run with the noise off, where z x10 is inert (PUCB's E is 0, Private-UCBVI
# scales its privacy term by bonus_scale): the twin run is statistical widths x10 only; a twin inflating only its
# privacy width is rejected by no row realised from runs (docs/decisions/controls.md)
CONTROL_SCALES: dict[str, dict[str, float]] = {"over_exploring": {"bonus_scale": OVER_EXPLORING_FACTOR,
                                                                  "z": OVER_EXPLORING_FACTOR}}

# a twin realised from a control cell's runs says so in its outcome's note (the ledger counts those rows' twins
# as runs by the row's declared id, CONTROL_ROWS, as it counts the kinds of RUN_TWINS)
RUN_MARK = "realised from runs"


# ---------------------------------------------------------------- control cells and the linear twin
def is_control(info: Mapping[str, Any]) -> bool:
    """A run cell that is a wrong twin (``tags: {control: ...}``), not an agent a claim is about."""
    return bool(control_name(info))


def control_name(info: Mapping[str, Any]) -> str:
    """The wrong twin a run cell is (its ``tags: {control: ...}``), "" for an agent a claim is about."""
    return str((info.get("tags") or {}).get("control") or "")


def control_cell(infos: Sequence[Mapping[str, Any]], real: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The control cell ``name`` of ``real`` among ``infos`` (run infos: agent, params, tags, env_key):
    same env and agent, tagged ``control: name``, its parameters equal to ``real``'s except those
    :data:`CONTROL_PARAMS` sets and those :data:`CONTROL_SCALES` multiplies (``real``'s value x the
    factor: resolved parameters, as run infos carry them). None when the design runs none."""
    scales = CONTROL_SCALES.get(name, {})
    own = {**CONTROL_PARAMS.get(name, {}),
           **{k: f * float(real["params"].get(k, math.nan)) for k, f in scales.items()}}
    for i in infos:
        if ((i.get("tags") or {}).get("control") == name and i.get("env_key") == real.get("env_key")
                and i["agent"] == real["agent"]):
            p, q = i["params"], real["params"]
            if all(math.isclose(float(p.get(k, 0.0)), float(v)) for k, v in own.items()) and all(
                    k in own or (k in p and _same(p[k], v)) for k, v in q.items()):
                return i
    return None


def _same(a: Any, b: Any) -> bool:
    try:
        return math.isclose(float(a), float(b))
    except (TypeError, ValueError):
        return a == b


def uniform_gap(mdp: Any) -> float:
    """``rho . (V*_1 - V^unif_1)``: the per-episode regret of a uniformly random action at every step
    (that of a uniformly random deterministic policy per episode too: each (h, s) is met at most once
    an episode), by the one backward induction (``rl.planning``). mdp: P float64[H, S, A, S],
    R float64[H, S, A], rho float64[S]."""
    from privrl.rl.mdp import optimal_values
    from privrl.rl.planning import backward_induction

    v_unif = backward_induction(mdp.H, mdp.S, lambda h, V_next: (mdp.R[h] + mdp.P[h] @ V_next).mean(axis=1))
    return float(mdp.rho @ (optimal_values(mdp)[1][0] - v_unif[0]))


def uniform_mistake_rate(policy_gaps: np.ndarray, alpha: float) -> float:
    """The fraction of deterministic policies more than ``alpha`` sub-optimal (policy_gaps:
    float64[A^(SH)], every rho . (V* - V^pi)): the linear twin's alpha-mistakes per episode."""
    return float(np.mean(np.asarray(policy_gaps, float) > alpha))


def linear_fit(window_lo: float, window_hi: float) -> V.RateFit:
    """The linear twin's K-exponent on the row's window: exactly 1 (regret or mistakes = K x slope)."""
    return V.RateFit(1.0, 1.0, 1.0, float(window_lo), float(window_hi))


def linear_rate_outcome(score_fn: Callable[[V.RateFit], V.Score], window_lo: float, window_hi: float,
                        slope: float) -> TwinOutcome:
    """The linear twin through a rate row's own check ``score_fn`` (a RateFit -> Score, the row's
    regime): exponent 1 when its slope is positive; with slope 0 (no policy is worse than the row's
    threshold) it makes no mistake at all and passes an upper bound on them."""
    if not slope > 0:
        return TwinOutcome("linear", V.Score(V.REPRODUCED, "slope 0: the uniformly random policy makes none"),
                           "no deterministic policy beyond the threshold")
    return TwinOutcome("linear", score_fn(linear_fit(window_lo, window_hi)), f"{slope:.3g} x K")


def linear_bound_outcome(score_fn: Callable[[tuple[float, float, float]], V.Score], K: float,
                         slope: float) -> TwinOutcome:
    """The linear twin of an explicit upper bound at K through the row's own scoring function
    ``score_fn`` (a measured (mean, lo, hi) -> Score): its count is ``slope x K`` exactly (no CI).
    Rejected where that check fails it (contradicted); a check that cannot contradict (a bound
    whose polylog is dropped) leaves it undecided; passing: the bound is vacuous against a learner
    that never learns."""
    if not math.isfinite(slope):
        return TwinOutcome("linear", None, "slope undefined")
    twin = slope * K
    return TwinOutcome("linear", score_fn((twin, twin, twin)), f"{slope:.4g} x K")


def greedy_outcome(score: V.Score | None, why: str = "") -> TwinOutcome:
    """The greedy twin: its control cell's runs through the row's own check (``score``), or not run."""
    return TwinOutcome("greedy", score, why or ("" if score is not None else
                                                "the design runs no bonus-free control cell (tags: {control: greedy})"))


# ---------------------------------------------------------------- the noise-off level and its over-exploring twin
NOISE_OFF_FACTOR = OVER_EXPLORING_FACTOR  # the noise-off level row's pre-registered factor (docs/decisions/controls.md)
NOISE_OFF_SUFFIX = "_noise_off"  # the claim-id ending of a noise-off level row (the project's control rows)
# claim-id ending of the project's control rows -> the twins such a row realises from a control cell's runs
# (run or, where the design has no control cell, not run: either way the row's twin is a run's, never analytic)
CONTROL_ROWS: dict[str, tuple[str, ...]] = {NOISE_OFF_SUFFIX: ("over_exploring",)}


def control_row_twins(claim_id: str) -> tuple[str, ...]:
    """The twins (keys of CONTROLS) the row ``claim_id`` realises from control cells' runs when it is one of
    the project's control rows (:data:`CONTROL_ROWS`: a noise-off level row), else ()."""
    return next((t for end, t in CONTROL_ROWS.items() if str(claim_id).endswith(end)), ())


def noise_off_prediction(gap: float, crossover_K: float, A: int) -> float:
    """What an agent's own noise-off widths predict for its regret on a one-state, one-step instance (a
    bandit) with ``A`` arms and smallest gap ``gap``: each suboptimal arm is pulled until the width falls
    below the gap, which under uniform visitation is ``crossover_K / A`` pulls (``crossover_K``: the
    agent's crossover at noise 0, :mod:`privrl.agents.crossover`), at a cost of ``gap`` each:
    ``(A - 1) x gap x crossover_K / A``. nan when either is undefined."""
    if not (math.isfinite(gap) and math.isfinite(crossover_K) and gap > 0 and A >= 2):
        return float("nan")
    return (A - 1) * gap * crossover_K / A


def score_noise_off_level(measured: tuple[float, float, float], predicted: float, K: float, crossover_K: float,
                          k_needed: float, factor: float = NOISE_OFF_FACTOR) -> V.Score:
    """The regret at K with the noise off, ``measured`` = (mean, lo, hi) over seeds, against ``factor`` x
    the agent's own widths' prediction ``predicted`` (:func:`noise_off_prediction`), one-sided: "reproduced"
    when the CI's upper end is at or below it, "contradicted" when its lower end is above it,
    "inconclusive" when the CI straddles it or there is no prediction; "not reached" before K reaches
    ``k_needed``, the row's declared K needed (``regime_factor`` x the noise-off crossover ``crossover_K``,
    :func:`privrl.papers.cross_paper.noise_off_declaration`: the arm counts are still in their exploring
    phase before it). The factor is the over-exploring twin's width factor: a learner whose noise-off
    regret exceeds its widths' prediction that much explores like one whose widths are ``factor`` x wider
    (regret grows at least linearly in the width on a gap instance: the count term ~ width, the sqrt(L/n)
    term ~ width^2)."""
    m, lo, hi = (float(x) for x in measured)
    line = factor * predicted
    text = f"R(K = {K:.3g}, noise off) = {m:.4g} [{lo:.4g}, {hi:.4g}]"
    if not (math.isfinite(line) and line > 0):
        return V.Score(V.INCONCLUSIVE, text, "no prediction from the agent's widths (crossover or gap undefined)")
    text += f" = {m / predicted:.3g} x the widths' prediction {predicted:.4g} (vs <= {factor:g} x)"
    note = f"noise-off crossover K = {crossover_K:.3g}, K run {K:.3g}"
    if not K >= k_needed:
        return V.Score(V.NOT_REACHED, text, f"{note}: pre-regime (need K >= {k_needed:.3g})", k_needed)
    if hi <= line:
        return V.Score(V.REPRODUCED, text, f"{note}: in regime")
    if lo > line:
        return V.Score(V.CONTRADICTED, text, f"{note}: in regime; above {factor:g} x the prediction beyond the CI")
    return V.Score(V.INCONCLUSIVE, text, f"{note}: in regime; the CI straddles {factor:g} x the prediction")


def over_exploring_run_outcome(score: V.Score | None, label: str = "") -> TwinOutcome:
    """The over-exploring twin realised from its control cell's runs (``label``), through the row's own
    check (``score``); not run (None) where the design runs no such cell."""
    if score is None:
        return TwinOutcome("over_exploring", None, "the design runs no widths-x10 control cell "
                                                   "(tags: {control: over_exploring})")
    return TwinOutcome("over_exploring", score, f"{RUN_MARK}: {label}" if label else RUN_MARK)


# ---------------------------------------------------------------- the twins' eps cells
def non_private_cells(cells: Sequence[EpsCell]) -> list[EpsCell]:
    """The non-private twin's cells: D = 0 at every eps (it is the baseline), b undefined."""
    nan = float("nan")
    return [dataclasses.replace(c, b=nan, b_lo=nan, b_hi=nan, D=0.0, D_lo=0.0, D_hi=0.0) for c in cells]


def eps_blind_cells(cells: Sequence[EpsCell]) -> list[EpsCell]:
    """The eps-blind twin's cells: every labelled eps carries the cell of the largest eps (its D, b
    and regime), the label kept. [] when the sweep has one eps (no eps dependence to fake)."""
    if len(cells) < 2:
        return []
    top = max(cells, key=lambda c: c.eps)
    return [dataclasses.replace(top, eps=c.eps) for c in cells]


# ---------------------------------------------------------------- judging a row
@dataclass(frozen=True)
class TwinOutcome:
    control: str            # key of CONTROLS
    score: V.Score | None   # the twin under the row's own check; None: not run (``why``)
    why: str = ""

    @property
    def rejected(self) -> bool:
        """The check fails on the twin, in regime: it contradicts it, or the twin lies below the side a
        lower bound pins (``eps_verdicts.BELOW_LOWER``). A twin short of its regime, or inside the CI,
        is not rejected."""
        return self.score is not None and (self.score.verdict == V.CONTRADICTED or (
            self.score.verdict == V.INCONCLUSIVE and BELOW_LOWER in self.score.regime))

    @property
    def outcome(self) -> str:
        """"rejects", "passes" (the check reproduces the twin), "undecided" (not reached or
        inconclusive) or "not run"."""
        if self.score is None:
            return "not run"
        return "rejects" if self.rejected else ("passes" if self.score.verdict in (V.REPRODUCED, V.CONSISTENT)
                                                else "undecided")

    def text(self) -> str:
        name = CONTROLS[self.control].name
        if self.score is None:
            return f"{name}: not run ({self.why})" if self.why else f"{name}: not run"
        how = f"{self.why}; " if self.why else ""
        return f"{name}: {self.outcome} ({how}{self.score.verdict}; {self.score.measured})"


def summary(outcomes: Sequence[TwinOutcome]) -> str:
    """The ledger's controls cell: "rejects: non-private, eps-blind; passes: wrong trust model; undecided: ...;
    not run: ..."."""
    parts: dict[str, list[str]] = {k: [] for k in OUTCOMES}
    for o in outcomes:
        parts[o.outcome].append(CONTROLS[o.control].name)
    return "; ".join(f"{k}: {', '.join(v)}" for k, v in parts.items() if v)


def judge(score: V.Score, statement_kind: str, outcomes: Sequence[TwinOutcome]) -> tuple[V.Score, str]:
    """The row's score with its twins: "reproduced" stays only when every twin of ``RELEVANT[
    statement_kind]`` was run and rejected; otherwise the verdict is "consistent" and the why names
    the twins it has no power against. Each twin's own verdict and measurement are appended to the
    regime note. Returns (score, the ledger's controls cell)."""
    by = {o.control: o for o in outcomes}
    rows = [by.get(c, TwinOutcome(c, None)) for c in RELEVANT[statement_kind]]
    details = "; ".join(f"twin {o.text()}" for o in rows)
    regime = "; ".join(t for t in (score.regime, details) if t)
    weak = [CONTROLS[o.control].name for o in rows if not o.rejected]
    cell = summary(rows)
    if score.verdict == V.REPRODUCED and weak:
        regime = f"no power against {', '.join(weak)}; {regime}"
        return dataclasses.replace(score, verdict=V.CONSISTENT, regime=regime, controls=cell), cell
    return dataclasses.replace(score, regime=regime, controls=cell), cell


def score_twins(score_fn: Callable[[Sequence[EpsCell]], V.Score], cells: Sequence[EpsCell],
                sibling: Sequence[EpsCell] | None, sibling_name: str, controls: Sequence[str],
                sibling_why: str = "") -> list[TwinOutcome]:
    """Each twin of ``controls`` (keys of CONTROLS among non_private, eps_blind, wrong_model)
    through ``score_fn`` (the row's own check on a list of eps cells); ``sibling_why``: why the
    wrong-trust-model twin is not run, when the caller knows better than "not run on this instance"."""
    out = []
    for c in controls:
        if c == "non_private":
            out.append(TwinOutcome(c, score_fn(non_private_cells(cells)), "D = 0 by definition: it is the baseline"))
        elif c == "eps_blind":
            twin = eps_blind_cells(cells)
            out.append(TwinOutcome(c, score_fn(twin)) if twin else TwinOutcome(c, None, "one eps in the sweep"))
        elif c == "wrong_model":
            out.append(TwinOutcome(c, score_fn(sibling), sibling_why) if sibling else
                       TwinOutcome(c, None, sibling_why or (f"{sibling_name} not run on this instance" if sibling_name
                                                            else "no same-algorithm sibling under another trust model")))
    return out


def privacy_cost_with_twins(score_fn: Callable[[Sequence[EpsCell]], tuple[V.Score, V.Score]],
                            cells: Sequence[EpsCell], sibling: Sequence[EpsCell] | None = None, sibling_name: str = "",
                            sibling_why: str = "") -> tuple[tuple[V.Score, str], tuple[V.Score, str]]:
    """A privacy cost's two scores (b, gamma) from ``score_fn`` (the row's check on eps cells, e.g.
    :func:`privrl.results.eps_verdicts.score_eps_dependence` with the row's targets), each judged
    on the twins its statement is about: ((b score, controls cell), (gamma score, controls cell))."""
    b, g = score_fn(cells)
    b_twins = score_twins(lambda c: score_fn(c)[0], cells, sibling, sibling_name, RELEVANT["privacy_cost_b"], sibling_why)
    g_twins = score_twins(lambda c: score_fn(c)[1], cells, sibling, sibling_name, RELEVANT["privacy_cost_eps"],
                          sibling_why)
    return judge(b, "privacy_cost_b", b_twins), judge(g, "privacy_cost_eps", g_twins)


def bound_outcome(measured: tuple[float, float, float], bound: float, cap: float) -> TwinOutcome:
    """The over-exploring twin of an explicit upper bound, read from its slack: the twin's regret is at
    least ``OVER_EXPLORING_FACTOR`` x this agent's (lower CI end) and at most ``cap`` (K x the largest
    gap), so the bound rejects it when min(factor x lower end, cap) exceeds the bound, and passes it
    otherwise."""
    lo = measured[1]
    if not (math.isfinite(lo) and math.isfinite(bound) and lo > 0):
        return TwinOutcome("over_exploring", None, "slack undefined")
    twin = min(OVER_EXPLORING_FACTOR * lo, cap)
    verdict = V.CONTRADICTED if twin > bound else V.REPRODUCED
    return TwinOutcome("over_exploring", V.Score(verdict, f"the twin's regret >= {twin:.4g} (min of "
                                                          f"{OVER_EXPLORING_FACTOR:g} x {lo:.4g}, K x max gap) vs bound "
                                                          f"{bound:.4g}"))


def judge_bound(score: V.Score, measured: tuple[float, float, float], bound: float, cap: float,
                linear: TwinOutcome | None = None) -> V.Score:
    """An explicit regret bound's score judged on its over-exploring twin (:func:`bound_outcome`) and
    its linear twin (``linear``, :func:`linear_bound_outcome`; not run when None)."""
    return judge(score, "regret_bound", [bound_outcome(measured, bound, cap)] + ([linear] if linear else []))[0]


def judge_without_twin(score: V.Score, statement_kind: str, why: str) -> V.Score:
    """A score whose twins cannot be realised for this statement (``why``): "consistent" if it agrees."""
    return judge(score, statement_kind, [TwinOutcome(c, None, why) for c in RELEVANT[statement_kind]])[0]
