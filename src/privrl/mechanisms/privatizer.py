"""The agents' one door into privrl.mechanisms: privatizer kinds, and every other noisy function.

An agent never draws privacy noise itself: it holds a privatizer *state* and hands each
episode's (or batch's) count increments to ``privatizer_release`` / ``privatizer_release_sums``
/ ``privatizer_release_batch``, getting back private cumulative counts. All functions are
numba kernels callable from Python and from njit agent kernels; ``make_privatizer`` is the
Python constructor (``privatizer_new`` is the same inside numba). The other functions an
agent may call that draw noise or transform released statistics are re-exported here
(:data:`DOOR_FUNCTIONS`): ``gaussian_noise`` (RLSVI's perturbation), ``unary_count`` (Garcelon
et al. Eq. 5 unary reward coding), ``laplace_sum_release`` (a local-laplace batch's summed noise
in one draw per counter: SDP-PE's aggregate simulation), ``postprocess_row`` / ``postprocess_counts`` (Bai et al.
Sec. V Eq. 4-5), and the kinds' parameter functions ``rr_p_from_epsilon``, ``bitsum_tau``.

Kinds come from the registry of :mod:`.kinds` (each kind's module declares itself). The
dispatch over kind codes is *generated* from the registry: :func:`door` writes a small module
(a content-addressed file beside numba's cache, so numba's ``cache=True`` works)
whose ``new`` / ``release`` / ``release_sums`` / ``release_batch`` branch over the requested
kinds only. An agent whose kernel uses two kinds calls ``door("none", "central-tree")`` and
numba compiles only those two kinds' releases into it; ``privatizer_*`` below are the door of
all built-in kinds.

State -- the same array structure for every kind, ``state = (fstate, istate, fparams)``:

    fstate[R, n] float64   row 0 (ROW_CUM): private cumulative counts released so far
                           row 1 (ROW_LAST): private counts of the last release alone
                           central-tree only, L = horizon.bit_length() levels:
                           rows 2..2+L exact p-sums, 2+L..2+2L noisy p-sums,
                           2+2L..3+3L partial sums (see tree.py); R = 3 + 3L (else R = 2)
    istate[8] int64        I_KIND code, I_N counters, I_T releases so far, I_LEVELS L,
                           I_HORIZON max releases (tree), I_BITS bits per entry (rr),
                           I_USERS users absorbed so far, [7] reserved
    fparams[8] float64     F_EPS epsilon, F_SCALE Laplace scale (per node / coordinate),
                           F_P R_p probability, F_TAU bit-sum tau, F_BETA bit-sum beta,
                           F_SENS sensitivity, [6], [7] reserved

Built-in kinds (``epsilon`` means, per kind):

* ``none`` (0): exact counts.
* ``central-tree`` (1, JDP; Vietri et al. Alg. 2 + App. A Alg. 5): one binary-mechanism step
  per release; each counter is ``epsilon``-DP for stream elements changing by at most
  ``sensitivity`` (node scale ``L * sensitivity / epsilon``). PUCB passes
  ``epsilon = eps / (3H)`` (``accounting.per_counter_epsilon``).
* ``local-laplace`` (2, LDP; reconstruction of LDP-OBI's Laplace mechanism): each user's
  increment vector gets i.i.d. ``Lap(sensitivity / epsilon)`` per coordinate -- ``epsilon``-LDP
  when one user's vector changes by at most ``sensitivity`` in l1.
* ``shuffle-bitsum`` (3, SDP; Bai et al. Sec. V + App. Alg. 4): per counter, the (eps, beta)
  shuffle binary summation over the users of the batch (``tau = 96 log(2/beta)/eps^2``);
  entries are the users' bits (0/1; an integer c is summed as c ones). Bai et al. pass
  ``epsilon = eps / (3H)``. A single-user ``privatizer_release`` is a batch of one.
* ``shuffle-rr`` (4, SDP; Garcelon et al. Alg. 2-3, Eq. 6): every one of the ``bits_per_entry``
  bits of an entry goes through R_p with ``p = 2/(e^epsilon + 1)`` (``epsilon`` = the per-bit
  M_sh parameter, Lemma 4: ``eps0 / ((4 + 2m) H)``); entries are counts of ones in
  ``[0, bits_per_entry]`` (e.g. ``bits_per_entry = H`` for Eq. 6's per-(s, a) counters
  summed over h, ``m H`` for the unary reward codes); the released counts are the unbiased
  debiased sums. The shuffle is omitted: the analyzer only sums, so it is invariant.

Every counting release refuses inputs outside its per-user domain with ``ValueError`` -- one
comparison pair per counter: central-tree and local-laplace counts in ``[0, m sensitivity]`` for a
batch of m users (a reward of 2 where a user adds at most 1), shuffle-bitsum integer counts in
``[0, m]`` (one bit per user), shuffle-rr integer counts in ``[0, m bits_per_entry]``, NaN always.
Every kind refuses an epsilon outside ``[EPSILON_MIN, EPSILON_MAX] = [1e-9, 1e4]`` (inf, NaN,
1e300, 1e-300, 5e-324; shuffle-rr: <= 36.7) at construction (:mod:`.kinds`).

Batch releases (``privatizer_release_batch`` on rows X[m, n], or ``privatizer_release_sums`` on
the batch's column sums alone) add the batch's private counts (also left in row ROW_LAST, for algorithms
that forget past batches such as Bai et al.'s SDP-PE) to the cumulative row.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from numba import njit

from privrl.mechanisms.bitsum import bitsum_tau
from privrl.mechanisms.gaussian import gaussian_noise
from privrl.mechanisms.kinds import (
    EPSILON_MAX,
    EPSILON_MIN,
    F_BETA,
    F_EPS,
    F_P,
    F_SCALE,
    F_SENS,
    F_TAU,
    I_BITS,
    I_HORIZON,
    I_KIND,
    I_LEVELS,
    I_N,
    I_T,
    I_USERS,
    KIND_CODES,
    KIND_MODELS,
    KIND_NAMES,
    KINDS,
    ROW_CUM,
    ROW_LAST,
    check_epsilon_range,
)
from privrl.mechanisms.laplace_sum import laplace_sum_release
from privrl.mechanisms.postprocess import postprocess_counts, postprocess_row
from privrl.mechanisms.rr import rr_p_from_epsilon, unary_count

#: modules that declare the built-in kinds (importing one registers its kind)
BUILTIN_KIND_MODULES = (
    "privrl.mechanisms.kinds",
    "privrl.mechanisms.tree",
    "privrl.mechanisms.laplace",
    "privrl.mechanisms.bitsum",
    "privrl.mechanisms.rr",
)
for _module in BUILTIN_KIND_MODULES:
    importlib.import_module(_module)

NONE = KIND_CODES["none"]
CENTRAL_TREE = KIND_CODES["central-tree"]
LOCAL_LAPLACE = KIND_CODES["local-laplace"]
SHUFFLE_BITSUM = KIND_CODES["shuffle-bitsum"]
SHUFFLE_RR = KIND_CODES["shuffle-rr"]
BUILTIN_KINDS = tuple(KINDS)

#: the non-privatizer functions of the door (draw noise or transform released statistics)
DOOR_FUNCTIONS = (gaussian_noise, unary_count, postprocess_row, postprocess_counts, rr_p_from_epsilon, bitsum_tau,
                  laplace_sum_release)

_DOOR_TEMPLATE = '''"""privrl.mechanisms.privatizer's door for kinds {names}.

GENERATED from the kind registry by privrl.mechanisms.privatizer.door -- do not edit.
"""
import numpy as np
from numba import njit

{imports}


@njit(cache=True)
def setup(code, istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry):
{setup_branches}
    raise ValueError("privatizer_new: kind not handled by this door")


@njit(cache=True)
def new(code, n, horizon, epsilon, sensitivity, beta, bits_per_entry):
    istate = np.zeros(8, np.int64)
    fparams = np.zeros(8)
    istate[{I_KIND}] = code
    istate[{I_N}] = n
    istate[{I_HORIZON}] = horizon
    istate[{I_BITS}] = bits_per_entry
    fparams[{F_EPS}] = epsilon
    fparams[{F_SENS}] = sensitivity
    fparams[{F_BETA}] = beta
    R = setup(code, istate, fparams, horizon, epsilon, sensitivity, beta, bits_per_entry)
    return np.zeros((R, n)), istate, fparams


@njit(cache=True, inline="always")
def release_sums(code, state, colsum, m, rng, out):
    fstate, istate, fparams = state
    if istate[{I_KIND}] != code:
        raise ValueError("privatizer_release: code does not match the state's kind")
    t = istate[{I_T}] + 1
    istate[{I_T}] = t
    istate[{I_USERS}] += m
{release_branches}
    else:
        raise ValueError("privatizer_release: kind not handled by this door")


@njit(cache=True, inline="always")
def release(code, state, x, rng, out):
    release_sums(code, state, x, np.int64(1), rng, out)


@njit(cache=True)
def release_batch(code, state, X, rng, out):
    m = X.shape[0]
    n = X.shape[1]
    colsum = np.zeros(n)
    for r in range(m):
        for c in range(n):
            colsum[c] += X[r, c]
    release_sums(code, state, colsum, m, rng, out)
'''

_DOORS: dict = {}


def _door_dir() -> Path:
    """Where generated door modules live: beside numba's cache, which privrl keys by a digest of
    every mechanism/agent source (so a door never outlives the kinds it was generated from and
    never changes that digest itself); else a per-user temp dir."""
    base = os.environ.get("NUMBA_CACHE_DIR") or str(Path(tempfile.gettempdir()) / f"privrl_{os.getuid()}")
    path = Path(base) / "privrl_door"
    path.mkdir(parents=True, exist_ok=True)
    return path


def door_source(names: tuple) -> str:
    """Source of the generated door module for the kinds ``names`` (in code order)."""
    kinds = [KINDS[n] for n in names]
    imports = "\n".join(f"from {k.module} import {k.setup} as setup_{k.code}, {k.release} as release_{k.code}"
                        for k in kinds)
    setup = "\n".join(f"    if code == {k.code}:\n        return setup_{k.code}(istate, fparams, horizon, epsilon, "
                      f"sensitivity, beta, bits_per_entry)" for k in kinds)
    release = "\n".join(f"    {'if' if i == 0 else 'elif'} code == {k.code}:\n"
                        f"        release_{k.code}(fstate, istate, fparams, t, colsum, m, rng, out)"
                        for i, k in enumerate(kinds))
    consts = {n: globals()[n] for n in ("I_KIND", "I_N", "I_HORIZON", "I_BITS", "I_T", "I_USERS", "F_EPS",
                                         "F_SENS", "F_BETA")}
    return _DOOR_TEMPLATE.format(names=", ".join(names), imports=imports, setup_branches=setup,
                                 release_branches=release, **consts)


def door(*names: str):
    """The generated door module for privatizer kinds ``names``: numba dispatchers ``new``,
    ``release``, ``release_sums``, ``release_batch`` (signatures as ``privatizer_new``,
    ``privatizer_release``, ...), dispatching over these kinds only (compile time).

    The module is written once per distinct source (file name = its hash; an existing file is
    never rewritten, so numba's on-disk cache stays valid) and imported from that file.
    """
    unknown = [n for n in names if n not in KINDS]
    if unknown or not names:
        raise ValueError(f"unknown privatizer kind(s) {unknown}; choose from {sorted(KINDS)}")
    key = tuple(sorted(set(names), key=lambda n: KINDS[n].code))
    src = door_source(key)
    digest = hashlib.sha256(src.encode()).hexdigest()[:16]
    if (key, digest) in _DOORS:
        return _DOORS[(key, digest)]
    path = _door_dir() / f"door_{digest}.py"
    if not path.exists() or path.read_text() != src:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(src)
        os.replace(tmp, path)
    modname = f"privrl_door_{digest}"
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    spec.loader.exec_module(module)
    _DOORS[(key, digest)] = module
    return module


_ALL = door(*BUILTIN_KINDS)
privatizer_new = _ALL.new
privatizer_release = _ALL.release
privatizer_release_sums = _ALL.release_sums
privatizer_release_batch = _ALL.release_batch
privatizer_new.__doc__ = """Fresh state ``(fstate[R, n], istate[8], fparams[8])`` of kind ``code`` for n counters.

horizon: max number of releases (tree levels); beta: bit-sum confidence (shuffle-bitsum);
bits_per_entry: bits behind each entry (shuffle-rr). Unused arguments are ignored."""


@njit(cache=True)
def privatizer_cumulative(state, out):
    """out[n] <- the private cumulative counts released so far (no new release, no noise)."""
    cum = state[0][ROW_CUM]
    for c in range(cum.shape[0]):
        out[c] = cum[c]


@njit(cache=True)
def privatizer_last(state, out):
    """out[n] <- the private counts of the last release alone (e.g. the last batch)."""
    last = state[0][ROW_LAST]
    for c in range(last.shape[0]):
        out[c] = last[c]


def make_privatizer(
    kind: str,
    n_counters: int,
    horizon: int,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    beta: float = 0.0,
    bits_per_entry: int = 1,
):
    """Python constructor: ``(fstate, istate, fparams)`` of privatizer ``kind`` (see module doc).

    kind: a registered kind (KIND_CODES); horizon: max number of releases (central-tree needs
    it); epsilon: the per-kind epsilon documented above (ignored by ``none``); beta: bit-sum
    confidence (shuffle-bitsum); bits_per_entry: bits behind each entry (shuffle-rr).
    """
    if kind not in KIND_CODES:
        raise ValueError(f"unknown privatizer kind {kind!r}; choose one of {sorted(KIND_CODES)}")
    code = KIND_CODES[kind]
    if code == NONE and not (epsilon > 0 and math.isfinite(epsilon)):
        epsilon = 1.0
    check_epsilon_range(epsilon, f"privatizer {kind!r}: epsilon", EPSILON_MIN, EPSILON_MAX)
    new = privatizer_new if kind in BUILTIN_KINDS else door(kind).new
    return new(
        np.int64(code), np.int64(n_counters), np.int64(max(int(horizon), 1)), float(epsilon),
        float(sensitivity), float(beta), np.int64(bits_per_entry),
    )


def release_python(state, x, rng, m: int = 1) -> np.ndarray:
    """Python convenience: release the column sums x[n] of ``m`` users through the state's
    kind (any registered kind); returns the private cumulative counts."""
    kind = KIND_NAMES[int(state[1][I_KIND])]
    out = np.empty(state[0].shape[1])
    rel = privatizer_release_sums if kind in BUILTIN_KINDS else door(kind).release_sums
    rel(np.int64(KIND_CODES[kind]), state, np.ascontiguousarray(x, dtype=np.float64), np.int64(m), rng, out)
    return out


def describe_privatizer(state) -> dict:
    """Human-readable parameters of a privatizer state (for logs and outputs)."""
    fstate, istate, fparams = state
    kind = KIND_NAMES[int(istate[I_KIND])]
    return {
        "kind": kind,
        "model": KIND_MODELS[kind],
        "n_counters": int(istate[I_N]),
        "releases": int(istate[I_T]),
        "users": int(istate[I_USERS]),
        "levels": int(istate[I_LEVELS]),
        "horizon": int(istate[I_HORIZON]),
        "bits_per_entry": int(istate[I_BITS]),
        "epsilon": float(fparams[F_EPS]),
        "scale": float(fparams[F_SCALE]),
        "p": float(fparams[F_P]),
        "tau": float(fparams[F_TAU]),
        "beta": float(fparams[F_BETA]),
        "sensitivity": float(fparams[F_SENS]),
    }


def privatizer_event(state):
    """The privacy event of one release to one counter of ``state`` (its kind's declaration)."""
    return KINDS[KIND_NAMES[int(state[1][I_KIND])]].event(describe_privatizer(state))
