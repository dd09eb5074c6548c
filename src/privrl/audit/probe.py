"""Probes: an agent's own kernel driven by a scripted sequence of users, its releases recorded.

An end-to-end privacy audit (:mod:`privrl.audit.privacy`) needs three things of an agent's
kernel that the production run never offers: (1) users chosen by the auditor (two
neighbouring user sequences), (2) the statistics the kernel releases, (3) test-only broken
variants (to show the audit has power). A *probe* gets all three without touching the agent
modules: it re-compiles the agent's kernels -- the same bytecode -- with some module globals
rebound:

* ``engine`` -> a scripted engine whose ``step`` plays user ``k`` of the script (a
  deterministic response: ``s0[k]``, successor ``nxt[k, h, s, a]``, reward ``R[k, h, s, a]``;
  the kernel's own policy picks the actions) and records nothing;
* every privatizer door function (``new`` / ``release`` / ``release_sums`` /
  ``release_batch`` of any door module of :mod:`privrl.mechanisms.privatizer`, or the door
  module itself) -> a wrapper that calls the *same* door function and then appends the
  released vector to a log; ``gaussian_noise`` -> a wrapper that scales ``sigma``;
* calls named in the spec's :class:`~privrl.agents.audit_probe.AuditProbe` ``released``
  (RLSVI's ``perturbed_plan``) -> a wrapper that logs the named array argument after the call;
* every njit kernel of ``privrl`` (outside :mod:`privrl.mechanisms`) that reaches one of
  these, found by walking the globals the kernels use, is re-compiled the same way.

So an agent that uses the door is probed with no declaration (:func:`probe_of`). A probe's
root runs the agent's ``init_state`` and then all K episodes of its ``run_episodes``.

Compiled once per cache: a probe's *driver* (:func:`driver`: a loop of runs of the root, the
clones linked into its machine code) is saved to numba's on-disk cache, in the directory privrl
keys by the mechanism / agent / engine sources (:mod:`privrl`; subfolder ``privrl_probe``, shared
by every copy of the same sources), under an index named by
:func:`probe_key` -- a digest of this module, of the source files of every function the clone
walk read (the agent's kernels and what they call) and of the swapped door modules, of those
functions' closure values, and of the kernels' names, extra arguments and declared releases.
The clones themselves share the agent modules' bytecode, so numba's own cache key (the
function's file, line and bytecode) cannot tell them from the production kernels: they are never
cached one by one, only inside their driver, whose cache is keyed by :func:`probe_key` alone. A
second process loads the driver and compiles nothing; processes starting at once compile it once
(a lock beside the cache, as :func:`privrl.runs.run.compile_once` does for the kernels). Nothing
process-specific is compiled in: the log buffer is reached through the linker symbol
:data:`BUFFER_SYMBOL`, which this module binds to its buffer's address when imported, and which
the machine code's relocation resolves when numba links it into the process (cold or from the cache).

Test-only variants (``sample_releases(noise_multiplier=, variant=)``): the noise multiplier
divides every privatizer's ``epsilon`` (0.5 halves every Laplace / tree scale and the bit-sum
noise s.d.) and multiplies ``gaussian_noise``'s sigma; ``variant`` breaks the release after
the real door computed it, from the exact cumulative counts the wrapper keeps (two extra rows
appended to the privatizer state): ``dropped-levels`` (central-tree: no noise on the nodes of
levels >= ``drop_from``), ``reused-noise`` (every release carries the first release's noise),
``shared-noise`` (every counter carries counter 0's noise), ``bounded-noise`` (every released value's
noise replaced by +-sd, the sign of the real noise and the release's own variance: the label's second
moment on a bounded support, eps = inf; central-tree and local-laplace).

What other users receive (``sample_releases(observe=)``): the scripted engine sees the policy the
kernel hands each user and the actions it takes for them, so it can log them, for every user but the
differing one (slot DIFFERING), as releases among the door's: the actions (the output of JDP, Vietri
et al. 2020 Def. 3: M_{-k}(U), the actions of every episode but user k's; the policy released after
the last episode is not observed) or the whole policies (a billboard, their Lemma 2: stronger than JDP). No agent kernel changes; an agent that plans on data its releases do
not carry shows it there.

Neighbour relations: *replacement* swaps one user's responses for another's; *add/remove*
replaces one user by the empty user (``absent[k] = 1``: played but contributing nothing, its
stream element is 0 -- Vietri et al. Sec. 4 / Claim 1). The door wrapper zeroes the release
input of a batch that consists of the absent user alone (and refuses a batch mixing it with
other users).

Scripted env tuple: ``(P[H, S, A, S] (shapes only), s0[K] int64, nxt[K, H, S, A] int64,
R[K, H, S, A] float64, absent[K] int64)``. The log lives in one float64 buffer of this module,
``_BUFFER[HEAD + 3 * LOG_CAPACITY]``, that compiled code reaches through :data:`BUFFER_SYMBOL`
(:func:`probe_buffer`): ``[MULT, USERS, ABSENT, RELEASED, CURSOR, VARIANT, DROP_FROM, SERIAL, OBSERVE, DIFFERING |
log[LOG_CAPACITY] | each value's privatizer serial | its release t]``. The test-only variants
and the noise multiplier are run-time values of that buffer, not compile-time ones: one compiled
driver serves them all.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import sys
import types
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import carray, njit
from numba import types as nt
from numba.core import config as numba_config
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from privrl.agents.audit_probe import AuditProbe
from privrl.agents.registry import get
from privrl.mechanisms import privatizer
from privrl.mechanisms.gaussian import gaussian_noise
from privrl.mechanisms.kinds import F_SCALE, I_KIND, I_LEVELS, I_T, I_USERS, ROW_CUM, ROW_LAST
from privrl.rl import engine

MULT, USERS, ABSENT, RELEASED, CURSOR, VARIANT, DROP_FROM, SERIAL, OBSERVE, DIFFERING, HEAD = range(11)
#: test-only broken variants of every release (see module docstring)
VARIANTS = {"exact": 0, "dropped-levels": 1, "reused-noise": 2, "shared-noise": 3, "bounded-noise": 4}
#: what the scripted engine logs of every user but the differing one (buffer slot OBSERVE): nothing, the
#: actions the agent took for them (Vietri et al. 2020 Def. 3: JDP's output M_{-k}), or the policies it
#: handed them (every state's action: a billboard, Vietri et al. 2020 Lemma 2, stronger than JDP)
OBSERVATIONS = {"none": 0, "actions": 1, "policy": 2}
#: the serial of a logged observation (an other user's actions or policy) in :func:`release_layout`
OBSERVED_SERIAL = -2
LOG_CAPACITY = 1 << 16
#: [control | log | each logged value's privatizer serial (-1: a declared release) | its release t]
_BUFFER = np.zeros(HEAD + 3 * LOG_CAPACITY)  # module-lifetime: the linker symbol below points at it
_SIZE = _BUFFER.size
#: the linker symbol through which compiled probes find ``_BUFFER`` (resolved when their machine
#: code is linked into this process, so no address is compiled in and the code can be cached)
BUFFER_SYMBOL = "privrl_probe_buffer"
llvm_binding.add_symbol(BUFFER_SYMBOL, _BUFFER.ctypes.data)
_TREE = privatizer.CENTRAL_TREE
_LAPLACE = privatizer.LOCAL_LAPLACE


@intrinsic
def _buffer_pointer(typingctx):
    """float64* to the first element of ``_BUFFER``: the address of the external symbol
    :data:`BUFFER_SYMBOL`, declared in the caller's LLVM module."""
    sig = nt.CPointer(nt.float64)()

    def codegen(context, builder, signature, args):
        symbol = builder.module.globals.get(BUFFER_SYMBOL)
        if symbol is None:
            symbol = ir.GlobalVariable(builder.module, ir.DoubleType(), BUFFER_SYMBOL)
            symbol.linkage = "external"
        return symbol
    return sig, codegen


@njit
def probe_buffer():
    """The shared probe buffer: a view ``[HEAD + 3 * LOG_CAPACITY]`` float64 of ``_BUFFER``."""
    return carray(_buffer_pointer(), (_SIZE,))


# ----------------------------------------------------------------------------- scripted engine
@njit
def scripted_step(env, pi, k, aux, rng, traj, evc, rec):
    """Play user k of the script with policy pi[H, S] (no randomness, no regret record)."""
    s0, nxt, R, absent = env[1], env[2], env[3], env[4]
    states, actions, rewards = traj
    H = pi.shape[0]
    b = probe_buffer()
    if b[RELEASED] > 0.5:  # a release happened since the last user: a new batch starts
        b[USERS] = 0.0
        b[ABSENT] = 0.0
        b[RELEASED] = 0.0
    b[USERS] += 1.0
    b[ABSENT] += absent[k]
    s = s0[k]
    for h in range(H):
        a = pi[h, s]
        states[h] = s
        actions[h] = a
        rewards[h] = R[k, h, s, a]
        s = nxt[k, h, s, a]
    states[H] = s
    observe = int(b[OBSERVE])
    if observe > 0 and k != int(b[DIFFERING]):
        _observe(b, pi, actions, observe, k)


@njit
def _observe(b, pi, actions, observe, k):
    """Log what user ``k`` (not the differing one) received: its actions (``observe`` 1) or its whole
    policy pi[H, S] (2), serial :data:`OBSERVED_SERIAL`, release index ``k``. No batch starts."""
    H, S = pi.shape
    n = H if observe == 1 else H * S
    cur = int(b[CURSOR])
    if cur + n > LOG_CAPACITY:
        raise ValueError("probe: release log full")
    for c in range(n):
        b[HEAD + cur + c] = actions[c] if observe == 1 else pi[c // S, c % S]
        b[HEAD + LOG_CAPACITY + cur + c] = OBSERVED_SERIAL
        b[HEAD + 2 * LOG_CAPACITY + cur + c] = k
    b[CURSOR] = cur + n


SCRIPTED_ENGINE = types.ModuleType("privrl_scripted_engine")
SCRIPTED_ENGINE.step = scripted_step
SCRIPTED_ENGINE.new_trajectory = engine.new_trajectory
SCRIPTED_ENGINE.new_eval_cache = engine.new_eval_cache


# ----------------------------------------------------------------------------- door wrappers
@njit
def _before_release(x):
    """Zero the input of a batch made of the absent user alone (add/remove neighbour)."""
    b = probe_buffer()
    if b[ABSENT] > 0.5:
        if b[ABSENT] < b[USERS] - 0.5:
            raise ValueError("probe: a batch mixes the absent user with other users")
        for c in range(x.shape[0]):
            x[c] = 0.0
    b[RELEASED] = 1.0


@njit
def _log(out, serial, t):
    """Append out[n] to the log, with the privatizer's serial number and release index t."""
    b = probe_buffer()
    cur = int(b[CURSOR])
    if cur + out.shape[0] > LOG_CAPACITY:
        raise ValueError("probe: release log full")
    for c in range(out.shape[0]):
        b[HEAD + cur + c] = out[c]
        b[HEAD + LOG_CAPACITY + cur + c] = serial
        b[HEAD + 2 * LOG_CAPACITY + cur + c] = t
    b[CURSOR] = cur + out.shape[0]


@njit
def _break(state, out):
    """Apply the buffer's broken variant to the release ``out`` (exact counts and the kept noise in
    the rows the wrapper appended to the state), and keep the state consistent."""
    b = probe_buffer()
    v = int(b[VARIANT])
    if v == 0:
        return
    fstate, istate = state[0], state[1]
    R, n, t = fstate.shape[0] - 3, out.shape[0], istate[I_T]
    true, kept = fstate[R], fstate[R + 1]
    if v == 1:
        if istate[I_KIND] != _TREE:
            raise ValueError("probe: the dropped-levels variant needs a central-tree privatizer")
        L = istate[I_LEVELS]
        for c in range(n):
            e = true[c]
            for j in range(min(int(b[DROP_FROM]), L)):
                if (t >> j) & 1:
                    e += fstate[2 + L + j, c] - fstate[2 + j, c]  # noisy - exact node j
            out[c] = e
    elif v == 2:
        for c in range(n):
            if t == 1:
                kept[c] = out[c] - true[c]
            out[c] = true[c] + kept[c]
    elif v == 4:  # bounded noise of the release's own variance: +-sd (the sign of the real noise)
        scale = state[2][F_SCALE]
        if istate[I_KIND] == _TREE:
            nodes, u = 0, t
            while u > 0:
                nodes += u & 1
                u >>= 1
            var = nodes * 2.0 * scale * scale
        elif istate[I_KIND] == _LAPLACE:
            var = istate[I_USERS] * 2.0 * scale * scale
        else:
            raise ValueError("probe: the bounded-noise variant needs a central-tree or local-laplace privatizer")
        sd = np.sqrt(var)
        for c in range(n):
            out[c] = true[c] + (sd if out[c] >= true[c] else -sd)
    else:
        z = out[0] - true[0]
        for c in range(n):
            out[c] = true[c] + z
    cum, last = fstate[ROW_CUM], fstate[ROW_LAST]
    for c in range(n):
        last[c] = out[c] - (cum[c] - last[c])
        cum[c] = out[c]


@njit
def _break_and_log(state, out, m):
    """The release probe's step after the real door released ``out``: the broken variant, then the log."""
    _break(state, out)
    f = state[0]
    _log(out, f[f.shape[0] - 1, 0], state[1][I_T])


def door_wrappers(real, after_release=_break_and_log, name: str = "privrl_probe_door") -> types.ModuleType:
    """A module with recording ``new`` / ``release`` / ``release_sums`` / ``release_batch`` around
    the functions of the door module ``real``: ``new`` appends the exact cumulative counts, the kept
    noise and the serial to the state; ``release_sums`` adds the batch to the exact counts, calls the
    real door, then ``after_release(state, out, m)`` (an njit function: here the broken variant and
    the log; :mod:`privrl.audit.label_noise` logs the noise)."""
    real_new, real_sums = real.new, real.release_sums

    @njit
    def new(code, n, horizon, epsilon, sensitivity, beta, bits_per_entry):
        b = probe_buffer()
        f, i, p = real_new(code, n, horizon, epsilon / b[MULT], sensitivity, beta, bits_per_entry)
        g = np.zeros((f.shape[0] + 3, f.shape[1]))  # + exact cumulative counts, kept noise, serial
        g[:f.shape[0]] = f
        b[SERIAL] += 1.0
        g[f.shape[0] + 2, 0] = b[SERIAL]
        return g, i, p

    @njit
    def release_sums(code, state, colsum, m, rng, out):
        _before_release(colsum)
        f = state[0]
        true = f[f.shape[0] - 3]
        for c in range(colsum.shape[0]):
            true[c] += colsum[c]
        real_sums(code, state, colsum, m, rng, out)
        after_release(state, out, m)

    @njit
    def release(code, state, x, rng, out):
        release_sums(code, state, x, np.int64(1), rng, out)

    @njit
    def release_batch(code, state, X, rng, out):
        colsum = np.zeros(X.shape[1])
        for r in range(X.shape[0]):
            colsum += X[r]
        release_sums(code, state, colsum, np.int64(X.shape[0]), rng, out)

    mod = types.ModuleType(name)
    mod.new, mod.release, mod.release_sums, mod.release_batch = new, release, release_sums, release_batch
    return mod


@njit
def _scaled_gaussian(sigma, rng, out):
    gaussian_noise(sigma * probe_buffer()[MULT], rng, out)


def _released_wrapper(fn, idx: int):
    """njit wrapper of ``fn`` that logs its argument ``idx`` (an array) after the call."""
    nargs = fn.py_func.__code__.co_argcount
    args = ", ".join(f"a{i}" for i in range(nargs))
    ns = {"fn": fn, "_log": _log, "probe_buffer": probe_buffer, "RELEASED": RELEASED}
    exec(f"def released({args}):\n    r = fn({args})\n    _log(a{idx}.ravel(), -1.0, 0)\n"
         f"    probe_buffer()[RELEASED] = 1.0\n    return r\n", ns)
    return njit(ns["released"])


# ----------------------------------------------------------------------------- re-compiled kernels
class _Swaps:
    """The global rebinding of one probe: door functions/modules by identity, released calls by name."""

    def __init__(self, released: tuple):
        self.by_id, self.memo, self.released = {id(engine): SCRIPTED_ENGINE}, {}, dict(released)
        self.by_id[id(gaussian_noise)] = _scaled_gaussian
        for mod in list(privatizer._DOORS.values()):
            w = door_wrappers(mod)
            self.by_id[id(mod)] = w
            for f in ("new", "release", "release_sums", "release_batch"):
                self.by_id[id(getattr(mod, f))] = getattr(w, f)
        self.hits = 0  # door / released swaps made
        self.visited = []  # every Python function the walk read (in walk order): what the clones are made of
        self.doors = set()  # source files of what the walk swapped (door modules, engine, gaussian_noise)

    def clone(self, fn):
        """``fn`` re-compiled with its globals swapped (itself if nothing it reaches is swapped)."""
        if id(fn) in self.memo:
            return self.memo[id(fn)]
        self.memo[id(fn)] = fn  # recursion guard
        py = getattr(fn, "py_func", fn)
        self.visited.append(py)
        g, changed = dict(py.__globals__), False
        for name in py.__code__.co_names:
            v = g.get(name)
            new = self._swap(name, v)
            if new is not v:
                g[name], changed = new, True
        if not changed:
            return fn
        clone = types.FunctionType(py.__code__, g, py.__name__, py.__defaults__, py.__closure__)
        # the probe's clones keep numba's reference counting (its logging wrappers allocate): an
        # episode loop compiled with _nrt=False (engine.py) is cloned with it on; same arithmetic
        opts = {k: v for k, v in getattr(fn, "targetoptions", {}).items()
                if k not in ("cache", "nopython", "boundscheck", "_nrt")}
        self.memo[id(fn)] = njit(**opts)(clone)
        return self.memo[id(fn)]

    def _swap(self, name, v):
        if name in self.released and isinstance(v, CPUDispatcher):
            self.hits += 1
            return _released_wrapper(v, self.released[name])
        if id(v) in self.by_id:
            self.hits += name not in ("engine", "gaussian_noise") and not name.endswith("new")  # a release reached
            self.doors.add(_source_file(v))
            return self.by_id[id(v)]
        if isinstance(v, CPUDispatcher) and v.py_func.__module__.startswith("privrl.") \
                and not v.py_func.__module__.startswith("privrl.mechanisms"):
            return self.clone(v)
        return v


def probe_of(agent: str) -> tuple:
    """(spec, AuditProbe) of a private agent: the spec's ``audit_probe`` or the generic default
    (its own kernels through the door). ValueError for an agent without privacy."""
    spec = get(agent)
    if spec.privacy_model == "none":
        raise ValueError(f"agent {agent!r} has privacy model 'none': nothing to audit")
    return spec, getattr(spec, "audit_probe", None) or AuditProbe()


def _as_njit(fn):
    """A plain Python ``init_state`` compiled (no cache) so that the njit root can call it."""
    return fn if isinstance(fn, CPUDispatcher) else njit(types.FunctionType(fn.__code__, fn.__globals__, fn.__name__,
                                                                             fn.__defaults__, fn.__closure__))


def _root(init, episodes, n_extra_init: int):
    zero = np.int64(0)
    if n_extra_init == 0:
        @njit
        def root(env, params, K, rng, rec, *extra):
            episodes(env, params, K, zero, K, rng, rec, init(env, params, K), *extra)
    else:
        @njit
        def root(env, params, K, rng, rec, *extra):
            episodes(env, params, K, zero, K, rng, rec, init(env, params, K, extra[0]), *extra)
    return root


def _make_driver(root, n_extra: int):
    """njit loop: n runs of ``root`` on the script, each run's release log into out[n, D]."""
    call = {0: lambda r: njit(lambda env, params, K, rng, rec, ex: r(env, params, K, rng, rec)),
            1: lambda r: njit(lambda env, params, K, rng, rec, ex: r(env, params, K, rng, rec, ex[0])),
            2: lambda r: njit(lambda env, params, K, rng, rec, ex: r(env, params, K, rng, rec, ex[0], ex[1]))}
    run_once = call[n_extra](root)

    @njit
    def drive(env, params, K, rng, rec, extra, control, out):
        b = probe_buffer()
        D = out.shape[1]
        for i in range(out.shape[0]):
            for j in range(control.shape[0]):
                b[j] = control[j]
            run_once(env, params, K, rng, rec, extra)
            if int(b[CURSOR]) != D:
                raise ValueError("probe: the number of released values changed between runs")
            for c in range(D):
                out[i, c] = b[HEAD + c]
    return drive


# ----------------------------------------------------------------------------- on-disk cache
def _source_file(obj) -> str:
    """The source file of a function, a dispatcher or a module ("" if it has none)."""
    if isinstance(obj, types.ModuleType):
        return getattr(obj, "__file__", None) or ""
    code = getattr(getattr(obj, "py_func", obj), "__code__", None)
    return code.co_filename if code is not None else ""


def _value_fingerprint(value) -> str:
    """What a closure cell contributes to compiled code: a function by name and file, an array by
    its bytes, a scalar / string / tuple by its repr."""
    if isinstance(value, CPUDispatcher) or isinstance(value, types.FunctionType):
        py = getattr(value, "py_func", value)
        return f"fn {py.__module__}.{py.__qualname__} {Path(_source_file(py)).name}"  # not the clone's path
    if isinstance(value, np.ndarray):
        return f"array {value.dtype} {value.shape} {hashlib.sha256(value.tobytes()).hexdigest()}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_value_fingerprint(v) for v in value) + ")"
    return f"{type(value).__name__} {value!r}"


def probe_key(swaps: _Swaps, structure: tuple) -> str:
    """sha256 (24 hex) of everything a compiled probe driver is made of: this module's source,
    the source files of every function the clone walk read (the agent's kernels and what they call
    in privrl outside the mechanisms) and of the door modules they call, those functions' names,
    bytecode and closure values, every source file of the mechanisms and the engine (what the door wrappers
    and the scripted engine call), and ``structure`` (the kernels' names, the number of extra
    arguments, the declared released calls) and the rebinding table's class and logged calls: the key
    changes whenever the clones could."""
    h = hashlib.sha256()
    h.update(repr(structure).encode())
    # the rebinding table itself: two tables over the same sources (another set of logged calls) differ
    h.update(f"{type(swaps).__module__}.{type(swaps).__qualname__} {sorted(swaps.released.items())}".encode())
    files = {__file__, *swaps.doors, sys.modules[type(swaps).__module__].__file__}  # + the table's own module
    for package_file in (privatizer.__file__, engine.__file__):
        files.update(str(f) for f in Path(package_file).parent.glob("*.py"))
    for py in swaps.visited:
        files.add(_source_file(py))
        h.update(f"{py.__module__}.{py.__qualname__}".encode())
        h.update(py.__code__.co_code)
        for cell in py.__closure__ or ():
            h.update(_value_fingerprint(cell.cell_contents).encode())
    for f in sorted(f for f in files if f):
        h.update(Path(f).name.encode())
        h.update(Path(f).read_bytes() if os.path.isfile(f) else f.encode())  # exec'd code: bytecode and closures
    return h.hexdigest()[:24]


class _ProbeDriverCache(FunctionCache):
    """numba's on-disk cache of one probe driver, keyed by :func:`probe_key` instead of the driver's
    bytecode: every driver shares the bytecode of :func:`_make_driver`'s ``drive``, and its callees
    (the clones, which share the agent modules' bytecode) are what differ. The driver's compiled
    code holds its callees linked in, so loading it compiles nothing.

    The key is a digest of content, so neither the place of the sources nor their mtime is part of
    it: in ``<NUMBA_CACHE_DIR>/privrl_probe`` (where privrl points numba's cache), a copy or a clean
    clone of the same sources finds the drivers compiled by another (numba's index still checks
    its own version and the CPU). Without ``NUMBA_CACHE_DIR``, numba's default place beside
    this module, stamped by this file."""

    def __init__(self, py_func, key: str):
        super().__init__(py_func)
        self._probe_key = key
        stamp = self._impl.locator.get_source_stamp()
        if numba_config.CACHE_DIR:
            self._cache_path, stamp = os.path.join(numba_config.CACHE_DIR, "privrl_probe"), key
        self._cache_file = IndexDataCacheFile(cache_path=self._cache_path,
                                              filename_base=f"probe.driver-{key}.{self._impl.filename_base}",
                                              source_stamp=stamp)

    def _save_overload(self, sig, data):
        try:
            os.makedirs(self._cache_path, exist_ok=True)
            super()._save_overload(sig, data)
        except OSError:  # a cache that cannot be written: the driver stays compiled in this process only
            pass

    def _index_key(self, sig, codegen):
        return sig, codegen.magic_tuple(), self._probe_key


def _cache_driver(drive, key: str) -> bool:
    """Give ``drive`` its on-disk cache (False where numba has no place for one: it then compiles
    per process, as without a cache)."""
    try:
        drive._cache = _ProbeDriverCache(drive.py_func, key)
    except RuntimeError:  # numba found no writable cache location
        return False
    return True


@contextmanager
def _compile_lock(key: str):
    """Hold ``<NUMBA_CACHE_DIR>/.probe-<key>.lock`` while the first call compiles (or loads) a driver,
    so that processes auditing the same agent at once compile it once per cache (the others wait,
    then load it), as :func:`privrl.runs.run.compile_once` does for the kernels. No cache directory,
    or one that cannot be locked: no lock."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    lock = None
    if cache and os.path.isdir(cache) and os.access(cache, os.W_OK):
        try:
            lock = open(Path(cache, f".probe-{key}.lock"), "a")
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        except OSError:
            if lock is not None:
                lock.close()
            lock = None
    try:
        yield
    finally:
        if lock is not None:
            lock.close()


#: (kernels, extras, released) -> (compiled driver, its probe key)
_DRIVERS: dict = {}


def made_for_probe(drive) -> list:
    """Every njit function a driver calls that was made for it (the clones, the door and released
    wrappers, its root and loop): the functions reached from ``drive`` (closures, globals, the
    swapped modules' functions) that are not their module's own attribute of that name.

    :func:`driver` renames them ``<qualname>.probe_<key>`` before they compile. numba names a
    compiled function's symbols (the function and its CPython wrapper) by module, qualname,
    argument types and a per-process counter, and a dispatcher finds its entry point by that name
    in the process-wide JIT (``CodeLibrary.get_pointer_to_function``: the first definition loaded
    wins). A clone kept the qualname of the kernel it copies, so a driver loaded from the cache
    (its clones numbered in the process that compiled them) could define the very name of a
    production kernel -- SDP-PE's ``run_episodes`` -- that this process loads later: the
    production call then ran the logging clone, whose log nobody resets, until "probe: release
    log full" (the flaky tests/agents/test_sdp_pe_aggregate.py in a full xdist run, after the
    audit tests in the same worker). Two drivers' clones of one kernel could likewise swap.
    Named by the driver's key, a made function's symbols are its own."""
    seen, made, todo = set(), [], [drive]
    while todo:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        py = d.py_func
        home = sys.modules.get(py.__module__) if py.__module__ else None
        if getattr(home, py.__name__, None) is not d:
            made.append(d)
        refs = [c.cell_contents for c in py.__closure__ or ()]
        refs += [py.__globals__.get(n) for n in py.__code__.co_names]
        for v in refs:
            if isinstance(v, types.ModuleType) and sys.modules.get(v.__name__) is not v:  # a swapped-in module
                todo += [f for f in vars(v).values() if isinstance(f, CPUDispatcher)]
            elif isinstance(v, CPUDispatcher):
                todo.append(v)
    return made


def driver(agent: str, n_extra: int, swaps_of: Callable[[tuple], "_Swaps"] | None = None):
    """The driver of ``agent`` (one per distinct pair of kernels: presets share it), compiled on its
    first call or loaded from numba's cache (:func:`probe_key`); (driver, key). ``swaps_of(released)``
    builds the rebinding table (default :class:`_Swaps`; the label audit's noise log passes its own,
    :mod:`privrl.audit.label_noise`): each kind of table is its own driver and its own cache key."""
    spec, probe = probe_of(agent)
    swaps_of = swaps_of or _Swaps
    init, episodes = probe.init_state or spec.init_state, probe.run_episodes or spec.run_episodes
    key = (id(init), id(episodes), n_extra, probe.n_extra_init, probe.released, swaps_of)
    if key not in _DRIVERS:
        swaps = swaps_of(probe.released)
        init_c, episodes_c = (_as_njit(swaps.clone(f)) for f in (init, episodes))
        root = _root(init_c, episodes_c, probe.n_extra_init)
        if swaps.hits == 0:
            raise ValueError(f"agent {agent!r} (privacy model {spec.privacy_model}) cannot be probed: its kernels "
                             "reach no privatizer door release and it declares no released statistic; give its "
                             "AgentSpec an audit_probe (privrl.agents.audit_probe.AuditProbe)")
        structure = tuple(f"{f.__module__}.{f.__qualname__}" for f in (getattr(init, "py_func", init),
                                                                       getattr(episodes, "py_func", episodes)))
        disk_key = probe_key(swaps, (structure, n_extra, probe.n_extra_init, probe.released))
        drive = _make_driver(root, n_extra)
        for made in made_for_probe(drive):  # before the first compile: the name is read then
            made.py_func.__qualname__ = f"{made.py_func.__qualname__}.probe_{disk_key}"
        _cache_driver(drive, disk_key)
        _DRIVERS[key] = drive, disk_key
    return _DRIVERS[key]


def run_probe(agent: str, params: dict, P: np.ndarray, script: tuple, n: int, rng, control: np.ndarray,
              swaps_of: Callable[[tuple], "_Swaps"] | None = None) -> np.ndarray:
    """``n`` runs of ``agent``'s probe driver (:func:`driver` with ``swaps_of``) on the scripted users
    under the buffer head ``control`` (multiplier, variant, ...): out[n, D], every logged vector of a
    run concatenated in log order (the log's tags and release indices stay in the buffer:
    :func:`release_layout`). ``script = (s0[K], nxt[K, H, S, A], R[K, H, S, A], absent[K])``."""
    spec, probe = probe_of(agent)
    s0, nxt, R, absent = (np.ascontiguousarray(a) for a in script)
    K = int(s0.shape[0])
    env = (np.ascontiguousarray(P, dtype=np.float64), s0.astype(np.int64), nxt.astype(np.int64),
           R.astype(np.float64), absent.astype(np.int64))
    resolved = spec.resolve(params)
    vec = (probe.param_vector or spec.param_vector)(resolved)
    extra = tuple(probe.extra(resolved))
    drive, disk_key = driver(agent, len(extra), swaps_of)
    rec = engine.new_recorder(K, np.zeros(0))
    first = np.empty((1, 0))
    try:  # learn D from one run (the release pattern is data-independent)
        if drive.signatures:
            drive(env, vec, np.int64(K), rng, rec, extra, control, first)
        else:
            with _compile_lock(disk_key):  # the first call compiles, or loads from the cache
                drive(env, vec, np.int64(K), rng, rec, extra, control, first)
    except ValueError as e:
        if "number of released values" not in str(e):
            raise
    D = int(_BUFFER[CURSOR])
    if D == 0:
        raise ValueError(f"agent {agent!r}: the probe recorded no release (nothing to audit); declare the released "
                         "statistics in its AgentSpec.audit_probe")
    out = np.empty((n, D))
    drive(env, vec, np.int64(K), rng, rec, extra, control, out)
    return out


def sample_releases(agent: str, params: dict, P: np.ndarray, script: tuple, n: int, rng,
                    noise_multiplier: float = 1.0, variant: str = "exact", drop_from: int = 1,
                    observe: str = "none", differing: int = -1) -> np.ndarray:
    """``n`` runs of ``agent``'s kernel on the scripted users: out[n, D], every released vector
    of a run concatenated in release order. ``script = (s0[K], nxt[K, H, S, A], R[K, H, S, A],
    absent[K])``; K = len(s0). ``noise_multiplier`` / ``variant`` / ``drop_from``: the test-only
    broken variants of the module docstring (1.0 / "exact": the agent exactly). ``observe``
    (:data:`OBSERVATIONS`): also log, in play order among the releases, what every user but
    ``differing`` received from the agent -- its actions (JDP's output, Vietri et al. 2020 Def. 3)
    or its policy; serial :data:`OBSERVED_SERIAL` in :func:`release_layout`."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown probe variant {variant!r}; choose from {sorted(VARIANTS)}")
    if observe not in OBSERVATIONS:
        raise ValueError(f"unknown observation {observe!r}; choose from {sorted(OBSERVATIONS)}")
    control = np.zeros(HEAD)
    control[MULT], control[VARIANT], control[DROP_FROM] = float(noise_multiplier), VARIANTS[variant], drop_from
    control[OBSERVE], control[DIFFERING] = OBSERVATIONS[observe], differing
    return run_probe(agent, params, P, script, n, rng, control)


def release_layout(D: int) -> tuple[np.ndarray, np.ndarray]:
    """(serial[D], t[D]) of the last sampled release log: each value's privatizer (its serial number
    within the run; -1 for a declared release) and release index (the pattern is data-independent)."""
    base = HEAD + LOG_CAPACITY
    return _BUFFER[base:base + D].astype(np.int64), _BUFFER[base + LOG_CAPACITY:base + LOG_CAPACITY + D].astype(np.int64)

