"""Verdicts: one Claim record, one verdict vocabulary, every threshold in one table.

A paper's statement is scored by the pure function of its *kind* (docs/decisions/verdicts.md):

* ``rate``  -- an exponent of K: :func:`score_rate_upper` (an O~ upper bound: one-sided),
  :func:`score_rate_lower`; :func:`score_eps_dependence` for a privacy cost D(K, eps)
  against the paper's own function of eps, after a per-eps homogeneity check (in :mod:`privrl.results.eps_verdicts`);
* ``ratio`` -- :func:`score_ratio_bounded`: a ratio bounded as K grows (slope of log ratio on log K);
* ``order`` -- :func:`score_order`: A < B with a minimum effect and a regime condition;
* ``bound`` -- :func:`score_bound`: a measurement against an explicit numeric bound
  (reports "vacuous until K = ..."); :func:`score_amplification` (Garcelon Prop. 5);
* ``check`` -- :func:`score_check`: algebra / consistency; verdict "checked", never a reproduction.

Regime rule: a rate is scored only on a fit window whose first K is >= ``regime_factor`` x the
agent's crossover (:mod:`privrl.agents.crossover`, pre-registered from its width formula); short
of that it is "not reached" with the K needed. A saturated cell is never "contradicted".
"""
from __future__ import annotations

import dataclasses

import math
from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

REPRODUCED, CONSISTENT, CONTRADICTED, NOT_REACHED, INCONCLUSIVE, CHECKED = (
    "reproduced", "consistent", "contradicted", "not reached", "inconclusive", "checked")
VERDICTS = (REPRODUCED, CONSISTENT, CONTRADICTED, NOT_REACHED, INCONCLUSIVE, CHECKED)
VERDICT_KEY = {
    REPRODUCED: "the measurement agrees with the paper's statement, in the regime the statement is about, and "
                "every wrong twin the statement is about fails the same check (column 'controls'; a mechanism-level "
                "row is about no agent and has no twin: its check compares the mechanism with the paper's bound)",
    CONSISTENT: "the measurement agrees, but the check has no power: a wrong twin it is about passes it too, "
                "or was not run (named in the why; privrl.results.controls)",
    CONTRADICTED: "the measurement disagrees, in regime (K >= 10 x crossover, not saturated, effect beyond the CI)",
    NOT_REACHED: "the run stops before the statement's regime; the row prints the K needed",
    INCONCLUSIVE: "in regime, but the CI straddles the line, or the estimate is undefined (every seed the same "
                  "D; no positive cost), or it lies below the side a minimax lower bound pins (one instance cannot "
                  "contradict a minimax bound; an eps-blind twin's exponent of ~0 there still counts as rejected)",
    CHECKED: "an algebra or consistency check of the paper's formulas, or a convergence check on one fixed-gap "
             "instance (not a reproduction)",
}
KINDS = ("rate", "bound", "order", "ratio", "check")
SCOPES = ("paper_claim", "context", "out_of_reach")  # counted claim / labelled context, diagnostics / K needed > 1e11
PAPERS = {  # canonical id -> citation
    "vietri2020": "Vietri, Balle, Krishnamurthy & Wu (ICML 2020)",
    "garcelon2021": "Garcelon, Perchet, Pike-Burke & Pirotta (ICML-21 RL-theory workshop note)",
    "bai_sdp_pe": "Bai, Talebi, Zhao, Cheng & Chen (shuffle-private RL, SDP-PE)",
    "lu2026": "Lu, Gajane, Bai & Talebi (2026), RLSVI is JDP",
    "cross_paper": "comparisons across papers and baselines",
}


@dataclass(frozen=True)
class Thresholds:
    """Every number a verdict depends on (docs/decisions/verdicts.md explains each)."""

    sqrt_k_exponent: float = 0.5   # O~(sqrt K): claimed exponent
    additive_exponent: float = 0.0  # additive privacy cost O~(1/eps): claimed K-exponent of D
    linear_exponent: float = 1.0   # exploring / lower-bound phase
    log_allowance: float = 0.1     # exponent slack for the hidden logs: d log(log^p K)/d log K ~ p/ln K
    saturation_gate: float = 0.1   # mean clipped / active fraction above which a cell is still exploring
    regime_factor: float = 10.0    # fit window must start at >= this x crossover K
    fit_decades: float = 2.0       # fit window: last decades of K ([K/100, K])
    ratio_slope_max: float = 0.1   # "bounded ratio": slope of log ratio on log K below this (= logs)
    min_effect: float = 0.1        # "A < B": B/A must exceed 1 + min_effect
    strong_ratio: float = 2.0      # "A << B": B/A must exceed this
    z: float = 1.959963984540054   # two-sided 95% normal quantile (CIs built from standard errors)
    min_eps_cells: int = 2         # eps cells in regime needed for an eps exponent
    two_sided_eps_cells: int = 4   # ... for a two-sided one (where a lower bound pins the eps dependence)
    two_sided_eps_decades: float = 1.0  # ... spanning at least this many decades of eps
    gamma_lower_side: float = 0.5  # two-sided gamma's lower side: halfway from the eps-blind twin's 0 to the bounds' 1
    gamma_eps_lo: float = 1.0      # a two-sided 1/eps exponent is read on eps in [lo, hi] where that grid alone can
    gamma_eps_hi: float = 10.0     # ... give it (>= two_sided_eps_cells over a decade); else on every eps cell
    k_max: float = 1e15            # largest K searched (= privrl.agents.crossover.K_MAX): beyond is "never"
    out_of_reach_k: float = 1e11   # a claim needing more episodes (or never reached) is "out of reach", not scored
    bound_grid: int = 200          # K grid points for "vacuous until K"
    tiny_se: float = 1e-12         # floor of a standard error read from a zero-width CI
    zero_width: float = 1e-9       # an exponent's CI narrower than this has no sampling error: every seed the same
    lost_optimum_fraction: float = 0.5  # elimination agents: last-decade regret/episode >= this x min gap => lost pi*


THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Claim:
    """One row of the claims table (claims.csv / CLAIMS.md)."""

    paper: str          # canonical id: a key of PAPERS, or a paper added to privrl.papers.registry
    item: str           # "Thm 4", "Table 1 row 3", "Prop. 5"
    claim_id: str
    statement: str
    kind: str           # one of KINDS
    artifact: str
    measured: str
    verdict: str        # one of VERDICTS
    regime: str = ""    # crossover K vs K run, saturation, CI, caveats
    k_needed: float = float("nan")
    experiment: str = ""
    source: str = ""
    reached_by: str = ""  # "not reached" rows: the shipped design that runs the experiment to the K needed
    scope: str = "paper_claim"  # one of SCOPES: only paper_claim rows count in the scoreboard
    instance: str = ""  # the instance it ran on, name and parameters: "riverswim(S=2, H=3)"
    crossovers: str = ""  # its agents' crossover K, "agent: K; agent: K" (privrl.results.claims.crossover_text)
    k_run: float | None = None  # the K its experiment ran (None: no run, e.g. an algebra check)
    controls: str = ""  # the wrong twins it was run on and their outcomes (privrl.results.controls)

    def __post_init__(self) -> None:
        if not (isinstance(self.paper, str) and self.paper.isidentifier()):
            raise ValueError(f"claim {self.claim_id!r}: paper must be a paper id such as {list(PAPERS)}; got {self.paper!r}")
        for name, allowed in (("kind", KINDS), ("verdict", VERDICTS), ("scope", SCOPES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"claim {self.claim_id!r}: {name} must be one of {allowed}; got {getattr(self, name)!r}")
        if self.verdict in ((CHECKED,) if self.kind != "check" else (REPRODUCED, CONSISTENT, NOT_REACHED)):
            raise ValueError(f"claim {self.claim_id!r}: a 'check' is checked, contradicted or inconclusive, "
                             "and 'checked' belongs to checks only")


@dataclass(frozen=True)
class Score:
    """What a scoring function returns; :func:`make_claim` adds the labels."""

    verdict: str
    measured: str
    regime: str = ""
    k_needed: float = float("nan")
    controls: str = ""  # the wrong twins run through the same check (privrl.results.controls.judge)


def make_claim(paper: str, item: str, claim_id: str, statement: str, kind: str, artifact: str, score: Score,
               experiment: str = "", source: str = "") -> Claim:
    return Claim(paper, item, claim_id, statement, kind, artifact, score.measured, score.verdict,
                 score.regime, score.k_needed, experiment, source, controls=score.controls)


@dataclass(frozen=True)
class RateFit:
    """A fitted exponent with its CI and the K window it was fitted on."""

    exponent: float
    lo: float
    hi: float
    window_lo: float
    window_hi: float
    n_seeds: int = 0

    @classmethod
    def from_row(cls, row: Mapping) -> "RateFit":
        """From a fits.csv row / :func:`privrl.results.fits.fit_k_exponent` dict."""
        return cls(float(row["exponent"]), float(row["exponent_lo"]), float(row["exponent_hi"]),
                   float(row["window_lo"]), float(row["window_hi"]), int(row.get("n_seeds", 0)))

    def text(self, name: str = "a") -> str:
        return f"{name} = {self.exponent:.3g} [{self.lo:.3g}, {self.hi:.3g}] on K in [{self.window_lo:.3g}, {self.window_hi:.3g}]"


@dataclass(frozen=True)
class Regime:
    """Where a cell's fit window sits relative to its agent's crossover K (nan: unknown)."""

    crossover_K: float
    window_lo: float
    window_hi: float
    saturation: float = float("nan")

    def k_needed(self, th: Thresholds = THRESHOLDS) -> float:
        """Smallest K run whose window (same width in decades) starts at regime_factor x crossover."""
        if not np.isfinite(self.crossover_K):
            return self.crossover_K
        return th.regime_factor * self.crossover_K * self.window_hi / self.window_lo

    def in_regime(self, th: Thresholds = THRESHOLDS) -> bool:
        return bool(np.isfinite(self.crossover_K) and self.window_lo >= th.regime_factor * self.crossover_K)

    def saturated(self, th: Thresholds = THRESHOLDS) -> bool:
        return bool(np.isfinite(self.saturation) and self.saturation > th.saturation_gate)

    def note(self, th: Thresholds = THRESHOLDS) -> str:
        cross = "crossover unknown" if np.isnan(self.crossover_K) else f"crossover K = {self.crossover_K:.3g}"
        sat = "" if np.isnan(self.saturation) else f"; saturation {self.saturation:.0%}"
        where = "in regime" if self.in_regime(th) else f"pre-regime (need K >= {_k(self.k_needed(th))})"
        return f"{cross}, window [{self.window_lo:.3g}, {self.window_hi:.3g}]: {where}{sat}"


def _k(K: float) -> str:
    return f"never (K > {THRESHOLDS.k_max:.0e})" if K == math.inf else f"{K:.3g}"


def _short_of_regime(regime: Regime, th: Thresholds, measured: str) -> Score:
    """'not reached' with the K needed, or 'inconclusive' if the crossover is unknown."""
    if np.isnan(regime.crossover_K):
        return Score(INCONCLUSIVE, measured, regime.note(th) + "; no crossover: cannot be scored against the paper")
    return Score(NOT_REACHED, measured, regime.note(th), regime.k_needed(th))


def zero_width(lo: float, hi: float, th: Thresholds = THRESHOLDS) -> bool:
    """True when a slope's or exponent's CI has zero width (``hi - lo <= zero_width``, floating error
    aside): every seed gave the same curve on the window, so the interval is the point and the value is
    the slope of a schedule no seed departed from, not an estimate (docs/decisions/verdicts.md, "Zero-width
    intervals"). No seed-to-seed sampling of a random regret gives a width below 1e-9 on an exponent."""
    return bool(np.isfinite(lo) and np.isfinite(hi) and hi - lo <= th.zero_width)


ZERO_WIDTH_NOTE = ("zero-width interval: every seed gives the same value on the window; the slope of a schedule "
                   "no seed departed from is not an estimate")


def guard_zero_width(score: Score, lo: float, hi: float, th: Thresholds = THRESHOLDS) -> Score:
    """A reproduced, consistent or contradicted score read on a zero-width interval (:func:`zero_width`)
    is "inconclusive", its note saying what it would read; other verdicts are kept."""
    if score.verdict in (REPRODUCED, CONSISTENT, CONTRADICTED) and zero_width(lo, hi, th):
        return dataclasses.replace(score, verdict=INCONCLUSIVE,
                                   regime=f"{ZERO_WIDTH_NOTE} (it would read {score.verdict}); {score.regime}")
    return score


def score_rate_upper(fit: RateFit, claimed_exponent: float, allowance: float, regime: Regime,
                     th: Thresholds = THRESHOLDS) -> Score:
    """An O~(K^claimed) upper bound, in regime only: CI upper end below claimed + allowance =>
    reproduced; lower end above => contradicted unless saturated; else inconclusive. Pre-regime:
    "not reached" whatever the exponent (the text says if the bound held on that window)."""
    line = claimed_exponent + allowance
    measured = f"{fit.text()} vs <= {line:.3g}"
    if not (np.isfinite(fit.lo) and np.isfinite(fit.hi)):
        return Score(INCONCLUSIVE, measured + " (undefined CI)", regime.note(th))
    if not regime.in_regime(th):
        return _short_of_regime(regime, th, measured + (" (met on this pre-regime window)" if fit.hi < line else ""))
    if fit.hi < line:
        return Score(REPRODUCED, measured, regime.note(th))
    if fit.lo > line and not regime.saturated(th):
        return Score(CONTRADICTED, measured, regime.note(th))
    return Score(INCONCLUSIVE, measured, regime.note(th))


def score_rate_lower(fit: RateFit, claimed_exponent: float, allowance: float, regime: Regime,
                     th: Thresholds = THRESHOLDS) -> Score:
    """An Omega(K^claimed) lower bound: CI lower end above claimed - allowance => reproduced;
    CI upper end below it => contradicted only in regime and unsaturated."""
    line = claimed_exponent - allowance
    measured = f"{fit.text()} vs >= {line:.3g}"
    if not (np.isfinite(fit.lo) and np.isfinite(fit.hi)):
        return Score(INCONCLUSIVE, measured + " (undefined CI)", regime.note(th))
    if fit.lo > line:
        return Score(REPRODUCED, measured, regime.note(th))
    if not regime.in_regime(th):
        return _short_of_regime(regime, th, measured)
    if fit.hi < line and not regime.saturated(th):
        return Score(CONTRADICTED, measured, regime.note(th))
    return Score(INCONCLUSIVE, measured, regime.note(th))


def score_exploring(fit: RateFit, regime: Regime, th: Thresholds = THRESHOLDS) -> Score:
    """"Still exploring": regret linear in K (exponent >= linear_exponent - log_allowance) -- a
    claim about the linear phase, so scored on a window that ends at or before the crossover K:
    CI lower end above the line => reproduced, CI upper end below it => contradicted, else
    inconclusive. A window past the crossover is past the claim's phase (inconclusive, never
    "not reached": a larger K cannot reach it; the claim plan says "past phase")."""
    line = th.linear_exponent - th.log_allowance
    measured = f"{fit.text()} vs >= {line:.3g}"
    cross = regime.crossover_K
    if not (np.isfinite(fit.lo) and np.isfinite(fit.hi)):
        return Score(INCONCLUSIVE, measured + " (undefined CI)", regime.note(th))
    if np.isnan(cross):
        return Score(INCONCLUSIVE, measured, "no crossover: the linear phase's end is unknown")
    where = (f"crossover K = {cross:.3g}, window [{regime.window_lo:.3g}, {regime.window_hi:.3g}]: "
             + ("in the linear phase" if regime.window_hi <= cross else "past the linear phase"))
    if regime.window_hi > cross:
        return Score(INCONCLUSIVE, measured, where + " (the claim holds only before the crossover)")
    if fit.lo > line:
        return Score(REPRODUCED, measured, where)
    if fit.hi < line:
        return Score(CONTRADICTED, measured, where)
    return Score(INCONCLUSIVE, measured, where)


# ---------------------------------------------------------------- ratios, orders, bounds, checks
def score_ratio_bounded(slope: RateFit, regime: Regime, th: Thresholds = THRESHOLDS) -> Score:
    """A ratio that must stay bounded as K grows (e.g. shuffle / central "up to constants"):
    ``slope`` is the fit of log ratio on log K (:func:`privrl.results.fits.fit_ratio_exponent`).
    Reproduced when its CI upper end is below ratio_slope_max, in regime (before the crossover
    of the slower agent every ratio of two explorers is ~1 and says nothing); contradicted when
    its lower end is above."""
    measured = slope.text("slope of log ratio") + f" vs < {th.ratio_slope_max:g}"
    if not regime.in_regime(th):
        return _short_of_regime(regime, th, measured)
    if not (np.isfinite(slope.lo) and np.isfinite(slope.hi)):
        return Score(INCONCLUSIVE, measured + " (undefined CI)", regime.note(th))
    if slope.hi < th.ratio_slope_max:
        return Score(REPRODUCED, measured, regime.note(th))
    if slope.lo > th.ratio_slope_max and not regime.saturated(th):
        return Score(CONTRADICTED, measured, regime.note(th))
    return Score(INCONCLUSIVE, measured, regime.note(th))


def score_order(ratio: tuple[float, float, float], strong: bool, condition: bool, condition_note: str,
                k_needed: float = float("nan"), th: Thresholds = THRESHOLDS) -> Score:
    """A < B (``strong``: A << B) from ``ratio`` = B / A as (mean, lo, hi).

    ``condition``: the regime the order is about holds (e.g. the better method eliminated a
    policy; the compared cells are at matched coverage). Without it the verdict is "not reached"
    (with k_needed if known) -- two explorers paying the same linear regret order nothing.
    Reproduced when the CI lower end exceeds 1 + min_effect (strong: strong_ratio);
    contradicted when the CI upper end is below 1 (B significantly better than A).
    """
    m, lo, hi = ratio
    line = th.strong_ratio if strong else 1.0 + th.min_effect
    measured = f"B/A = {m:.3g} [{lo:.3g}, {hi:.3g}] vs > {line:g}"
    if not condition:
        return Score(INCONCLUSIVE if np.isnan(k_needed) else NOT_REACHED, measured,  # inf: never
                     f"regime condition fails: {condition_note}", k_needed)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return Score(INCONCLUSIVE, measured + " (undefined CI)", condition_note)
    if lo > line:
        return Score(REPRODUCED, measured, condition_note)
    if hi < 1.0:
        return Score(CONTRADICTED, measured, condition_note)
    return Score(INCONCLUSIVE, measured, condition_note)


def first_k(K: float, holds: Callable[[float], bool], th: Thresholds = THRESHOLDS) -> float:
    """First K of the log grid K .. ``th.k_max`` (``th.bound_grid`` points) where ``holds(k)``, else inf."""
    return next((float(k) for k in np.geomspace(max(K, 1.0), th.k_max, th.bound_grid) if holds(k)), math.inf)


def bound_k_needed(bound: Callable[[float], float], trivial_per_episode: float, start: float = 1.0,
                   th: Thresholds = THRESHOLDS) -> float:
    """The K from which an explicit bound B(K) is below the trivial ``K x trivial_per_episode`` (:func:`first_k`
    from ``start``): the K needed of :func:`score_bound` (from the K run) and of the claim plan's bound rows
    (from K = 1)."""
    return first_k(start, lambda k: bound(k) < k * trivial_per_episode, th)


def score_bound(measured: tuple[float, float, float], bound: Callable[[float], float], K: float,
                trivial_per_episode: float, explicit: bool = True, th: Thresholds = THRESHOLDS) -> Score:
    """A measured quantity at K against an explicit numeric bound B(K) (constants and logs
    printed in the paper). An O~ expression (``explicit=False``) hides constants and logs: it is
    not a number to compare with, only its rate is testable (inconclusive). A bound at or above
    the trivial ``K x trivial_per_episode`` is vacuous: "not reached", with the K at which it
    first drops below the trivial bound (if any)."""
    m, lo, hi = measured
    b = bound(K)
    text = f"{m:.4g} [{lo:.4g}, {hi:.4g}] vs bound {b:.4g} at K = {K:.3g}"
    if not explicit:
        return Score(INCONCLUSIVE, text, "O~ bound: constants and log factors hidden; score its rate instead")
    if b >= K * trivial_per_episode:
        need = bound_k_needed(bound, trivial_per_episode, K, th)
        return Score(NOT_REACHED, text, f"vacuous until K = {_k(need)} (trivial bound K x {trivial_per_episode:.3g})",
                     need)
    verdict = REPRODUCED if hi <= b else (CONTRADICTED if lo > b else INCONCLUSIVE)
    return Score(verdict, text, "explicit bound, non-vacuous at K")


def score_amplification(eps0: float, eps_exact: float, eps_bound: float, hypothesis_holds: bool,
                        k: float, k_hypothesis: float, releases: int = 1) -> Score:
    """Privacy amplification by shuffling (Garcelon Prop. 5): scored on the *exact* eps of the
    shuffled sums, only where Prop. 5's hypothesis holds (else "not reached" with the k at which
    it starts to hold); ``releases`` > 1 states the caveat that Prop. 5 covers one release
    while Shuffled-OBI releases its counters every episode (composition not included)."""
    measured = f"exact eps = {eps_exact:.4g}, Prop. 5 bound {eps_bound:.4g}, vs eps0 = {eps0:g} at k = {k:.3g}"
    caveat = "" if releases <= 1 else f"; one release of {releases}: repeated releases compose (not covered by Prop. 5)"
    if not hypothesis_holds:
        return Score(NOT_REACHED, measured, f"Prop. 5 hypothesis fails at k = {k:.3g}{caveat}", k_hypothesis)
    if not np.isfinite(eps_exact):
        return Score(INCONCLUSIVE, measured, "exact eps undefined" + caveat)
    return Score(REPRODUCED if eps_exact < eps0 else CONTRADICTED, measured, "hypothesis holds" + caveat)


def score_check(ok: bool | None, measured: str, note: str = "") -> Score:
    """An algebra / consistency check: "checked" (ok), "contradicted" (fails), "inconclusive" (None)."""
    return Score(INCONCLUSIVE if ok is None else (CHECKED if ok else CONTRADICTED), measured, note)
