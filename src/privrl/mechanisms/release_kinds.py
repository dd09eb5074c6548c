"""``privatizer_release`` restricted to the privatizer kinds one agent uses (compile time only).

:func:`privatizers.privatizer_release` dispatches on a run-time ``code`` over all five kinds,
so every agent kernel calling it makes numba compile -- and re-optimise inside the kernel --
every mechanism (the binary tree, Laplace, the bit-sum binomials, randomized response). The
functions here take the same arguments, do exactly the same operations on the same state
for the kinds they accept (bit-identical releases, same draws in the same order) and raise
on any other kind:

* :func:`release_tree_or_none` -- none, central-tree (PUCB);
* :func:`release_tree_laplace_or_none` -- none, central-tree, local-laplace (private UCBVI
  family; its shuffle-bitsum batches go through their own adapter).
"""
from __future__ import annotations

from numba import njit

from privrl.mechanisms.laplace import laplace_release
from privrl.mechanisms.privatizer import (
    CENTRAL_TREE,
    F_SCALE,
    I_KIND,
    I_LEVELS,
    I_T,
    I_USERS,
    LOCAL_LAPLACE,
    NONE,
    ROW_CUM,
    ROW_LAST,
    _finish,
    _tree_views,
)
from privrl.mechanisms.tree import tree_step


@njit(cache=True)
def _begin(code, state):
    """Check the kind, count one more release by one user; returns the release number t."""
    istate = state[1]
    if istate[I_KIND] != code:
        raise ValueError("privatizer_release: code does not match the state's kind")
    t = istate[I_T] + 1
    istate[I_T] = t
    istate[I_USERS] += 1
    return t


@njit(cache=True)
def _none(state, x, out):
    fstate = state[0]
    last = fstate[ROW_LAST]
    for c in range(fstate.shape[1]):
        last[c] = x[c]
    _finish(fstate, out)


@njit(cache=True)
def _tree(state, t, x, rng, out):
    fstate, istate, fparams = state
    exact, noisy, psum = _tree_views(fstate, istate[I_LEVELS])
    tree_step(exact, noisy, psum, t, x, fparams[F_SCALE], rng, out)
    cum = fstate[ROW_CUM]
    last = fstate[ROW_LAST]
    for c in range(fstate.shape[1]):
        last[c] = out[c] - cum[c]
        cum[c] = out[c]


@njit(cache=True)
def _laplace(state, x, rng, out):
    fstate, istate, fparams = state
    laplace_release(x, fparams[F_SCALE], rng, fstate[ROW_LAST])
    _finish(fstate, out)


@njit(cache=True)
def release_tree_or_none(code, state, x, rng, out):
    """``privatizer_release`` for kinds none and central-tree only."""
    t = _begin(code, state)
    if code == NONE:
        _none(state, x, out)
    elif code == CENTRAL_TREE:
        _tree(state, t, x, rng, out)
    else:
        raise ValueError("release_tree_or_none: kind must be none or central-tree")


@njit(cache=True)
def release_tree_laplace_or_none(code, state, x, rng, out):
    """``privatizer_release`` for kinds none, central-tree and local-laplace only."""
    if code != LOCAL_LAPLACE:
        release_tree_or_none(code, state, x, rng, out)
        return
    _begin(code, state)
    _laplace(state, x, rng, out)
