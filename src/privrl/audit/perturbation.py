"""RLSVI's perturbation against the law its label implies (non-circular calibration of a Gaussian agent).

RLSVI (Lu, Gajane, Bai & Talebi 2026, Alg. 1) adds no privatizer noise: its privacy is that of the
perturbation ``w_h(s, a) ~ N(0, beta_k / (N_h(s, a) + 1))`` of every episode's regression (line 10;
``beta_k = beta_scale (1/2) S H^3 log(2 H S A k)``), the Gaussian mechanism of Lemma 11 composed by
Lemma 12 into Thm 13 / Cor. 14. The agent audit's release of RLSVI is its perturbed Q-values, a
nonlinear function of ``w``; here ``w`` itself is observed and compared with that law at the
*labelled* ``beta_scale``:

* the probe (:mod:`privrl.audit.probe`, the agent's own kernel, scripted users) logs ``w`` -- the
  argument of the kernel's ``perturbed_plan`` call, after the call -- and the actions of *every*
  user (the scripted engine's observation), per episode;
* ``N_h(s, a)`` before episode k is recounted from the script (each user's start state and
  successors) and the logged actions, never read from the kernel's counters;
* per value ``z = w / sqrt(beta_k / (N + 1))`` must be i.i.d. N(0, 1): a one-sided test of the runs'
  mean ``z^2`` against 1 (the variance, as :func:`privrl.audit.label_noise.variance_ratio_test`) and
  a test of the law (one-sample Kolmogorov-Smirnov against N(0, 1) and the tail fraction
  ``|z| > z_{0.995}`` against 1 %), Bonferroni over the three.

An RLSVI that under-noises in its own code (w at sd/3: ``beta_scale`` 10/9 run against the label 10)
reads a variance ratio 1/9 and is flagged; the probe's ``noise_multiplier`` scales the Gaussian draws.
"""
from __future__ import annotations

import math

import numpy as np

from privrl.audit import probe as pr

#: agent -> its perturbation's label: (name of the kernel's call whose array argument ``index`` is the
#: perturbation w[H, S, A], after the call; the rule printed in the row)
PERTURBATIONS = {"rlsvi": ("perturbed_plan", 2, "w ~ N(0, beta_k / (N + 1)), beta_k = beta_scale (1/2) S H^3 "
                                               "log(2HSAk) at the labelled beta_scale (Lu et al. Alg. 1 line 10)")}
TAIL = 0.01


def perturbation_of(agent: str):
    """(call, argument index, rule) of ``agent``'s perturbation label, or None."""
    return PERTURBATIONS.get(agent)


class _PerturbationSwaps(pr._Swaps):
    """The probe's rebinding with the perturbation's call logged in place of the spec's releases."""

    def __init__(self, released: tuple):
        super().__init__(tuple((c, i) for c, i, _ in PERTURBATIONS.values()))


def sample_perturbation(agent: str, params: dict, P, script: tuple, n: int, rng, noise_multiplier: float = 1.0):
    """``n`` runs of ``agent``'s kernel run with ``params`` on ``script``: (w[n, K, H, S, A], actions[n, K, H])."""
    control = np.zeros(pr.HEAD)
    control[pr.MULT] = float(noise_multiplier)
    control[pr.OBSERVE], control[pr.DIFFERING] = pr.OBSERVATIONS["actions"], -1  # every user's actions
    out = pr.run_probe(agent, params, P, script, n, rng, control, _PerturbationSwaps)
    serial, _ = pr.release_layout(out.shape[1])
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    K = len(script[0])
    w = out[:, serial == -1].reshape(n, K, H, S, A)
    act = out[:, serial == pr.OBSERVED_SERIAL].reshape(n, K, H).astype(np.int64)
    return w, act


def label_sd(script: tuple, actions: np.ndarray, beta_scale: float, S: int, A: int) -> np.ndarray:
    """sd[n, K, H, S, A]: sqrt(beta_k / (N + 1)) of every episode's perturbation at ``beta_scale``
    (Lu et al. Alg. 1: beta_k = (1/2) S H^3 log(2 H S A k), k 1-based), N recounted from the script and
    the users' actions (the counts of episodes 1..k-1)."""
    s0, nxt = script[0], script[1]
    n, K, H = actions.shape
    N = np.zeros((n, H, S, A))
    sd = np.empty((n, K, H, S, A))
    rows = np.arange(n)
    for k in range(K):
        beta = beta_scale * 0.5 * S * H ** 3 * math.log(2.0 * H * S * A * (k + 1))
        sd[:, k] = np.sqrt(beta / (N + 1.0))
        s = np.full(n, s0[k])
        for h in range(H):
            a = actions[:, k, h]
            N[rows, h, s, a] += 1.0
            s = nxt[k, h][s, a]
    return sd


def perturbation_test(z: np.ndarray) -> tuple[float, float, float, float, float]:
    """(p, p of the variance, p of the law, variance ratio, tail ratio) of z[n, D] ~ i.i.d. N(0, 1):
    the runs' mean z^2 against 1 (one-sided: below), one-sample KS against N(0, 1) and the fraction
    beyond the two-sided ``TAIL`` quantile against ``TAIL`` (one-sided: too few), Bonferroni."""
    from scipy import stats

    from privrl.audit.label_noise import _ratio_test

    p_var, ratio, _ = _ratio_test((z ** 2).mean(1))
    x = z.ravel()[:200_000]
    p_ks = float(stats.kstest(x, "norm").pvalue)
    q = stats.norm.isf(TAIL / 2)
    frac = float(np.mean(np.abs(x) > q))
    p_tail = float(stats.norm.cdf((frac - TAIL) / math.sqrt(TAIL * (1 - TAIL) / len(x))))
    p_law = min(1.0, 2.0 * min(p_ks, p_tail))
    return min(1.0, 2.0 * min(p_var, p_law)), p_var, p_law, ratio, frac / TAIL


def perturbation_calibration(agent: str, scripts: dict, params: dict, label: dict, n: int, rng,
                             noise_multiplier: float = 1.0, P=None) -> dict:
    """The calibration of ``agent``'s perturbation run with ``params`` against its ``label`` (resolved
    parameters with ``beta_scale``) on the scripted neighbouring sequences ``scripts = {name: script}``,
    ``n`` runs each, on the transitions' shapes ``P[H, S, A, S]`` (the audit passes its instance's;
    default RiverSwim S = 2, H = 2, the audit's tiny instance): {p, p_variance, p_law, variance_ratio,
    tail_ratio, ks_distance}."""
    from scipy import stats

    from privrl.rl import envs

    P = envs.riverswim(S=2, H=2, reward_noise="deterministic").P if P is None else P
    S, A = P.shape[1], P.shape[2]
    zs = []
    for sc in scripts.values():
        w, act = sample_perturbation(agent, params, P, sc, n, rng, noise_multiplier)
        zs.append((w / label_sd(sc, act, label["beta_scale"], S, A)).reshape(n, -1))
    z = np.concatenate(zs)
    p, p_var, p_law, ratio, tail = perturbation_test(z)
    return {"p": p, "p_variance": p_var, "p_law": p_law, "variance_ratio": ratio, "tail_ratio": tail,
            "ks_distance": float(stats.kstest(z.ravel()[:200_000], "norm").statistic)}
