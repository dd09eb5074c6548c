"""Verdicts of a privacy cost D(K, eps) against a paper's function of eps (docs/decisions/verdicts.md,
"Privacy cost"): per-eps K-slopes b, their homogeneity, the pooled b (one-sided) and the eps
exponent gamma of D ~ g(eps)^gamma (one-sided: the paper's bound is an upper bound).

"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from privrl.results.verdicts import (CONTRADICTED, INCONCLUSIVE, NOT_REACHED, REPRODUCED, THRESHOLDS, Regime,
                                     Score, Thresholds, zero_width)

# the regime note of a check that fails on the lower side of a two-sided test: a minimax lower bound is not
# contradicted by one instance below it ("inconclusive"), but a twin that lands there fails the check
BELOW_LOWER = "below the dependence the lower bound pins"

EPS_LAWS: dict[str, Callable[[float], float]] = {  # the paper's function g(eps) in D ~ K^b g(eps)^gamma
    "power": lambda eps: 1.0 / eps,                                                 # eps^-c: gamma = c
    "garcelon_shuffle": lambda eps: math.exp(eps / 2.0) / math.expm1(eps),          # Thm 6, Eq. 9
}


@dataclass(frozen=True)
class EpsCell:
    """One eps cell of a privacy-cost fit: its K-slope b of log D (CI) and D at the last K (CI)."""

    eps: float
    b: float
    b_lo: float
    b_hi: float
    D: float
    D_lo: float
    D_hi: float
    regime: Regime


def homogeneous(cells: Sequence[EpsCell], th: Thresholds = THRESHOLDS) -> bool:
    """True when one b lies in every cell's CI widened by the log-factor allowance (max lower end
    <= min upper end + allowance): slopes closer than the allowance never count as disagreeing."""
    lo = max(c.b_lo for c in cells)
    hi = min(c.b_hi for c in cells)
    return bool(np.isfinite(lo) and np.isfinite(hi) and lo <= hi + th.log_allowance)


def pooled(values: Sequence[float], los: Sequence[float], his: Sequence[float], th: Thresholds = THRESHOLDS
           ) -> tuple[float, float, float]:
    """Inverse-variance mean of estimates with CIs (se = CI width / 2z): (mean, lo, hi)."""
    v = np.asarray(values, float)
    se = np.maximum((np.asarray(his, float) - np.asarray(los, float)) / (2.0 * th.z), th.tiny_se)
    w = 1.0 / se ** 2
    m = float((w * v).sum() / w.sum())
    s = float(1.0 / math.sqrt(w.sum()))
    return m, m - th.z * s, m + th.z * s


def eps_exponent(cells: Sequence[EpsCell], law: str, th: Thresholds = THRESHOLDS) -> tuple[float, float, float]:
    """gamma of log D(K, eps) = const + gamma log g(eps) by weighted least squares (se of log D
    from each cell's CI): (gamma, lo, hi)."""
    g = EPS_LAWS[law]
    x = np.log([g(c.eps) for c in cells])
    y = np.log([c.D for c in cells])
    se = np.maximum((np.log([c.D_hi for c in cells]) - np.log([c.D_lo for c in cells])) / (2.0 * th.z), th.tiny_se)
    w = 1.0 / se ** 2
    xm = (w * x).sum() / w.sum()
    sxx = (w * (x - xm) ** 2).sum()
    gamma = float((w * (x - xm) * (y - (w * y).sum() / w.sum())).sum() / sxx)
    s = float(1.0 / math.sqrt(sxx))
    return gamma, gamma - th.z * s, gamma + th.z * s


def eps_decades(cells: Sequence[EpsCell]) -> float:
    """Decades of eps the cells span (0 for fewer than two)."""
    eps = [c.eps for c in cells]
    return math.log10(max(eps) / min(eps)) if len(eps) >= 2 else 0.0


def k_for_eps_grid(pairs: Sequence[tuple[float, float]], n: int, decades: float) -> float:
    """The smallest K at which >= ``n`` eps cells are in regime and span >= ``decades`` of eps
    (``pairs``: (eps, the K at which that cell enters its regime)); inf when no K gives that. The
    one rule of the verdicts (:func:`k_for_eps_cells`) and of the claim plan (privrl.papers.planned)."""
    order = sorted(pairs, key=lambda p: p[1])
    for i in range(n - 1, len(order)):
        eps = [e for e, _ in order[:i + 1]]
        if math.log10(max(eps) / min(eps)) >= decades - 1e-12:
            return float(order[i][1])
    return math.inf


def reads_two_sided(eps: Sequence[float], th: Thresholds = THRESHOLDS) -> bool:
    """True when a design's eps grid can give a two-sided eps exponent at some K (a design with fewer
    than ``two_sided_eps_cells`` values over ``two_sided_eps_decades`` reads it one-sided only)."""
    return math.isfinite(k_for_eps_grid([(e, 0.0) for e in set(eps)], th.two_sided_eps_cells,
                                        th.two_sided_eps_decades))


def k_for_eps_cells(cells: Sequence[EpsCell], n: int, decades: float, th: Thresholds = THRESHOLDS) -> float:
    """:func:`k_for_eps_grid` of eps cells (each enters at its own ``regime.k_needed``)."""
    return k_for_eps_grid([(c.eps, c.regime.k_needed(th)) for c in cells], n, decades)


def gamma_target(gamma_range: tuple[float, float]) -> str:
    """The eps exponent a paper's widths allow: "gamma = 1" for a point, "gamma in [1, 2]" for a range."""
    lo, hi = gamma_range
    return f"gamma = {lo:g}" if lo == hi else f"gamma in [{lo:g}, {hi:g}]"


def gamma_claim_text(gamma_range: tuple[float, float], two_sided: bool, th: Thresholds = THRESHOLDS) -> str:
    """A statement's eps exponent with the band :func:`score_eps_dependence` reads it on:
    "gamma = 1 (two-sided: read on [0.9, 1.1])" or "gamma in [1, 2] (upper bound: read <= 2.1)"."""
    lo, hi = gamma_range
    a = th.log_allowance
    band = (f"two-sided: read on [{gamma_lower(gamma_range, th):.3g}, {hi + a:.3g}]" if two_sided
            else f"upper bound: read <= {hi + a:.3g}")
    return f"{gamma_target(gamma_range)} ({band})"


def score_eps_dependence(cells: Sequence[EpsCell], b_claimed: float, law: str,
                         gamma_range: tuple[float, float], th: Thresholds = THRESHOLDS,
                         gamma_two_sided: bool = False) -> tuple[Score, Score]:
    """Privacy cost D(K, eps) <~ K^b_claimed g(eps)^gamma, gamma in gamma_range (the range the
    paper's widths allow on a gap instance, e.g. [1, 2] for LDP's 1/eps widths).

    Only eps cells in regime count; their per-eps b must be homogeneous before any pooled b or
    eps exponent is read. Returns (score of b, score of gamma). Both are one-sided, the paper's
    statement being an upper bound: b reproduced when the pooled CI upper end is below
    b_claimed + log_allowance; gamma reproduced when its CI upper end is below gamma_range[1] +
    allowance (a smaller eps exponent meets the bound; gamma_range[0] is only printed),
    contradicted when its lower end is above it (unsaturated), inconclusive when its upper end is
    below 0 (D grows with eps: not a violation of the bound, but not its eps dependence either). gamma needs ``min_eps_cells`` (2)
    cells in regime: its K needed is the K at which the second eps cell enters its regime
    (inf with fewer eps cells than that).

    Two-sided where a paper's lower bound pins the dependence (docs/decisions/controls.md):
    ``gamma_two_sided`` (gamma >= gamma_range[0] - allowance as well: the 1/eps of the JDP and LDP
    lower bounds), only on >= ``two_sided_eps_cells`` eps cells in regime spanning
    >= ``two_sided_eps_decades`` (else "not reached", with the K at which enough cells enter). Below
    the lower side is "inconclusive" (a minimax lower bound is not contradicted by one instance;
    regime note ``BELOW_LOWER``), and so is D <= 0 (whole CI) at every eps cell in regime; a cell with
    D <= 0 among others with a cost is left out of the estimate. Every cell in regime and none with a
    cost whose CI clears 0 gives "inconclusive" on both scores (nothing to fit; not "not reached"); with
    some cells still short of their regime it is "not reached", with the K the first of them needs.
    Where every seed gives the same D the eps exponent is "inconclusive": the slope of a step function
    is not an estimate.
    """
    per_eps = "; ".join(f"eps {c.eps:g}: b {c.b:.2f} [{c.b_lo:.2f}, {c.b_hi:.2f}]"
                        f"{'' if c.regime.in_regime(th) else ' (pre-regime)'}" for c in cells)
    in_regime = [c for c in cells if c.regime.in_regime(th)]
    live = [c for c in in_regime if c.D > 0 and c.D_lo > 0]
    if gamma_two_sided:  # a lower bound: no cost at any eps in regime is below it
        zero = [c for c in in_regime if c.D_hi <= 0.0]
        if zero and len(zero) == len(in_regime):
            s = Score(INCONCLUSIVE, f"D <= 0 (whole CI) at eps {', '.join(f'{c.eps:g}' for c in zero)} in regime; "
                                    + per_eps, f"{BELOW_LOWER}: no privacy cost on this instance")
            return s, s
    needs = sorted(c.regime.k_needed(th) for c in cells)
    if len(live) < 1 and in_regime and len(in_regime) == len(cells):
        # every cell in regime, none with a cost whose CI clears 0: nothing to fit, and no K to wait for
        d = "; ".join(f"eps {c.eps:g}: D {c.D:.4g} [{c.D_lo:.4g}, {c.D_hi:.4g}]" for c in in_regime)
        below = [c for c in in_regime if c.D_hi < 0.0]
        why = "no positive privacy cost at any eps in regime (D or its CI lower end <= 0): no K- or eps-slope to read"
        if below:
            why += (f"; D < 0 (whole CI) at eps {', '.join(f'{c.eps:g}' for c in below)}: the noise-off baseline's "
                    "regret is above the private runs'")
        s = Score(INCONCLUSIVE, f"{d}; {per_eps}", why)
        return s, s
    g_score = _gamma_score(cells, b_claimed, law, gamma_range, gamma_two_sided, th)
    if len(live) < 1:  # the cells still to enter their regime may carry a cost: the K the first of them needs
        waiting = [c.regime.k_needed(th) for c in cells if not c.regime.in_regime(th)]
        need = min(waiting or needs, default=float("nan"))
        why = ("no eps cell in regime with a positive cost (D or its CI lower end <= 0); the others are short of "
               "theirs" if in_regime else "no eps cell in regime (crossover ~ 1/eps)")
        return Score(NOT_REACHED, per_eps, why, need), g_score
    if not homogeneous(live, th):
        s = Score(INCONCLUSIVE, per_eps, "per-eps K-slopes disagree: eps cells in different regimes; no pooled b or c")
        return s, g_score  # gamma checks the slopes of the cells it reads itself
    return _b_score(live, b_claimed, per_eps, th), g_score


def _fixed(cells: Sequence[EpsCell]) -> bool:
    """Every seed the same D at every cell (e.g. an elimination schedule that no seed departs from)."""
    return all(math.isclose(c.D_lo, c.D_hi, rel_tol=1e-9, abs_tol=1e-9) for c in cells)


FIXED_NOTE = "; deterministic: every seed gives the same D, the interval is the point"


def _b_score(live: Sequence[EpsCell], b_claimed: float, per_eps: str, th: Thresholds) -> Score:
    """The pooled K-exponent b of the eps cells in regime with a cost (homogeneous), one-sided."""
    fixed = FIXED_NOTE if _fixed(live) else ""
    b, blo, bhi = pooled([c.b for c in live], [c.b_lo for c in live], [c.b_hi for c in live], th)
    line = b_claimed + th.log_allowance
    b_meas = f"pooled b = {b:.3g} [{blo:.3g}, {bhi:.3g}] over {len(live)} eps in regime vs <= {line:.3g}; {per_eps}{fixed}"
    sat = any(c.regime.saturated(th) for c in live)
    if bhi < line:
        b_score = Score(REPRODUCED, b_meas, "homogeneous per-eps slopes")
    elif blo > line and not sat:
        b_score = Score(CONTRADICTED, b_meas, "homogeneous per-eps slopes")
    else:
        b_score = Score(INCONCLUSIVE, b_meas, "homogeneous per-eps slopes")
    if fixed:  # every seed the same schedule is not a sample of the K-dependence
        return Score(INCONCLUSIVE, b_meas, "every seed the same D: the slope of a schedule no seed departed from, "
                                           f"not an estimate (it would read {b_score.verdict})")
    flat = [c for c in live if zero_width(c.b_lo, c.b_hi, th)]
    if flat:  # D constant on the window in every seed at some eps: its b (0, zero width) dominates the pool
        return Score(INCONCLUSIVE, b_meas, f"zero-width per-eps slope at eps {', '.join(f'{c.eps:g}' for c in flat)}: "
                                           "D constant on the window in every seed, a slope with no sampling error "
                                           f"is not an estimate (it would read {b_score.verdict})")
    return b_score


def gamma_k(crossover_K: float, th: Thresholds = THRESHOLDS, span: float = 1.0) -> float:
    """The K from which an eps cell's D at K enters an eps-exponent reading (docs/decisions/verdicts.md, rule (a)): 10 x its
    crossover (a point regime at the last K, ``span`` 1), not its whole b-window (100 x for two decades). Past its crossover
    a JDP agent's D grows like log K (measured: D at 10 x the crossover is 0.83-0.85 of D at 100 x at every
    eps), so the cell's own flattening check (:func:`flattened`) guards the rest. Where that check cannot tell
    (:func:`point_regime` False) ``span`` is the window's (its last K over its first): the whole window past 10 x."""
    return th.regime_factor * crossover_K * span


def point_regime(b_claimed: float, th: Thresholds = THRESHOLDS) -> bool:
    """Whether an eps exponent may read a cell at 10 x its crossover with D's flattening checked on the data
    (rule (a)): only where flattening tells the regime apart -- the claimed cost grows slower than the
    K^(1/2) a local cost shows before its crossover (b_claimed + allowance < 1/2: the additive JDP rows). A
    multiplicative row (b = 1/2) passes the check before its crossover too (DP-UCBVI LDP on the H = 2
    bandit: b 0.50 on a window at 0.15-1.5 x its crossover), so its cells need their whole window in regime."""
    return b_claimed + th.log_allowance < 0.5


def flattened(c: EpsCell, b_claimed: float, th: Thresholds = THRESHOLDS) -> bool:
    """The per-cell check that D has flattened: its K-slope's CI upper end below the claimed b + allowance."""
    return bool(np.isfinite(c.b_hi) and c.b_hi < b_claimed + th.log_allowance)


def gamma_eps(eps: Sequence[float], two_sided: bool, th: Thresholds = THRESHOLDS) -> list[float]:
    """The eps values an eps-exponent reading uses (docs/decisions/verdicts.md, rule (c)): a two-sided reading uses those in
    [gamma_eps_lo, gamma_eps_hi] when they alone give it (>= two_sided_eps_cells over two_sided_eps_decades:
    the cells below 1 set the K needed without adding to the test); otherwise every eps of the grid."""
    e = sorted(set(float(x) for x in eps))
    if two_sided:
        inside = [x for x in e if th.gamma_eps_lo - 1e-12 <= x <= th.gamma_eps_hi + 1e-12]
        if math.isfinite(k_for_eps_grid([(x, 0.0) for x in inside], th.two_sided_eps_cells, th.two_sided_eps_decades)):
            return inside
    return e


def gamma_need(pairs: Sequence[tuple[float, float]], two_sided: bool, th: Thresholds = THRESHOLDS,
               span: float = 1.0) -> float:
    """K needed of an eps exponent from (eps, crossover K) per cell: the K at which enough cells of
    :func:`gamma_eps` are past :func:`gamma_k` (two-sided: four over a decade; else two); ``span``: 1 for a
    point regime, the fit window's last K over its first where :func:`point_regime` is False. The verdict's
    and the claim plan's one rule."""
    use = set(gamma_eps([e for e, _ in pairs], two_sided, th))
    n, dec = ((th.two_sided_eps_cells, th.two_sided_eps_decades) if two_sided else (th.min_eps_cells, 0.0))
    return k_for_eps_grid([(e, gamma_k(k, th, span)) for e, k in pairs if e in use], n, dec)


def gamma_lower(gamma_range: tuple[float, float], th: Thresholds = THRESHOLDS) -> float:
    """The lower side of a two-sided eps exponent (docs/decisions/verdicts.md, rule (b)): ``gamma_lower_side`` (0.5), below the
    widths' lower end. The lower bounds are minimax, not a prediction on one instance (an agent's own
    crossover formula predicts its gamma there: 1.04 for DP-UCBVI JDP, 0.86 for PUCB's Hoeffding bonus on the
    bandit); the side's job is to reject the twins the row is about -- eps-blind (gamma ~ 0) and non-private
    (no cost) -- and 0.5 does, halfway, whatever the bonus shape."""
    return min(th.gamma_lower_side, gamma_range[0] - th.log_allowance)


def _gamma_score(cells: Sequence[EpsCell], b_claimed: float, law: str, gamma_range: tuple[float, float],
                 two_sided: bool, th: Thresholds) -> Score:
    use = set(gamma_eps([c.eps for c in cells], two_sided, th))
    pool = [c for c in cells if c.eps in use]
    n_gamma = th.two_sided_eps_cells if two_sided else th.min_eps_cells
    decades = th.two_sided_eps_decades if two_sided else 0.0
    point = point_regime(b_claimed, th)
    span = 1.0 if point else max((c.regime.window_hi / c.regime.window_lo for c in cells
                                  if c.regime.window_lo > 0), default=1.0)
    need = gamma_need([(c.eps, c.regime.crossover_K) for c in cells], two_sided, th, span)
    short = ((f"eps exponent needs {n_gamma} eps cells past 10 x their crossover with D flattened" if point else
              f"eps exponent needs {n_gamma} eps cells with their whole window past 10 x their crossover "
              "(a multiplicative cost: D's flattening cannot tell the regime)")
             + (f" over {decades:g} decade (two-sided, eps in {sorted(use)})" if two_sided else ""))
    at_k = [c for c in pool if np.isfinite(c.regime.crossover_K) and c.regime.window_hi >= gamma_k(c.regime.crossover_K, th)]
    cost = [c for c in at_k if c.D > 0 and c.D_lo > 0]
    live = [c for c in cost if c.regime.in_regime(th) or (point and flattened(c, b_claimed, th))]
    steep = [c for c in cost if c not in live]
    steep_eps = ", ".join(f"{c.eps:g}" for c in steep)
    if not steep:
        note = ""
    elif point:
        note = f"; D not flattened at eps {steep_eps} (b above {b_claimed + th.log_allowance:.3g})"
    else:
        note = (f"; eps {steep_eps} past 10 x the crossover at K but not over the window (a multiplicative "
                "cost: its flattening is no evidence of the regime)")
    if len(live) < n_gamma or (two_sided and eps_decades(live) < decades):
        if steep:  # the formula's K was run and D had not flattened: the K at which each such cell's whole
            # window is past 10 x its crossover, where the rule counts it without the flattening check
            need = max([need] + [c.regime.k_needed(th) for c in steep])
            if point:
                note += f"; K needed: the window of eps {steep_eps} past 10 x its crossover"
        return Score(NOT_REACHED, f"{len(live)} eps cell(s) in regime" + (
            f" spanning {eps_decades(live):.2g} decades" if two_sided else "") + note, short, need)
    gam, glo, ghi = eps_exponent(live, law, th)
    hi_ok = gamma_range[1] + th.log_allowance
    lo_ok = gamma_lower(gamma_range, th) if two_sided else -math.inf
    fixed = FIXED_NOTE if _fixed(live) else ""
    g_meas = (f"gamma = {gam:.3g} [{glo:.3g}, {ghi:.3g}] for g = {law} vs "
              + (f"in [{lo_ok:.3g}, {hi_ok:.3g}] (two-sided)" if two_sided else f"<= {hi_ok:.3g}")
              + f" (widths allow {gamma_target(gamma_range)}){fixed}")
    why = (f"D at K over {len(live)} eps past 10 x their crossover, D flattened{note}" if point else
           f"D at K over {len(live)} eps, each window past 10 x its crossover{note}")
    if fixed:  # the eps dependence of a step function (e.g. the elimination schedule's): not an estimate
        return Score(INCONCLUSIVE, g_meas, f"{why}; every seed the same D: the slope of a schedule, "
                                           "not an estimate of the eps dependence")
    flat = [c for c in live if zero_width(c.b_lo, c.b_hi, th)]
    if flat or zero_width(glo, ghi, th):  # D constant on the window in every seed, or no spread
        where = (f"D constant on the window in every seed at eps {', '.join(f'{c.eps:g}' for c in flat)} (zero-width "
                 "per-eps slope): D at K is a schedule's, not a sample of the eps dependence" if flat else
                 "zero-width interval: every seed gives the same eps dependence, not an estimate")
        return Score(INCONCLUSIVE, g_meas, f"{why}; {where}")
    if not homogeneous(live, th):
        return Score(INCONCLUSIVE, g_meas, f"{why}; per-eps K-slopes disagree: eps cells in different regimes")
    sat = any(c.regime.saturated(th) for c in live)
    if two_sided:
        if lo_ok < glo and ghi < hi_ok:
            return Score(REPRODUCED, g_meas, why)
        if ghi < lo_ok:
            return Score(INCONCLUSIVE, g_meas, f"{BELOW_LOWER}; {why}")
        if glo > hi_ok and not sat:
            return Score(CONTRADICTED, g_meas, f"{why}; above the upper bound's dependence")
        return Score(INCONCLUSIVE, g_meas, why)
    if ghi < 0.0:  # D grows with eps: the bound is not exceeded, but its eps dependence is not seen
        return Score(INCONCLUSIVE, g_meas, f"{why}; gamma's CI lies below 0: D grows with eps, which no "
                                           "bound on the privacy cost predicts (docs/decisions/claims.md)")
    if ghi < hi_ok:
        return Score(REPRODUCED, g_meas, why)
    if glo > hi_ok and not sat:
        return Score(CONTRADICTED, g_meas, why)
    return Score(INCONCLUSIVE, g_meas, why)
