"""Exact enumeration and vectorised evaluation of all deterministic policies (for SDP-PE).

Bai et al. (SDP-PE, Alg. 1) start from phi_1 = {all deterministic policies}: A^(S H)
non-stationary policies pi = (pi_1, .., pi_H), pi_h: X -> A. They are enumerated here
exactly (policy ``i`` has action ``(i // A^(h S + s)) % A`` at (h, s)) and every step of
the algorithm that ranges over the active set is one numba loop over the policies:

* :func:`occupancy` -- Pr^pi(x_h = x) under an estimated model, for all active pi
  (Alg. 2 line 4 / Alg. 3 line 2: ``V^pi(1_{h,x,a}, P~) = Pr^pi(x_h = x) 1{pi_h(x) = a}``);
* :func:`best_visitors` -- the argmax of that visitation probability per (x, a);
* :func:`policy_values` -- ``V^pi(r~, P~)`` for all active pi (Alg. 1 line 9).

Models live on the extended state space X + 1 whose last state is the absorbing x-dagger
(Bai et al. Def. 5): P float64[H, X+1, A, X+1], r float64[H, X+1, A] (zero at x-dagger),
d1 float64[X+1]. Policies: int8[n_pol, H, X]; ``active`` bool[n_pol].
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.rl.planning import FP_FLAGS, policy_start_value

DEFAULT_MAX_POLICIES = 2**16


def n_policies(H: int, S: int, A: int) -> int:
    """A^(S H), exactly (Python int)."""
    return int(A) ** (int(S) * int(H))


def check_enumerable(H: int, S: int, A: int, max_policies: float = DEFAULT_MAX_POLICIES) -> int:
    """Refuse an instance whose A^(S H) policies exceed ``max_policies``, saying what works.

    Returns the number of policies when it is enumerable.
    """
    n = n_policies(H, S, A)
    cap = int(max_policies)
    if n <= cap and A <= 127:
        return n
    budget = math.floor(math.log(cap) / math.log(A)) if A > 1 else 0
    examples = [f"S={s}, H<={budget // s}" for s in range(1, budget + 1) if budget // s >= 1][:6]
    raise ValueError(
        f"SDP-PE enumerates all A^(S*H) deterministic policies (Bai et al. Alg. 1, phi_1) and evaluates "
        f"them exactly; this instance (S={S}, A={A}, H={H}) has {A}^{S * H} = {float(n):.3g} policies, "
        f"more than max_policies = {cap}. Instances that work satisfy S*H <= floor(log_A(max_policies)) "
        f"= {budget} for A={A} ({'; '.join(examples) or 'none'}); e.g. A=2: S*H <= {int(math.log2(cap))}, "
        f"A=3: S*H <= {math.floor(math.log(cap) / math.log(3))}. Use a smaller instance or raise "
        f"max_policies (memory ~ n_pol*H*S bytes, time linear in n_pol).")


@njit(cache=True)
def enumerate_policies(H, S, A):
    """int8[A^(S H), H, S]: policy i takes action (i // A^(h S + s)) % A at (h, s)."""
    n = 1
    for _ in range(H * S):
        n *= A
    pols = np.zeros((n, H, S), np.int8)
    for i in range(n):
        q = i
        for h in range(H):
            for s in range(S):
                pols[i, h, s] = q % A
                q //= A
    return pols


@njit(cache=True, fastmath=FP_FLAGS)  # the planners' flags: no reassociation
def occupancy(pols, active, P, d1, occ):
    """occ[i, h, x] = Pr^pi_i(x_h = x) under (P, d1) for active i (x over X + 1 states).

    The absorbing x-dagger (index X) keeps its mass: P[h, X, :, X] = 1 by construction.
    """
    n, H, X = pols.shape
    Xe = X + 1
    for i in range(n):
        if not active[i]:
            continue
        for x in range(Xe):
            occ[i, 0, x] = d1[x]
        for h in range(H - 1):
            for x2 in range(Xe):
                occ[i, h + 1, x2] = 0.0
            for x in range(Xe):
                m = occ[i, h, x]
                if m == 0.0:
                    continue
                a = pols[i, h, x] if x < X else 0
                for x2 in range(Xe):
                    occ[i, h + 1, x2] += m * P[h, x, a, x2]


@njit(cache=True)
def best_visitors(pols, active, occ, h, A, out):
    """out[x, a] = argmax over active i of ``occ[i, h, x] 1{pi_i,h(x) = a}`` (Alg. 2 line 4, Alg. 3 line 2).

    Policies that do not take a at (h, x) score -1, so a policy that does always wins;
    ties go to the lowest index (deterministic).
    """
    n, H, X = pols.shape
    for x in range(X):
        for a in range(A):
            best = -2.0
            arg = -1
            for i in range(n):
                if not active[i]:
                    continue
                v = occ[i, h, x] if pols[i, h, x] == a else -1.0
                if v > best:
                    best = v
                    arg = i
            out[x, a] = arg


@njit(cache=True)
def policy_values(pols, active, P, r, d1, out):
    """out[i] = V^pi_i(r, P) = d1 . V_1 for active i (planning.policy_start_value; x-dagger has value 0)."""
    n, H, X = pols.shape
    V = np.zeros((H + 1, X + 1))
    for i in range(n):
        if active[i]:
            out[i] = policy_start_value(P, r, d1, pols[i], V)


@njit(cache=True)
def true_values(pols, P, R, rho):
    """V^pi(R, P) of every policy under the true model P[H, S, A, S] (tests and analyses)."""
    n, H, S = pols.shape
    A = P.shape[2]
    Pe = np.zeros((H, S + 1, A, S + 1))
    Re = np.zeros((H, S + 1, A))
    Pe[:, :S, :, :S] = P
    Pe[:, S, :, S] = 1.0
    Re[:, :S, :] = R
    d1 = np.zeros(S + 1)
    d1[:S] = rho
    out = np.zeros(n)
    policy_values(pols, np.ones(n, np.bool_), Pe, Re, d1, out)
    return out
