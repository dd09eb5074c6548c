"""The noise an agent's *label* implies, against the noise its kernel releases (non-circular calibration).

The rank-sum calibration of :mod:`privrl.audit.privacy` compares an agent's releases with a
reference sample drawn through the same kernel at noise x1: an agent whose own code under-noises
(it hands its privatizer eps x10, eps/H instead of eps/(3H), a central privatizer where shuffle
noise is claimed) has an under-noised reference too, and is not flagged. Here the reference is the
**label**:

* the released noise is observed: a probe (the agent's kernel, :mod:`privrl.audit.probe`) whose
  door wrapper logs, with every released vector, the exact cumulative counts it fed the door and
  the number of users ``m`` of the release, so ``noise = released - exact`` per value;
* the variance each value's noise must have is computed from the **label** -- the agent's labelled
  parameters (``epsilon``, ``beta``), the paper's composition (:data:`LABELS`: which per-counter
  mechanism at which parameters the labelled eps stands for) and the mechanism's variance at that
  release (:func:`label_variance`) -- never from what the kernel hands its privatizer;
* test (:func:`variance_ratio_test`): per run ``s_i = mean_j noise_ij^2 / v_j`` (v_j the label's
  variance of value j); under the label E[s_i] = 1 and the runs are i.i.d., so
  ``z = (mean s - 1) / (sd s / sqrt N)`` with one-sided p = Phi(z) (noise below the label's ->
  small p). ``mean s`` is the empirical/label variance ratio (1 for a correct agent; 1/m^2 for
  the probe's noise x1/m).

The audit takes the label separately from the parameters the kernel runs with
(:func:`sample_noise`'s ``params`` vs :func:`label_calibration`'s ``label``): running PUCB with
``epsilon = 10`` against its label ``epsilon = 1`` is the wrong agent that under-noises in its own
code (tests/audit/test_label_noise.py).

An agent not in :data:`LABELS` gets the default of its privatizer kind (:func:`label_of`).
Shuffled-OBI's label is R_p at Lemma 4's per-bit eps on its encoding's bits per entry; RLSVI (Gaussian
noise inside the regression) is calibrated on its perturbation (:mod:`privrl.audit.perturbation`).

The law, not only the variance (:func:`law_test`): noise with the label's variance but another law --
bounded support (eps = inf), a Gaussian where the label is a Laplace sum -- passes a second-moment
test; per release the values are compared with draws of the label's law (:func:`label_law_draw`) by a
two-sample Kolmogorov-Smirnov test and a tail-fraction test (docs/decisions/audit.md).
"""
from __future__ import annotations

import math
import types
from dataclasses import dataclass

import numpy as np
from numba import njit

from privrl.audit import probe as pr
from privrl.mechanisms import privatizer
from privrl.mechanisms.bitsum import bitsum_noise_law, bitsum_tau
from privrl.mechanisms.rr import rr_p_from_epsilon
from privrl.mechanisms.bounds import bitsum_variance
from privrl.mechanisms.kinds import I_T
from privrl.mechanisms.tree import tree_levels


@dataclass(frozen=True)
class LabelNoise:
    """The per-counter mechanism a label stands for: ``kind`` and its parameters as functions of the
    labelled parameters ``p`` (resolved), the horizon H and the number of users K."""

    kind: str  # central-tree | local-laplace | shuffle-bitsum
    rule: str  # what the paper's composition assigns (printed in the row)
    param: object  # (p, H, K) -> tree node scale / Laplace scale per user / (eps_c, beta)
    horizon: object = None  # (p, H, K) -> releases per tree counter (central-tree only)


def _eps_c(p, H):  # Vietri et al. Alg. 2 / Bai et al. Sec. V-A: 3H counters per user
    return p["epsilon"] / (3.0 * H)


_TREE_K = LabelNoise("central-tree", "binary mechanism per counter at eps/(3H) over K releases (Vietri et al. Thm 1): "
                     "Var = popcount(t) 2 (L(K) 3H/eps)^2",
                     lambda p, H, K: tree_levels(K) / _eps_c(p, H), lambda p, H, K: K)
_LAP_6H = LabelNoise("local-laplace", "Lap(6H/eps) per coordinate and user (l1 diameter 6H): Var = 2 (6H/eps)^2 x users",
                     lambda p, H, K: 6.0 * H / p["epsilon"])
_BITSUM = LabelNoise("shuffle-bitsum", "Alg. 4 bit-sum per counter at (eps/(3H), beta) (Bai et al. Lemma 42): "
                     "Var = sum over releases of n_bits q (1 - q)",
                     lambda p, H, K: (_eps_c(p, H), p["beta"]))
#: agent -> the per-counter mechanism its label (paper) stands for
LABELS = {
    "pucb": _TREE_K, "private-ucbvi-jdp": _TREE_K, "dp-ucbvi-jdp": _TREE_K,
    "sdp-pe-jdp": LabelNoise("central-tree", "Laplace per batch and counter at eps/(3H) (Bai et al. Alg. 1, central "
                             "Privatizer, horizon 1): Var = 2 (3H/eps)^2",
                             lambda p, H, K: 1.0 / _eps_c(p, H), lambda p, H, K: 1),
    "private-ucbvi-ldp": _LAP_6H, "dp-ucbvi-ldp": _LAP_6H, "sdp-pe-ldp": _LAP_6H,
    "ldp-obi": LabelNoise("local-laplace", "Lap((6H-2)/eps0) per coordinate and user (Garcelon et al. Table 1): "
                          "Var = 2 ((6H-2)/eps0)^2 x users", lambda p, H, K: (6.0 * H - 2.0) / p["epsilon"]),
    "private-ucbvi-sdp": _BITSUM, "sdp-pe": _BITSUM,
    "shuffled-obi": LabelNoise("shuffle-rr", "R_p on every bit at eps0/((4 + 2m) H) (Garcelon et al. Lemma 4, Alg. 3), "
                               "H, H - 1 and m H bits per entry and user (visits, transitions, unary rewards: Eq. 4-5), "
                               "unbiased Eq. 6 sums: Var = bits p/2 (1 - p/2) / (1 - p)^2",
                               lambda p, H, K: (rr_p_from_epsilon(p["epsilon"] / ((4.0 + 2.0 * p["m"]) * H)),
                                                (float(H), H - 1.0, p["m"] * H))),
}


#: the default label of an agent not in :data:`LABELS`, by the privacy model it *claims* (not by the
#: privatizer it declares: an agent claiming SDP that calls the central tree must meet the bit-sum's
#: noise): the paper composition of that model (3H counters per user, Vietri et al. / Bai et al.; LDP:
#: l1 diameter 6H)
DEFAULT_BY_MODEL = {"JDP": _TREE_K, "LDP": _LAP_6H, "SDP": _BITSUM}
#: privatizers without a default label: shuffled randomized response (the bits per entry of each of its
#: privatizers are the agent's encoding: Shuffled-OBI has its own :data:`LABELS` entry) and RLSVI's
#: Gaussian perturbation inside the regression (its label law: :mod:`privrl.audit.perturbation`)
NO_REFERENCE = frozenset({"shuffle-rr", "none (its own exploration noise)"})


def label_of(agent: str) -> LabelNoise | None:
    """The label reference of ``agent``: its :data:`LABELS` entry, else the default of the privacy
    model it claims (:data:`DEFAULT_BY_MODEL`, for an agent whose labelled parameters include
    ``epsilon``), else None (no analytic reference: Shuffled-OBI's shuffle-RR, RLSVI's Gaussian noise)."""
    from privrl.agents.registry import get

    if agent in LABELS:
        return LABELS[agent]
    spec = get(agent)
    if spec.privatizer in NO_REFERENCE:
        return None
    lab = DEFAULT_BY_MODEL.get(spec.privacy_model)
    try:
        return lab if lab is not None and "epsilon" in spec.resolve({}) else None
    except Exception:  # noqa: BLE001 -- an agent whose parameters do not resolve without arguments
        return None


def label_variance(label: LabelNoise, p: dict, H: int, K: int, serial, t, m) -> np.ndarray:
    """v[D]: the label's noise variance of each released value (its privatizer ``serial``, release
    index ``t`` and the users ``m`` of each release, all [D]); the release is cumulative per counter."""
    v = np.empty(len(t))
    par = label.param(p, H, K)
    cum_users: dict = {}
    per_release: dict = {}
    seen: dict = {}
    for j, (s, tj, mj) in enumerate(zip(serial.tolist(), t.tolist(), m.tolist())):
        c = seen.get((s, tj), 0)
        seen[(s, tj)] = c + 1
        if label.kind == "central-tree":
            v[j] = int(tj).bit_count() * 2.0 * par ** 2
        elif label.kind == "local-laplace":
            key = (s, c)
            cum_users[key] = cum_users.get(key, 0.0) + mj
            v[j] = 2.0 * par ** 2 * cum_users[key]
        elif label.kind == "shuffle-rr":
            prob, bits = par
            key = (s, c)
            per_release[key] = per_release.get(key, 0.0) + bits[s - 1] * mj * 0.5 * prob * (1 - 0.5 * prob) / (1 - prob) ** 2
            v[j] = per_release[key]
        else:
            eps_c, beta = par
            key = (s, c)
            per_release[key] = per_release.get(key, 0.0) + bitsum_variance(int(mj), bitsum_tau(eps_c, beta))
            v[j] = per_release[key]
    return v


# ----------------------------------------------------------------------------- the label's law
def _counters(serial, t) -> dict:
    """{(serial, position in its release): [columns in release order]}: each counter's values."""
    seen, out = {}, {}
    for j, (s, tj) in enumerate(zip(serial.tolist(), t.tolist())):
        c = seen.get((s, tj), 0)
        seen[(s, tj)] = c + 1
        out.setdefault((s, c), []).append(j)
    return out


def label_law_draw(label: LabelNoise, p: dict, H: int, K: int, serial, t, m, exact, rng) -> np.ndarray:
    """ref[N, D]: one draw of every released value's noise from the law the label implies -- the
    paper's per-counter mechanism at the labelled parameters, not the kernel's -- for N runs of the
    layout ``serial``, ``t``, ``m`` [D] (cumulative releases per counter): central tree (Vietri et al.
    2020 App. A Alg. 5): the sum of popcount(t) Laplace nodes of scale L(K) 3H/eps; local Laplace: the
    sum of one Laplace per user so far; bit-sum (Bai et al. Alg. 4, Lemma 42): per release
    ``Bin(n_bits, q) - n_bits q``, summed; shuffle R_p (Garcelon et al. Alg. 2-3, Eq. 6): per release
    ``(Bin(c, 1 - p/2) + Bin(bits - c, p/2) - bits p/2) / (1 - p) - c`` with ``c`` the release's exact
    increment of the counter (``exact[N, D]``, the exact cumulative counts) -- *not* summed: the law of a
    release's R_p noise depends on its input, which the agent chose after seeing the earlier releases'
    noise, so only each release's own noise has the label's law given its input (compare it with
    :func:`release_increments` of the observed noise); the other kinds' noise is independent of the data."""
    N = exact.shape[0]
    ref = np.empty((N, len(t)))
    par = label.param(p, H, K)
    for (s, _), cols in _counters(serial, t).items():
        acc = np.zeros(N)
        prev = np.zeros(N)
        for j in cols:
            mj = int(round(float(m[j])))
            if label.kind == "central-tree":
                ref[:, j] = rng.laplace(0.0, par, (N, int(t[j]).bit_count())).sum(1)
                continue
            if label.kind == "local-laplace":
                acc += rng.laplace(0.0, par, (N, mj)).sum(1)
            elif label.kind == "shuffle-bitsum":
                n_bits, q, _ = bitsum_noise_law(mj, bitsum_tau(*par))
                acc += rng.binomial(int(n_bits), q, N) - n_bits * q
            else:
                prob, bits_per = par
                bits = int(round(bits_per[s - 1] * mj))
                c = np.clip(np.round(exact[:, j] - prev), 0, bits).astype(np.int64)
                prev = exact[:, j]
                ones = rng.binomial(c, 1.0 - 0.5 * prob) + rng.binomial(bits - c, 0.5 * prob)
                ref[:, j] = (ones - 0.5 * prob * bits) / (1.0 - prob) - c  # this release's own noise
                continue
            ref[:, j] = acc
    return ref


def release_increments(noise: np.ndarray, serial, t) -> np.ndarray:
    """Each value minus the same counter's value at its previous release: a cumulative release's
    noise split into the noise each release added."""
    out = noise.copy()
    for cols in _counters(serial, t).values():
        for a, b in zip(cols[:-1], cols[1:]):
            out[:, b] = noise[:, b] - noise[:, a]
    return out


def law_test(noise: np.ndarray, ref: np.ndarray, serial, t, tail: float = 0.01,
             cap: int = 20_000) -> tuple[float, float, float]:
    """(p, largest KS distance, tail ratio) of "the released noise has the label's law" from
    noise[N, D] and reference draws ref[R N, D] (:func:`label_law_draw`), per release (serial, t)
    (the values of one release: independent counters, one law per counter): a two-sample
    Kolmogorov-Smirnov test of the pooled values (at most ``cap`` of them, whole runs) and a
    one-sided tail test -- the fraction of |noise| beyond the label's ``1 - tail`` quantile of |ref|
    against the label's fraction (a z-test of two proportions; too few tail values: a bounded or
    light-tailed law has eps = inf whatever its variance). Bonferroni over both tests and every
    release. Tail ratio: the values beyond the label's quantile over those the label expects, pooled
    over the releases (1 at the label, 0 for bounded noise)."""
    from scipy import stats

    groups: dict = {}
    for j, key in enumerate(zip(serial.tolist(), t.tolist())):
        groups.setdefault(key, []).append(j)
    ps, dmax, seen, expected = [], 0.0, 0.0, 0.0
    for cols in groups.values():
        runs = max(1, min(noise.shape[0], cap // len(cols)))
        # on a common grid: a discrete law's atoms (bit-sums, debiased R_p sums) computed in another order
        # differ in the last bits, which the ECDFs would read as distinct values
        x = np.round(noise[:runs, cols].ravel(), ROUND)
        y = np.round(ref[:runs * (ref.shape[0] // noise.shape[0]), cols].ravel(), ROUND)
        if np.ptp(y) == 0.0:
            continue  # a value the label releases without noise
        ks = stats.ks_2samp(x, y)
        ps.append(float(ks.pvalue))
        dmax = max(dmax, float(ks.statistic))
        q = np.quantile(np.abs(y), 1.0 - tail)
        beyond = np.greater if np.mean(np.abs(y) > q) > 0 else np.greater_equal  # a discrete law: its top atom
        p0, p1 = float(np.mean(beyond(np.abs(y), q))), float(np.mean(beyond(np.abs(x), q)))
        if not 0.0 < p0 <= 0.5:
            continue  # no tail to speak of (a law of one or two atoms)
        se = math.sqrt(p0 * (1 - p0) * (1.0 / len(x) + 1.0 / len(y)))
        ps.append(float(stats.norm.cdf((p1 - p0) / se)))
        seen, expected = seen + p1 * len(x), expected + p0 * len(x)
    if not ps:
        return 1.0, 0.0, math.nan
    return min(1.0, len(ps) * min(ps)), dmax, seen / expected if expected > 0 else math.nan


# ----------------------------------------------------------------------------- the probe's noise log
@njit
def _log_noise(state, out, m):
    """After the real door released ``out`` (and the probe's broken variant, if any, changed it): log it
    (serial s), the exact cumulative counts (serial s + 0.25) and the users of the release (serial s + 0.5)."""
    pr._break(state, out)
    f = state[0]
    s, t = f[f.shape[0] - 1, 0], state[1][I_T]
    pr._log(out, s, t)
    pr._log(f[f.shape[0] - 3].copy(), s + 0.25, t)
    pr._log(np.full(out.shape[0], float(m)), s + 0.5, t)


def noise_door_wrappers(real) -> types.ModuleType:
    """Door wrappers (:func:`privrl.audit.probe.door_wrappers`, no broken variant) that log, per
    release, the released vector, the exact cumulative counts and the users of the release."""
    return pr.door_wrappers(real, _log_noise, "privrl_noise_door")


class _NoiseSwaps(pr._Swaps):
    def __init__(self, released: tuple):
        super().__init__(released)
        for mod in list(privatizer._DOORS.values()):
            w = noise_door_wrappers(mod)
            self.by_id[id(mod)] = w
            for f in ("new", "release", "release_sums", "release_batch"):
                self.by_id[id(getattr(mod, f))] = getattr(w, f)


def noise_driver(agent: str, n_extra: int):
    """The noise-logging driver of ``agent``: :func:`privrl.audit.probe.driver` with this module's
    door wrappers, compiled once per numba cache like the release probes; (driver, cache key)."""
    return pr.driver(agent, n_extra, _NoiseSwaps)


def sample_noise(agent: str, params: dict, P, script: tuple, n: int, rng, noise_multiplier: float = 1.0,
                 variant: str = "exact"):
    """``n`` runs of ``agent``'s kernel run with ``params`` on the scripted users: (noise[n, D] =
    released - exact, serial[D], t[D], m[D], exact[n, D]) of every value its privatizers released
    (``exact``: the exact cumulative counts the door was fed); ``variant``: the probe's test-only broken
    variants (:data:`privrl.audit.probe.VARIANTS`)."""
    control = np.zeros(pr.HEAD)
    control[pr.MULT], control[pr.VARIANT] = float(noise_multiplier), pr.VARIANTS[variant]
    out = pr.run_probe(agent, params, P, script, n, rng, control, _NoiseSwaps)
    D3 = out.shape[1]
    base = pr.HEAD + pr.LOG_CAPACITY
    tag = pr._BUFFER[base:base + D3].copy()
    tt = pr._BUFFER[base + pr.LOG_CAPACITY:base + pr.LOG_CAPACITY + D3].astype(np.int64)
    frac = np.round((tag - np.floor(tag)) * 4).astype(int)
    rel, ex, us = frac == 0, frac == 1, frac == 2
    noise = out[:, rel] - out[:, ex]
    return noise, np.floor(tag[rel]).astype(np.int64), tt[rel], out[0, us], out[:, ex]


def _ratio_test(scores: np.ndarray) -> tuple[float, float, float]:
    """(one-sided p of 'mean score below 1', the mean, its s.e.) of per-run scores (i.i.d. runs)."""
    from scipy import stats

    ratio, se = float(scores.mean()), float(scores.std(ddof=1) / math.sqrt(len(scores)))
    p = float(stats.norm.cdf((ratio - 1.0) / se)) if se > 0 else (0.0 if ratio < 1 else 1.0)
    return p, ratio, se


def _run_scores(noise: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each run's mean of noise^2 / label variance over its values (v = 0 dropped): scores[N]."""
    keep = v > 0
    return (noise[:, keep] ** 2 / v[keep]).mean(1)


def variance_ratio_test(noise: np.ndarray, v: np.ndarray) -> tuple[float, float, float]:
    """(one-sided p of 'noise variance below the label's', empirical/label ratio, its s.e.) from
    noise[N, D] (i.i.d. runs) and the label's variances v[D] (values with v = 0 dropped)."""
    return _ratio_test(_run_scores(noise, v))


def label_calibration(agent: str, samples: dict, label: dict, H: int) -> tuple[float, float, float]:
    """(p, ratio, s.e.) of :func:`variance_ratio_test` pooled over ``samples = {name: (noise, serial,
    t, m)}`` (the neighbouring sequences; each run scored over its own values) against the label
    ``label`` (resolved parameters, ``_K`` the users) on the audit's horizon ``H``."""
    lab = label_of(agent)
    return _ratio_test(np.concatenate([_run_scores(noise, label_variance(lab, label, H, label["_K"], serial, t, m))
                                       for noise, serial, t, m, *_ in samples.values()]))


#: decimals both samples are rounded to before the law test (far below any law's scale or lattice step)
ROUND = 6
#: reference draws of the label's law per observed value (law_test's two-sample KS and tail test), and
#: the observed values law_test reads per release at most
LAW_DRAWS, LAW_CAP = 4, 10_000


def law_calibration(agent: str, samples: dict, label: dict, H: int, rng) -> tuple[float, float, float]:
    """(p, largest KS distance, smallest tail ratio over the sequences) of :func:`law_test` of every neighbouring
    sequence's noise against :data:`LAW_DRAWS` draws of the label's law (:func:`label_law_draw`, from
    ``rng``: the audit seed's own stream), Bonferroni over the sequences."""
    lab = label_of(agent)
    ps, d, tr = [], 0.0, math.inf
    for noise, serial, t, m, exact in samples.values():
        per_release = np.unique(np.stack([serial, t]), axis=1, return_counts=True)[1]
        runs = min(len(noise), -(-LAW_CAP // int(per_release.min())))  # the runs law_test reads at most
        ex = np.resize(exact, (LAW_DRAWS * runs, exact.shape[1]))  # exact counts of the first runs, cycled
        ref = label_law_draw(lab, label, H, label["_K"], serial, t, m, ex, rng)
        if lab.kind == "shuffle-rr":  # data-dependent law: each release's own noise (label_law_draw)
            noise = release_increments(noise, serial, t)
        p, dd, tt = law_test(noise[:runs], ref, serial, t, cap=LAW_CAP)
        ps.append(p)
        d, tr = max(d, dd), min(tr, tt)
    return min(1.0, len(ps) * min(ps)), d, tr
