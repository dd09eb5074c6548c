"""Stable per-(experiment, setting, seed) random streams.

Each seed's stream is ``SeedSequence(entropy=sha256(experiment, setting), spawn_key=(seed,))``:
it depends only on those three values, never on Python's salted ``hash``, on the
process, on the batch the seed runs in, or on a global RNG. A seed's result is therefore
bit-identical alone, in a batch, or under any number of Snakemake cores.
"""
from __future__ import annotations

import hashlib

import numpy as np


def stable_entropy(*parts: str) -> int:
    """128-bit integer from the SHA-256 of the unit-separated parts."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:16], "little")


def seed_sequence(experiment: str, setting: str, seed: int) -> np.random.SeedSequence:
    """The SeedSequence of one (experiment, setting, seed) triple."""
    if seed < 0:
        raise ValueError(f"seed must be >= 0; got {seed}")
    return np.random.SeedSequence(stable_entropy(experiment, setting), spawn_key=(int(seed),))


def generator(experiment: str, setting: str, seed: int) -> np.random.Generator:
    """A PCG64 Generator on the stream of (experiment, setting, seed)."""
    return np.random.Generator(np.random.PCG64(seed_sequence(experiment, setting, seed)))


def environment_generator(experiment: str, env: str, seed: int) -> np.random.Generator:
    """The environment's own stream of (experiment, env, seed) under common random numbers: every
    agent on that instance and seed samples its episodes from it. ``":"`` never occurs in a cell
    id (:func:`privrl.design.experiments.cell_id`), so it is no agent's (experiment, setting) stream."""
    return generator(experiment, f"{env}:environment", seed)
