"""Shared helpers of the issue-5 analyses (``rlsvi_privacy``, ``bai_table1``); registers nothing.

Data shapes: per-seed cumulative regret ``R`` float64[n_seeds, C] at checkpoints ``episodes``
int64[C] (from :func:`privrl.results.stats.seed_matrix`). Every CI is a 95% percentile bootstrap over
seeds (seeds resampled independently per cell), drawn from a stable per-analysis stream.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from privrl.rl import envs, seeding
from privrl.results.stats import seed_matrix
from privrl.papers import AnalysisContext

N_BOOT = 2000
Q = (0.025, 0.975)


def rng_for(ctx: AnalysisContext, what: str) -> np.random.Generator:
    return seeding.generator("analysis", f"{ctx.experiment}/{what}", 0)


def env_mdp(ctx: AnalysisContext, env_key: str):
    """The experiment's MDP for ``env_key``, rebuilt from the config (deterministic factories)."""
    spec = ctx.config["envs"][env_key]
    return envs.make(spec["name"], **dict(spec.get("params", {}) or {}))


def curves(ctx: AnalysisContext, env: str, cell: str, value: str = "cum_regret") -> tuple[np.ndarray, np.ndarray]:
    """(episodes int64[C], per-seed values float64[n, C]) of one cell."""
    _, ep, vals = seed_matrix(ctx.runs(env, cell), value)
    return np.asarray(ep), vals


def at_episode(ep: np.ndarray, R: np.ndarray, K: float) -> np.ndarray:
    """Per-seed cumulative value at episode K: exact at a checkpoint, else linear in log K between
    the two bracketing checkpoints (log-spaced, <= 10% apart; the curves are monotone)."""
    ep = np.asarray(ep, dtype=np.float64)
    if K < ep[0] or K > ep[-1]:
        raise ValueError(f"episode {K:g} outside the recorded range [{ep[0]:g}, {ep[-1]:g}]")
    j = int(np.searchsorted(ep, K))
    if ep[j] == K:
        return R[:, j].copy()
    lo, hi = j - 1, j
    w = (np.log(K) - np.log(ep[lo])) / (np.log(ep[hi]) - np.log(ep[lo]))
    return R[:, lo] + w * (R[:, hi] - R[:, lo])


def mean_ci(x: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=np.float64)
    if x.size < 2:
        return float(x.mean()), float(x.mean()), float(x.mean())
    boots = x[rng.integers(0, x.size, size=(N_BOOT, x.size))].mean(axis=1)
    lo, hi = np.quantile(boots, Q)
    return float(x.mean()), float(lo), float(hi)


def ratio_ci(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float]:
    """mean(x) / mean(y) with a CI from independent seed resamples of x and y."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    bx = x[rng.integers(0, x.size, size=(N_BOOT, x.size))].mean(axis=1)
    by = y[rng.integers(0, y.size, size=(N_BOOT, y.size))].mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = bx / by
    lo, hi = np.nanquantile(r, Q)
    return float(x.mean() / y.mean()) if y.mean() != 0 else float("nan"), float(lo), float(hi)


def diff_ci(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[float, float, float]:
    """mean(x) - mean(y) with a CI from independent seed resamples."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    bx = x[rng.integers(0, x.size, size=(N_BOOT, x.size))].mean(axis=1)
    by = y[rng.integers(0, y.size, size=(N_BOOT, y.size))].mean(axis=1)
    lo, hi = np.quantile(bx - by, Q)
    return float(x.mean() - y.mean()), float(lo), float(hi)


def at_most_verdict(lo: float, hi: float, threshold: float) -> str:
    """'reproduced' if the CI lies at or below the threshold, 'not reproduced' if above it."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "inconclusive"
    return "reproduced" if hi <= threshold else ("not reproduced" if lo > threshold else "inconclusive")


def claim(ctx: AnalysisContext, cid: str, statement: str, source: str, artifact: str, measured: str,
          verdict: str) -> dict[str, Any]:
    return {"experiment": ctx.experiment, "id": cid, "statement": statement, "source": source,
            "artifact": artifact, "measured": measured, "verdict": verdict}


def infos_of(ctx: AnalysisContext, agent: str | None = None, env: str | None = None,
             where: Mapping[str, float] | None = None) -> list[dict]:
    """Run infos filtered by agent, env key and exact parameter values."""
    out = []
    for info in ctx.infos:
        if agent is not None and info["agent"] != agent:
            continue
        if env is not None and info["env_key"] != env:
            continue
        if where and any(not np.isclose(info["params"].get(k, np.nan), v, rtol=1e-9, atol=0) for k, v in where.items()):
            continue
        out.append(info)
    return out


def fmt_ci(m: float, lo: float, hi: float, digits: int = 4) -> str:
    return f"{m:.{digits}g} [{lo:.{digits}g}, {hi:.{digits}g}]"
