"""Per-item random generators: every random choice draws from (build seed, stage, item id).

A shard's output therefore does not depend on scheduling order, worker count or retries.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _words(text: str) -> list[int]:
    """A string as four stable 32-bit words (blake2b), independent of Python's hash seed."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]


def seed_sequence(seed: int, stage: str, item_id: str) -> np.random.SeedSequence:
    """The SeedSequence of one item of one stage of a build."""
    return np.random.SeedSequence([int(seed), *_words(stage), *_words(str(item_id))])


def item_rng(seed: int, stage: str, item_id: str) -> np.random.Generator:
    """A fresh generator for one item; the same arguments always give the same stream."""
    return np.random.default_rng(seed_sequence(seed, stage, item_id))


def item_seed(seed: int, stage: str, item_id: str) -> int:
    """A 31-bit integer seed for libraries that take an int (Blender, XGBoost)."""
    return int(seed_sequence(seed, stage, item_id).generate_state(1)[0] & 0x7FFFFFFF)
