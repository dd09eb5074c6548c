"""Privacy as data: guarantees, the papers' privacy formulas, and exact / library epsilons.

A :class:`Guarantee` is a value ``(model, epsilon, delta, source, note)``. Every formula
cites its paper and equation; the tests check each against a closed form and check that a
paper bound is never *tighter* than ``dp_accounting`` or the exact value (it may be looser).

Exact epsilons are computed from count distributions with the hockey-stick divergence
``delta(eps) = sum_o max(0, P(o) - e^eps Q(o))`` (both directions), solved for eps exactly
on the piecewise form (``epsilon_for_delta``). Multi-counter compositions use
``dp_accounting``'s privacy-loss distributions (pessimistic rounding, 1e-4 grid).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MODELS = ("DP", "JDP", "LDP", "SDP")


@dataclass(frozen=True)
class Guarantee:
    """A privacy guarantee: ``model`` in {DP, JDP, LDP, SDP}, ``(epsilon, delta)``, its source."""

    model: str
    epsilon: float
    delta: float
    source: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}; got {self.model!r}")
        if not (self.epsilon >= 0):
            raise ValueError(f"epsilon must be >= 0; got {self.epsilon}")
        if not (0 <= self.delta < 1):
            raise ValueError(f"delta must be in [0, 1); got {self.delta}")

    def as_dict(self) -> dict:
        return {"model": self.model, "epsilon": self.epsilon, "delta": self.delta,
                "source": self.source, "note": self.note}


# ----------------------------------------------------------------------------- Vietri et al.
def vietri_counter_epsilon(epsilon: float, H: int) -> float:
    """Per-counter budget of PUCB: ``eps' = eps / (3H)`` (Vietri et al. 2020, Alg. 2)."""
    return epsilon / (3.0 * H)


def visit_streams(traj: np.ndarray, n_sa: int) -> np.ndarray:
    """Event streams of Vietri Sec. 4: traj[T, H] flat (s, a) indices -> n_hat[T, H, n_sa] in {0,1}.

    ``n_hat[t, h, i] = 1`` iff the user of episode t visited state-action i at step h.
    """
    traj = np.asarray(traj, dtype=np.int64)
    T, H = traj.shape
    out = np.zeros((T, H, n_sa), dtype=np.int64)
    out[np.arange(T)[:, None], np.arange(H)[None, :], traj] = 1
    return out


def claim1_l1_distance(traj_u: np.ndarray, traj_v: np.ndarray, n_sa: int) -> int:
    """``sum_{(s,a,h)} ||n_hat(s,a,h) - n_hat'(s,a,h)||_1`` of two user sequences (Vietri Claim 1)."""
    return int(np.abs(visit_streams(traj_u, n_sa) - visit_streams(traj_v, n_sa)).sum())


# ----------------------------------------------------------------------------- Garcelon et al.
def garcelon_lemma4_epsilon(eps0: float, m: int, H: int) -> float:
    """Per-bit M_sh parameter giving eps0-LDP: ``eps = eps0 / ((4 + 2m) H)`` (Garcelon Lemma 4)."""
    return eps0 / ((4.0 + 2.0 * m) * H)


def msh_exact_ldp_epsilon(eps: float, m: int, H: int) -> float:
    """Exact pure-LDP level of M_sh with per-bit parameter eps: ``((4 + 2m) H - 2) eps``.

    Two trajectories differ in at most 2H bits of x, 2(H-1) of y and 2mH of the unary reward
    codes (Eq. 4-5); each differing bit costs ``eps`` and the loss is attained (rewards 1).
    Lemma 4 charges ``(4 + 2m) H eps`` (2 eps more): valid, slightly loose.
    """
    return ((4.0 + 2.0 * m) * H - 2.0) * eps


def garcelon_prop5_epsilon(k: int, H: int, m: int, p: float, delta0: float) -> float:
    """``eps_{c,k}`` of Garcelon Prop. 5, exactly as printed (``inf`` where it is undefined).

    With ``n = (k-1) H``, ``a_j = sqrt(2 p log(j/delta0) / n)``::

        256 log(8m/d0) sqrt(m log(2/d0)) / (sqrt(n) (p - a_{4m})) (1 - p + a_{4m})
      + 64 log(4/d0) / (sqrt(n) (p - a_2)) (1 - p + a_2)

    ``p = 2/(e^eps + 1)`` for the M_sh parameter eps (Alg. 3).
    """
    n = (k - 1) * H
    if n <= 0:
        return math.inf
    a1 = math.sqrt(2.0 * p * math.log(4.0 * m / delta0) / n)
    a2 = math.sqrt(2.0 * p * math.log(2.0 / delta0) / n)
    if p <= a1 or p <= a2:
        return math.inf
    t1 = (256.0 * math.log(8.0 * m / delta0) * math.sqrt(m * math.log(2.0 / delta0))
          / (math.sqrt(n) * (p - a1)) * (1.0 - p + a1))
    t2 = 64.0 * math.log(4.0 / delta0) / (math.sqrt(n) * (p - a2)) * (1.0 - p + a2)
    return t1 + t2


def garcelon_prop5_condition(eps: float, k: int, delta0: float) -> bool:
    """Prop. 5 hypothesis ``0 < eps_l <= log(k / (7 log(4/delta0)) - 1)``."""
    arg = k / (7.0 * math.log(4.0 / delta0)) - 1.0
    return eps > 0 and arg > 0 and eps <= math.log(arg)


# ----------------------------------------------------------------------------- Lu et al.
def lu_rho(K: int, H: int, S: int, A: int) -> float:
    """RDP slope of RLSVI: Lemma 12 gives ``(alpha, alpha rho)``-RDP, ``rho = 2AK / (H^2 log(2HSA))``."""
    return 2.0 * A * K / (H**2 * math.log(2.0 * H * S * A))


def lu_thm13_epsilon(alpha: float, delta: float, K: int, H: int, S: int, A: int) -> float:
    """Lu et al. Thm 13: ``eps(alpha, delta) = 2 alpha A K / (H^2 log(2HSA)) + log(1/delta)/(alpha - 1)``."""
    if alpha <= 1:
        raise ValueError("alpha must be > 1")
    return alpha * lu_rho(K, H, S, A) + math.log(1.0 / delta) / (alpha - 1.0)


def lu_cor14_epsilon(delta: float, K: int, H: int, S: int, A: int) -> float:
    """Lu et al. Cor. 14: ``eps(delta) = rho + 2 sqrt(rho log(1/delta))`` with ``rho = lu_rho``."""
    rho = lu_rho(K, H, S, A)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def lu_thm13_minimised(delta: float, K: int, H: int, S: int, A: int) -> tuple[float, float]:
    """Numeric ``min_{alpha > 1}`` of Thm 13 (Brent on ``u = log(alpha - 1)``): ``(eps, alpha)``."""
    def f(u: float) -> float:
        return lu_thm13_epsilon(1.0 + math.exp(u), delta, K, H, S, A)

    u0 = 0.5 * math.log(math.log(1.0 / delta) / lu_rho(K, H, S, A))  # near the optimum
    from scipy import optimize  # scipy is imported lazily: a run job's start-up time matters

    res = optimize.minimize_scalar(f, bracket=(u0 - 3.0, u0 + 3.0), method="brent", tol=1e-12)
    return float(res.fun), 1.0 + math.exp(res.x)


def gaussian_delta(eps: float, mu: float) -> float:
    """Exact hockey-stick of N(mu, 1) vs N(0, 1) (Balle-Wang 2018): ``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``."""
    from scipy import stats

    a = float(stats.norm.cdf(-eps / mu + mu / 2.0))
    return a - math.exp(min(eps + float(stats.norm.logcdf(-eps / mu - mu / 2.0)), 700.0))


def gaussian_exact_epsilon(mu: float, delta: float) -> float:
    """Smallest eps with ``gaussian_delta(eps, mu) <= delta`` (a mu-GDP mechanism's exact eps)."""
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, mu) > delta:
        hi *= 2.0
    from scipy import optimize

    return float(optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, hi, xtol=1e-13, rtol=1e-12))


def lu_exact_epsilon(delta: float, K: int, H: int, S: int, A: int) -> float:
    """Tight conversion of Lu et al.'s own RDP curve: the composed per-(k, h, s, a) Gaussians
    (Lemma 11-12) are ``mu``-GDP with ``mu = sqrt(2 rho)``; exact eps of that Gaussian."""
    return gaussian_exact_epsilon(math.sqrt(2.0 * lu_rho(K, H, S, A)), delta)


def lu_library_epsilon(delta: float, K: int, H: int, S: int, A: int, method: str = "rdp") -> float:
    """``dp_accounting`` conversion of Lemma 12's RDP curve (a Gaussian, noise multiplier ``1/sqrt(2 rho)``).

    ``method="rdp"``: RdpAccountant (improved RDP -> (eps, delta) conversion);
    ``method="pld"``: PLDAccountant (numerically exact for the Gaussian).
    """
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    event = dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / math.sqrt(2.0 * lu_rho(K, H, S, A)))
    if method == "rdp":
        orders = np.concatenate([np.linspace(1.01, 8, 400), np.geomspace(8, 1e5, 600)])
        acc = rdp_privacy_accountant.RdpAccountant(orders=list(orders))
    elif method == "pld":
        acc = pld_privacy_accountant.PLDAccountant()
    else:
        raise ValueError(f"method must be 'rdp' or 'pld'; got {method!r}")
    return float(acc.compose(event).get_epsilon(delta))


# ----------------------------------------------------------------------------- local mechanisms
def laplace_epsilon(scale: float, sensitivity: float = 1.0) -> float:
    """Pure eps of the Laplace mechanism: ``Delta_1 / b``."""
    return sensitivity / scale


def tree_counter_epsilon(scale: float, horizon: int, sensitivity: float = 1.0) -> float:
    """Per-counter eps of the binary mechanism: ``L Delta / b`` with ``L = horizon.bit_length()``."""
    return max(int(horizon).bit_length(), 1) * sensitivity / scale


def rr_epsilon(p: float) -> float:
    """Pure eps of R_p (Garcelon Sec. 3.1): ``ln(2/p - 1)``."""
    return math.log(2.0 / p - 1.0)


def library_pure_epsilon(kind: str, param: float, sensitivity: float = 1.0, delta: float = 1e-12) -> float:
    """dp_accounting's eps at a tiny ``delta`` (its Laplace PLD has truncated tails, so delta = 0
    gives inf) for ``"laplace"`` (param = scale) or ``"rr"`` (param = p)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    if kind == "laplace":
        dist = pld.from_laplace_mechanism(param, sensitivity=sensitivity, value_discretization_interval=1e-5)
    elif kind == "rr":
        dist = pld.from_randomized_response(param, 2, value_discretization_interval=1e-5)
    else:
        raise ValueError(kind)
    return float(dist.get_epsilon_for_delta(delta))


# ----------------------------------------------------------------------------- exact epsilons
def hockey_stick(logP: np.ndarray, logQ: np.ndarray, eps: float) -> float:
    """``sum max(0, P - e^eps Q)`` over a common support (log-pmfs, ``-inf`` for zero mass)."""
    P, Q = np.exp(logP), np.exp(logQ)
    return float(np.maximum(P - math.exp(eps) * Q, 0.0).sum())


def _eps_one_direction(logP: np.ndarray, logQ: np.ndarray, delta: float) -> float:
    P = np.exp(logP)
    keep = P > 0
    logP, logQ, P = logP[keep], logQ[keep], P[keep]
    inf_mask = ~np.isfinite(logQ)
    d_inf = float(P[inf_mask].sum())
    if d_inf > delta:
        return math.inf
    L = logP[~inf_mask] - logQ[~inf_mask]
    Pf, Qf = P[~inf_mask], np.exp(logQ[~inf_mask])
    order = np.argsort(-L, kind="stable")
    L, Pf, Qf = L[order], Pf[order], Qf[order]
    cP, cQ = np.cumsum(Pf), np.cumsum(Qf)
    D = d_inf + cP - np.exp(L) * cQ  # delta(eps) at eps = L_j (non-decreasing in j)
    j = int(np.searchsorted(D, delta, side="right"))  # first j with D_j > delta
    if j >= len(L):
        return 0.0
    eps = math.log((d_inf + cP[j - 1] - delta) / cQ[j - 1])
    return max(eps, 0.0)


def epsilon_for_delta(logP: np.ndarray, logQ: np.ndarray, delta: float) -> float:
    """Exact smallest eps >= 0 with both hockey-sticks ``D_eps(P||Q), D_eps(Q||P) <= delta``."""
    logP, logQ = np.asarray(logP, float), np.asarray(logQ, float)
    return max(_eps_one_direction(logP, logQ, delta), _eps_one_direction(logQ, logP, delta))


def _binom_window(n: int, q: float, width: float = 40.0) -> tuple[int, np.ndarray]:
    sd = math.sqrt(max(n * q * (1.0 - q), 1.0))
    lo = max(0, int(math.floor(n * q - width * sd - 10)))
    hi = min(n, int(math.ceil(n * q + width * sd + 10)))
    ks = np.arange(lo, hi + 1)
    from scipy import stats

    return lo, stats.binom.logpmf(ks, n, q)


def bitsum_logpmfs(n_users: int, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Laws of the shuffled bit-sum output for neighbours ``y* = 0`` / ``y* = 1`` (Lemma 42 proof).

    The output is ``Gamma + y* + Q`` with ``Q ~ Bin(n_bits, q)``; returns log-pmfs of ``Q`` and
    ``Q + 1`` on a common (windowed) support.
    """
    from privrl.mechanisms.bitsum import bitsum_noise_law

    n_bits, q, _ = bitsum_noise_law(int(n_users), float(tau))
    _, lp = _binom_window(int(n_bits), float(q))
    logQ = np.concatenate([lp, [-np.inf]])
    logP = np.concatenate([[-np.inf], lp])
    return logQ, logP


def bitsum_exact_epsilon(n_users: int, tau: float, delta: float) -> float:
    """Exact eps at ``delta`` of Bai et al. Alg. 4 (both directions), for ``n_users`` users."""
    logQ, logP = bitsum_logpmfs(n_users, tau)
    return epsilon_for_delta(logP, logQ, delta)


def rr_sum_logpmf(n_bits: int, ones: int, p: float) -> tuple[int, np.ndarray]:
    """Law of the sum of R_p over ``n_bits`` bits with ``ones`` ones: ``Bin(ones, 1-p/2) + Bin(n_bits-ones, p/2)``.

    Returns ``(offset, logpmf)`` on a window of the support (mass outside < 1e-300).
    """
    lo1, l1 = _binom_window(ones, 1.0 - p / 2.0)
    lo0, l0 = _binom_window(n_bits - ones, p / 2.0)
    a, b = np.exp(l1 - l1.max()), np.exp(l0 - l0.max())
    if min(len(a), len(b)) <= 4096:
        conv = np.convolve(a, b)
    else:  # FFT: absolute error ~1e-16 of the mode, negligible against delta >= 1e-12
        from scipy import signal

        conv = np.maximum(signal.fftconvolve(a, b), 0.0)
    with np.errstate(divide="ignore"):
        return lo1 + lo0, np.log(conv) + l1.max() + l0.max()


def _align(o1: int, l1: np.ndarray, o2: int, l2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = min(o1, o2), max(o1 + len(l1), o2 + len(l2))
    A, B = np.full(hi - lo, -np.inf), np.full(hi - lo, -np.inf)
    A[o1 - lo: o1 - lo + len(l1)] = l1
    B[o2 - lo: o2 - lo + len(l2)] = l2
    return A, B


def shuffled_rr_exact_epsilon(n_bits: int, p: float, delta: float, flips: int = 1, ones: int = 0) -> float:
    """Exact eps at ``delta`` of one shuffled-RR counter (the sum of ``n_bits`` R_p bits) when one
    user turns ``flips`` of its zeros into ones, the other bits holding ``ones`` ones."""
    oP, lP = rr_sum_logpmf(n_bits, ones + flips, p)
    oQ, lQ = rr_sum_logpmf(n_bits, ones, p)
    A, B = _align(oP, lP, oQ, lQ)
    return epsilon_for_delta(A, B, delta)


def shuffled_rr_composed_epsilon(k: int, H: int, m: int, p: float, delta0: float) -> float:
    """eps at ``delta0`` of the three shuffled count families of Garcelon Prop. 5, composed.

    Neighbouring users (k users; the others contribute zeros): the changed user moves all H
    visits from one (s, a) to another -- two x-counters with H flips each (kH bits), two
    y-counters with H-1 flips (k(H-1) bits), two reward counters with mH flips (kHm bits).
    Per-counter exact laws, composed with dp_accounting PLDs (pessimistic, 1e-4 grid).
    """
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = None
    for n_bits, f in ((k * H, H), (k * (H - 1), H - 1), (k * H * m, H * m)):
        if f <= 0:
            continue
        oP, lP = rr_sum_logpmf(n_bits, f, p)
        oQ, lQ = rr_sum_logpmf(n_bits, 0, p)
        A, B = _align(oP, lP, oQ, lQ)
        pa = {i: v for i, v in enumerate(A) if np.isfinite(v)}
        pb = {i: v for i, v in enumerate(B) if np.isfinite(v)}
        for lower, upper in ((pa, pb), (pb, pa)):  # the (s,a) the user leaves / enters
            d = pld.from_two_probability_mass_functions(lower, upper, symmetric=False)
            total = d if total is None else total.compose(d)
    return float(total.get_epsilon_for_delta(delta0))


# ----------------------------------------------------------------------------- paper guarantees
def pucb_guarantee(epsilon: float) -> Guarantee:
    """PUCB is eps-JDP (Vietri et al. Thm 1; per-counter eps/(3H), Claim 1, billboard lemma)."""
    return Guarantee("JDP", epsilon, 0.0, "Vietri et al. 2020, Thm 1 (Alg. 2, Claim 1)",
                     "Claim 1's l1 bound H holds for add/remove of a user; 2H under replacement (D7)")


def ldp_obi_guarantee(eps0: float) -> Guarantee:
    """LDP-OBI with the Laplace mechanism is eps0-LDP (Garcelon et al. Table 1; reconstruction)."""
    return Guarantee("LDP", eps0, 0.0, "Garcelon et al. 2021 (Table 1 of the ICML-21 note)",
                     "reconstruction: Laplace mechanism on one-hot user counts")


def shuffled_obi_guarantees(eps0: float, m: int, H: int, tau: int, delta0: float) -> list[Guarantee]:
    """Shuffled-OBI (Garcelon Thm 6): eps0-LDP (Lemma 4) and (eps_{c,tau}, delta0)-JDP (Prop. 5)."""
    eps = garcelon_lemma4_epsilon(eps0, m, H)
    p = 2.0 / (math.exp(eps) + 1.0)
    return [
        Guarantee("LDP", eps0, 0.0, "Garcelon et al. Lemma 4", f"per-bit eps = {eps:.6g}"),
        Guarantee("JDP", garcelon_prop5_epsilon(tau, H, m, p, delta0), delta0,
                  "Garcelon et al. Prop. 5 / Thm 6", "eps_{c,tau} as printed (may be inf)"),
    ]


def sdp_pe_guarantee(epsilon: float, beta: float) -> Guarantee:
    """SDP-PE with the shuffle Privatizer is (eps, beta)-SDP (Bai et al. Lemma 10, Thm 11)."""
    return Guarantee("SDP", epsilon, beta, "Bai et al. Lemma 10 / Thm 11 (Alg. 4, Lemma 42)")


def rlsvi_guarantee(delta: float, K: int, H: int, S: int, A: int) -> Guarantee:
    """RLSVI is (eps(delta), delta)-JDP w.r.t. rewards (Lu et al. Cor. 14)."""
    return Guarantee("JDP", lu_cor14_epsilon(delta, K, H, S, A), delta, "Lu et al. Cor. 14",
                     "neighbours differ in one trajectory's rewards only (Lu et al. Remark 2)")
