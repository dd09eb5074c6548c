"""End-to-end privacy audit of every private agent on a tiny MDP (neighbouring user sequences).

For an agent and a neighbour relation (:mod:`privrl.mechanisms.events`), two sequences of
``K >= 4`` scripted users ``U``, ``U'`` that differ in the user at one position are fed to
the agent's own kernel through a probe (:mod:`privrl.audit.probe`: the kernel's bytecode
with a scripted user engine and a recording privatizer door), ``n`` runs each; the output of
a run is every statistic the kernel released over its K episodes, in order (for RLSVI the
perturbed Q-values of every episode), and the actions the kernel took for every user but the
differing one -- the output JDP bounds (Vietri et al. 2020 Def. 3), observed by the scripted
engine, so that an agent acting on data its releases do not carry is seen (``observe``; the
statistics also see the releases alone). Two positions of the differing user are sampled:
the first user (in every later release; all nodes of a binary-mechanism counter) and the
middle one (released after others, so that noise reused across releases cancels). The audit

1. fits two test statistics over the *joint* release on a *fit split* (the first
   ``fit_frac`` of the runs) for each position: a naive-Bayes log-likelihood-ratio score (a
   binned log ratio of the two samples' histograms per released coordinate, summed over the
   coordinates a G-test finds informative) and a ridge linear discriminant ``w = (C +
   lambda I)^-1 (mean1 - mean0)`` over all coordinates (it finds the exact linear
   combinations that reused or shared noise leaves: differences of releases or counters);
2. picks the (position, statistic, threshold, direction) with the largest Clopper-Pearson
   lower bound on a *selection split* (the next ``select_frac``);
3. evaluates that one event on the *held-out* runs: ``eps >= ln((P1(E) - delta) / P0(E))``
   with Clopper-Pearson limits at level ``alpha`` (``privrl.mechanisms.audit.epsilon_bounds``),
   so a correct agent exceeds its claim with probability <= alpha;
4. compares with the strongest claim the agent makes for that relation (its guarantees'
   ``for_relation``, the smallest epsilon, at the audit's K).

The tiny MDP: S = 2, A = 2, H = 2 (RiverSwim's shapes; the users are scripted, deterministic).
User ``A`` starts in state 0 and stays there, reward 1 at every step; user ``B`` starts in
state 1 and stays there, reward 1 -- disjoint (h, s, a) paths whatever the policy, so a
replacement changes the most counters; the empty user (add/remove) contributes nothing;
``A0`` is A with reward 0 (RLSVI's rewards-only neighbour, Lu et al. Remark 2). The other
users stay in state 0 with reward 0 (state 1 for rewards-only neighbours: away from A's cells). Broken variants (the probe's ``noise_multiplier`` and
``variant``: half noise, noise dropped at the tree's levels >= 1, noise reused across
releases, noise shared across counters, RLSVI at a tenth of its noise) must be flagged
(lower bound above the claim): tests/audit/test_privacy.py.

The power curve (:func:`power_curve`): the lower bound cannot see uniform under-noising at the
audit's K (loose claims; a composed privacy loss reached only in joint tails), so each (agent,
relation) also gets a *noise calibration* test at each noise multiplier of
:data:`POWER_MULTIPLIERS` (x1, x1/1.2, x1/2, x1/3, x1/10): the noise the kernel releases (released -
exact counts) against the variance the agent's *label* implies (the paper's per-counter mechanism at
the labelled eps, :mod:`privrl.audit.label_noise`; not the kernel's own x1, which is as wrong as its
releases when the agent under-noises in its own code), a one-sided variance-ratio test, and the
noise's law against the label's (KS and tails per release, :func:`privrl.audit.label_noise.law_test`);
RLSVI's perturbation against its label's Gaussian law (:mod:`privrl.audit.perturbation`). The rank-sum
against an agent's own x1 (:func:`calibration_test`) is kept for an agent with neither. At x1 a flag
is a false alarm (measured over repeated audit seeds: :func:`false_alarm_rows`); below, its power;
:func:`smallest_detected` names the largest under-noising it flags. The audit takes the label apart
from the parameters the kernel runs with: :data:`WRONG_AGENTS` (PUCB handed eps x10) are rows that
must be flagged. The table runs every row of every test in one Bonferroni
family (docs/decisions/mechanisms.md, "The agent audit's power"); what each test certifies and cannot
see: docs/decisions/audit.md. The audit also runs at other sizes (``more_sizes``: K = 64 users, the
second instance of :data:`INSTANCES`).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from privrl.agents import REGISTRY
from privrl.mechanisms import events as ev
from privrl.mechanisms.audit import epsilon_bounds, row_alpha
from privrl.audit.probe import OBSERVED_SERIAL, probe_of, release_layout, sample_releases
from privrl.rl import envs

#: every registered agent with a privacy model (each must be probe-able: privacy_probe.probe_of)
AGENTS = tuple(n for n, s in REGISTRY.items() if s.privacy_model != "none")
COLUMNS = ["agent", "relation", "test", "variant", "claimed_epsilon", "delta", "epsilon_lower_bound", "p_value",
           "spread_ratio", "variance_ratio", "n_samples", "row_alpha", "verdict", "statistic", "claim_source",
           "law_p_value", "ks_distance", "tail_ratio", "size"]
#: the two tests of a row: the privacy-loss lower bound against the claim, the noise calibration
PRIVACY_LOSS, CALIBRATION = "privacy loss", "noise calibration"
#: the power curve's noise multipliers (the probe's ``noise_multiplier``: divides every privatizer's
#: epsilon, multiplies RLSVI's Gaussian sigma): the agent itself, then noise x1/1.2, x1/2, x1/3, x1/10
POWER_MULTIPLIERS = (1.0, 1 / 1.2, 1 / 2, 1 / 3, 1 / 10)
#: the wrong agents the table runs (agent, parameters its kernel runs with, its label): an agent that
#: hands its privatizer eps x10 -- it under-noises in its own code, so only the label calibration sees it
#: and the shuffle agent handing its bit-sums eps/H where the paper says eps/(3H) (its kernel at eps x3)
#: RLSVI drawing its perturbation at sd/3 (beta_scale 10/9 against the label's 10: privrl's accountant
#: certifies eps ~3.6x the label's) and Shuffled-OBI handing R_p eps0 x2
WRONG_AGENTS = (("pucb", {"epsilon": 10.0}, {"epsilon": 1.0}), ("private-ucbvi-sdp", {"epsilon": 3.0}, {"epsilon": 1.0}),
                ("rlsvi", {"beta_scale": 10.0 / 9.0}, {"beta_scale": 10.0}),
                ("shuffled-obi", {"epsilon": 2.0}, {"epsilon": 1.0}))
WRONG_AGENT = "wrong agent"
#: the x1 calibration repeated over audit seeds (each its own SeedSequence child): the measured false-alarm
#: rate of the calibration rows; outside the Bonferroni family of the verdicts, tested at the same row level
FALSE_ALARMS = "false alarms"
FALSE_ALARM_SEEDS = 10
#: the broken classes of the table (besides the reduced-noise variant); dropped-levels needs a tree
BROKEN = ("dropped-levels", "reused-noise", "shared-noise")
USERS = 4
H_, S_, A_ = 2, 2, 2
#: the audit's instances, (S, H) of RiverSwim with A = 2: the tiny one every row runs on by default, and
#: a second one (sizes ``instance``: a longer horizon, more states, more counters per user)
INSTANCE = (S_, H_)
INSTANCES = {"riverswim S=2 H=2": (2, 2), "riverswim S=3 H=3": (3, 3)}
#: what the privacy-loss rows observe besides the door's releases (privrl.audit.probe.OBSERVATIONS): the
#: actions every other user receives -- the output JDP protects (Vietri et al. 2020 Def. 3)
OBSERVE = "actions"


def tiny_mdp(instance: tuple | None = None):
    """RiverSwim at ``instance`` = (S, H), default S = 2, H = 2 (its transitions only give the kernels
    their shapes)."""
    S, H = instance or INSTANCE
    return envs.riverswim(S=S, H=H, reward_noise="deterministic")


def script(K: int, k_diff: int, user: str, others: int = 0, instance: tuple | None = None) -> tuple:
    """(s0[K], nxt[K, H, S, A], R[K, H, S, A], absent[K]) with user ``k_diff`` = "A", "A0", "B" or
    "empty" (the add/remove neighbour) and the others in state ``others`` with reward 0.

    The empty user contributes nothing through the door (the probe zeroes its release input), but the
    kernel still plays an episode for it; that stand-in plays B's cells (state 1, reward 0), disjoint
    from A's, so an agent that keeps data outside the door sees A and the stand-in differ as much as A and
    B do (a correct agent never reads them: the door's zeroed input is all it uses)."""
    s0 = np.full(K, others, np.int64)
    S, H = instance or INSTANCE
    nxt = np.full((K, H, S, A_), others, np.int64)
    R = np.zeros((K, H, S, A_))
    absent = np.zeros(K, np.int64)
    if user == "empty":
        absent[k_diff] = 1
        s0[k_diff], nxt[k_diff] = 1, 1  # the stand-in the kernel sees outside the door: B's cells
    else:
        s0[k_diff], nxt[k_diff] = (1, 1) if user == "B" else (0, 0)
        R[k_diff] = 0.0 if user == "A0" else 1.0
    return s0, nxt, R, absent


def pair(agent: str, relation: str) -> tuple:
    """The differing user in U and in U' under ``relation`` (rewards-only agents: A vs A0)."""
    if relation == ev.ADD_REMOVE:
        return "A", "empty"
    return ("A", "A0") if probe_of(agent)[1].rewards_only else ("A", "B")


def audit_params(agent: str, params: dict | None = None) -> dict:
    return {**probe_of(agent)[1].audit_params, **(params or {})}


def claimed(agent: str, relation: str, params: dict | None = None, K: int | None = None,
            instance: tuple | None = None):
    """(epsilon, delta, source) of the strongest claim ``agent`` makes under ``relation`` on the
    tiny MDP after K episodes (None if none covers it)."""
    spec, probe = probe_of(agent)
    K = K or probe.users
    p = spec.resolve(audit_params(agent, params))
    best = None
    for g in spec.guarantees(p, tiny_mdp(instance), K) or []:
        v = g.for_relation(relation)
        if v is not None and math.isfinite(v[0]) and (best is None or v[0] < best[0]):
            best = (v[0], v[1], f"{g.model}: {g.source}")
    return best


def dyadic_increments(Y: np.ndarray, serial: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Z[n, D]: each privatizer value at release t minus the same counter's value at release
    ``t - 2^i`` (i = the lowest set bit of t; 0 before the first release), a linear post-processing
    of the release. For a binary-mechanism counter these are exactly its noisy nodes (each stream
    element in one per level, independent noise; :mod:`privrl.mechanisms.tree`); declared releases
    (serial -1) are kept as they are."""
    Z = Y.copy()
    index, seen = {}, {}
    for j, key in enumerate(zip(serial.tolist(), t.tolist())):
        c = seen.get(key, 0)  # the counter: the value's position within its release
        seen[key] = c + 1
        index[key + (c,)] = j
    for (s, tj, c), j in index.items():
        prev = index.get((s, tj - (tj & -tj), c))
        if s >= 0 and prev is not None:
            Z[:, j] -= Y[:, prev]
    return Z


# ----------------------------------------------------------------------------- test statistics
def naive_bayes(Y1, Y0, bins: int = 12, g_alpha: float = 1e-3) -> list:
    """[(j, inner bin edges, log ratio per bin)] of the informative coordinates of Y1, Y0 [n, D]."""
    out = []
    n1, n0 = len(Y1), len(Y0)
    for j in range(Y1.shape[1]):
        pooled = np.concatenate([Y1[:, j], Y0[:, j]])
        edges = np.unique(np.quantile(pooled, np.linspace(0, 1, bins + 1)[1:-1]))
        B = len(edges) + 1
        c1 = np.bincount(np.searchsorted(edges, Y1[:, j], "right"), minlength=B)
        c0 = np.bincount(np.searchsorted(edges, Y0[:, j], "right"), minlength=B)
        if B < 2 or (np.count_nonzero(c1 + c0) < 2):
            continue
        tot = c1 + c0
        e1, e0 = tot * n1 / (n1 + n0), tot * n0 / (n1 + n0)
        with np.errstate(divide="ignore", invalid="ignore"):
            g = 2.0 * np.nansum(np.where(c1 > 0, c1 * np.log(c1 / e1), 0.0) + np.where(c0 > 0, c0 * np.log(c0 / e0), 0.0))
        if stats.chi2.sf(g, B - 1) > g_alpha:
            continue
        lr = np.log((c1 + 0.5) / (n1 + 0.5 * B)) - np.log((c0 + 0.5) / (n0 + 0.5 * B))
        out.append((j, edges, lr))
    return out


def naive_bayes_score(Y, model) -> np.ndarray:
    s = np.zeros(len(Y))
    for j, edges, lr in model:
        s += lr[np.searchsorted(edges, Y[:, j], "right")]
    return s


def linear_discriminant(Y1, Y0, ridge: float = 1e-9) -> np.ndarray:
    """w[D] = (C + lambda I)^-1 (mean(Y1) - mean(Y0)), C the pooled covariance, lambda = ``ridge``
    times its mean variance: a direction without variance in which the means differ dominates."""
    C = np.atleast_2d(0.5 * (np.cov(Y1, rowvar=False) + np.cov(Y0, rowvar=False)))
    lam = ridge * max(float(np.trace(C)) / len(C), 1e-12)
    return np.linalg.solve(C + lam * np.eye(len(C)), Y1.mean(0) - Y0.mean(0))


STATISTICS = {  # name -> (fit(Y1, Y0) -> model, score(Y, model) -> s[n])
    "naive Bayes": (naive_bayes, naive_bayes_score),
    "linear discriminant": (linear_discriminant, lambda Y, w: Y @ w),
}


def _best_event(s1, s0, delta: float, alpha: float):
    """(lower bound, direction, threshold) maximising the Clopper-Pearson lower bound on one split;
    direction +1: E = {score >= t} (P1/P0), -1: E = {score <= t} (P0/P1)."""
    best = (-math.inf, 1, math.inf)
    qs = np.geomspace(0.5, min(0.5, 5.0 / len(s0)), 40)
    for sign, a, b in ((1, s1, s0), (-1, -s0, -s1)):
        top = float(np.max(b))  # thresholds: upper quantiles of b, lower quantiles of a, just above b
        for t in np.concatenate([np.quantile(b, 1.0 - qs), np.quantile(a, qs[a.size * qs >= 1]),
                                 [np.nextafter(top, math.inf)]]):
            t = float(t)
            lb = epsilon_bounds(int((a >= t).sum()), len(a), int((b >= t).sum()), len(b), delta, alpha)["ci_low"]
            if lb > best[0]:
                best = (lb, sign, t)
    return best


def held_out(n: int, fit_frac: float = 0.3, select_frac: float = 0.2) -> int:
    """Runs per sequence left for the held-out evaluation after the fit and selection splits."""
    return n - int(n * (fit_frac + select_frac))


def epsilon_lower_bound(samples: dict, delta: float = 0.0, alpha: float = 0.05, fit_frac: float = 0.3,
                        select_frac: float = 0.2) -> tuple[float, str]:
    """Held-out Clopper-Pearson lower bound on eps from ``samples = {label: (Y1[n, D], Y0[n, D])}``
    (one pair of neighbouring sequences per label): (bound, "label: statistic") of the event
    chosen on the fit and selection splits, evaluated on the last :func:`held_out` runs."""
    best = (-math.inf,)
    for label, (Y1, Y0) in samples.items():
        a, b = int(len(Y1) * fit_frac), len(Y1) - held_out(len(Y1), fit_frac, select_frac)
        for name, (fit, score) in STATISTICS.items():
            model = fit(Y1[:a], Y0[:a])
            if isinstance(model, list) and not model:
                continue
            lb, sign, t = _best_event(score(Y1[a:b], model), score(Y0[a:b], model), delta, alpha)
            if lb > best[0] and math.isfinite(t):
                best = (lb, label, name, score, model, sign, t, b)
    if len(best) == 1:
        return 0.0, "no informative statistic"
    _, label, name, score, model, sign, t, b = best
    Y1, Y0 = samples[label]
    s1, s0 = score(Y1[b:], model), score(Y0[b:], model)
    x, y = (s1, s0) if sign > 0 else (-s0, -s1)  # sign -1: E = {score <= t}, P0(E) over P1(E)
    lb = epsilon_bounds(int((x >= t).sum()), len(x), int((y >= t).sum()), len(y), delta, alpha)["ci_low"]
    return max(lb, 0.0), f"{label}: {name}"


# ----------------------------------------------------------------------------- agent audits
def audit_agent(agent: str, relation: str, rng, n: int, noise_multiplier: float = 1.0, alpha: float = 0.05,
                params: dict | None = None, variant: str = "exact", users: int | None = None,
                positions: tuple | None = None, fit_frac: float = 0.3, select_frac: float = 0.2,
                observe: str = OBSERVE, instance: tuple | None = None) -> dict:
    """One row of the table: ``agent`` under ``relation``, ``n`` runs per neighbouring sequence and
    position of the differing user (default: the first and the middle of ``users >= 4`` users, the
    agent's ``AuditProbe.users`` if None; where add/remove puts the empty user in a batch with
    others at both, the first position where it is alone).

    ``noise_multiplier`` / ``variant``: the probe's test-only broken variants
    (:data:`privrl.audit.probe.VARIANTS`); 1.0 / "exact" audits the agent as it runs.
    ``alpha``: this row's level; ``n_samples`` is the held-out runs per sequence the bound is read on.
    ``observe`` (:data:`privrl.audit.probe.OBSERVATIONS`): what the other users receive joins the
    release -- "actions" (default: JDP as Vietri et al. 2020 Def. 3 defines it, the actions of every
    episode but the differing user's), "policy" (their whole policies), "none" (the door's releases
    alone, the billboard assumed: blind to an agent that acts on data its releases do not carry).
    """
    users = int(users or probe_of(agent)[1].users)
    if users < 4:
        raise ValueError(f"the agent audit needs users >= 4 (several users and releases); got {users}")
    claim = claimed(agent, relation, params, users, instance)
    p = audit_params(agent, params)
    u1, u0 = pair(agent, relation)
    # rewards-only neighbours: the others avoid the differing user's cells, so its rewards enter every
    # later release with N = 1 (the largest sensitivity of Lu et al. Lemma 11)
    others = 1 if u0 == "A0" else 0
    mdp = tiny_mdp(instance)
    samples = {}
    tried = list(positions or (0, users // 2))
    alone = None
    if positions is None and probe_of(agent)[0].privacy_model in ("LDP", "SDP"):
        # what leaves the user: where a batch sums several users' messages (SDP-PE's stages), the position
        # at which the differing user is alone in its batch releases its own message (for the bit-sum
        # shuffler, its bits' multiset; for the local privatizer, its Laplace message) -- audited too
        alone = alone_position(agent, p, users, instance)
        if alone is not None and alone not in tried:
            tried.append(alone)
    for k in tried + ([] if positions else [k for k in range(users) if k not in tried]):
        if samples and k not in tried:
            break  # the other positions only stand in where the default ones cannot be audited
        try:
            Y1 = sample_releases(agent, p, mdp.P, script(users, k, u1, others, instance), n, rng, noise_multiplier, variant,
                                 observe=observe, differing=k)
            Y0 = sample_releases(agent, p, mdp.P, script(users, k, u0, others, instance), n, rng, noise_multiplier, variant,
                                 observe=observe, differing=k)
        except ValueError as e:
            if "mixes the absent user" not in str(e):
                raise
            continue  # add/remove of a user who shares a batch: not expressible at this position
        serial, t = release_layout(Y1.shape[1])
        seen = serial == OBSERVED_SERIAL  # what the other users received (the probe's observation)
        door = ~seen
        samples[f"user {k} of {users}" + (" (alone in its batch: its own message)" if k == alone else "")] = (
            Y1[:, door], Y0[:, door])
        if seen.any():  # the whole output: the statistics see it beside the door's releases alone
            samples[f"user {k} of {users}, with the others' {observe}"] = (Y1, Y0)
        serial, t = serial[door], t[door]
        if np.any((serial >= 0) & (t >= 2)):  # the same release as independent tree nodes (NB's best view)
            samples[f"user {k} of {users}, dyadic increments"] = tuple(dyadic_increments(Y[:, door], serial, t)
                                                                      for Y in (Y1, Y0))
    if not samples:
        raise ValueError(f"{agent}: no position of the differing user can be audited under {relation}")
    if variant == "reused-noise" and t[serial >= 0].max(initial=0) <= 1:
        applicable = False  # every privatizer releases once (fresh per batch): nothing to reuse
    else:
        applicable = True
    eps, delta, src = claim if claim else (math.nan, 0.0, "no claim under this relation")
    lb, statistic = epsilon_lower_bound(samples, delta, alpha, fit_frac, select_frac)
    weakened = noise_multiplier != 1.0 or variant != "exact"
    if claim is None:
        verdict = "not claimed"
    elif not applicable:
        verdict = "not applicable (one release per privatizer)"
    elif lb > eps:
        verdict = "flagged" if weakened else "VIOLATION"
    else:
        verdict = "not flagged" if weakened else "pass"
    name = variant if variant != "exact" else noise_name(noise_multiplier)
    if variant != "exact" and noise_multiplier != 1.0:
        name += f", {noise_name(noise_multiplier)}"
    return {"agent": agent, "relation": relation, "test": PRIVACY_LOSS, "variant": name, "claimed_epsilon": eps,
            "delta": delta, "epsilon_lower_bound": lb, "p_value": math.nan, "spread_ratio": math.nan,
            "variance_ratio": math.nan, "n_samples": held_out(n, fit_frac, select_frac), "row_alpha": alpha, "verdict": verdict,
            "statistic": statistic, "claim_source": src}


def noise_name(multiplier: float) -> str:
    """``noise x1``, ``noise x1/2``, ``noise x1/1.2`` (a multiplier below 1 by its inverse), ``noise x3``."""
    if multiplier < 1.0:
        return f"noise x1/{round(1.0 / multiplier, 6):g}"
    return f"noise x{multiplier:g}"


# ----------------------------------------------------------------------------- noise calibration
def spread_scores(Y: np.ndarray, center: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """r[n]: each run's mean over the coordinates of ``|Y - center| / scale`` (coordinates with
    ``scale == 0``, released without noise, left out): the run's spread of the release, in units of
    the reference's spread per coordinate."""
    keep = scale > 0
    if not keep.any():
        return np.zeros(len(Y))
    return (np.abs(Y[:, keep] - center[keep]) / scale[keep]).mean(1)


def rank_sum_z(x: np.ndarray, y: np.ndarray) -> float:
    """The Mann-Whitney statistic of ``x`` against ``y`` as a z-score (normal approximation with the
    ties' correction): large when ``x`` tends to exceed ``y``; 0 if both are constant."""
    n1, n2 = len(x), len(y)
    ranks = stats.rankdata(np.concatenate([x, y]))
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2.0
    _, counts = np.unique(ranks, return_counts=True)
    N = n1 + n2
    var = n1 * n2 / 12.0 * ((N + 1) - float((counts ** 3 - counts).sum()) / (N * (N - 1)))
    return 0.0 if var <= 0 else float((u - n1 * n2 / 2.0) / math.sqrt(var))


def calibration_test(reference_fit: dict, reference: dict, audited: dict) -> tuple[float, float]:
    """(one-sided p-value, spread ratio) of "the audited release carries less noise than the
    reference", from ``{stratum: Y[n, D]}`` samples per neighbouring sequence: per stratum, the
    centre (median) and scale (mean absolute deviation) of every coordinate are fitted on
    ``reference_fit``; each run of ``reference`` and ``audited`` is scored by :func:`spread_scores`;
    a one-sided Mann-Whitney test per stratum (reference above audited), combined over the strata
    by Stouffer's z. Under the null (the audited release has the reference's law) the runs' scores
    are i.i.d. in both samples, so the test is exact up to the normal approximation. The spread ratio
    is the median audited score over the median reference score (about the noise multiplier where
    the noise dominates the release)."""
    zs, ratios = [], []
    for key, F in reference_fit.items():
        center = np.median(F, axis=0)
        scale = np.abs(F - center).mean(0)
        r_ref, r_aud = spread_scores(reference[key], center, scale), spread_scores(audited[key], center, scale)
        zs.append(rank_sum_z(r_ref, r_aud))
        ratios.append(float(np.median(r_aud) / np.median(r_ref)) if np.median(r_ref) > 0 else math.nan)
    z = float(np.sum(zs) / math.sqrt(len(zs)))
    return float(stats.norm.sf(z)), float(np.nanmean(ratios)) if not np.all(np.isnan(ratios)) else math.nan


def alone_position(agent: str, params: dict, users: int, instance: tuple | None = None) -> int | None:
    """The first user, in play order, alone in its batch -- the one whose release is its own message --
    or None if every release sums several users. Read from the probe's batch check: the add/remove
    script refuses a batch that mixes the empty user with others (one run per position, no statistic;
    the generator only feeds the noise of that run)."""
    mdp = tiny_mdp(instance)
    for k in range(users):
        try:
            sample_releases(agent, params, mdp.P, script(users, k, "empty", 0, instance), 1,
                            np.random.default_rng(k))
        except ValueError as e:
            if "mixes the absent user" not in str(e):
                raise
            continue
        return k
    return None


def _neighbour_pair(agent: str, relation: str, rng, n: int, users: int, multiplier: float, params, positions,
                    sampler=None, instance: tuple | None = None):
    """(position label, {"U": Y1, "U'": Y0}) at the first position of ``positions`` where the
    relation's neighbouring sequences can be sampled (add/remove needs the empty user alone in its
    batch). ``sampler``: :func:`sample_releases` (default; the releases) or
    :func:`privrl.audit.label_noise.sample_noise` (the label calibration: (noise, serial, t, m))."""
    sampler = sample_releases if sampler is None else sampler
    p = audit_params(agent, params)
    u1, u0 = pair(agent, relation)
    others = 1 if u0 == "A0" else 0
    mdp = tiny_mdp(instance)
    for k in positions:
        try:
            Y1 = sampler(agent, p, mdp.P, script(users, k, u1, others, instance), n, rng, multiplier)
            Y0 = sampler(agent, p, mdp.P, script(users, k, u0, others, instance), n, rng, multiplier)
        except ValueError as e:
            if "mixes the absent user" not in str(e):
                raise
            continue
        return k, {"U": Y1, "U'": Y0}
    raise ValueError(f"{agent}: no position of the differing user can be audited under {relation}")


def power_curve(agent: str, relation: str, rng, n: int, alpha: float = 0.05, multipliers=POWER_MULTIPLIERS,
                params: dict | None = None, users: int | None = None, label: dict | None = None,
                instance: tuple | None = None, variant: str = "exact") -> list[dict]:
    """The noise-calibration rows of ``agent`` under ``relation``, one per noise multiplier m (the
    probe's ``noise_multiplier``): is the noise of the release at x``m`` below the noise the agent's
    *label* implies? ``params``: what the kernel runs with; ``label``: the parameters the agent is
    labelled with (the claim; default ``params``) -- separate inputs, so an agent that under-noises
    in its own code (its kernel run with eps x10 against the label eps) is a row like any other.

    Agents with a label (:func:`privrl.audit.label_noise.label_of`): the released noise (released -
    exact counts, the probe's door log) against the label's variance per value (the paper's per-counter
    mechanism at the labelled parameters), one-sided variance-ratio test
    (:func:`privrl.audit.label_noise.label_calibration`), and against the label's law (two-sample KS and
    tail fraction per release, :func:`privrl.audit.label_noise.law_calibration`), Bonferroni; ``n`` runs
    per neighbouring sequence. RLSVI: its perturbation against N(0, beta_k / (N + 1)) at the labelled
    beta_scale (:mod:`privrl.audit.perturbation`). An agent with neither: the rank-sum spread test
    against its own kernel at x1 (:func:`calibration_test`; circular: it cannot see an agent that
    under-noises in its own code), stated in the row. ``variant``: the probe's broken door
    (:data:`privrl.audit.probe.VARIANTS`, e.g. ``bounded-noise``), labelled agents only.
    At x1 a flag is "UNDER-NOISED" (the agent as run releases less noise than its label implies; "WRONG
    NOISE LAW" when the law test alone flags it: a false alarm for a correct agent, a finding for a wrong
    one, like the privacy-loss rows' "VIOLATION"); below 1 ``flagged`` is the audit's power."""
    from privrl.audit.label_noise import label_calibration, label_of, law_calibration
    from privrl.audit.perturbation import perturbation_calibration, perturbation_of

    users = int(users or probe_of(agent)[1].users)
    # an agent run with other parameters than its label (a wrong agent), or a broken door (the probe's
    # ``variant``, e.g. bounded-noise): its x1 row is power, not a false alarm
    wrong = (label is not None and audit_params(agent, label) != audit_params(agent, params)) or variant != "exact"
    label = params if label is None else label
    claim = claimed(agent, relation, label, users, instance)
    eps, delta, src = claim if claim else (math.nan, 0.0, "no claim under this relation")
    H = (instance or INSTANCE)[1]
    order = [0, users // 2] + [k for k in range(users) if k not in (0, users // 2)]
    rows = []
    label_ref = label_of(agent)
    pert = perturbation_of(agent)
    if variant != "exact" and label_ref is None:
        raise ValueError(f"{agent}: the probe's broken variants act on privatizer releases (a label calibration)")
    if pert is not None:  # a Gaussian perturbation against its label's law (RLSVI)
        lab = probe_of(agent)[0].resolve(audit_params(agent, label))
        u1, u0 = pair(agent, relation)
        others = 1 if u0 == "A0" else 0
        k = order[0]
        scripts = {"U": script(users, k, u1, others, instance), "U'": script(users, k, u0, others, instance)}
        kernel_params = audit_params(agent, params)
    elif label_ref is not None:
        spec = probe_of(agent)[0]
        lab = spec.resolve(audit_params(agent, label)) | {"_K": users}
        from functools import partial

        from privrl.audit.label_noise import sample_noise

        if variant != "exact":
            sample_noise = partial(sample_noise, variant=variant)

        k, _ = _neighbour_pair(agent, relation, rng, 2, users, 1.0, params, order, sample_noise, instance)  # the position only
    else:
        k, fit = _neighbour_pair(agent, relation, rng, n, users, 1.0, params, order, None, instance)
        _, ref = _neighbour_pair(agent, relation, rng, n, users, 1.0, params, [k], None, instance)
    law_rng = np.random.default_rng(rng.bit_generator.seed_seq.spawn(1)[0])  # the label law's draws: own stream
    p_var = p_law = ks = tail = math.nan
    for m in multipliers:
        if pert is not None:
            r = perturbation_calibration(agent, scripts, kernel_params, lab, n, rng, float(m), tiny_mdp(instance).P)
            pv, p_var, p_law, vratio, ks, tail = (r[c] for c in ("p", "p_variance", "p_law", "variance_ratio",
                                                                "ks_distance", "tail_ratio"))
            ratio = math.nan
            statistic = (f"user {k} of {users}: the perturbation w against its label's law ({pert[2]}; N recounted "
                         "from the script and the logged actions): one-sided variance-ratio z, one-sample KS against "
                         "N(0, 1) and the 1 % tail fraction, Bonferroni")
        elif label_ref is not None:
            _, aud = _neighbour_pair(agent, relation, rng, n, users, float(m), params, [k], sample_noise, instance)
            p_var, vratio, _se = label_calibration(agent, aud, lab, H)
            p_law, ks, tail = law_calibration(agent, aud, lab, H, law_rng)
            pv = min(1.0, 2.0 * min(p_var, p_law))
            ratio = math.nan
            statistic = (f"user {k} of {users}: released noise vs the label's ({label_ref.rule}): one-sided "
                         "variance-ratio z and its law (two-sample KS and tail fraction against draws of the label's "
                         "law, per release), Bonferroni")
        else:
            _, aud = _neighbour_pair(agent, relation, rng, n, users, float(m), params, [k], None, instance)
            pv, ratio = calibration_test(fit, ref, aud)
            vratio = math.nan
            statistic = (f"user {k} of {users}: release spread vs the agent's own kernel at x1 (rank-sum; no "
                         "analytic label reference, circular: blind to under-noising in the agent's own code)")
        flag = pv <= alpha
        if claim is None:
            verdict = "not claimed"
        elif m == 1.0 and not wrong:
            law_only = (label_ref is not None or pert is not None) and 2.0 * p_var > alpha  # flagged by the law alone
            verdict = ("WRONG NOISE LAW" if law_only else "UNDER-NOISED") if flag else "pass"
        else:
            verdict = "flagged" if flag else "not flagged"
        name = noise_name(float(m)) if variant == "exact" else f"{variant}, {noise_name(float(m))}"
        rows.append({"agent": agent, "relation": relation, "test": CALIBRATION, "variant": name,
                     "claimed_epsilon": eps, "delta": delta, "epsilon_lower_bound": math.nan, "p_value": pv,
                     "spread_ratio": ratio, "variance_ratio": vratio, "n_samples": n, "row_alpha": alpha,
                     "verdict": verdict, "statistic": statistic, "claim_source": src,
                     "law_p_value": p_law, "ks_distance": ks, "tail_ratio": tail})
    return rows


def smallest_detected(rows: pd.DataFrame) -> str:
    """What a power curve (the calibration rows of one agent and relation) detects: "x1/1.2 and
    below" for the largest under-noising multiplier flagged together with every smaller one tried,
    "none down to x1/10" if the smallest is not flagged."""
    under = rows[rows["variant"] != "noise x1"].copy()
    if under.empty:
        return "not measured"
    under["m"] = [_multiplier(v) for v in under["variant"]]
    under = under.sort_values("m")
    best = None
    for m, verdict in zip(under["m"], under["verdict"]):
        if verdict != "flagged":
            break
        best = m
    if best is None:
        return f"none down to {noise_name(float(under['m'].min()))[6:]}"
    return f"{noise_name(best)[6:]} and below"


def _multiplier(name: str) -> float:
    x = name.split("x", 1)[1]
    return 1.0 / float(x[2:]) if x.startswith("1/") else float(x)


def variants_of(agent: str, which=BROKEN) -> list[tuple[float, str]]:
    """[(noise multiplier, variant)] of the privacy-loss rows the table runs for ``agent``: the agent
    itself and the broken classes its privatizer can have (the reduced-noise variants are the power
    curve's, :func:`power_curve`)."""
    spec, probe = probe_of(agent)
    out = [(1.0, "exact")]
    if probe.released:
        return out  # not a privatizer's release (RLSVI): only the noise multiplier applies
    return out + [(1.0, v) for v in which if v in BROKEN and (v != "dropped-levels" or spec.privatizer == "central-tree")]


def size_name(users: int, instance: tuple | None = None) -> str:
    """``K = 4, S = 2, H = 2``: the users (episodes) and instance of a row."""
    S, H = instance or INSTANCE
    return f"K = {int(users)}, S = {S}, H = {H}"


def _instance(name):
    if name is None:
        return None
    if isinstance(name, str):
        if name not in INSTANCES:
            raise ValueError(f"unknown audit instance {name!r}; choose from {sorted(INSTANCES)}")
        return INSTANCES[name]
    return tuple(int(x) for x in name)


def agent_audit_table(rng, sizes: dict | None = None) -> pd.DataFrame:
    """Every private agent x every relation it claims x (the agent and its broken variants: the
    privacy-loss lower bound; the power curve: the noise calibration at each noise multiplier).

    sizes: ``n`` (runs per sequence and position of a privacy-loss row), ``n_calibration`` (runs per
    sequence of each sample of the power curve, default 2000), ``multipliers`` (the power curve's,
    default :data:`POWER_MULTIPLIERS`), ``alpha`` (the table's family-wise false-alarm rate: each of
    its R verdict rows is tested at ``alpha / R``, Bonferroni, column ``row_alpha``), ``users`` (K >= 4),
    ``agents`` (default all of :data:`AGENTS`), ``variants`` (default "noise" -- the power curve --
    and :data:`BROKEN`), ``wrong_agents`` (default :data:`WRONG_AGENTS` of the table's agents when the
    power curve runs: (agent, kernel params, label params), one label-calibration row per relation),
    ``false_alarm_seeds`` (default :data:`FALSE_ALARM_SEEDS` when the power curve runs: the x1
    calibration repeated on that many audit seeds per (agent, relation), test :data:`FALSE_ALARMS`,
    outside the family), ``false_alarm_n`` (default 0: the privacy-loss row at x1 repeated on the same
    seeds with that many runs per sequence and position), ``more_sizes`` (default none: a list of ``{users, instance, n, n_calibration,
    multipliers, agents, relations}``, each the agents' privacy-loss row at x1 and power curve at another size --
    a longer horizon of users, the second instance of :data:`INSTANCES` -- in the same family; column
    ``size``). ``rng``: Generator or SeedSequence. No timing goes into the table (an output is
    byte-identical run to run; the job's benchmark file has its CPU time).
    """
    sizes = dict(sizes or {})
    if isinstance(rng, np.random.SeedSequence):
        rng = np.random.default_rng(rng)
    n, alpha, users = int(sizes.get("n", 20000)), float(sizes.get("alpha", 0.05)), sizes.get("users")
    n_cal = int(sizes.get("n_calibration", 2000))
    mults = tuple(float(m) for m in sizes.get("multipliers", POWER_MULTIPLIERS))
    which = tuple(sizes.get("variants", ("noise",) + BROKEN))
    curve = mults if "noise" in which else ()
    plan = [(agent, relation, variants_of(agent, which)) for agent in sizes.get("agents", AGENTS)
            for relation in ev.NEIGHBOURS if claimed(agent, relation, None, users) is not None]
    agents = tuple(sizes.get("agents", AGENTS))
    wrong = [(a, r, kp, lp) for a, kp, lp in sizes.get("wrong_agents", WRONG_AGENTS if "noise" in which else ())
             if a in agents for r in ev.NEIGHBOURS if claimed(a, r, lp, users) is not None]
    seeds = int(sizes.get("false_alarm_seeds", FALSE_ALARM_SEEDS if curve else 0))
    n_fa_loss = int(sizes.get("false_alarm_n", 0))
    more = []
    for extra in sizes.get("more_sizes") or []:
        inst, k_users = _instance(extra.get("instance")), extra.get("users")
        rels = tuple(extra.get("relations", ev.NEIGHBOURS))
        more.append((extra, inst, [(a, r) for a in extra.get("agents", agents) if a in agents
                                   for r in ev.NEIGHBOURS if r in rels and claimed(a, r, None, k_users, inst) is not None]))
    family = (sum(len(vs) + len(curve) for _, _, vs in plan) + len(wrong)
              + sum(len(pairs) * (1 + len(x.get("multipliers", (1.0, 0.5)))) for x, _, pairs in more))
    a_row = row_alpha(alpha, family)
    rows = []
    for agent, relation, vs in plan:
        gens = rng.spawn(len(vs) + 1)
        first = len(rows)
        for (mult, variant), g in zip(vs, gens):
            rows.append(audit_agent(agent, relation, g, n, mult, a_row, variant=variant, users=users))
        if curve:
            rows += power_curve(agent, relation, gens[-1], n_cal, a_row, curve, users=users)
        k = users or probe_of(agent)[1].users
        for r in rows[first:]:
            r["size"] = size_name(k)
    for (agent, relation, kernel, label), g in zip(wrong, rng.spawn(len(wrong))):
        rows += [r | {"size": size_name(users or probe_of(agent)[1].users)}
                 for r in wrong_agent_rows(agent, relation, g, n_cal, a_row, kernel, label, users)]
    if seeds:
        for (agent, relation, _), g in zip(plan, rng.spawn(len(plan))):
            rows += false_alarm_rows(agent, relation, g, n_cal, a_row, seeds, users, n_loss=n_fa_loss)
    for extra, inst, pairs in more:
        k_users = extra.get("users")
        x_n, x_cal = int(extra.get("n", 2000)), int(extra.get("n_calibration", 500))
        x_mults = tuple(float(m) for m in extra.get("multipliers", (1.0, 0.5)))
        for (agent, relation), g in zip(pairs, rng.spawn(len(pairs))):
            g1, g2 = g.spawn(2)
            name = size_name(k_users or probe_of(agent)[1].users, inst)
            got = [audit_agent(agent, relation, g1, x_n, 1.0, a_row, users=k_users, instance=inst)]
            got += power_curve(agent, relation, g2, x_cal, a_row, x_mults, users=k_users, instance=inst)
            rows += [r | {"size": name} for r in got]
    return pd.DataFrame(rows, columns=COLUMNS)


def false_alarm_rows(agent: str, relation: str, rng, n: int, alpha: float, seeds: int,
                     users: int | None = None, instance: tuple | None = None, n_loss: int = 0) -> list[dict]:
    """The x1 noise calibration of ``agent`` under ``relation`` on ``seeds`` audit seeds (each its own
    child of ``rng``'s SeedSequence), ``n`` runs per sequence, and (``n_loss`` > 0) its privacy-loss row
    at x1 with ``n_loss`` runs per sequence and position, each at level ``alpha``: rows of test
    :data:`FALSE_ALARMS` (variant ``noise x1, audit seed i`` / ``privacy loss x1, audit seed i``),
    verdict "false alarm" where a correct agent is flagged, else "pass"."""
    out = []
    size = size_name(users or probe_of(agent)[1].users, instance)
    for i, g in enumerate(rng.spawn(seeds)):
        g_cal, g_loss = g.spawn(2)
        row = power_curve(agent, relation, g_cal, n, alpha, (1.0,), users=users, instance=instance)[0]
        out.append(row | {"test": FALSE_ALARMS, "variant": f"noise x1, audit seed {i}",
                          "verdict": "pass" if row["verdict"] == "pass" else "false alarm", "size": size})
        if n_loss:
            row = audit_agent(agent, relation, g_loss, n_loss, 1.0, alpha, users=users, instance=instance)
            out.append(row | {"test": FALSE_ALARMS, "variant": f"privacy loss x1, audit seed {i}",
                              "verdict": "pass" if row["verdict"] == "pass" else "false alarm", "size": size})
    return out


def wrong_agent_rows(agent: str, relation: str, rng, n: int, alpha: float, kernel: dict, label: dict,
                     users: int | None = None) -> list[dict]:
    """The label calibration of ``agent``'s kernel run with ``kernel`` parameters against its label
    ``label`` (a wrong agent that under-noises in its own code, e.g. PUCB handing its privatizer eps x10):
    one row, test :data:`WRONG_AGENT`, ``flagged`` = seen."""
    row = power_curve(agent, relation, rng, n, alpha, (1.0,), params=kernel, users=users, label=label)[0]
    what = ", ".join(f"{k} = {v:g}" for k, v in kernel.items())
    return [row | {"test": WRONG_AGENT, "variant": f"kernel run with {what} (label {', '.join(f'{k} = {v:g}' for k, v in label.items())})"}]


def power_table(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (agent, relation, size) of an agent-audit table: the privacy-loss verdict at x1, the
    calibration verdict at each noise multiplier, the power as measured -- the smallest under-noising
    detected (with every stronger one tried), the eps overstatement it stands for (the probe's noise
    x1/m hands every privatizer eps x m: a label m times too small; RLSVI: sigma / m), whether a true
    eps twice the label (x1/2) is flagged -- the false alarms over the repeated audit seeds, the broken
    variants and wrong agents flagged."""
    out = []
    size = df["size"] if "size" in df else pd.Series("", index=df.index)
    for (agent, relation, sz), g in df.assign(size=size.fillna("")).groupby(["agent", "relation", "size"], sort=False):
        loss, cal = g[g["test"] == PRIVACY_LOSS], g[g["test"] == CALIBRATION]
        x1 = loss[loss["variant"] == "noise x1"]
        row = {"agent": agent, "relation": relation, "size": sz,
               "claimed_epsilon": float(g["claimed_epsilon"].iloc[0]),
               "epsilon_lower_bound_x1": float(x1["epsilon_lower_bound"].iloc[0]) if len(x1) else math.nan,
               "privacy_loss_x1": x1["verdict"].iloc[0] if len(x1) else "not run"}
        for _, r in cal.iterrows():
            pv = f"p = {r['p_value']:.2g}" if r["p_value"] > 0 else "p < 1e-300"
            ratio = (f"variance ratio {r['variance_ratio']:.3g}" if r.get("variance_ratio") == r.get("variance_ratio")
                     else f"spread {r['spread_ratio']:.2f}")
            if r.get("tail_ratio") == r.get("tail_ratio") and r.get("tail_ratio") is not None:
                ratio += f", tail {r['tail_ratio']:.2f}"
            row[r["variant"]] = f"{r['verdict']} ({pv}, {ratio})"
        row["smallest_detected"] = smallest_detected(cal) if len(cal) else "not measured"
        row["smallest_overstatement"] = overstatement(row["smallest_detected"], agent)
        half = cal[cal["variant"] == "noise x1/2"]
        row["true_eps_2x_flagged"] = (("yes" if (half["verdict"] == "flagged").all() else "NO") if len(half)
                                      else "not run")
        fa = g[(g["test"] == FALSE_ALARMS) & g["variant"].str.startswith("noise")]
        row["false_alarms"] = (f"{int((fa['verdict'] != 'pass').sum())}/{len(fa)} audit seeds at the row level, "
                               f"{int((fa['p_value'] <= 0.05).sum())}/{len(fa)} at p <= 0.05" if len(fa) else "not run")
        fl = g[(g["test"] == FALSE_ALARMS) & g["variant"].str.startswith("privacy loss")]
        row["false_alarms_privacy_loss"] = (f"{int((fl['verdict'] != 'pass').sum())}/{len(fl)} audit seeds "
                                            f"(n = {int(fl['n_samples'].max())} held out)" if len(fl) else "not run")
        broken = loss[loss["variant"] != "noise x1"]
        row["broken_flagged"] = (", ".join(f"{v}: {vd}" for v, vd in zip(broken["variant"], broken["verdict"]))
                                 or "none run")
        wr = g[g["test"] == WRONG_AGENT]
        row["wrong_agent"] = ("; ".join(f"{v}: {vd} (variance ratio {q:.3g})" for v, vd, q in
                                        zip(wr["variant"], wr["verdict"], wr["variance_ratio"])) or "none run")
        out.append(row)
    return pd.DataFrame(out)


def overstatement(detected: str, agent: str) -> str:
    """The eps overstatement a power curve's smallest detection stands for: noise x1/m hands every
    privatizer eps x m (a label m times too small); RLSVI's multiplier scales its Gaussian sigma."""
    if not detected.endswith("and below"):
        return detected
    m = 1.0 / _multiplier(detected.split()[0])
    from privrl.audit.perturbation import perturbation_of

    if perturbation_of(agent) is not None:
        return f"sigma / {m:g} and below"
    return f"eps x{m:g} the label and above"


def _markdown_table(df: pd.DataFrame) -> list[str]:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        lines.append("| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row) + " |")
    return lines


def agent_audit_markdown(df: pd.DataFrame, alpha: float = 0.05) -> str:
    """The table as GitHub markdown: the power table (:func:`power_table`) first, then every row,
    with a header saying what the tests and columns mean; ``alpha`` is the table's family-wise rate
    (its verdict rows -- all but the repeated false-alarm seeds -- at ``alpha / R``, column ``row_alpha``)."""
    cal = df[df["test"] == CALIBRATION]
    n_cal = int(cal["n_samples"].max()) if len(cal) else 0
    R = int((df["test"] != FALSE_ALARMS).sum())
    fa = df[df["test"] == FALSE_ALARMS]
    head = ("# End-to-end agent privacy audit\n\nEach agent's own kernel (its probe) on scripted users "
            f"(RiverSwim S = 2, A = 2, H = 2, {USERS} users unless the `size` column says otherwise), neighbouring "
            "user sequences under each relation its guarantees claim. What each test certifies and what it cannot "
            "see: docs/decisions/audit.md. The verdict rows (all but the false-alarm seeds) are tested at alpha / "
            f"{R} = {row_alpha(alpha, R):.3g} per row (Bonferroni over the {R} rows): the family-wise "
            f"false-alarm rate (some correct agent flagged by some test) is <= {alpha} (privrl.audit.privacy).\n\n"
            "* **privacy loss** (the privacy verdict): the differing user first or in the middle; the output is "
            "every release of the privatizer door *and the actions the agent took for every other user* (JDP's "
            "output, Vietri et al. 2020 Def. 3; an agent that acts on data its releases do not carry shows there); "
            "a naive-Bayes and a linear-discriminant statistic over the door's releases alone, their dyadic "
            "increments, or the releases with the others' actions, chosen on a selection split; held-out "
            "Clopper-Pearson lower bound on eps (n_samples: held-out runs per sequence) against the claimed eps. "
            "Broken variants (dropped tree levels, noise reused across releases, noise shared across counters) "
            "keep the claim: `flagged` shows this test's power. It cannot see uniform under-noising: at the "
            "audit's K the claims are loose or the privacy loss is reached only in tails no sample reaches.\n"
            "* **noise calibration** (the power curve): the noise the kernel releases at noise x1/m (the probe "
            "divides every privatizer's epsilon by m, multiplies RLSVI's Gaussian sigma by 1/m) against the noise "
            "its *label* implies (privrl.audit.label_noise): per released value the noise is released - exact "
            "counts (the probe's door log), compared with the paper's per-counter mechanism at the labelled "
            "parameters, never with what the kernel hands its privatizer: (1) its second moment (each run's mean "
            "of noise^2 / label variance, one-sided z-test, the `variance ratio`, 1 at the label) and (2) its law "
            "per release (two-sample Kolmogorov-Smirnov against draws of the label's law, and the fraction beyond "
            "the label's 99 % |noise| quantile against 1 %, one-sided: the `tail` ratio, 0 for bounded noise), "
            "Bonferroni. Labels: tree popcount(t) Laplace nodes of scale L(K) 3H/eps; local Laplace per user; "
            "bit-sum Bin(n_bits, q) per release at (eps/(3H), beta); Shuffled-OBI's R_p at eps0/((4+2m)H) per bit "
            "(Lemma 4) on H, H-1 and mH bits per entry; RLSVI: its perturbation w against N(0, beta_k/(N+1)) at "
            "the labelled beta_scale (privrl.audit.perturbation, N recounted from the script)"
            + (f"; {n_cal} runs per sequence" if n_cal else "") + ". At noise x1 a flag (`UNDER-NOISED`, or `WRONG "
            "NOISE LAW` when the law alone flags) is a false alarm for a correct agent; below, `flagged` is the "
            "power.\n"
            "* **wrong agent**: an agent's kernel run with other parameters than its label (PUCB handed eps x10, "
            "RLSVI at sd/3, Shuffled-OBI at eps0 x2, ...): the same label calibration at x1; `flagged` = seen.\n"
            + (f"* **false alarms**: the x1 calibration repeated on {fa.groupby(['agent', 'relation']).size().max()} "
               "audit seeds per (agent, relation) at the row level (outside the family): the measured false-alarm "
               "rate (`false_alarms`).\n" if len(fa) else "")
            + "\n`smallest_detected`: the largest under-noising flagged together with every stronger one tried "
            "(\"x1/1.2 and below\"); `smallest_overstatement`: the eps overstatement it stands for; "
            "`true_eps_2x_flagged`: noise x1/2 (every privatizer at twice the labelled eps) flagged.\n\n")
    parts = [head, "## Power\n\n", "\n".join(_markdown_table(power_table(df))), "\n\n## Every row\n\n",
             "\n".join(_markdown_table(df)), "\n"]
    return "".join(parts)


# ----------------------------------------------------------------------------- run-level manifest
MANIFEST_COLUMNS = ["experiment", "env", "cell", "agent", "privacy_model", "model", "relation", "epsilon", "delta",
                    "amplified", "headline", "source"]


def privacy_manifest(infos: list[dict]) -> pd.DataFrame:
    """One row per (cell, guarantee, neighbour relation) of the run infos a design recorded
    (``privrl.runs.run.run_info``): the privacy model, relation, (epsilon, delta) and whether the figure
    relies on shuffle amplification; an agent without privacy gets one row with model "none"."""
    rows = []
    for info in infos:
        base = {"experiment": info.get("experiment", ""), "env": info.get("env", ""), "cell": info.get("cell", ""),
                "agent": info["agent"], "privacy_model": info.get("privacy_model", "")}
        gs = info.get("guarantees") or []
        if not gs:
            rows.append(base | {"model": "none", "relation": "", "epsilon": math.inf, "delta": 0.0, "amplified": False,
                                "headline": True, "source": "no privacy"})
        for g in gs:
            rels = [tuple(r) for r in g.get("relations") or []] or [(g["neighbour"], g["epsilon"], g["delta"])]
            for relation, eps, delta in rels:
                rows.append(base | {"model": g["model"], "relation": relation, "epsilon": float(eps),
                                    "delta": float(delta), "amplified": bool(g.get("amplified", False)),
                                    "headline": relation == g["neighbour"], "source": g["source"]})
    return pd.DataFrame(rows, columns=MANIFEST_COLUMNS)
