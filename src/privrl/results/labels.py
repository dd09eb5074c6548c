"""Human text of figures and captions: config labels, numbers and env names for print (no ids,
no ``1e+07``); pure string functions (no matplotlib), also used by the Snakefile for titles."""
from __future__ import annotations

import inspect
import math
import re

import numpy as np

_MATH_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?)0*(\d+)(?![\w.])")
_WORDS = [(re.compile(r"\beps0\b"), "ε₀"), (re.compile(r"\beps\b"), "ε"), (re.compile(r"\btau\b"), "τ"),
          (re.compile(r"\bbeta_k\b"), r"$\\beta_k$"), (re.compile(r"\bbeta\b"), "β"), (re.compile(r"\balpha\b"), "α"), (re.compile(r"\bdelta\b"), "δ"),
          (re.compile(r"\bbonus_scale\b"), "bonus ×"), (re.compile(r"\bdp_accounting\b"), "dp-accounting"),
          (re.compile(r"\bsqrt\s?\(?K\)?"), r"$\\sqrt{K}$"),
          (re.compile(r"\b([A-Z])_([A-Za-z0-9])\b"), r"$\1_{\2}$"), (re.compile(r"\bbeta_scale\b"), "β scale"),
          (re.compile(r"(?<=\s)x(?=\d|\$)"), "×"), (re.compile(r"\^\((\d+)/(\d+)\)"), r"$^{\1/\2}$")]


def sci(value: float, digits: int = 3) -> str:
    """A number for print: ``0.1``, ``250``, ``$10^{7}$``, ``$2.5\\times10^{6}$`` (never ``1e+07``)."""
    v = float(value)
    if not np.isfinite(v):
        return "n/a"
    if v == 0 or 1e-3 <= abs(v) < 1e5:
        return str(int(v)) if v == int(v) else f"{v:.{digits}g}"
    exp = int(math.floor(math.log10(abs(v))))
    mant = v / 10 ** exp
    m = f"{mant:.{max(digits - 1, 1)}g}"
    return f"$10^{{{exp}}}$" if m == "1" else f"${m}\\times10^{{{exp}}}$"


def human(text: str) -> str:
    """A config label or statement for print: eps -> ε, tau -> τ, ``x0.1`` -> ``×0.1``,
    ``1e-4`` -> 10^-4 (mathtext), ``K^(1/3)`` -> K^{1/3}; mathtext ``$...$`` is kept as it is
    (so ``human(human(s)) == human(s)``)."""
    parts = re.split(r"(\$[^$]*\$)", str(text))
    out = []
    for i, s in enumerate(parts):
        if i % 2 == 0:
            for pat, rep in _WORDS:
                s = pat.sub(rep, s)
            s = _MATH_NUMBER.sub(lambda m: sci(float(m.group(0))), s)
        out.append(s)
    return re.sub(r"[ \t]{2,}", " ", "".join(out)).strip(" ")


_EPS_IN_LABEL = re.compile(r"[,;]?\s*\(?\s*\b(?:eps0?|ε₀?)\s*=\s*[-+0-9.eE]+\s*\)?(?=\s|,|$|\))")


def without_eps(label: str) -> str:
    """The label with its ``eps=<number>`` part removed ("PUCB eps=10 (bonus x0.1)" ->
    "PUCB (bonus x0.1)"): the ε of a line is its colour."""
    s = re.sub(r"\s+at eps_\w+\(K=[^)]*\)", "", str(label))  # a matched cell: "PUCB at eps_RLSVI(K=1000)"
    s = _EPS_IN_LABEL.sub("", s)
    s = re.sub(r"\(\s*\)", "", s)
    return re.sub(r"\s{2,}", " ", s).strip(" ,;")


def env_title(spec: dict) -> str:
    """Human name of a config env entry: ``RiverSwim (S=6, H=20)``, ``hard instance (n=2, gap=0.2)``;
    a one-state garnet is the bandit it is: ``2-armed bandit`` (H = 1), ``2-armed bandit (H=3)``
    (played H times an episode), not ``garnet (S=1, A=2, branching 1, H=1)``."""
    names = {"riverswim": "RiverSwim", "garnet": "garnet", "hard_instance": "hard instance"}
    name = names.get(spec.get("name", ""), str(spec.get("name", "")).replace("_", " "))
    params = dict(spec.get("params") or {})
    params.pop("seed", None)
    if spec.get("name") == "garnet" and params.get("S") == 1:  # one state: branching is 1, the arms are A
        from privrl.rl.envs import garnet

        arms = params.get("A", inspect.signature(garnet).parameters["A"].default)
        name = f"{arms:g}-armed bandit" if isinstance(arms, (int, float)) else "bandit"
        params = {k: v for k, v in params.items() if k not in ("S", "A", "branching") and not (k == "H" and v == 1)}

    def item(k, v) -> str:  # S=6 (a symbol), branching 2 (a word)
        v = f"{v:g}" if isinstance(v, (int, float)) else str(v)
        return f"{k}={v}" if len(k) <= 2 else f"{k} {v}"

    text = ", ".join(item(k, v) for k, v in params.items())
    return f"{name} ({text})" if text else name


def at_k(Ks, what: str = "regret") -> str:
    """An axis label that says which K: ``regret at K = $10^{7}$``; runs of several lengths
    ``regret at K = $10^{6}$–$10^{7}$`` (each point at its run's last episode)."""
    vals = sorted({float(k) for k in np.atleast_1d(np.asarray(Ks, dtype=float)) if np.isfinite(k)})
    if not vals:
        return f"{what} at the run's last episode K"
    return f"{what} at K = {sci(vals[0])}" + (f"–{sci(vals[-1])}" if len(vals) > 1 else "")
