"""The privacy-cost surface: what privacy costs in regret, per trust model, across eps and K.

Analysis ``privacy_surface`` (experiment ``privacy_cost_surface``): every private agent of the
three trust models on one instance, each beside the non-private run of the same algorithm (its
``noise = 0`` cell; PE for SDP-PE: ``cross_paper.BASELINE_AGENT``). It reads the per-group fits
of :func:`privrl.papers.cross_paper._fits` (the privacy_cost analysis's, one estimator) and gives

* the surface table: D(K, eps) = R(K, eps) - R(K, non-private) at the last K per (agent, eps),
  with its 95 % seed-bootstrap CI, the regret itself, and the cell's regime (crossover K, K needed);
* the figure: D at K against eps, one panel per trust model (top row), and D against K at
  eps = 1 (bottom row), an agent per line (one legend);
* the trust-model comparisons, measured and shown as **context** (never scored; the reasons are
  ``SEPARATION_WHY`` and ``ORDER_WHY``, docs/decisions/privacy_surface.md): the K-exponent of
  D_LDP / D_JDP per same-algorithm central/local pair and eps (the local model's minimax
  Omega(sqrt(K)/eps) against the central additive O~(1/eps) would give >= 1/2), and D_JDP < D_shuffle
  < D_LDP per family with a shuffle member. The per-agent exponents (b, eps law) are the scored
  rows, from the ``privacy_cost`` analysis on the same runs, each with its wrong twins;

* the frontier: every agent of the experiment that is not a published one (``PUBLISHED``) -- a
  user's agent added as a cell, no further code -- against each published agent of its trust model
  (every published agent for a non-private one) at each eps: the probability of improvement
  P(R_new(K) < R_pub(K)) over seeds with its CI (:func:`privrl.results.stats.probability_of_improvement`).
  Context rows of the table: a user's comparison, not a paper's claim.

Shapes: the surface table has one row per (env, agent group, eps); the frontier one per
(new agent cell, published agent cell).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from privrl.results import verdicts as V
from privrl.results.claims import claims_frame
from privrl.results.fits import window_mask
from privrl.results.stats import (bootstrap, improvement_p_value, percentile_ci, probability_of_improvement,
                                  seed_matrix)
from privrl.rl import seeding
from privrl.papers.analysis import AnalysisContext, AnalysisResult

MODELS = {"JDP": "central (JDP)", "SDP": "shuffle (SDP)", "LDP": "local (LDP)"}  # panel order: cost grows
PUBLISHED = ("pucb", "dp-ucbvi-jdp", "dp-ucbvi-ldp", "private-ucbvi-jdp", "private-ucbvi-ldp", "private-ucbvi-sdp",
             "ldp-obi", "shuffled-obi", "sdp-pe", "sdp-pe-jdp", "sdp-pe-ldp")
# one algorithm under the three trust models: (central, shuffle or None, local)
FAMILIES = {
    "DP-UCBVI": ("dp-ucbvi-jdp", None, "dp-ucbvi-ldp"),
    "Private-UCBVI": ("private-ucbvi-jdp", "private-ucbvi-sdp", "private-ucbvi-ldp"),
    "SDP-PE": ("sdp-pe-jdp", "sdp-pe", "sdp-pe-ldp"),
}
FAMILY_OF = {  # the figure's legend: one entry per algorithm, coloured alike in every trust model's panel
    "pucb": "PUCB", "dp-ucbvi-jdp": "DP-UCBVI", "dp-ucbvi-ldp": "DP-UCBVI", "private-ucbvi-jdp": "Private-UCBVI",
    "private-ucbvi-sdp": "Private-UCBVI", "private-ucbvi-ldp": "Private-UCBVI", "sdp-pe": "SDP-PE", "sdp-pe-jdp": "SDP-PE",
    "sdp-pe-ldp": "SDP-PE", "ldp-obi": "LDP-OBI", "shuffled-obi": "Shuffled-OBI",
}
SEPARATION_EXPONENT = 0.5  # Omega(sqrt(K)/eps) of the local model against O~(1/eps) of the central one
SEPARATION_SOURCE = ("Garcelon et al. note, Sec. 1 (LDP lower bound Omega(sqrt K / eps), minimax); Vietri et al. "
                     "Thm 4 and Bai et al. Table I (central privacy cost additive, O~(1/eps))")
ORDER_SOURCE = "Bai et al. Table I and Sec. V-B; Garcelon et al. note, Table 1 (shuffle between central and local)"
SEPARATION_WHY = ("context, not scored: Omega(sqrt(K)/eps) is a minimax lower bound; on one fixed instance the local cost is "
                  "linear before its crossover (as the crossover formula predicts) and logarithmic after, so no outcome here "
                  "could contradict a paper (as for a minimax dimension power, privrl.papers.dimensions); scoring it needs a "
                  "hard family whose gap shrinks with K (docs/decisions/privacy_surface.md)")
ORDER_WHY = ("context, not scored: central < shuffle compares the dimension factors of two upper bounds with the same K and "
             "eps orders (Bai et al. Table I), and shuffle < local needs the local cell in regime; at one nominal eps the "
             "central and shuffle members are 2 eps under replacement neighbours, the local one eps; the shuffle "
             "member's noise-off run is batched UCBVI, the others' plain UCBVI")


@dataclasses.dataclass(frozen=True)
class Member:
    """One agent group's cells on the surface: per-seed regret of each eps cell and of its baseline."""

    env: str
    agent: str
    label: str
    model: str
    episodes: np.ndarray              # int64[C]
    private: dict                     # eps -> float64[n, C]
    base: np.ndarray                  # float64[n0, C]
    regimes: dict                     # eps -> Regime
    fit: dict                         # privrl.results.privacy_fits.fit_privacy_cost
    registered: str = ""              # the agent's registered trust model, where its runs deliver another

    @property
    def legend(self) -> str:
        """The figure's legend entry: one per algorithm (coloured alike in every panel), or, for an
        agent drawn in another model's panel than its registered one, its own label."""
        return self.label if self.registered else FAMILY_OF.get(self.agent, self.label)


# the trust models from the least trust a guarantee needs (no trusted party) to the most (a trusted curator)
LEAST_TRUST_FIRST = ("LDP", "SDP", "JDP", "DP")


def delivered_model(info: dict) -> str:
    """The trust model a run's own guarantees deliver (its info's ``guarantees``, as the privacy
    manifest lists them): the one needing the least trust (local before shuffle before central), since
    every weaker one follows from it. A shuffle agent whose run does not deliver the amplification
    (Shuffled-OBI releasing counts every episode: eps0-LDP and, by the billboard lemma, eps0-JDP) is
    local. The agent's registered model when the run carries no guarantee."""
    models = {g.get("model") for g in info.get("guarantees") or []}
    return next((m for m in LEAST_TRUST_FIRST if m in models), info["privacy_model"])


def members(fits: dict) -> list[Member]:
    """The agent groups of :func:`privrl.papers.cross_paper._fits` (the privacy_cost analysis's fits),
    each in the panel of the trust model its runs deliver (:func:`delivered_model`)."""
    out = []
    for (env, agent, _items), (g, fit, regimes, base, priv, ep0) in fits.items():
        info = next(iter(g["private"].values()))  # a private cell's label (the noise-off one says so)
        model = delivered_model(info)
        moved = model != info["privacy_model"]
        label = _label(info, agent) + (f" ({model} as run)" if moved else "")
        out.append(Member(env, agent, label, model, ep0, priv, base, regimes, fit, info["privacy_model"] if moved else ""))
    return out


def _label(info: dict, agent: str) -> str:
    from privrl.results import style

    label = info.get("label")
    if not label or label == info.get("cell"):  # no human label given: the agent's display name
        label = style.agent_name(agent, bool(info.get("reconstruction")))
    return label.split(" (eps=")[0].replace(" (eps={epsilon:g})", "")


# ---------------------------------------------------------------- the surface
def surface_rows(ms: list[Member]) -> pd.DataFrame:
    """One row per (env, agent group, eps): D at K with CI, regret at K, the cell's regime."""
    rows = []
    for m in ms:
        for eps in sorted(m.private):
            d, lo, hi = m.fit["D_at_K_ci"][eps]
            reg = m.regimes[eps]
            rows.append({"env": m.env, "trust_model": MODELS.get(m.model, m.model), "agent": m.agent, "label": m.label,
                         "epsilon": eps, "K": int(m.episodes[-1]), "n_seeds": int(m.private[eps].shape[0]),
                         "regret_at_K": float(m.private[eps][:, -1].mean()),
                         "non_private_regret_at_K": float(m.base[:, -1].mean()),
                         "D_at_K": d, "D_lo": lo, "D_hi": hi,
                         "b_measured": m.fit["b_eps"][eps][0], "b_lo": m.fit["b_eps"][eps][1], "b_hi": m.fit["b_eps"][eps][2],
                         "deterministic": _deterministic(m.private[eps], m.base),
                         "crossover_K": reg.crossover_K, "in_regime": reg.in_regime(),
                         "k_needed": reg.k_needed() if not reg.in_regime() else float("nan")})
    return pd.DataFrame(rows)


def _deterministic(*samples: np.ndarray) -> bool:
    """Every seed gives the same curve in every sample (e.g. SDP-PE's elimination schedule on expected
    regret): a bootstrap CI is then zero-width and says nothing about sampling error -- said instead."""
    return all(np.all(s == s[:1]) for s in samples)


DETERMINISTIC = " (deterministic: every seed the same; the interval is not a sampling CI)"


def d_ratio_exponent(num: Member, den: Member, eps: float, rng: np.random.Generator, decades: float,
                     n_boot: int) -> V.RateFit:
    """Slope of log(D_num / D_den) on log K over the fit window, CI from resampling the seeds of the
    four samples (both private cells, both baselines) independently; undefined where a D <= 0."""
    ep = np.asarray(num.episodes, dtype=np.float64)
    mask = window_mask(ep, decades)
    x = np.log(ep[mask])

    def slope(a, a0, b, b0) -> float:
        d1 = a[:, mask].mean(axis=0) - a0[:, mask].mean(axis=0)
        d2 = b[:, mask].mean(axis=0) - b0[:, mask].mean(axis=0)
        if (d1 <= 0).any() or (d2 <= 0).any():
            return float("nan")
        return float(np.polyfit(x, np.log(d1) - np.log(d2), 1)[0])

    samples = [num.private[eps], num.base, den.private[eps], den.base]
    s = slope(*samples)
    boots = bootstrap(samples, slope, rng, n_boot)
    lo, hi = percentile_ci(boots, min_valid=max(10, n_boot // 10))
    return V.RateFit(s, float(lo), float(hi), float(ep[mask].min()), float(ep[mask].max()), int(samples[0].shape[0]))


def score_separation(fit: V.RateFit, central: V.Regime, local_crossover: float,
                     th: V.Thresholds = V.THRESHOLDS) -> V.Score:
    """D_LDP / D_JDP grows at least like K^(1/2) (module docstring): one-sided, in the central
    cell's regime and before the local cell's crossover."""
    line = SEPARATION_EXPONENT - th.log_allowance
    measured = fit.text("K-exponent of D_LDP / D_JDP") + f" vs >= {line:.3g}"
    if not (np.isfinite(fit.lo) and np.isfinite(fit.hi)):
        return V.Score(V.INCONCLUSIVE, measured + " (undefined: a D <= 0 on the window)", central.note(th))
    if np.isfinite(local_crossover) and fit.window_hi > local_crossover:
        return V.Score(V.INCONCLUSIVE, measured, f"the local cell is past its crossover K = {local_crossover:.3g}: "
                       "on one instance its cost turns logarithmic there (the minimax sqrt K is not pinned)")
    if not central.in_regime(th):
        return V._short_of_regime(central, th, measured)
    if fit.lo > line:
        return V.Score(V.REPRODUCED, measured, "central cell: " + central.note(th))
    if fit.hi < line:
        return V.Score(V.CONTRADICTED, measured, "central cell: " + central.note(th))
    return V.Score(V.INCONCLUSIVE, measured, "central cell: " + central.note(th))


def d_ratio(num: Member, den: Member, eps: float, rng: np.random.Generator, n_boot: int) -> tuple[float, float, float]:
    """D_num(K) / D_den(K) at the last K with a CI from independent seed resamples of the four samples."""
    def ratio(a, a0, b, b0):  # batched: [n_boot, n, C]
        with np.errstate(divide="ignore", invalid="ignore"):
            return (a[:, :, -1].mean(axis=1) - a0[:, :, -1].mean(axis=1)) / (b[:, :, -1].mean(axis=1) - b0[:, :, -1].mean(axis=1))

    samples = [num.private[eps], num.base, den.private[eps], den.base]
    point = float(ratio(*[s[None] for s in samples])[0])
    boots = bootstrap(samples, ratio, rng, n_boot, batched=True)
    boots[~np.isfinite(boots)] = np.nan
    lo, hi = percentile_ci(boots, min_valid=max(10, n_boot // 10))
    return point, float(lo), float(hi)


def _context(claim: V.Claim, why: str) -> V.Claim:
    return dataclasses.replace(claim, scope="context", regime=f"{why}; {claim.regime}" if claim.regime else why)


def trust_model_rows(ctx: AnalysisContext, ms: list[Member], declared: list) -> tuple[list, list[dict]]:
    """The separation and shuffle-between comparisons the declaration lists (``declared``:
    :func:`privrl.papers.cross_paper.privacy_surface_declaration`, rows named by it; each family with its
    members on one env): measured and shown as context rows, never scored (module docstring:
    SEPARATION_WHY, ORDER_WHY). One seed stream per (env, family, eps), its rows in declared order."""
    art = ctx.artifact("privacy_surface", "md")
    decades = float(ctx.config.get("fit_decades", 1))
    by = {(m.env, m.agent): m for m in ms}
    claims, rows = [], []
    at, rng = None, None
    for row in declared:
        env, fam, eps = row.args["env"], row.args["family"], row.args["eps"]
        if (env, fam, eps) != at:
            at = (env, fam, eps)
            rng = seeding.generator("privacy_surface", f"{ctx.experiment}/{env}/{fam}/{eps!r}", 0)
        if row.args["kind"] == "separation":
            c, loc = (by[(env, a)] for a in row.args["members"])
            fit = d_ratio_exponent(loc, c, eps, rng, decades, ctx.n_boot)
            score = score_separation(fit, c.regimes[eps], loc.regimes[eps].crossover_K)
            if _deterministic(loc.private[eps], loc.base, c.private[eps], c.base):
                score = dataclasses.replace(score, measured=score.measured + DETERMINISTIC)
            claims.append(_context(V.make_claim(
                "cross_paper", "trust-model separation", row.id,
                f"{fam} on {env} at eps = {eps:g}: K-exponent of D_LDP / D_JDP (the local model's minimax "
                f"Omega(sqrt(K)/eps) against the central additive O~(1/eps) would give >= 1/2)",
                "rate", art, score, ctx.experiment, SEPARATION_SOURCE), SEPARATION_WHY))
            rows.append({"env": env, "family": fam, "epsilon": eps, "claim": "separation", "measured": score.measured,
                         "reading": score.verdict, "why": score.regime})
            continue
        lo_m, hi_m = (by[(env, a)] for a in row.args["members"])
        what = row.args["what"]
        ratio = d_ratio(hi_m, lo_m, eps, rng, ctx.n_boot)
        cond = lo_m.regimes[eps].in_regime() and hi_m.regimes[eps].in_regime()
        need = max(lo_m.regimes[eps].k_needed(), hi_m.regimes[eps].k_needed())
        note = (f"{lo_m.agent}: {lo_m.regimes[eps].note()}; {hi_m.agent}: {hi_m.regimes[eps].note()}")
        sc = V.score_order(ratio, False, cond, note, need)
        if _deterministic(lo_m.private[eps], lo_m.base, hi_m.private[eps], hi_m.base):
            sc = dataclasses.replace(sc, measured=sc.measured + DETERMINISTIC)
        claims.append(_context(V.make_claim(
            "cross_paper", "shuffle between central and local", row.id,
            f"{fam} on {env} at eps = {eps:g}: privacy cost {what} (D ratio > {1 + V.THRESHOLDS.min_effect:g})",
            "order", art, sc, ctx.experiment, ORDER_SOURCE), ORDER_WHY))
        rows.append({"env": env, "family": fam, "epsilon": eps, "claim": what, "measured": sc.measured,
                     "reading": sc.verdict, "why": sc.regime})
    return claims, rows


# ---------------------------------------------------------------- the frontier
def frontier_rows(ctx: AnalysisContext) -> pd.DataFrame:
    """Every non-published agent cell against each published agent cell of its trust model (every
    published one for a non-private agent) at the same eps: the probability of improvement at K."""
    cells = []
    for info in ctx.infos:
        p = info["params"]
        if p.get("noise", 1.0) < 0.5:
            continue
        cells.append((info, p.get("epsilon")))
    new = [(i, e) for i, e in cells if i["agent"] not in PUBLISHED and i["agent"] not in ("pe", "ucbvi")]
    rows = []
    for info, eps in new:
        _, ep, mine = seed_matrix(ctx.runs(info["env_key"], info["cell"]))
        model = delivered_model(info) if info["privacy_model"] != "none" else "none"
        for other, e2 in cells:
            if other["agent"] not in PUBLISHED or other["env_key"] != info["env_key"]:
                continue
            if model != "none" and (delivered_model(other) != model or e2 != eps):
                continue
            _, ep2, theirs = seed_matrix(ctx.runs(other["env_key"], other["cell"]))
            if not np.array_equal(ep, ep2):
                continue
            rng = seeding.generator("privacy_surface_frontier", f"{ctx.experiment}/{info['cell']}/{other['cell']}", 0)
            pi, lo, hi = probability_of_improvement(mine[:, -1], theirs[:, -1], rng, ctx.n_boot)
            p_better, p_worse = improvement_p_value(mine[:, -1], theirs[:, -1]), improvement_p_value(theirs[:, -1], mine[:, -1])
            rows.append({"env": info["env_key"], "agent": info["agent"], "label": info.get("label", info["agent"]),
                         "trust_model": MODELS.get(model, model), "epsilon": e2, "against": other["agent"],
                         "against_label": _label(other, other["agent"]), "K": int(ep[-1]),
                         "regret": float(mine[:, -1].mean()), "regret_against": float(theirs[:, -1].mean()),
                         "p_improvement": pi, "p_lo": lo, "p_hi": hi, "mann_whitney_p": min(p_better, p_worse),
                         "reading": ("better" if lo > 0.5 and p_better < 0.05 else "worse" if hi < 0.5 and p_worse < 0.05
                                     else "no difference shown")})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- output
def _fmt_ci(v, lo, hi) -> str:
    return f"{v:.4g} [{lo:.3g}, {hi:.3g}]" if np.isfinite(lo) else f"{v:.4g}"


def markdown(ctx: AnalysisContext, surf: pd.DataFrame, trust: list[dict], front: pd.DataFrame) -> str:
    K = int(surf.K.max()) if len(surf) else int(ctx.config.get("episodes", 0))
    lines = [f"# The privacy-cost surface: {ctx.experiment}", "",
             f"D(K, ε) = R(K, ε) − R(K, non-private) at K = {K:.3g} episodes, 95 % seed-bootstrap CI; the non-private "
             "run is the same algorithm with its noise off (PE for SDP-PE). 'in regime' = the cell's fit window starts "
             "past 10 × its crossover K; otherwise the K it needs. Agents grouped by trust model. 'deterministic': every "
             "seed gives the same regret (SDP-PE's elimination schedule on expected regret), so no sampling CI is printed.", "",
             "| trust model | agent | ε | regret at K | non-private regret | D at K [95 % CI] | K-slope of D [CI] | crossover K | regime |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in surf.sort_values(["trust_model", "label", "epsilon"], key=lambda s: s.map(_model_rank) if s.name == "trust_model" else s).itertuples():
        reg = "in regime" if r.in_regime else f"needs K ≥ {r.k_needed:.3g}"
        det = r.deterministic
        lines.append(f"| {r.trust_model} | {r.label} | {r.epsilon:g} | {r.regret_at_K:.4g} | {r.non_private_regret_at_K:.4g} "
                     f"| {f'{r.D_at_K:.4g} (deterministic)' if det else _fmt_ci(r.D_at_K, r.D_lo, r.D_hi)} "
                     f"| {f'{r.b_measured:.4g} (deterministic)' if det else _fmt_ci(r.b_measured, r.b_lo, r.b_hi)} "
                     f"| {r.crossover_K:.3g} | {reg} |")
    lines += ["", "## Trust models compared (context: measured, not scored)", "",
              "Separation: K-exponent of D_LDP / D_JDP (the local model's minimax Ω(√K/ε) against the central additive "
              "O~(1/ε) would give ≥ 1/2). Order: D ratio > 1.1 at K. 'reading' is what the check would say; the rows are "
              "context because " + SEPARATION_WHY.split("context, not scored: ")[1] + "; and " + ORDER_WHY.split("context, not scored: ")[1] + ".", "",
              "| family | ε | comparison | measured | reading | regime |", "|---|---|---|---|---|---|"]
    for r in trust:
        lines.append(f"| {r['family']} | {r['epsilon']:g} | {r['claim']} | {r['measured']} | {r['reading']} "
                     f"| {r['why'].split('; ', 1)[-1]} |")
    if not trust:
        lines.append("| (no family with its central and local members on one instance) |||||||")
    lines += ["", "## The frontier: agents added to this experiment against the published ones", "",
              "Probability of improvement P(R_new(K) < R_published(K)) over seeds (½ = no difference), 95 % CI; 'better' or "
              "'worse' needs the CI off ½ and a one-sided Mann-Whitney p < 0.05 (with few seeds the CI alone is zero-width); "
              "against each published agent of the same trust model at the same ε (every published agent for a "
              "non-private one). Context: a user's comparison, not a paper's claim.", ""]
    if len(front):
        lines += ["| agent | trust model | ε | against | regret | regret (against) | P(improvement) [95 % CI] | Mann-Whitney p | reading |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in front.itertuples():
            e = "" if pd.isna(r.epsilon) else f"{r.epsilon:g}"
            lines.append(f"| {r.label} | {r.trust_model} | {e} | {r.against_label} | {r.regret:.4g} | {r.regret_against:.4g} "
                         f"| {_fmt_ci(r.p_improvement, r.p_lo, r.p_hi)} | {r.mann_whitney_p:.2g} | {r.reading} |")
    else:
        lines.append("No agent beyond the published ones in this experiment: add one as a cell "
                     "(README, 'A new agent') and it is placed here.")
    return "\n".join(lines) + "\n"


def _model_rank(name: str) -> int:
    order = list(MODELS.values())
    return order.index(name) if name in order else len(order)


DECADES_DRAWN = 4  # the bottom row's K range: the early episodes' D is exploration noise of either sign


def figure(ctx: AnalysisContext, ms: list[Member]):
    """D at K against eps per trust model (top row) and D against K at eps = 1 (bottom row)."""
    if not ms:
        return None
    import matplotlib.ticker

    from privrl.results import facets
    from privrl.results.labels import env_title

    K = int(max(m.episodes[-1] for m in ms))
    parts, ylabels, xlabels = [], {}, {}
    models = [k for k in MODELS if any(m.model == k for m in ms)]
    eps_k = 1.0 if all(1.0 in m.private for m in ms) else min({e for m in ms for e in m.private}, key=lambda e: abs(np.log(e)))
    for k in models:
        top, bottom = MODELS[k], f"{MODELS[k]}, ε = {eps_k:g}"
        ylabels[top], xlabels[top] = f"D(K = {facets.sci(K)}, ε)", "privacy level ε"
        ylabels[bottom], xlabels[bottom] = f"D(K, ε = {eps_k:g})", "episodes K"
        for m in (m for m in ms if m.model == k):
            line = m.legend  # one legend entry per algorithm: the panel says the model
            es = [e for e in sorted(m.private) if m.fit["D_at_K_ci"][e][0] > 0]  # D <= 0: in the table, not on a log axis
            d = np.array([m.fit["D_at_K_ci"][e] for e in es]).reshape(-1, 3)
            parts.append(pd.DataFrame({"x": es, "y": d[:, 0], "lo": np.maximum(d[:, 1], d[:, 0] * 1e-3), "hi": d[:, 2],
                                       "panel": top, "line": line, "curve": f"{top}|{line}"}))
            if eps_k in m.private:  # the last DECADES_DRAWN decades of K, where D > 0 (a log axis)
                D = m.private[eps_k].mean(axis=0) - m.base.mean(axis=0)
                ep = m.episodes.astype(float)
                keep = (ep >= ep[-1] / 10.0 ** DECADES_DRAWN) & (D > 0)
                parts.append(pd.DataFrame({"x": ep[keep], "y": D[keep], "panel": bottom, "line": line,
                                           "curve": f"{bottom}|{line}"}))
    data = pd.concat(parts, ignore_index=True)
    order = [MODELS[k] for k in models] + [f"{MODELS[k]}, ε = {eps_k:g}" for k in models]
    envs = sorted({m.env for m in ms})
    title = "The cost of privacy by trust model" + (f", {env_title(ctx.config['envs'][envs[0]])}" if len(envs) == 1 else "")
    fig = facets.line_grid(data, xlabel="", ylabel="", title=title, panel_order=order, sharex=False, sharey=False,
                           ylabels=ylabels, xlabels=xlabels, markers=True, bands=True)
    # one y range per row: the trust models' costs compare across a row at a glance
    axes = [ax for ax in fig.axes if ax.get_title()]
    n = len(models)
    eps_ticks = sorted({e for m in ms for e in m.private})
    for ax in axes[:n]:  # the eps axis ticked at the eps run
        ax.set_xticks(eps_ticks, [f"{e:g}" for e in eps_ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    for row in (axes[:n], axes[n:2 * n]):
        lims = [ax.get_ylim() for ax in row]
        if row and all(ax.get_yscale() == row[0].get_yscale() for ax in row):
            for ax in row:
                ax.set_ylim(min(lo for lo, _ in lims), max(hi for _, hi in lims))
    return fig


def privacy_surface(ctx: AnalysisContext, fits: dict, declared: list) -> AnalysisResult:
    """The analysis (registered by privrl.papers.cross_paper, which hands it its per-group fits and its
    declared trust-model rows, :func:`privrl.papers.cross_paper.privacy_surface_declaration`)."""
    ms = members(fits)
    surf = surface_rows(ms)
    claims, trust = trust_model_rows(ctx, ms, declared)
    front = frontier_rows(ctx)
    table = pd.concat([surf.assign(part="surface"), pd.DataFrame(trust).assign(part="trust model"),
                       front.assign(part="frontier")], ignore_index=True)
    return AnalysisResult(table=table, markdown=markdown(ctx, surf, trust, front), figure=figure(ctx, ms),
                          claims=claims_frame(claims))
