"""Private-UCBVI-SDP in aggregate simulation: each doubling batch drawn at once, in law.

The SDP preset of :mod:`privrl.agents.private_ucbvi` (UCBVI on shuffle-Privatizer counts, Bai et
al. Sec. V + App. Alg. 4, Assumption 4, Eq. 4-5; a RECONSTRUCTION) releases its users in doubling
batches -- episodes 1, 2, 3-4, 5-8, ..., (2^(j-1), 2^j] (1-based) -- and plans only after a
release: within a batch the policy ``pi`` is one fixed deterministic policy (the episode kernel's
``replan`` is false from the batch's second episode to its last), and the batch enters the agent
only through its column sums x = [R (HSA) | N_sa (HSA) | N_sas (HSAS)], released at its end by
the shuffle bit-sum (one ``Bin(n_bits, q)`` per counter, already aggregate). So the run is the
same random process when each batch's sums are drawn at once:

* visits and reward sums of the batch's m episodes of ``pi``
  (:func:`privrl.rl.block_sampling.sample_block`: nested multinomials layer by layer, Bernoulli
  reward sums as binomials), added into x as the episode kernel adds its m trajectories;
* the regret: m x the policy's exact gap (:func:`~privrl.rl.block_sampling.record_block`);
* the release, error level and refresh of every row: the episode kernel's own code
  (:func:`privrl.agents.private_ucbvi.close_batch`), on the same sums and user count.

The JDP / LDP presets (private-ucbvi-jdp/ldp, dp-ucbvi-jdp/ldp) release after every episode and
replan every episode (round-robin refresh): no batch of a fixed policy, no aggregate simulation.

Work per seed: ~log2 K batches, each O(H S^2) draws + one release of (S + 2) H S A counters + H S A
row refreshes + one plan, independent of the batch size. The state is the episode kernel's
(:func:`privrl.agents.private_ucbvi.init_state`); ``ivars[I_BATCH_USERS]`` > 0 marks the open batch
as drawn (its size), so a run in chunks writes the same numbers, bit for bit, as one call. The
random stream differs from the episode kernel's (docs/decisions/aggregate_simulation.md).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from privrl.agents import private_ucbvi
from privrl.agents.optimism import bernstein_plan
from privrl.agents.private_ucbvi import (F_AUX, F_E, F_NOISE_VAR, I_BATCH_USERS, I_NEXT_RELEASE, I_REPLAN,
                                         close_batch, init_state)
from privrl.agents.simulation import register_aggregate
from privrl.mechanisms.privatizer import SHUFFLE_BITSUM
from privrl.rl import engine
from privrl.rl.block_sampling import record_block, sample_block
from privrl.rl.planning import optimistic_plan


@njit(cache=True)
def _add_batch_sums(pi, m, env, rng, x, visits, rsum):
    """Draw m episodes of pi[H, S] and add their sums into x (the layout of private_ucbvi), as the
    episode kernel adds each trajectory: x[i] += reward, x[HSA + i] += 1, x[2 HSA + i S + s'] += 1,
    i = (h S + s) A + pi[h, s]. visits int64[H, S, S], rsum float64[H, S]: work arrays."""
    H, S = pi.shape
    HSA = x.shape[0] // (S + 2)
    A = HSA // (H * S)
    sample_block(env, pi, m, H, True, rng, visits, rsum)
    for h in range(H):
        for s in range(S):
            i = (h * S + s) * A + pi[h, s]
            n = 0
            for s2 in range(S):
                n += visits[h, s, s2]
                x[2 * HSA + i * S + s2] += visits[h, s, s2]
            x[HSA + i] += n
            x[i] += rsum[h, s]


@njit(cache=True)
def run_batches(env, params, K, k0, k1, rng, rec, st, bern):
    """Episodes k0..k1-1 of the SDP preset, batch by batch (the contract of private_ucbvi.run_episodes)."""
    state, x, c, nt_sas, nt_sa, p_hat, q, coef, pi, V, traj, evc, fvars, ivars = st
    if env[9][0] == 1:
        raise ValueError("private-ucbvi-sdp aggregate simulation: common random numbers need the episode simulation")
    H, S = pi.shape
    E, noise_var, aux = fvars[F_E], fvars[F_NOISE_VAR], fvars[F_AUX]
    next_release, users = ivars[I_NEXT_RELEASE], ivars[I_BATCH_USERS]
    replan = ivars[I_REPLAN] != 0
    visits = np.zeros((H, S, S), np.int64)
    rsum = np.zeros((H, S))
    k = k0
    while k < k1:
        end = min(next_release, K)  # the open batch ends before episode `end` (0-based), or at K
        if users == 0:  # its first episode: plan (after the last release), draw all its episodes
            if replan:
                if bern:
                    aux = bernstein_plan(p_hat, q, coef, nt_sa, pi, V)
                else:
                    aux = optimistic_plan(p_hat, q, nt_sa, pi, V)
                replan = False
            users = end - k
            _add_batch_sums(pi, users, env, rng, x, visits, rsum)
        n = min(end, k1) - k
        record_block(rec, end - users, users, k + n, engine.policy_gap(env, pi, evc), aux)
        k += n
        if k == next_release:  # the batch is complete: release it, as the episode kernel does
            E, noise_var = close_batch(params, K, st, users, E, noise_var, rng, bern)
            users = 0
            next_release *= 2
            replan = True
    fvars[F_E], fvars[F_NOISE_VAR], fvars[F_AUX] = E, noise_var, aux
    ivars[I_NEXT_RELEASE], ivars[I_BATCH_USERS], ivars[I_REPLAN] = next_release, users, 1 if replan else 0


def _aggregate_preset(bern):
    """(init_state, run_episodes) of the SDP preset's aggregate simulation, registry signatures."""
    kind = np.int64(SHUFFLE_BITSUM)

    def preset_init_state(env, params, K):
        return init_state(env, params, K, kind)

    def preset_run_episodes(env, params, K, k0, k1, rng, rec, state):
        run_batches(env, params, K, k0, k1, rng, rec, state, bern)
    return preset_init_state, preset_run_episodes


for _name, _spec in private_ucbvi.SPECS.items():
    if "aggregate" in _spec.simulations:  # the doubling-batch (shuffle-bitsum) presets
        register_aggregate(_name, *_aggregate_preset(private_ucbvi.BERNSTEIN[_name]), __name__)
