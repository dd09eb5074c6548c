"""Privacy mechanisms as numba kernels over plain arrays.

Every kernel takes a ``numpy.random.Generator``; none uses a global RNG. Mechanisms know
nothing of RL: counts are vectors of counters. Agents import only :mod:`.privatizer` (the
door: privatizer kinds, the Gaussian perturbation, unary coding, Bai et al.'s
post-processing), :mod:`.bounds` (noise width formulas), :mod:`.events` and
:mod:`.accounting` (guarantees) -- tests/mechanisms/test_door.py checks it.

Kinds (:mod:`.kinds` registry; each module declares its kind): ``none`` (:mod:`.kinds`),
``central-tree`` (:mod:`.tree`, Vietri et al. App. A Alg. 5), ``local-laplace``
(:mod:`.laplace`), ``shuffle-bitsum`` (:mod:`.bitsum`, Bai et al. App. Alg. 4), ``shuffle-rr``
(:mod:`.rr`, Garcelon et al. Alg. 2-3, Eq. 4-6). Also :mod:`.postprocess` (Bai et al. Sec. V
Eq. 4-5), :mod:`.gaussian`, :mod:`.exact_epsilon`, :mod:`.audit`.
"""
from privrl import numba_cache

numba_cache.install()  # before any cached kernel compiles or loads (privrl.numba_cache)

from privrl.mechanisms.privatizer import (  # noqa: E402
    CENTRAL_TREE,
    KIND_CODES,
    KIND_MODELS,
    KIND_NAMES,
    LOCAL_LAPLACE,
    NONE,
    SHUFFLE_BITSUM,
    SHUFFLE_RR,
    describe_privatizer,
    door,
    make_privatizer,
    privatizer_cumulative,
    privatizer_last,
    privatizer_new,
    privatizer_release,
    privatizer_release_batch,
    privatizer_release_sums,
)

__all__ = [
    "CENTRAL_TREE",
    "KIND_CODES",
    "KIND_MODELS",
    "KIND_NAMES",
    "LOCAL_LAPLACE",
    "NONE",
    "SHUFFLE_BITSUM",
    "SHUFFLE_RR",
    "describe_privatizer",
    "door",
    "make_privatizer",
    "privatizer_cumulative",
    "privatizer_last",
    "privatizer_new",
    "privatizer_release",
    "privatizer_release_batch",
    "privatizer_release_sums",
]
