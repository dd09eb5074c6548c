"""End-to-end privacy audit of RLSVI's released policy sequence (Lu et al. 2026, Thm 13 / Cor. 14).

Neighbouring datasets (Remark 2: the users share states and actions, only rewards differ): on
a one-state, two-action MDP with H = 1, user 1 plays action 0 and reports reward r1 = 0 (D) or
r1 = 1 (D'); users 2..K play the released policy pi^k and report the fixed reward 1/2 for
either action. The output is the whole sequence pi^2..pi^K, sampled through the agent's own
planning and counting code (:func:`privrl.agents.rlsvi.rlsvi_plan`, the same Gaussian block,
beta_k and backward induction; :func:`privrl.rl.planning.count_step` and the kernel's
``r_hat = r_sum / n`` update) with ``beta_scale`` chosen so that Cor. 14 certifies the target
eps after K episodes (:func:`privrl.papers.lu2026.comparisons.beta_scale_for_epsilon`).

Test statistic: T = number of released policies that play action 0. The event {T >= t} (or
{T <= t}) is chosen on the first half of the trials, its probabilities under D' and D are
estimated on the second half, and ``audit.epsilon_bounds`` gives the Clopper-Pearson lower
bound on eps at the certified delta. The certificate is refuted when that lower bound exceeds
the certified eps (a check: "checked" means not refuted, never "proved").
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from privrl.agents.rlsvi import privacy_table, rlsvi_plan
from privrl.rl.planning import count_step
from privrl.papers.common import as_generator, check_axes, check_legend, save_check_figure
from privrl.papers.lu2026.comparisons import beta_scale_for_epsilon
from privrl.papers.registry import TheoremCheck

H, S, A = 1, 1, 2
OTHER_REWARD = 0.5


@njit(cache=True)
def released_action_counts(r1, K, beta_scale, n_trials, rng):
    """int64[n_trials]: per trial, how many of pi^2..pi^K play action 0 (see module docstring)."""
    out = np.zeros(n_trials, np.int64)
    per_pair = np.zeros((6, H, S, A))       # n_sa, r_sum, r_hat, z, w, Q: the kernel's per-(h, s, a) arrays
    per_next = np.zeros((2, H, S, A, S))    # n_sas, p_hat
    n_sa, r_sum, r_hat, z, w, Q = per_pair[0], per_pair[1], per_pair[2], per_pair[3], per_pair[4], per_pair[5]
    n_sas, p_hat = per_next[0], per_next[1]
    pi = np.zeros((H, S), np.int64)
    V = np.zeros((H + 1, S))
    for t in range(n_trials):
        per_pair[:] = 0.0
        per_next[:] = 0.0
        rlsvi_plan(1, r_hat, p_hat, n_sa, beta_scale, rng, z, w, pi, V, Q)  # pi^1: no data yet
        n = count_step(n_sa, n_sas, r_sum, p_hat, 0, 0, 0, 0, r1)        # user 1: action 0, reward r1
        r_hat[0, 0, 0] = r_sum[0, 0, 0] / n
        c = 0
        for k in range(1, K):
            rlsvi_plan(k + 1, r_hat, p_hat, n_sa, beta_scale, rng, z, w, pi, V, Q)
            a = pi[0, 0]
            if a == 0:
                c += 1
            n = count_step(n_sa, n_sas, r_sum, p_hat, 0, 0, a, 0, OTHER_REWARD)
            r_hat[0, 0, a] = r_sum[0, 0, a] / n
        out[t] = c
    return out


def _best_event(t1: np.ndarray, t0: np.ndarray, K: int) -> tuple[int, bool]:
    """(threshold, upper) maximising the empirical log ratio of Pr[T >= t] (upper) or Pr[T <= t]."""
    best, arg = -np.inf, (0, True)
    for t in range(K):
        for upper in (True, False):
            p1 = np.mean(t1 >= t) if upper else np.mean(t1 <= t)
            p0 = np.mean(t0 >= t) if upper else np.mean(t0 <= t)
            if p1 > 0 and p0 > 0 and np.log(p1 / p0) > best:
                best, arg = np.log(p1 / p0), (t, upper)
    return arg


def check_rlsvi_audit(rng, eps_targets=(1.0, 4.0, 16.0), K: int = 4, delta: float = 1e-5, n_trials: int = 20000,
                      alpha: float = 0.05) -> pd.DataFrame:
    """One row per certified eps: the audited Clopper-Pearson lower bound on eps (``holds``: not above),
    and the audit's power: the same audit of the wrong twin with half the noise (sd x1/2: beta_k x1/4)
    under the same certificate (``powered``: its lower bound exceeds the certified eps)."""
    rng = as_generator(rng)
    rows = []
    for eps in eps_targets:
        bs = beta_scale_for_epsilon(eps, delta, K, H, S, A)
        cert = privacy_table(delta, K, H, S, A, bs)
        b = _audit(K, bs, n_trials, delta, alpha, rng)
        half = _audit(K, bs * HALF_NOISE ** 2, n_trials, delta, alpha, rng)["ci_low"]
        rows.append({"K": K, "H": H, "S": S, "A": A, "beta_scale": bs, "delta": delta, "n_trials": n_trials,
                     "eps_cor14": cert["eps_cor14"], "eps_exact_gaussian": cert["eps_exact_gaussian"],
                     "event": b["event"], "p_D_prime": b["p_D_prime"], "p_D": b["p_D"],
                     "eps_point": b["point"], "eps_lower_bound": b["ci_low"],
                     "holds": bool(not b["ci_low"] > cert["eps_cor14"]),
                     "eps_lower_bound_half_noise": half, "powered": bool(half > cert["eps_cor14"])})
    return pd.DataFrame(rows)


HALF_NOISE = 0.5  # the under-noised twin the audit's power is stated against (noise sd x1/2)


def _audit(K: int, beta_scale: float, n_trials: int, delta: float, alpha: float, rng) -> dict:
    """One audit of RLSVI at ``beta_scale``: the event {T >= t} or {T <= t} chosen on the first half of
    the trials, its probabilities under D' and D and the Clopper-Pearson bounds on eps on the second."""
    from privrl.mechanisms.audit import epsilon_bounds

    t1 = released_action_counts(1.0, K, beta_scale, n_trials, rng)
    t0 = released_action_counts(0.0, K, beta_scale, n_trials, rng)
    h = n_trials // 2
    thr, upper = _best_event(t1[:h], t0[:h], K)
    ev1 = (t1[h:] >= thr) if upper else (t1[h:] <= thr)
    ev0 = (t0[h:] >= thr) if upper else (t0[h:] <= thr)
    b = epsilon_bounds(int(ev1.sum()), ev1.size, int(ev0.sum()), ev0.size, delta, alpha)
    return {"event": f"T {'>=' if upper else '<='} {thr}", "p_D_prime": float(ev1.mean()), "p_D": float(ev0.mean()),
            "point": b["point"], "ci_low": float(b["ci_low"])}


LOG_FLOOR = 1e-3  # where the figure's log axis draws an audited lower bound below it (<= 0 included)


def figure_rlsvi_audit(df: pd.DataFrame, path) -> None:
    """Certified, exact and audited eps against the certified eps, log-log. An audited lower bound
    below :data:`LOG_FLOOR` (<= 0: the audit found no privacy loss there) cannot be drawn on a log
    axis: it is drawn at the floor as an open triangle with its own legend entry, never as a value."""
    fig, (ax,) = check_axes(height=2.6)
    x = df["eps_cor14"].to_numpy(float)
    low = df["eps_lower_bound"].to_numpy(float)
    floored = ~(low >= LOG_FLOOR)
    y = np.where(floored, LOG_FLOOR, low)
    ax.plot(x, x, "k--", lw=1, label="certified eps (Cor. 14)")
    ax.plot(x, df["eps_exact_gaussian"], "s:", label="exact eps of the RDP curve")
    (line,) = ax.plot(x, y, "o-", markevery=[int(i) for i in np.flatnonzero(~floored)],
                      label="audited lower bound (95% CP)")
    if floored.any():
        below = "≤ 0" if np.all(low[floored] <= 0) else f"< {LOG_FLOOR:.0e}"
        ax.plot(x[floored], y[floored], "v", ls="none", mfc="none", mec=line.get_color(), mew=1.0,
                label=f"audited lower bound {below}, drawn at {LOG_FLOOR:.0e}")
    ax.set(xscale="log", yscale="log", xlabel="certified eps", ylabel="eps",
           title=f"RLSVI end-to-end audit (K={df.K.iloc[0]}, delta={df.delta.iloc[0]:g})")
    check_legend(ax)
    save_check_figure(fig, path)  # PDF and PNG


def _measured(df: pd.DataFrame) -> str:
    return "; ".join(f"certified {r.eps_cor14:.3g}: audited lower bound {r.eps_lower_bound:.3g} ({r.event}), "
                     f"{r.eps_lower_bound_half_noise:.3g} with noise sd x{HALF_NOISE:g} "
                     f"({'flagged' if r.powered else 'not flagged: no power'})" for r in df.itertuples())


RLSVI_AUDIT = TheoremCheck(
    name="lu2026_rlsvi_audit",
    statement="RLSVI's certified (eps, delta) upper-bounds the audited eps of its released policy sequence",
    source="Lu et al. Thm 13 / Cor. 14 (end-to-end audit, Remark-2 neighbours)",
    run=check_rlsvi_audit, figure=figure_rlsvi_audit, measured=_measured,
    sizes={"eps_targets": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "minItems": 1},
           "K": {"type": "integer", "minimum": 2}, "delta": {"type": "number", "exclusiveMinimum": 0,
                                                             "exclusiveMaximum": 1},
           "n_trials": {"type": "integer", "minimum": 100}, "alpha": {"type": "number", "exclusiveMinimum": 0}},
)
