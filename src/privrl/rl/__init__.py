"""privrl.rl: MDPs, the episode engine, planning and policies (numba kernels, cached on disk)."""
from privrl import numba_cache

numba_cache.install()  # before any cached kernel of this package compiles or loads (privrl.numba_cache)
