"""Empirical privacy audits of the mechanisms.

Local / central mechanisms (Laplace, R_p, the tree counter, the RLSVI Gaussian step): run
the mechanism ``n`` times on each of two neighbouring inputs, count a fixed event ``E``
(chosen from the mechanism's law before sampling) and bound
``eps >= ln((P1(E) - delta) / P0(E))`` with Clopper-Pearson intervals: the lower bound uses
the lower limit for ``P1`` and the upper limit for ``P0``, each two-sided at level
``alpha``, so the *false-alarm rate* -- the probability that a correct mechanism's lower
bound exceeds its true eps -- is at most ``alpha`` (union bound over the two limits).
The events are optimal for their mechanism (the log-ratio of the event equals the true
eps), so a mis-calibrated variant (half the noise, wrong p) is caught (tests).

Shuffled mechanisms (Bai et al. Alg. 4, Garcelon et al. shuffled RR): an event audit has
no power at the papers' loose claims, so the implemented protocol's output distribution is
tested against the exact law (chi-square on bins with expected count >= 5, z-tests of the
mean and of the variance; Bonferroni over the three at level ``alpha``) and the exact eps
from :mod:`privrl.mechanisms.accounting` is compared with the claim.

Every sample is drawn through the door functions the agents call (:mod:`.privatizer`:
a fresh privatizer of the kind and its release, or ``gaussian_noise``); :func:`audit_kind`
audits any registered kind from its declared privacy event, and the audit table adds one
row per kind registered beyond the built-in ones.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from privrl.mechanisms import accounting as acc

from privrl.mechanisms import exact_epsilon as exact_eps
from privrl.mechanisms import privatizer as door
from privrl.mechanisms.bitsum import bitsum_noise_law

COLUMNS = ["mechanism", "claimed_epsilon", "delta", "empirical_lower_bound", "ci_low", "ci_high",
           "exact_epsilon", "test_pvalue", "n_trials", "verdict", "source"]


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided ``1 - alpha`` Clopper-Pearson interval for a binomial proportion ``k / n``."""
    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def _log_ratio(a: float, b: float) -> float:
    if a <= 0:
        return -math.inf
    if b <= 0:
        return math.inf
    return math.log(a / b)


def epsilon_bounds(k1: int, n1: int, k0: int, n0: int, delta: float = 0.0, alpha: float = 0.05) -> dict:
    """Point estimate and ``1 - alpha`` interval of ``ln((P1 - delta) / P0)`` from event counts.

    ``ci_low`` is the empirical lower bound on eps (false-alarm rate <= alpha).
    """
    l1, h1 = clopper_pearson(k1, n1, alpha)
    l0, h0 = clopper_pearson(k0, n0, alpha)
    return {
        "point": _log_ratio(k1 / n1 - delta, k0 / n0),
        "ci_low": _log_ratio(l1 - delta, h0),
        "ci_high": _log_ratio(h1 - delta, l0),
    }


def _row(mechanism, claimed, delta, bounds, exact, n, source, pvalue=float("nan")) -> dict:
    lb = bounds["ci_low"] if bounds else float("nan")
    verdict = "pass" if not (lb > claimed) else "VIOLATION"
    return {"mechanism": mechanism, "claimed_epsilon": claimed, "delta": delta,
            "empirical_lower_bound": lb,
            "ci_low": bounds["ci_low"] if bounds else float("nan"),
            "ci_high": bounds["ci_high"] if bounds else float("nan"),
            "exact_epsilon": exact, "test_pvalue": pvalue, "n_trials": n, "verdict": verdict,
            "source": source}


# ----------------------------------------------------------------------------- event audits
def _release(kind: str, x: np.ndarray, rng, epsilon: float, m: int = 1, **kw) -> np.ndarray:
    """One release of x[n] (n independent trials, one counter each) through a fresh privatizer
    of ``kind`` -- the door functions the agents call; returns the batch's private counts."""
    state = door.make_privatizer(kind, x.shape[0], 1, epsilon, **kw)
    return door.release_python(state, x, rng, m)


def audit_laplace(rng, n_trials: int, epsilon: float = 1.0, noise_factor: float = 1.0, alpha: float = 0.05) -> dict:
    """Laplace mechanism (local-laplace privatizer), inputs 0 vs 1, event ``{y >= 1}``:
    ``P1/P0 = e^eps`` exactly."""
    scale = noise_factor / epsilon
    eps_used = epsilon / noise_factor  # scale noise_factor / epsilon: the inputs stay in the domain [0, 1]
    k1 = int((_release("local-laplace", np.ones(n_trials), rng, eps_used) >= 1.0).sum())
    k0 = int((_release("local-laplace", np.zeros(n_trials), rng, eps_used) >= 1.0).sum())
    b = epsilon_bounds(k1, n_trials, k0, n_trials, 0.0, alpha)
    return _row("laplace", epsilon, 0.0, b, acc.laplace_epsilon(scale), n_trials, "Dwork et al. 2006")


def audit_rr(rng, n_trials: int, epsilon: float = 1.0, p: float | None = None, alpha: float = 0.05) -> dict:
    """R_p (Garcelon Alg. 2; shuffle-rr privatizer, one bit per entry), bits 1 vs 0, event
    ``{output bit = 1}`` (debiased count > 0): ``P1/P0 = (2-p)/p = e^eps``.

    ``p`` overrides the correct ``2/(e^eps + 1)`` (to test a broken variant).
    """
    p = door.rr_p_from_epsilon(epsilon) if p is None else p
    eps_used = acc.rr_epsilon(p)
    k1 = int((_release("shuffle-rr", np.ones(n_trials), rng, eps_used) > 0.0).sum())
    k0 = int((_release("shuffle-rr", np.zeros(n_trials), rng, eps_used) > 0.0).sum())
    b = epsilon_bounds(k1, n_trials, k0, n_trials, 0.0, alpha)
    return _row("randomized response R_p", epsilon, 0.0, b, acc.rr_epsilon(p), n_trials, "Garcelon et al. Alg. 2")


def _tree_path_nodes(x1, levels: int, epsilon: float, sensitivity: float, rng) -> np.ndarray:
    """central-tree privatizer of n = len(x1) counters over T = 2^(levels-1) releases of the
    stream (x1, 0, 0, ...); the release at t = 2^j is the noisy node of level j alone, i.e.
    returns nodes[levels, n], the noisy nodes on t=1's path."""
    n, T = x1.shape[0], 1 << (levels - 1)
    state = door.make_privatizer("central-tree", n, T, epsilon, sensitivity=sensitivity)
    nodes, zero, j = np.empty((levels, n)), np.zeros(n), 0
    for t in range(1, T + 1):
        out = door.release_python(state, x1 if t == 1 else zero, rng)
        if t == (1 << j):
            nodes[j] = out
            j += 1
    return nodes


def audit_tree(rng, n_trials: int, epsilon: float = 1.0, levels: int = 3, noise_factor: float = 1.0,
               alpha: float = 0.05) -> dict:
    """Binary mechanism (Vietri App. A Alg. 5): streams differing in sigma(1), event on the noisy
    nodes of t=1's path (all L nodes containing element 1): ``{all >= 1}``, ``P1/P0 = e^eps``.

    Each trial is one counter of a central-tree privatizer with ``T = 2^(levels-1)``.
    """
    scale = levels * noise_factor / epsilon
    nodes = _tree_path_nodes(np.ones(n_trials), levels, epsilon / noise_factor, 1.0, rng)
    k1 = int((nodes >= 1.0).all(axis=0).sum())
    nodes = _tree_path_nodes(np.zeros(n_trials), levels, epsilon / noise_factor, 1.0, rng)
    k0 = int((nodes >= 1.0).all(axis=0).sum())
    b = epsilon_bounds(k1, n_trials, k0, n_trials, 0.0, alpha)
    return _row("binary mechanism counter", epsilon, 0.0, b, acc.tree_counter_epsilon(scale, 1 << (levels - 1)),
                n_trials, "Vietri et al. App. A Alg. 5, Thm 12")


def _laplace_sum(x: np.ndarray, rng, sensitivity: float, epsilon: float, m: int) -> np.ndarray:
    """One release of the column sums x[n] of ``m`` users through the door's
    ``laplace_sum_release`` -- the function the aggregate simulation's batches call
    (``privrl.agents.pe_privacy.private_batch`` with ``summed``)."""
    out = np.empty_like(x)
    door.laplace_sum_release(x, sensitivity, epsilon, np.int64(m), rng, out)
    return out


def audit_laplace_sum(rng, n_trials: int, epsilon: float = 1.0, m: int = 1, sensitivity: float = 2.0,
                      noise_factor: float = 1.0, alpha: float = 0.05, select_frac: float = 0.2) -> dict:
    """The local Laplace sum of the aggregate simulation (:mod:`.laplace_sum`): the column sums of
    ``m`` users, one user's count 0 vs ``sensitivity`` (the others 0), plus the sum of the m users'
    ``Lap(b)``, ``b = sensitivity / epsilon`` (SDP-PE-LDP's per-counter sensitivity 2, the default).

    m = 1: event ``{y >= sensitivity}``, ``P1/P0 = e^eps`` exactly (optimal). m > 1: event
    ``{y >= c}`` from a selection split (:func:`_split_threshold_bounds`); the density ratio of a
    sum of m Laplace variates shifted by ``sensitivity`` tends to ``e^(sensitivity/b)`` in the
    tail (the sum's tail is one Laplace's times a polynomial), so the exact eps is ``eps`` for
    every m (the sum is post-processing of the users' eps-LDP reports)."""
    eps_used = epsilon / noise_factor  # scale noise_factor * b: the inputs stay in the domain
    y1 = _laplace_sum(np.full(n_trials, sensitivity), rng, sensitivity, eps_used, m)
    y0 = _laplace_sum(np.zeros(n_trials), rng, sensitivity, eps_used, m)
    if m == 1:
        b = epsilon_bounds(int((y1 >= sensitivity).sum()), n_trials, int((y0 >= sensitivity).sum()), n_trials,
                           0.0, alpha)
        n_used = n_trials
    else:
        b, n_used = _split_threshold_bounds(y1, y0, 0.0, alpha, select_frac)
    return _row(f"local Laplace sum of m={m} users (aggregate simulation)", epsilon, 0.0, b,
                acc.laplace_epsilon(sensitivity / eps_used, sensitivity), n_used,
                "Bai et al. SDP-PE-LDP reconstruction; sum of m Lap(b) as b (Gamma(m) - Gamma(m))")


def gaussian_step_claim(beta: float, N: float, delta: float) -> float:
    """Claimed eps of one RLSVI Gaussian step: Lemma 11's RDP ``alpha (N+1)/(2 beta N^2)``
    converted as in Thm 13 / Cor. 14: ``rho + 2 sqrt(rho log(1/delta))``."""
    rho = (N + 1.0) / (2.0 * beta * N * N)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def _split_threshold_bounds(y1, y0, delta: float, alpha: float, select_frac: float) -> tuple[dict, int]:
    """Event ``{y >= c}`` with ``c`` chosen on a selection split (the first ``select_frac`` of
    the trials: the threshold with the largest lower bound among empirical quantiles of the
    input-0 outputs); the bounds are computed on the held-out trials only, which keeps the
    false-alarm rate at ``alpha``. Returns (bounds, held-out trials)."""
    n_sel = int(len(y1) * select_frac)
    s1, s0, h1, h0 = y1[:n_sel], y0[:n_sel], y1[n_sel:], y0[n_sel:]
    best_c, best_lb = float(np.median(s0)), -math.inf
    for q in np.geomspace(0.3, min(0.3, 30.0 / max(n_sel, 1)), 25):
        c = float(np.quantile(s0, 1.0 - q))
        lb = epsilon_bounds(int((s1 >= c).sum()), n_sel, int((s0 >= c).sum()), n_sel, delta, alpha)["ci_low"]
        if lb > best_lb:
            best_c, best_lb = c, lb
    n_h = len(y1) - n_sel
    return epsilon_bounds(int((h1 >= best_c).sum()), n_h, int((h0 >= best_c).sum()), n_h, delta, alpha), n_h


def audit_gaussian(rng, n_trials: int, beta: float = 48.0, N: float = 1.0, delta: float = 1e-5,
                   noise_factor: float = 1.0, alpha: float = 0.05, select_frac: float = 0.2) -> dict:
    """RLSVI step (Lu et al. Alg. 1 line 10): rewards mean 0 vs 1/N (sensitivity, Lemma 11),
    noise ``N(0, beta/(N+1))`` drawn as RLSVI does (the door's ``gaussian_noise(1.0)`` block,
    scaled); event ``{y >= c}`` with ``c`` from a selection split (no single threshold is
    optimal for a Gaussian; :func:`_split_threshold_bounds`).
    """
    sigma = math.sqrt(beta / (N + 1.0))
    sd = math.sqrt(beta * noise_factor**2 / (N + 1.0))
    z = np.empty(n_trials)
    door.gaussian_noise(1.0, rng, z)
    y1 = 1.0 / N + sd * z
    door.gaussian_noise(1.0, rng, z)
    y0 = sd * z
    b, n_h = _split_threshold_bounds(y1, y0, delta, alpha, select_frac)
    exact = acc.gaussian_exact_epsilon((1.0 / N) / (sigma * noise_factor), delta)
    return _row("RLSVI Gaussian step", gaussian_step_claim(beta, N, delta), delta, b, exact, n_h,
                "Lu et al. Alg. 1, Lemma 11")


def audit_kind(kind: str, rng, n_trials: int, epsilon: float = 1.0, alpha: float = 0.05,
               select_frac: float = 0.2) -> dict:
    """Any registered privatizer kind: one counter's release of 0 vs 1 (one unit change) through
    the door, event ``{y >= c}`` (selection split), claimed eps = the kind's privacy event
    (:func:`accounting.event_epsilon`)."""
    state = door.make_privatizer(kind, 1, 1, epsilon)
    claimed, delta = acc.event_epsilon(door.privatizer_event(state))
    y1 = _release(kind, np.ones(n_trials), rng, epsilon)
    y0 = _release(kind, np.zeros(n_trials), rng, epsilon)
    b, n_h = _split_threshold_bounds(y1, y0, delta, alpha, select_frac)
    return _row(f"privatizer kind {kind}", claimed, delta, b, claimed, n_h, door.KINDS[kind].reference)


# ----------------------------------------------------------------------------- distribution tests
def distribution_test(samples: np.ndarray, offset: int, logpmf: np.ndarray, alpha: float = 0.05) -> dict:
    """Chi-square, mean and variance z-tests of integer ``samples`` against an exact law
    (``logpmf[i]`` = log P(offset + i)). ``passed`` if all p-values exceed ``alpha / 3``."""
    samples = np.asarray(samples, dtype=np.int64)
    pmf = np.exp(logpmf - logpmf.max())
    pmf /= pmf.sum()
    xs = offset + np.arange(len(pmf), dtype=float)
    mu = float((pmf * xs).sum())
    var = float((pmf * (xs - mu) ** 2).sum())
    m4 = float((pmf * (xs - mu) ** 4).sum())
    n = len(samples)
    z_mean = (samples.mean() - mu) / math.sqrt(var / n)
    z_var = (samples.var(ddof=1) - var) / math.sqrt(max(m4 - var**2 * (n - 3) / (n - 1), 1e-300) / n)
    # chi-square on bins merged left to right until each expects >= 5
    counts = np.bincount(np.clip(samples - offset, 0, len(pmf) - 1), minlength=len(pmf))
    exp_bins, obs_bins, e_acc, o_acc = [], [], 0.0, 0
    for e, o in zip(pmf * n, counts):
        e_acc += e
        o_acc += o
        if e_acc >= 5:
            exp_bins.append(e_acc), obs_bins.append(o_acc)
            e_acc, o_acc = 0.0, 0
    if exp_bins:
        exp_bins[-1] += e_acc
        obs_bins[-1] += o_acc
    if len(exp_bins) >= 2:
        chi2 = float(((np.array(obs_bins) - np.array(exp_bins)) ** 2 / np.array(exp_bins)).sum())
        p_chi = float(stats.chi2.sf(chi2, len(exp_bins) - 1))
    else:
        p_chi = 1.0
    p_mean = float(2 * stats.norm.sf(abs(z_mean)))
    p_var = float(2 * stats.norm.sf(abs(z_var)))
    pmin = min(p_chi, p_mean, p_var)
    return {"p_chi2": p_chi, "p_mean": p_mean, "p_var": p_var, "p_min": pmin, "passed": pmin > alpha / 3}


def audit_bitsum(rng, n_samples: int, epsilon: float, beta: float, n_users: int,
                 tau_factor: float = 1.0, alpha: float = 0.05) -> dict:
    """Bai et al. Alg. 4 output law vs exact ``Bin(n_bits, q)`` noise; exact eps vs claimed eps.

    ``tau_factor != 1`` runs a broken protocol (tau scaled, e.g. 0.5 = half the noise)."""
    tau = door.bitsum_tau(epsilon, beta)
    ysum = float((np.arange(n_users) % 3 == 0).sum())
    n_bits, q, regime = bitsum_noise_law(n_users, tau)
    # one shuffle-bitsum release of n_samples counters, each the batch's sum of bits (tau ~ 1/eps^2)
    last = _release("shuffle-bitsum", np.full(n_samples, ysum), rng, epsilon / math.sqrt(tau_factor), n_users,
                    beta=beta)
    samples = np.rint(last - ysum + n_bits * q).astype(np.int64)
    logpmf = stats.binom.logpmf(np.arange(int(n_bits) + 1), int(n_bits), q)
    t = distribution_test(samples, 0, logpmf, alpha)
    exact = exact_eps.bitsum_exact_epsilon(n_users, tau, beta)
    row = _row(f"shuffle bit-sum ({'small' if regime == 0 else 'large'} regime, n={n_users})", epsilon, beta,
               None, exact, n_samples, "Bai et al. App. Alg. 4, Lemma 42", t["p_min"])
    row["verdict"] = "pass" if (t["passed"] and exact <= epsilon) else "FAIL"
    return row | {"test": t}


def audit_shuffled_rr(rng, n_samples: int, eps0: float, k: int, H: int, m: int, delta0: float,
                      p: float | None = None, alpha: float = 0.05) -> dict:
    """Garcelon et al. shuffled RR: one counter's law (k H bits, k of them ones) vs the exact
    law; exact composed eps of Prop. 5's three families vs ``eps_{c,k}`` as printed."""
    eps = acc.garcelon_lemma4_epsilon(eps0, m, H)
    p_claim = door.rr_p_from_epsilon(eps)
    p_used = p_claim if p is None else p
    n_bits, ones = k * H, k
    # one shuffle-rr release of n_samples counters of n_bits bits each, ``ones`` of them ones
    est = _release("shuffle-rr", np.full(n_samples, float(ones)), rng, acc.rr_epsilon(p_used), bits_per_entry=n_bits)
    samples = np.rint(est * (1.0 - p_used) + 0.5 * p_used * n_bits).astype(np.int64)
    off, logpmf = exact_eps.rr_sum_logpmf(n_bits, ones, p_claim)
    t = distribution_test(samples, off, logpmf, alpha)
    claimed = acc.garcelon_prop5_epsilon(k, H, m, p_claim, delta0)
    exact = exact_eps.shuffled_rr_composed_epsilon(k, H, m, p_claim, delta0)
    row = _row(f"shuffled RR (k={k}, H={H}, m={m})", claimed, delta0, None, exact, n_samples,
               "Garcelon et al. Alg. 2-3, Prop. 5", t["p_min"])
    row["verdict"] = "pass" if (t["passed"] and exact <= claimed) else "FAIL"
    return row | {"test": t}


#: users of the local Laplace sum's audit rows: one (its optimal event) and two (numpy's Gamma(m > 1) path,
#: the one every aggregate batch of more than one user takes)
LAPLACE_SUM_USERS = (1, 2)


def privacy_audit_table(rng, sizes: dict | None = None) -> pd.DataFrame:
    """All audits as one table (columns ``COLUMNS``). ``rng``: Generator or SeedSequence.

    sizes: ``n_event`` (trials per input for Laplace, R_p, tree, the local Laplace sum),
    ``n_gaussian``, ``n_shuffle`` (protocol samples), ``alpha``, ``epsilon``; ``shuffle_rr`` =
    dict(eps0, k, H, m, delta0). ``alpha`` is the table's family-wise false-alarm rate: each of
    its R rows is audited at ``alpha / R`` (Bonferroni; :func:`row_alpha`).
    """
    sizes = dict(sizes or {})
    if isinstance(rng, np.random.SeedSequence):
        rng = np.random.default_rng(rng)
    n_ev = int(sizes.get("n_event", 200_000))
    n_g = int(sizes.get("n_gaussian", 1_000_000))
    n_sh = int(sizes.get("n_shuffle", 2000))
    eps = float(sizes.get("epsilon", 1.0))
    bs_eps, bs_beta = float(sizes.get("bitsum_epsilon", 0.5)), float(sizes.get("bitsum_beta", 0.01))
    srr = {"eps0": 1.0, "k": 200, "H": 5, "m": 1, "delta0": 1e-6} | dict(sizes.get("shuffle_rr", {}))
    extra = [k for k in door.KINDS if k not in door.BUILTIN_KINDS]  # kinds registered beyond the built-in ones
    audits = [
        lambda g, a: audit_laplace(g, n_ev, eps, alpha=a),
        lambda g, a: audit_rr(g, n_ev, eps, alpha=a),
        lambda g, a: audit_tree(g, n_ev, eps, alpha=a),
        lambda g, a: audit_gaussian(g, n_g, alpha=a),
        lambda g, a: audit_bitsum(g, n_sh, bs_eps, bs_beta, max(1, int(tau / 4)), alpha=a),
        lambda g, a: audit_bitsum(g, n_sh, bs_eps, bs_beta, int(4 * tau), alpha=a),
        lambda g, a: audit_shuffled_rr(g, n_sh, srr["eps0"], int(srr["k"]), int(srr["H"]), int(srr["m"]),
                                       float(srr["delta0"]), alpha=a),
    ]
    audits += [lambda g, a, m=m: audit_laplace_sum(g, n_ev, eps, m, alpha=a) for m in LAPLACE_SUM_USERS]
    alpha = row_alpha(float(sizes.get("alpha", 0.05)), len(audits) + len(extra))
    tau = door.bitsum_tau(bs_eps, bs_beta)
    r = rng.spawn(len(audits))
    rows = [f(g, alpha) for f, g in zip(audits, r)]
    rows += [audit_kind(k, g, n_ev, eps, alpha=alpha) for k, g in zip(extra, rng.spawn(len(extra)))]
    return pd.DataFrame([{c: row[c] for c in COLUMNS} for row in rows], columns=COLUMNS)


def row_alpha(family_alpha: float, rows: int) -> float:
    """Per-row level of a table of ``rows`` audits whose family-wise false-alarm rate (some correct
    row flagged) is at most ``family_alpha``: ``family_alpha / rows`` (Bonferroni, union bound)."""
    return family_alpha / max(int(rows), 1)


def audit_table_markdown(df: pd.DataFrame) -> str:
    """The audit table as GitHub markdown (floats to 4 significant digits)."""
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in df.iterrows():
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
