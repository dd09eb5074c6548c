"""The mechanism-kind registry and the privatizer state layout every kind shares.

A *kind* is one way of releasing a vector of counters (exact, binary tree, Laplace, shuffle
bit-sum, shuffle randomized response, ...). Its module declares it once with
:func:`register_kind` -- name, integer code, privacy model, the names of its two numba
functions, its privacy event and its bounds -- and :mod:`.privatizer` derives the agents'
door (the run-time dispatch over codes) from this registry. Adding a kind therefore means:
write its module, and list the module in ``privatizer.BUILTIN_KIND_MODULES`` (or import it
before calling ``privatizer.door``).

The two numba functions of a kind (``cache=True``; module-level, importable by name):

* ``setup(istate[8], fparams[8], horizon, epsilon, sensitivity, beta, bits_per_entry) -> R``:
  validate the parameters, fill the kind's slots of ``fparams`` / ``istate`` and return the
  number of rows ``R >= 2`` of ``fstate``;
* ``release(fstate[R, n], istate, fparams, t, x[n], m, rng, out[n])``: release the column
  sums ``x`` of a batch of ``m`` users as the ``t``-th release (1-based; the door has already
  counted it in ``istate``): leave the batch's private counts in ``fstate[ROW_LAST]``, the
  private cumulative counts in ``fstate[ROW_CUM]`` and in ``out`` (most kinds end with
  :func:`commit_release`), and refuse inputs outside the kind's domain
  (:func:`check_counts` / :func:`check_integer_counts`).

State ``(fstate, istate, fparams)`` (see :mod:`.privatizer` for the meaning of each slot).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from numba import njit

from privrl.mechanisms.events import NoPrivacyEvent

ROW_CUM, ROW_LAST = 0, 1
I_KIND, I_N, I_T, I_LEVELS, I_HORIZON, I_BITS, I_USERS = 0, 1, 2, 3, 4, 5, 6
F_EPS, F_SCALE, F_P, F_TAU, F_BETA, F_SENS = 0, 1, 2, 3, 4, 5

MODELS = ("none", "DP", "JDP", "LDP", "SDP")


@dataclass(frozen=True)
class MechanismKind:
    """One privatizer kind: what the door dispatches to, and what accounting / audit know of it.

    ``event(params) -> PrivacyEvent`` maps :func:`privatizer.describe_privatizer`'s dict of a
    state to the privacy event of one release to one counter (:mod:`.events`); ``bounds`` maps
    a name to a width formula of :mod:`.bounds` (documentation and tests).
    """

    name: str
    code: int
    model: str
    module: str
    setup: str
    release: str
    event: Callable[[dict], object]
    reference: str
    bounds: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"kind {self.name!r}: model must be one of {MODELS}; got {self.model!r}")
        if not 0 <= self.code < 2**31:
            raise ValueError(f"kind {self.name!r}: code must be a non-negative int32")


KINDS: dict[str, MechanismKind] = {}
KIND_CODES: dict[str, int] = {}
KIND_NAMES: dict[int, str] = {}
KIND_MODELS: dict[str, str] = {}


def register_kind(kind: MechanismKind) -> MechanismKind:
    """Add ``kind`` to the registry (idempotent for the same declaration); returns it."""
    old = KINDS.get(kind.name)
    if old is not None and (old.code, old.module, old.setup, old.release) == (kind.code, kind.module, kind.setup,
                                                                            kind.release):
        return old
    if old is not None or kind.code in KIND_NAMES:
        raise ValueError(f"privatizer kind {kind.name!r} / code {kind.code} is already registered")
    KINDS[kind.name] = kind
    KIND_CODES[kind.name] = kind.code
    KIND_NAMES[kind.code] = kind.name
    KIND_MODELS[kind.name] = kind.model
    return kind


def unregister_kind(name: str) -> None:
    """Remove a kind (tests that register a temporary one)."""
    kind = KINDS.pop(name)
    del KIND_CODES[name], KIND_NAMES[kind.code], KIND_MODELS[name]


@njit(cache=True, inline="always")
def commit_release(fstate, out):
    """ROW_CUM += ROW_LAST; out[n] <- ROW_CUM (the private cumulative counts)."""
    cum = fstate[ROW_CUM]
    last = fstate[ROW_LAST]
    for c in range(cum.shape[0]):
        cum[c] += last[c]
        out[c] = cum[c]


#: the range of every per-kind epsilon the door accepts (and of an agent's epsilon, run.run_seed):
#: finite, >= 1e-9 (a node scale <= 1e9 L stays far from float64's range) and <= 1e4 (beyond it the
#: samplers' float noise is no longer the law the accounting assumes; shuffle-rr stops lower, at
#: p = 2 / (e^eps + 1) >= 2^-52, the resolution of the uniforms R_p is drawn with)
EPSILON_MIN, EPSILON_MAX = 1e-9, 1e4
#: an agent's (user-level) epsilon: run.run_seed refuses anything outside it before any episode
AGENT_EPSILON_MIN = 1e-6


def check_epsilon_range(value, name: str = "epsilon", lo: float = AGENT_EPSILON_MIN, hi: float = EPSILON_MAX) -> float:
    """``value`` as a float if ``lo <= value <= hi`` (finite), else ValueError naming it and the range."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} = {value!r} is not a number; it must lie in [{lo:g}, {hi:g}]") from None
    if not (math.isfinite(v) and lo <= v <= hi):
        raise ValueError(f"{name} = {v!r} is outside the supported range [{lo:g}, {hi:g}]")
    return v


@njit(cache=True)
def check_epsilon(epsilon):
    if not (epsilon >= EPSILON_MIN and epsilon <= EPSILON_MAX):
        raise ValueError("privatizer_new: epsilon must be a finite number in [1e-9, 1e4]")


# The checks count violations without an early exit: the loop vectorises, so a check costs less
# than the former first-violation loop (~1.4 vs ~4 us for 1920 counters; docs/decisions/mechanisms.md).
@njit(cache=True, inline="always")
def check_counts(x):
    """Refuse a counting release of anything but non-negative numbers (NaN included)."""
    bad = 0
    for c in range(x.shape[0]):
        v = x[c]
        bad += (v < 0.0) | (v != v)
    if bad:
        raise ValueError("privatizer release: counts must be >= 0")


@njit(cache=True, inline="always")
def check_bounded_counts(x, bound):
    """Refuse counts outside ``[0, bound]`` (NaN included): ``bound`` = users in the batch x the
    per-user bound of one counter (the kind's sensitivity)."""
    bad = 0
    for c in range(x.shape[0]):
        v = x[c]
        bad += (v < 0.0) | (v > bound) | (v != v)
    if bad:
        raise ValueError("privatizer release: a count is outside [0, users x sensitivity] (the per-user domain)")


@njit(cache=True, inline="always")
def check_integer_counts(x, users):
    """Refuse anything but integers in ``[0, users]`` (a user holds one bit per counter: the bit
    counts of the shuffle bit-sum)."""
    bad = 0
    for c in range(x.shape[0]):
        v = x[c]
        bad += (v < 0.0) | (v > users) | (v != math.floor(v))
    if bad:
        raise ValueError("privatizer release: bit counts must be integers in [0, users] (one bit per user)")


# ----------------------------------------------------------------------------- kind "none"
@njit(cache=True)
def none_setup(istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
    """Exact counts: no parameters, two rows."""
    return 2


@njit(cache=True, inline="always")
def none_release(fstate, istate, fparams, t, x, m, rng, out):
    """Exact release: the batch's counts are x itself."""
    check_counts(x)
    last = fstate[ROW_LAST]
    for c in range(x.shape[0]):
        last[c] = x[c]
    commit_release(fstate, out)


def _none_event(params: dict):
    return NoPrivacyEvent()


NONE_KIND = register_kind(MechanismKind(
    name="none", code=0, model="none", module=__name__, setup="none_setup", release="none_release",
    event=_none_event, reference="exact counts (no privacy)"))
