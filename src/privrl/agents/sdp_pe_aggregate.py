"""SDP-PE and PE in aggregate simulation: each block of m episodes drawn at once, in law.

Within a block of Bai et al.'s Alg. 2 (crude exploration of layer h, pair (x, a)) or Alg. 3
(fine exploration of layer h, pair (x, a)) the agent plays one fixed deterministic policy
pi_{h,x,a} for its m episodes and uses only the block's counts; the Privatizer sees only the
batch's column sums (Alg. 2 line 7 / Alg. 3 line 5: one release per batch D^h, D). So the run
is the same random process when each block's counts are drawn at once
(:func:`privrl.rl.block_sampling.sample_block`: nested multinomials layer by layer, binomial
reward sums) and each block's regret is recorded as m x the policy's exact gap
(:func:`~privrl.rl.block_sampling.record_block`). What each batch releases is unchanged:

* crude batch D^h (Alg. 2 line 7): N~_h(x, a, x'), N~_h(x, a) of the (h, x, a) transitions;
* fine batch D (Alg. 3 line 5): N~_h(x, a, x'), N~_h(x, a), R~_h(x, a) for every h;

through the same Privatizer: shuffle-bitsum already draws the binomial noise of Alg. 4 in
aggregate (one Bin per counter), central-tree one Laplace draw per counter, none exact; only
local-laplace changes its draw (the sum of the m users' Laplace noise as b (Gamma(m) -
Gamma(m)), :mod:`privrl.mechanisms.laplace_sum`). Between blocks the algorithm is the episode
kernel's own code (:func:`privrl.agents.sdp_pe._advance`), so stages, thresholds and
elimination are identical functions of the counts.

Work per seed: O(blocks x H S^2) draws plus the between-block planning, independent of K
(~2 H S A blocks per stage, log2 K stages). The state is the episode kernel's
(:func:`privrl.agents.sdp_pe.init_state`); the block's counts are drawn when its first episode is
reached (``pos[P_DRAWN]`` = the block's size once drawn), and its regret is added once it is
complete (:func:`~privrl.rl.block_sampling.record_block`), so a run in chunks writes the same
numbers, bit for bit, as one in a single call.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from privrl.agents import sdp_pe
from privrl.agents.registry import REGISTRY
from privrl.agents.simulation import register_aggregate
from privrl.agents.sdp_pe import P_B, P_DRAWN, P_H, P_K, P_LEFT, P_PHASE, PH_CRUDE, _advance
from privrl.rl import engine
from privrl.rl.block_sampling import record_block, sample_block


@njit(cache=True)
def _add_block_counts(pi, m, crude, h, env, rng, st):
    """Draw m episodes of pi and add what the current batch counts (as sdp_pe.run_episodes does
    episode by episode): crude layer h into c_sas[XA, X], c_sa; fine every layer into f_sas,
    f_sa, f_r [H XA(, X)]."""
    c_sas, c_sa, f_sas, f_sa, f_r = st[14], st[15], st[19], st[20], st[21]
    H, X = pi.shape
    XA = c_sa.shape[0]
    A = XA // X
    visits = np.zeros((H, X, X), np.int64)
    rsum = np.zeros((H, X))
    sample_block(env, pi, m, h + 1 if crude else H, not crude, rng, visits, rsum)
    for h2 in range(h if crude else 0, h + 1 if crude else H):
        for s in range(X):
            a = pi[h2, s]
            for s2 in range(X):
                n = visits[h2, s, s2]
                if n == 0:
                    continue
                if crude:
                    c_sas[s * A + a, s2] += n
                    c_sa[s * A + a] += n
                else:
                    row = h2 * XA + s * A + a
                    f_sas[row, s2] += n
                    f_sa[row] += n
            if not crude:
                f_r[h2 * XA + s * A + a] += rsum[h2, s]


@njit(cache=True)
def run_blocks(env, params, K, k0, k1, rng, rec, st, code):
    """Episodes k0..k1-1 of Alg. 1, block by block (the contract of sdp_pe.run_episodes)."""
    pi, evc, fv, pos, sched = st[11], st[13], st[29], st[28], st[25]
    if pos[P_K] != k0:
        raise ValueError("SDP-PE: the state is not at episode k0")
    k = k0
    while k < k1:
        while pos[P_LEFT] == 0:
            _advance(params, K, rng, st, code, True)
        if pos[P_DRAWN] == 0:  # the block's first episode: draw all its statistics now
            _add_block_counts(pi, pos[P_LEFT], pos[P_PHASE] == PH_CRUDE, pos[P_H], env, rng, st)
            pos[P_DRAWN] = pos[P_LEFT]
        m = pos[P_DRAWN]
        n = min(pos[P_LEFT], k1 - k)
        record_block(rec, k + pos[P_LEFT] - m, m, k + n, engine.policy_gap(env, pi, evc), fv[0])
        pos[P_LEFT] -= n
        k += n
        if pos[P_LEFT] == 0:
            pos[P_DRAWN] = 0
    pos[P_K] = k1
    if k1 == K:
        while pos[P_B] < sched.shape[0]:
            _advance(params, K, rng, st, code, True)


for _name, (_priv, _model, _code) in sdp_pe.PRESETS.items():
    register_aggregate(_name, *sdp_pe._checked(_code, tuple(REGISTRY[_name].defaults), run_blocks), __name__)
