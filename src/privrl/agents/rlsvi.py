"""RLSVI for tabular MDPs (Lu, Gajane, Bai & Talebi 2026, Alg. 1) -- a JDP agent "as is".

Per episode k (1-based in the paper, ``k + 1`` here for the 0-based loop index):

* counts N_h^k(s, a), N_h^k(s, a, s') and reward sums R_h^k(s, a) of episodes 1..k-1;
  R^ = R / N and P^ = N(s, a, .) / N, both **zero where N = 0** (Eq. 1);
* ``beta_k = (1/2) S H^3 log(2 H S A k)`` (Alg. 1 input) times ``beta_scale`` (1 = the paper);
* backward induction (Alg. 1 lines 5-15), for h = H..1::

      Q~_h(s, a) = R^_h(s, a) + sum_s' P^_h(s'|s, a) V~_{h+1}(s') + w_h(s, a),
      w_h(s, a) ~ N(0, beta_k / (N_h(s, a) + 1)),     V~_h(s) = max_a Q~_h(s, a)

  and the greedy policy pi_h(s) = argmax_a Q~_h(s, a) (no clipping: Alg. 1 has none).

The noise is drawn in one block per episode: ``Z[H, S, A]`` standard normals from
:func:`privrl.mechanisms.privatizer.gaussian_noise` (the agent draws no noise itself), then
``w = sqrt(beta_k / (N + 1)) Z`` (:func:`rlsvi_noise_block`). Layer h uses ``Z[h]``.

Privacy is *computed*, not added (Lu et al. Lemma 11-12, Thm 13, Cor. 14): the run's
guarantees are Cor. 14, the numeric minimum of Thm 13 over alpha, and dp_accounting's
conversions of the same RDP curve (:func:`guarantees`). The RDP slope scales as
``1 / beta_scale``, i.e. every formula is evaluated at ``K / beta_scale`` episodes. The
guarantee covers **rewards only**: neighbouring users share their states and actions
(Lu et al. Remark 2).

Diagnostic ``aux`` (per episode): fraction of (h, s, a) whose perturbation standard deviation
``sqrt(beta_k / (N + 1))`` exceeds the remaining value range ``H - h`` (0-based h) -- the
analogue of a saturated optimism bonus: near 1, the policy is driven by the noise.

Parameters (vector order): beta_scale, delta (the delta of the reported (eps, delta)-JDP).
Arrays: counts float64[H, S, A], transitions float64[H, S, A, S], policy int64[H, S].
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from privrl.rl import engine
from privrl.mechanisms.privatizer import gaussian_noise
from privrl.agents.audit_probe import AuditProbe
from privrl.agents.crossover import optimism_rule, uniform_visits
from privrl.agents.registry import OPEN_UNIT, POSITIVE, AgentSpec, register
from privrl.rl.planning import count_step, perturbed_plan

BETA_SCALE, DELTA = 0, 1


@njit(cache=True)
def rlsvi_beta(k, H, S, A):
    """Lu et al. Alg. 1 tuning: ``beta_k = (1/2) S H^3 log(2 H S A k)``."""
    return 0.5 * S * H**3 * math.log(2.0 * H * S * A * k)


@njit(cache=True)
def rlsvi_noise_block(beta, n_sa, z, w):
    """w[H, S, A] = sqrt(beta / (n_sa + 1)) * z (Alg. 1 line 10 variance); returns the aux fraction."""
    H, S, A = n_sa.shape
    wide = 0
    for h in range(H):
        cap = float(H - h)
        for s in range(S):
            for a in range(A):
                sd = math.sqrt(beta / (n_sa[h, s, a] + 1.0))
                w[h, s, a] = sd * z[h, s, a]
                if sd > cap:
                    wide += 1
    return wide / (H * S * A)


@njit(cache=True)
def rlsvi_plan(k1, r_hat, p_hat, n_sa, beta_scale, rng, z, w, pi, V, Q):
    """Plan episode k1 (1-based): draw the noise block, perturb, backward induction; returns aux."""
    H, S, A = n_sa.shape
    beta = beta_scale * rlsvi_beta(k1, H, S, A)
    gaussian_noise(1.0, rng, z.reshape(H * S * A))
    aux = rlsvi_noise_block(beta, n_sa, z, w)
    perturbed_plan(r_hat, p_hat, w, pi, V, Q)  # Alg. 1 lines 5-15
    return aux


def init_state(env, params, K):
    """(n_sa, n_sas, r_sum, r_hat, p_hat, z, w, Q, pi, V, traj, evc): counts, reward sums and the
    model [H, S, A(, S)], the noise block z and perturbation w [H, S, A], Q [H, S, A], policy
    int64[H, S], values [H + 1, S]."""
    if not (params[BETA_SCALE] > 0.0 and params[BETA_SCALE] < np.inf and params[DELTA] > 0.0 and params[DELTA] < 1.0):
        raise ValueError("rlsvi: beta_scale must be finite and > 0, delta in (0, 1) (NaN refused)")
    P = env[0]
    H, S, A = P.shape[0], P.shape[1], P.shape[2]
    return (np.zeros((H, S, A)), np.zeros((H, S, A, S)), np.zeros((H, S, A)), np.zeros((H, S, A)),
            np.zeros((H, S, A, S)), np.zeros((H, S, A)), np.zeros((H, S, A)), np.zeros((H, S, A)),
            np.zeros((H, S), np.int64), np.zeros((H + 1, S)), engine.new_trajectory(H), engine.new_eval_cache(H, S))


@njit(cache=True)
def run_episodes(env, params, K, k0, k1, rng, rec, state):
    """The registry's entry point: :func:`episode_loop` (the arguments' owner, so numba's
    reference counting stays on here and off in the loop; engine.py)."""
    episode_loop(env, params, K, k0, k1, rng, rec, state)


@njit(cache=True, _nrt=False)
def episode_loop(env, params, K, k0, k1, rng, rec, state):
    n_sa, n_sas, r_sum, r_hat, p_hat, z, w, Q, pi, V, traj, evc = state
    H = n_sa.shape[0]
    for k in range(k0, k1):
        aux = rlsvi_plan(k + 1, r_hat, p_hat, n_sa, params[BETA_SCALE], rng, z, w, pi, V, Q)
        engine.step(env, pi, k, aux, rng, traj, evc, rec)
        states, actions, rewards = traj
        for h in range(H):
            s, a = states[h], actions[h]
            n = count_step(n_sa, n_sas, r_sum, p_hat, h, s, a, states[h + 1], rewards[h])
            r_hat[h, s, a] = r_sum[h, s, a] / n


REMARK_2 = "covers rewards only: neighbouring users share states and actions (Lu et al. Remark 2)"


def effective_episodes(K: int, beta_scale: float) -> float:
    """The RDP slope of K episodes at ``beta_scale`` equals the paper's at ``K / beta_scale`` episodes."""
    if not beta_scale > 0:
        raise ValueError(f"beta_scale must be > 0; got {beta_scale}")
    return K / beta_scale


def library_rdp_epsilon(delta: float, Ke: float, H: int, S: int, A: int) -> float:
    """dp_accounting's RdpAccountant on Lemma 12's curve ``alpha rho`` (a Gaussian, noise multiplier
    ``1 / sqrt(2 rho)``), with Cor. 14's optimal order ``alpha* = 1 + sqrt(log(1/delta) / rho)`` added
    to the order grid: the library's conversion at alpha* is never looser than Lemma 8 at alpha*,
    i.e. than Cor. 14 (``accounting.lu_library_epsilon``'s fixed grid can miss alpha* ~ 1.03 by a
    hair at large K -- 0.02% looser; docs/decisions/agents.md R6). dp_accounting refuses orders <= 1.01
    (numerical stability), so where ``alpha* <= 1.01`` (rho > 1e4 log(1/delta), eps in the
    tens of thousands) the library cannot match Cor. 14 (:func:`library_in_domain`)."""
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    from privrl.mechanisms import accounting

    rho = accounting.lu_rho(Ke, H, S, A)
    a_star = 1.0 + math.sqrt(math.log(1.0 / delta) / rho)
    orders = np.unique(np.concatenate([np.linspace(1.01, 8, 400), np.geomspace(8, 1e5, 600),
                                       a_star * np.array([0.999, 1.0, 1.001])]))
    acc = rdp_privacy_accountant.RdpAccountant(orders=[float(o) for o in orders if o > 1.0])
    return float(acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / math.sqrt(2.0 * rho)))
                 .get_epsilon(delta))


def library_in_domain(delta: float, Ke: float, H: int, S: int, A: int) -> bool:
    """True when Cor. 14's optimal order exceeds dp_accounting's smallest usable order 1.01."""
    from privrl.mechanisms import accounting

    return 1.0 + math.sqrt(math.log(1.0 / delta) / accounting.lu_rho(Ke, H, S, A)) > 1.01


def privacy_table(delta: float, K: int, H: int, S: int, A: int, beta_scale: float = 1.0) -> dict:
    """eps(delta) of K RLSVI episodes four ways: Cor. 14, min_alpha Thm 13, dp_accounting's RDP
    conversion, and the exact eps of the Gaussian that the RDP curve describes (what a PLD
    accountant converges to; ``accounting.lu_exact_epsilon``, closed form, fast at any K)."""
    from privrl.mechanisms import accounting  # lazily: scipy costs ~1 s of import in every run job

    Ke = effective_episodes(K, beta_scale)
    cor14 = accounting.lu_cor14_epsilon(delta, Ke, H, S, A)
    num, alpha = accounting.lu_thm13_minimised(delta, Ke, H, S, A)
    return {"K": K, "beta_scale": beta_scale, "delta": delta, "rho": accounting.lu_rho(Ke, H, S, A),
            "eps_cor14": cor14, "eps_thm13_min": num, "alpha_opt": alpha,
            "eps_library_rdp": library_rdp_epsilon(delta, Ke, H, S, A),
            "eps_exact_gaussian": accounting.lu_exact_epsilon(delta, Ke, H, S, A),
            "library_in_domain": library_in_domain(delta, Ke, H, S, A)}


def guarantees(params, mdp, K: int) -> list:
    """(eps(delta), delta)-JDP of the run, w.r.t. rewards (Cor. 14, Thm 13 numeric, library)."""
    t = privacy_table(params["delta"], K, mdp.H, mdp.S, mdp.A, params["beta_scale"])
    from privrl.mechanisms import accounting

    scale = "" if params["beta_scale"] == 1.0 else f"; beta_scale={params['beta_scale']:g}: evaluated at K/beta_scale"
    G = accounting.Guarantee
    return [
        G("JDP", t["eps_cor14"], t["delta"], "Lu et al. Cor. 14", REMARK_2 + scale),
        G("JDP", t["eps_thm13_min"], t["delta"], "Lu et al. Thm 13, numeric min over alpha",
          f"alpha* = {t['alpha_opt']:.6g}; {REMARK_2}{scale}"),
        G("JDP", t["eps_library_rdp"], t["delta"], "dp_accounting RdpAccountant on Lemma 12's RDP curve",
          REMARK_2 + scale),
        G("JDP", t["eps_exact_gaussian"], t["delta"], "exact eps of Lemma 12's RDP curve read as a Gaussian (mu-GDP)",
          REMARK_2 + scale),
    ]


def step_width(p, mdp, K):
    """Perturbation sd ``sqrt(beta_K / (n + 1))`` after K episodes of uniform visitation (Alg. 1)."""
    beta = p["beta_scale"] * rlsvi_beta(K, mdp.H, mdp.S, mdp.A)
    return math.sqrt(beta / (uniform_visits(K, mdp) + 1.0))


SPEC = register(AgentSpec(
    name="rlsvi",
    init_state=init_state,
    run_episodes=run_episodes,
    defaults={"beta_scale": 1.0, "delta": 1e-5},
    domains={"beta_scale": POSITIVE, "delta": OPEN_UNIT},
    privacy_model="JDP",
    reference="Lu, Gajane, Bai & Talebi (2026), Alg. 1; privacy Lemma 11-12, Thm 13, Cor. 14",
    description="RLSVI (Gaussian-perturbed empirical value iteration); JDP w.r.t. rewards without added noise",
    privatizer="none (its own exploration noise)",
    guarantees=guarantees,
    # the audit reads the perturbed Q~ (the policies are its post-processing) at beta_scale 10, where the
    # claim at a few episodes is small enough for an audit of 1e4 runs to exceed it if it is wrong
    audit_probe=AuditProbe(released=(("perturbed_plan", 5),), audit_params={"beta_scale": 10.0}, rewards_only=True,
                           power_multiplier=0.1),
    crossover_rule=optimism_rule(step_width, "sd sqrt(beta_k / (N + 1)), beta_k = (1/2) S H^3 log(2HSAk)"),
))
