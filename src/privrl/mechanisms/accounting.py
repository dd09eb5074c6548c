"""Privacy as data: guarantees, the papers' privacy formulas, and exact / library epsilons.

A :class:`Guarantee` is a value ``(model, epsilon, delta, source, note, neighbour, relations)``:
``neighbour`` is the neighbour relation ``(epsilon, delta)`` hold for ("add/remove" or
"replacement", :mod:`.events`) and ``relations`` lists every relation with its own values
where an accounting gives them (e.g. central tree counters: a replacement changes two stream
elements per step, so twice the add/remove epsilon). Every formula cites its paper and
equation; the tests check each against a closed form and check that a paper bound is never
*tighter* than ``dp_accounting`` or the exact value (it may be looser).

Event accounting (the ``dp_accounting`` pattern): mechanisms carry privacy events
(:mod:`.events`, e.g. a privatizer's ``privatizer.privatizer_event``); :func:`event_epsilon`
composes them (basic composition, group privacy for a user's unit changes),
:func:`event_guarantee` turns an agent's :class:`events.UserEvent` into a guarantee for every
relation it covers, :func:`jdp_billboard` states the joint-DP guarantee of a policy computed
from DP statistics (billboard lemma), :func:`shuffle_amplification` the central epsilon of
shuffled eps0-LDP reports. Exact epsilons of count distributions: :mod:`.exact_epsilon`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from privrl.mechanisms import events as ev

MODELS = ("DP", "JDP", "LDP", "SDP")


@dataclass(frozen=True)
class Guarantee:
    """A privacy guarantee: ``model`` in {DP, JDP, LDP, SDP}, ``(epsilon, delta)`` for the
    ``neighbour`` relation, its source; ``relations`` = ((relation, epsilon, delta), ...)
    for every relation an accounting covers (empty: only ``neighbour``)."""

    model: str
    epsilon: float
    delta: float
    source: str
    note: str = ""
    neighbour: str = ev.REPLACEMENT
    relations: tuple = ()
    amplified: bool = False  # the figure relies on shuffle amplification (only where the protocol delivers it)

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}; got {self.model!r}")
        if not (self.epsilon >= 0):
            raise ValueError(f"epsilon must be >= 0; got {self.epsilon}")
        if not (0 <= self.delta < 1):
            raise ValueError(f"delta must be in [0, 1); got {self.delta}")
        if self.neighbour not in ev.NEIGHBOURS:
            raise ValueError(f"neighbour must be one of {ev.NEIGHBOURS}; got {self.neighbour!r}")

    def for_relation(self, relation: str) -> tuple[float, float] | None:
        """``(epsilon, delta)`` under ``relation``, or None if not established."""
        if relation == self.neighbour:
            return self.epsilon, self.delta
        return next(((e, d) for r, e, d in self.relations if r == relation), None)

    def as_dict(self) -> dict:
        return {"model": self.model, "epsilon": self.epsilon, "delta": self.delta,
                "source": self.source, "note": self.note, "neighbour": self.neighbour,
                "relations": [list(r) for r in self.relations], "amplified": self.amplified}


# ----------------------------------------------------------------------------- event accounting
def _composed(event) -> tuple[float, float]:
    parts = [_pure(e) for e in event.events]
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


def _self_composed(event) -> tuple[float, float]:
    e, d = _pure(event.event)
    return event.count * e, event.count * d


#: (epsilon, delta) of one unit change of each basic event type (basic composition for the rest)
_EVENT_EPSILON = {
    ev.LaplaceEvent: lambda e: (laplace_epsilon(e.scale, e.sensitivity), 0.0),
    ev.TreeEvent: lambda e: (tree_counter_epsilon(e.scale, e.horizon, e.sensitivity), 0.0),
    ev.RREvent: lambda e: (e.epsilon, 0.0),
    ev.BitSumEvent: lambda e: (e.epsilon, e.beta),
    ev.NoPrivacyEvent: lambda e: (math.inf, 0.0),
    ev.ComposedEvent: _composed,
    ev.SelfComposedEvent: _self_composed,
}


def _pure(event) -> tuple[float, float]:
    """(epsilon, delta) of one unit change of an event (no relation involved)."""
    rule = _EVENT_EPSILON.get(type(event))
    if rule is None:
        raise TypeError(f"no pure/approximate accounting for {type(event).__name__}; "
                        "a Gaussian event needs a delta: gaussian_exact_epsilon(sensitivity / sigma, delta)")
    return rule(event)


def event_epsilon(event, relation: str | None = None) -> tuple[float, float] | None:
    """``(epsilon, delta)`` of an event by basic composition (Dwork & Roth 2014, Thm 3.16).

    A :class:`events.UserEvent` needs ``relation``: ``k`` unit changes of an ``(e, d)`` event
    cost ``(k e, k e^{(k-1) e} d)`` (group privacy, Dwork & Roth Thm 2.2 / Lemma 2.2 for pure
    eps); None when the event does not state the relation.
    """
    if isinstance(event, ev.UserEvent):
        k = event.changes_for(relation)
        if k is None:
            return None
        e, d = _pure(event.event)
        return k * e, (k * math.exp((k - 1) * e) * d if d > 0 else 0.0)
    return _pure(event)


def event_guarantee(model: str, event: ev.UserEvent, source: str, note: str = "",
                    paper_epsilon: float | None = None, paper_relation: str | None = None) -> Guarantee:
    """Guarantee of ``model`` for every relation ``event`` covers; the headline relation is the
    first of ``event.changes``. ``paper_epsilon`` (the paper's own number, for
    ``paper_relation``, default the headline) must agree with the accounting to 1e-9 and is
    reported exactly (the existing numbers are kept)."""
    rels = []
    for relation, _k in event.changes:
        e, d = event_epsilon(event, relation)
        if paper_epsilon is not None and relation == (paper_relation or event.changes[0][0]):
            if not math.isclose(e, paper_epsilon, rel_tol=1e-9):
                raise ValueError(f"{source}: accounting gives eps = {e} under {relation}, paper {paper_epsilon}")
            e = paper_epsilon
        rels.append((relation, e, d))
    head = rels[0]
    return Guarantee(model, head[1], head[2], source, note, head[0], tuple(rels))


def jdp_billboard(event: ev.UserEvent, source: str, note: str = "", paper_epsilon: float | None = None) -> Guarantee:
    """JDP of a policy that is post-processing of the released statistics and the user's own
    data: DP of the releases gives JDP (billboard lemma, Hsu et al. 2014 Lemma 9; Vietri et
    al. 2020 Sec. 2.2)."""
    return event_guarantee("JDP", event, source, note, paper_epsilon)


def shuffle_amplification(eps0: float, n: int, delta: float) -> float:
    """Central eps of ``n`` shuffled eps0-LDP reports (Feldman, McMillan & Talwar 2021, Thm 3.1):
    ``log(1 + (e^eps0 - 1)/(e^eps0 + 1) (8 sqrt(e^eps0 log(4/delta)) / sqrt(n) + 8 e^eps0 / n))``,
    valid for ``eps0 <= log(n / (16 log(2/delta)))``; returns eps0 (no amplification) otherwise."""
    if n < 1 or not eps0 <= math.log(max(n / (16.0 * math.log(2.0 / delta)), 1.0)):
        return eps0
    a = math.exp(eps0)
    return min(eps0, math.log1p((a - 1.0) / (a + 1.0) * (8.0 * math.sqrt(a * math.log(4.0 / delta)) / math.sqrt(n)
                                                         + 8.0 * a / n)))


# ----------------------------------------------------------------------------- Vietri et al.
@njit(cache=True)
def per_counter_epsilon(epsilon: float, H: int) -> float:
    """The eps of each counter when one user touches 3H counters: ``eps' = eps / (3H)``.

    At each of its H steps a trajectory touches one counter of each of three families (visits
    n(s, a, h), transitions n(s, a, s', h), reward sums r(s, a, h)); basic composition over the 3H
    counters gives eps in all (Vietri et al. 2020, Alg. 2 and the proof of Thm 1; Bai et al.,
    Sec. V-A, per counter of SDP-PE and Private-UCBVI). The one place this split is written:
    numba kernels and Python call it alike."""
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


# ----------------------------------------------------------------------------- paper guarantees
def central_counters_jdp(epsilon: float, H: int, counter_event, source: str, note: str = "") -> Guarantee:
    """JDP of three families of central counters (rewards, visits, transitions) each
    ``eps/(3H)``-DP per unit change (``counter_event``): a user adds at most H unit changes per
    family under add/remove and 2H under replacement (it leaves one cell and enters another at
    each step; Vietri et al. Claim 1, decisions D7), so ``eps`` / ``2 eps``; billboard lemma."""
    event = ev.UserEvent(ev.ComposedEvent((counter_event,) * 3), ((ev.ADD_REMOVE, H), (ev.REPLACEMENT, 2 * H)))
    return jdp_billboard(event, source, note, paper_epsilon=epsilon)


def pucb_guarantee(epsilon: float, H: int = 1, K: int = 2) -> Guarantee:
    """PUCB is eps-JDP under add/remove (Vietri et al. Thm 1; per-counter eps/(3H) binary
    mechanisms over K releases, Claim 1, billboard lemma); 2 eps under replacement."""
    eps_c = per_counter_epsilon(epsilon, H)
    levels = max(int(K).bit_length(), 1)
    return central_counters_jdp(epsilon, H, ev.TreeEvent(levels / eps_c, K), "Vietri et al. 2020, Thm 1 (Alg. 2, Claim 1)",
                                "Claim 1's l1 bound H holds for add/remove of a user; 2H under replacement (D7)")


def laplace_ldp_guarantee(epsilon: float, l1: float, source: str, note: str = "") -> Guarantee:
    """eps-LDP of ``Lap(l1/eps)`` per coordinate of a user's vector of l1 diameter ``l1``
    (Dwork et al. 2006): any two inputs of one user (replacement)."""
    event = ev.UserEvent(ev.LaplaceEvent(l1 / epsilon), ((ev.REPLACEMENT, l1),))
    return event_guarantee("LDP", event, source, note, paper_epsilon=epsilon)


def ldp_obi_guarantee(eps0: float, H: int = 1) -> Guarantee:
    """LDP-OBI with the Laplace mechanism is eps0-LDP (Garcelon et al. Table 1; reconstruction:
    Lap((6H-2)/eps0) per coordinate, l1 diameter 6H - 2)."""
    return laplace_ldp_guarantee(eps0, 6.0 * H - 2.0, "Garcelon et al. 2021 (Table 1 of the ICML-21 note)",
                                 "reconstruction: Laplace mechanism on one-hot user counts")


def rlsvi_guarantee(delta: float, K: int, H: int, S: int, A: int) -> Guarantee:
    """RLSVI is (eps(delta), delta)-JDP w.r.t. rewards (Lu et al. Cor. 14)."""
    return Guarantee("JDP", lu_cor14_epsilon(delta, K, H, S, A), delta, "Lu et al. Cor. 14",
                     "neighbours differ in one trajectory's rewards only (Lu et al. Remark 2)", ev.REPLACEMENT)
