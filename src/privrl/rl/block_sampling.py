"""Aggregate simulation: a block of m episodes of one fixed policy, drawn exactly in law.

An agent whose policy is fixed within a block of m episodes (SDP-PE's crude and fine
exploration blocks, Bai et al. Alg. 2-3) uses only the block's *sufficient statistics*: how
many of the m trajectories passed through each (h, s, s') and the sum of their rewards there.
Those statistics are drawn here in law, in O(H S^2) draws per block instead of O(m H):

* visits, layer by layer: ``n_1 ~ Mult(m, rho)``; given the ``n_h(s)`` trajectories at (h, s),
  their successors are ``Mult(n_h(s), P_h(. | s, pi_h(s)))`` and ``n_{h+1} = sum_s`` of those.
  The m trajectories are i.i.d. (the policy does not change within the block), so the counts
  of one layer given the previous are independent multinomials -- the law of the episode-by-
  episode counts exactly (Markov property; sums of independent categorical draws);
* Bernoulli rewards: given ``n_h(s)`` visits, the reward sum is ``Bin(n_h(s), R_h(s, a))``;
  deterministic rewards (or means 0 / 1) sum to ``n_h(s) R_h(s, a)``, as the episode kernel
  (:func:`privrl.rl.engine.play_episode`) draws them;
* the regret of the block: the engine records the exact per-episode regret
  ``V*_1 - V^pi_1`` (:func:`privrl.rl.engine.policy_gap`), a deterministic function of the
  policy, so m episodes of pi add ``m`` times that gap (:func:`record_block` writes every
  checkpoint inside the block as the episode recorder would, up to float rounding of the sum).

Multinomials are drawn as chained conditional binomials (``X_i ~ Bin(n - sum_{j<i} X_j,
p_i / sum_{j>=i} p_j)``), exact for any n up to 2^63 (numpy's BTPE binomial). Counts are int64.
The random stream differs from the episode kernel's (other draws in another order): a seed's
result differs, its law does not (docs/decisions/aggregate_simulation.md).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def multinomial_add(n, p, rng, out):
    """out[S] += Mult(n, p[S]) (int64) by chained binomials; the remainder goes to the last
    index with p > 0 (so a zero-probability state is never drawn)."""
    S = p.shape[0]
    last = S - 1
    while last > 0 and not p[last] > 0.0:
        last -= 1
    rem = n
    mass = 0.0
    for i in range(last + 1):
        mass += p[i]
    for i in range(last):
        if rem == 0:
            return
        pi = p[i]
        if pi > 0.0:
            q = pi / mass if mass > 0.0 else 1.0
            x = rem if q >= 1.0 else rng.binomial(rem, q)
            out[i] += x
            rem -= x
        mass -= pi
    out[last] += rem


@njit(cache=True)
def sample_block(env, pi, m, n_layers, with_rewards, rng, visits, rsum):
    """The statistics of m episodes of pi[H, S] over the first ``n_layers`` layers.

    Fills visits int64[H, S, S] (``visits[h, s, s']``: trajectories in s at layer h that moved
    to s'; the action is pi[h, s]) and, if ``with_rewards``, rsum float64[H, S] (the reward
    sums at (h, s)); layers >= n_layers are left at zero (not drawn).
    """
    P, R, det_next, bern, rho = env[0], env[2], env[3], env[4], env[5]
    S = rho.shape[0]
    visits[:, :, :] = 0
    rsum[:, :] = 0.0
    cur = np.zeros(S, np.int64)
    nxt = np.zeros(S, np.int64)
    if S > 1 and env[6][0] < 1.0:
        multinomial_add(m, rho, rng, cur)
    else:
        cur[0] = m
    for h in range(n_layers):
        nxt[:] = 0
        for s in range(S):
            n = cur[s]
            if n == 0:
                continue
            a = pi[h, s]
            if with_rewards:
                mean = R[h, s, a]
                if bern[0] == 1 and 0.0 < mean < 1.0:
                    rsum[h, s] = rng.binomial(n, mean)
                else:
                    rsum[h, s] = n * mean
            d = det_next[h, s, a]
            if d >= 0:
                visits[h, s, d] += n
            else:
                multinomial_add(n, P[h, s, a], rng, visits[h, s])
            for s2 in range(S):
                nxt[s2] += visits[h, s, s2]
        cur, nxt = nxt, cur


@njit(cache=True)
def record_block(rec, kb, m, k1, gap, aux):
    """Episodes of the block kb..kb+m-1 (0-based) of one policy, up to episode k1 - 1, into the
    recorder (see :func:`privrl.rl.engine.record`): each episode adds ``gap`` to the regret,
    ``aux`` to the diagnostic and one PAC mistake per alpha < gap. Every checkpoint up to k1 gets
    the totals at its episode (``acc + j gap`` for the block's j-th episode); the totals ``acc``
    advance once the block is complete (k1 = kb + m), by ``m gap``. So a block recorded in pieces
    (a run in chunks) writes the same numbers, bit for bit, as in one piece."""
    ckpts, alphas, cum, auxo, mist, acc, cursor = rec
    J = alphas.shape[0]
    c = cursor[0]
    while c < ckpts.shape[0] and ckpts[c] <= k1:
        j = ckpts[c] - kb
        cum[c] = acc[0] + j * gap
        auxo[c] = acc[1] + j * aux
        for i in range(J):
            mist[c, i] = np.int64(acc[2 + i]) + (j if gap > alphas[i] else 0)
        c += 1
    cursor[0] = c
    if k1 == kb + m:
        acc[0] += m * gap
        acc[1] += m * aux
        for i in range(J):
            if gap > alphas[i]:
                acc[2 + i] += m
