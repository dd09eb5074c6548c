"""Probes: an agent's own kernel driven by a scripted sequence of users, its releases recorded.

An end-to-end privacy audit (:mod:`privrl.privacy_audit`) needs three things of an agent's
kernel that the production run never offers: (1) users chosen by the auditor (two
neighbouring user sequences), (2) the statistics the kernel releases, (3) a test-only noise
multiplier (a "half-noise" variant shows the audit has power). A *probe* gets all three
without touching the agent modules: it re-compiles the agent's kernel -- the same bytecode
-- with three names of its module globals rebound:

* ``engine`` -> a scripted engine whose ``step`` plays user ``k`` of the script (a
  deterministic response: ``s0[k]``, successor ``nxt[k, h, s, a]``, reward ``R[k, h, s, a]``;
  the kernel's own policy picks the actions) and records nothing;
* the privatizer door functions the kernel calls (``privatizer_new`` / ``privatizer_release``
  / ``privatizer_release_sums``, or the module ``_DOOR``) -> thin wrappers that call the
  *same* door functions the agent calls, after which they append the released vector to a
  log; ``new`` passes ``epsilon / noise_multiplier`` (1 = the agent exactly; 0.5 halves
  every Laplace / tree scale and the bit-sum noise s.d., and doubles R_p's per-bit epsilon);
* nested kernels that call either of those (SDP-PE's ``_advance``, ``private_batch``,
  ``release_counts``) are re-compiled the same way.

A probe's root runs the agent's ``init_state`` and then all K episodes of its ``run_episodes``
(the resumable form of every kernel, :mod:`privrl.agents.registry`).

Everything else (planning, counting, batching, post-processing, the privatizer kinds) is
the agent's compiled code. Clones are compiled without numba's cache (they share the
originals' code objects; a cache entry would collide with the original's).

Neighbour relations: *replacement* swaps one user's responses for another's; *add/remove*
replaces one user by the empty user ``⊥`` (``absent[k] = 1``: the user is played but
contributes nothing, i.e. its stream element is 0 -- the continual-observation convention of
Vietri et al. Sec. 4 / Claim 1). The door wrapper zeroes the release input of a batch that
consists of the absent user alone (and refuses a batch mixing it with other users).

Scripted env tuple: ``(P[H, S, A, S] (shapes only), s0[K] int64, nxt[K, H, S, A] int64,
R[K, H, S, A] float64, absent[K] int64)``.

The log lives in one float64 buffer shared by the wrappers and the scripted engine through
its address (compiled in as a constant): ``[MULT, USERS, ABSENT, RELEASED, CURSOR | log...]``.
"""
from __future__ import annotations

import types

import numpy as np
from numba import carray, njit
from numba import types as nt
from numba.extending import intrinsic

from privrl.agents import obi, private_ucbvi, pucb, sdp_pe
from privrl.agents import pe_privacy
from privrl.mechanisms import privatizer
from privrl.rl import engine

MULT, USERS, ABSENT, RELEASED, CURSOR, HEAD = 0, 1, 2, 3, 4, 8
LOG_CAPACITY = 1 << 16
_BUFFER = np.zeros(HEAD + LOG_CAPACITY)  # module-lifetime: its address is compiled into the probes
_ADDR = _BUFFER.ctypes.data
_SIZE = _BUFFER.size


@intrinsic
def _float64_pointer(typingctx, addr):
    sig = nt.CPointer(nt.float64)(nt.intp)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(nt.CPointer(nt.float64)))
    return sig, codegen


@njit
def probe_buffer():
    """The shared probe buffer (a view of ``_BUFFER``)."""
    return carray(_float64_pointer(_ADDR), (_SIZE,))


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
def _log(out):
    b = probe_buffer()
    cur = int(b[CURSOR])
    if HEAD + cur + out.shape[0] > b.shape[0]:
        raise ValueError("probe: release log full")
    for c in range(out.shape[0]):
        b[HEAD + cur + c] = out[c]
    b[CURSOR] = cur + out.shape[0]


def door_wrappers(real_new, real_release, real_release_sums) -> types.ModuleType:
    """A module with recording ``new`` / ``release`` / ``release_sums`` around a door's functions."""
    @njit
    def new(code, n, horizon, epsilon, sensitivity, beta, bits_per_entry):
        return real_new(code, n, horizon, epsilon / probe_buffer()[MULT], sensitivity, beta, bits_per_entry)

    @njit
    def release(code, state, x, rng, out):
        _before_release(x)
        real_release(code, state, x, rng, out)
        _log(out)

    @njit
    def release_sums(code, state, colsum, m, rng, out):
        _before_release(colsum)
        real_release_sums(code, state, colsum, m, rng, out)
        _log(out)

    mod = types.ModuleType("privrl_probe_door")
    mod.new, mod.release, mod.release_sums = new, release, release_sums
    return mod


def rebind(fn, **swaps):
    """``fn`` (an njit dispatcher, or a plain Python function such as an agent's ``init_state``)
    compiled with some module globals replaced (no cache)."""
    py = getattr(fn, "py_func", fn)
    g = dict(py.__globals__)
    g.update(swaps)
    clone = types.FunctionType(py.__code__, g, py.__name__, py.__defaults__, py.__closure__)
    opts = {k: v for k, v in getattr(fn, "targetoptions", {}).items() if k not in ("cache", "nopython", "boundscheck")}
    return njit(**opts)(clone)


def _door_globals(door_module) -> dict:
    w = door_wrappers(door_module.new, door_module.release, door_module.release_sums)
    return {"privatizer_new": w.new, "privatizer_release": w.release, "privatizer_release_sums": w.release_sums}


def _root(init, episodes, n_extra_init: int, swaps_init: dict, swaps_episodes: dict):
    """njit ``root(env, params, K, rng, rec, *extra)``: the agent's ``init_state`` then all K episodes
    of its ``run_episodes``, both re-compiled with their globals swapped. ``init_state`` takes the
    first ``n_extra_init`` extra arguments (the privatizer kind), ``run_episodes`` all of them."""
    init = rebind(init, **swaps_init)
    episodes = rebind(episodes, **swaps_episodes)
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


def _pucb_root():
    g = _door_globals(pucb._DOOR)
    # pucb.run_episodes only calls its episode loop (numba's reference counting off there): rebind the loop
    return _root(pucb.init_state, pucb.episode_loop, 0, g, dict(engine=SCRIPTED_ENGINE, **g))


def _private_ucbvi_root():
    g = _door_globals(private_ucbvi._DOOR)
    return _root(private_ucbvi.init_state, private_ucbvi.run_episodes, 1, g, dict(engine=SCRIPTED_ENGINE, **g))


def _obi_root(init, episodes):
    def build():
        g = _door_globals(privatizer._ALL)
        return _root(init, episodes, 0, g, dict(engine=SCRIPTED_ENGINE, **g))
    return build


def _sdp_pe_root():
    release_counts = rebind(pe_privacy.release_counts,
                            _DOOR=door_wrappers(pe_privacy._DOOR.new, pe_privacy._DOOR.release,
                                                pe_privacy._DOOR.release_sums))
    private_batch = rebind(pe_privacy.private_batch, release_counts=release_counts)
    advance = rebind(sdp_pe._advance, private_batch=private_batch)
    return _root(sdp_pe.init_state, sdp_pe.run_episodes, 0, {}, dict(engine=SCRIPTED_ENGINE, _advance=advance))


def _sdp_params(name, code):
    def params(p: dict) -> tuple:
        from privrl.agents.registry import get

        resolved = get(name).resolve(p)
        full = [resolved.get(n, sdp_pe.PLACEHOLDERS.get(n)) for n in sdp_pe.FULL_ORDER] + [float(code)]
        return np.array(full), (np.int64(code),)
    return params


def _spec_params(name, *extra):
    def params(p: dict) -> tuple:
        from privrl.agents.registry import get

        return get(name).param_vector(p), extra
    return params


#: agent -> (root builder key, params(p) -> (param vector, extra kernel arguments))
PROBES = {
    "pucb": ("pucb", _spec_params("pucb")),
    "ldp-obi": ("ldp-obi", _spec_params("ldp-obi")),
    "shuffled-obi": ("shuffled-obi", _spec_params("shuffled-obi")),
    "private-ucbvi-jdp": ("private-ucbvi", _spec_params("private-ucbvi-jdp", np.int64(privatizer.CENTRAL_TREE), False)),
    "private-ucbvi-ldp": ("private-ucbvi", _spec_params("private-ucbvi-ldp", np.int64(privatizer.LOCAL_LAPLACE), False)),
    "private-ucbvi-sdp": ("private-ucbvi", _spec_params("private-ucbvi-sdp", np.int64(privatizer.SHUFFLE_BITSUM), False)),
    "dp-ucbvi-jdp": ("private-ucbvi", _spec_params("dp-ucbvi-jdp", np.int64(privatizer.CENTRAL_TREE), True)),
    "dp-ucbvi-ldp": ("private-ucbvi", _spec_params("dp-ucbvi-ldp", np.int64(privatizer.LOCAL_LAPLACE), True)),
    "sdp-pe": ("sdp-pe", _sdp_params("sdp-pe", privatizer.SHUFFLE_BITSUM)),
    "sdp-pe-jdp": ("sdp-pe", _sdp_params("sdp-pe-jdp", privatizer.CENTRAL_TREE)),
    "sdp-pe-ldp": ("sdp-pe", _sdp_params("sdp-pe-ldp", privatizer.LOCAL_LAPLACE)),
}
_ROOT_BUILDERS = {"pucb": _pucb_root, "private-ucbvi": _private_ucbvi_root,
                  "ldp-obi": _obi_root(obi.ldp_init_state, obi.ldp_run_episodes),
                  "shuffled-obi": _obi_root(obi.shuffled_init_state, obi.shuffled_run_episodes),
                  "sdp-pe": _sdp_pe_root}
_DRIVERS: dict = {}


def _make_driver(root, n_extra: int):
    """njit loop: n runs of ``root`` on the script, each run's release log into out[n, D]."""
    call = {0: lambda r: njit(lambda env, params, K, rng, rec, ex: r(env, params, K, rng, rec)),
            1: lambda r: njit(lambda env, params, K, rng, rec, ex: r(env, params, K, rng, rec, ex[0])),
            2: lambda r: njit(lambda env, params, K, rng, rec, ex: r(env, params, K, rng, rec, ex[0], ex[1]))}
    run_once = call[n_extra](root)

    @njit
    def drive(env, params, K, rng, rec, extra, mult, out):
        b = probe_buffer()
        D = out.shape[1]
        for i in range(out.shape[0]):
            b[MULT] = mult
            b[USERS] = 0.0
            b[ABSENT] = 0.0
            b[RELEASED] = 0.0
            b[CURSOR] = 0.0
            run_once(env, params, K, rng, rec, extra)
            if int(b[CURSOR]) != D:
                raise ValueError("probe: the number of released values changed between runs")
            for c in range(D):
                out[i, c] = b[HEAD + c]
    return drive


def driver(agent: str, n_extra: int):
    key = PROBES[agent][0]
    if (key, n_extra) not in _DRIVERS:
        _DRIVERS[(key, n_extra)] = _make_driver(_ROOT_BUILDERS[key](), n_extra)
    return _DRIVERS[(key, n_extra)]


def sample_releases(agent: str, params: dict, P: np.ndarray, script: tuple, n: int, rng,
                    noise_multiplier: float = 1.0) -> np.ndarray:
    """``n`` runs of ``agent``'s kernel on the scripted users: out[n, D], every released vector
    of a run concatenated in release order. ``script = (s0[K], nxt[K, H, S, A], R[K, H, S, A],
    absent[K])``; K = len(s0)."""
    s0, nxt, R, absent = (np.ascontiguousarray(a) for a in script)
    K = int(s0.shape[0])
    env = (np.ascontiguousarray(P, dtype=np.float64), s0.astype(np.int64), nxt.astype(np.int64),
           R.astype(np.float64), absent.astype(np.int64))
    vec, extra = PROBES[agent][1](params)
    if agent.startswith("sdp-pe"):
        sdp_pe.check_enumerable(*P.shape[:3], vec[sdp_pe.MAXPOL])
    drive = driver(agent, len(extra))
    rec = engine.new_recorder(K, np.zeros(0))
    first = np.empty((1, 0))
    try:  # learn D from one run (the release pattern is data-independent)
        drive(env, vec, np.int64(K), rng, rec, extra, float(noise_multiplier), first)
    except ValueError:
        pass
    D = int(_BUFFER[CURSOR])
    out = np.empty((n, D))
    drive(env, vec, np.int64(K), rng, rec, extra, float(noise_multiplier), out)
    return out
