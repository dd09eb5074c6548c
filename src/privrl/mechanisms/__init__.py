"""Privacy mechanisms as numba kernels over plain arrays (issue 3).

Every kernel takes a ``numpy.random.Generator``; none uses a global RNG. Mechanisms know
nothing of RL: counts are vectors of counters. Agents use :mod:`.privatizers` only.

Modules: :mod:`.laplace` (Laplace), :mod:`.tree` (binary mechanism, Vietri et al. App. A
Alg. 5), :mod:`.randomized_response` (R_p, M_sh, shuffler, analyzer; Garcelon et al.
Alg. 2-3, Eq. 4-6), :mod:`.bitsum` (shuffle binary summation, Bai et al. App. Alg. 4),
:mod:`.postprocess` (Bai et al. Sec. V Eq. 4-5), :mod:`.gaussian` (RLSVI perturbation, Lu
et al. Alg. 1), :mod:`.privatizers` (the agent-facing interface).
"""
from privrl.mechanisms.privatizer import (
    CENTRAL_TREE,
    KIND_CODES,
    KIND_MODELS,
    KIND_NAMES,
    LOCAL_LAPLACE,
    NONE,
    SHUFFLE_BITSUM,
    SHUFFLE_RR,
    describe_privatizer,
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
    "make_privatizer",
    "privatizer_cumulative",
    "privatizer_last",
    "privatizer_new",
    "privatizer_release",
    "privatizer_release_batch",
    "privatizer_release_sums",
]
