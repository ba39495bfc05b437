"""What two sides of one benchmark share: identical images (the same bytes), near-identical ones (64-bit perceptual
hashes, `imagehash.phash`, within `phash_distance` bits), identical questions (compare/questions.normalised) and
identical items (the same question on near-identical images, in order), counted both ways, with examples.

Images are read through the guarded decoder (core/image_decode); one that cannot be read is counted as such and
matches nothing.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.compare.questions import normalised
from benchfoundry.core.image_decode import decode_bytes, read_image_bytes
from benchfoundry.evaluation.items import EvalItem

#: Set bits of every byte value.
_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)
#: Rows of one side compared with the other's hashes at once.
_CHUNK = 256


@dataclass(frozen=True)
class ImageKey:
    """An image's content: the sha256 of its bytes and its perceptual hash as an unsigned 64-bit number."""

    sha256: str
    phash: int


def image_key(path: Path) -> ImageKey:
    """The image's key; a ValueError naming it when it cannot be read or decoded."""
    import cv2
    import imagehash
    from PIL import Image

    data = read_image_bytes(path)
    grey = decode_bytes(data, str(path), cv2.IMREAD_GRAYSCALE)
    bits = imagehash.phash(Image.fromarray(grey)).hash.flatten()
    return ImageKey(hashlib.sha256(data).hexdigest(), int.from_bytes(np.packbits(bits).tobytes(), "big"))


def image_keys(items: Sequence[EvalItem]) -> tuple[dict[Path, ImageKey], dict[Path, str]]:
    """Each image of the items read once: {path: key}, and {path: why it could not be read}."""
    keys: dict[Path, ImageKey] = {}
    unreadable: dict[Path, str] = {}
    for item in items:
        for path in item.images:
            if path in keys or path in unreadable:
                continue
            try:
                keys[path] = image_key(path)
            except (OSError, ValueError) as exc:
                unreadable[path] = str(exc)
    return keys, unreadable


def hamming(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Bits differing between each of `a` (n) and each of `b` (m), unsigned 64-bit hashes: an n × m array."""
    xor = a[:, None] ^ b[None, :]
    return _POPCOUNT[xor.view(np.uint8).reshape(*xor.shape, 8)].sum(axis=-1, dtype=np.int64)


def nearest(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each hash of `a`, the least distance to one of `b` and its index (n-long arrays); b must be non-empty."""
    dist, index = np.empty(len(a), np.int64), np.empty(len(a), np.int64)
    for start in range(0, len(a), _CHUNK):
        block = hamming(a[start : start + _CHUNK], b)
        index[start : start + len(block)] = block.argmin(axis=1)
        dist[start : start + len(block)] = block.min(axis=1)
    return dist, index


def _near_images(
    mine: dict[Path, ImageKey], theirs: dict[Path, ImageKey], distance: int
) -> tuple[int, int, list[dict[str, Any]]]:
    """Of my images: how many have an identical one among theirs, how many a near-identical one, and each near
    pair (mine, theirs, distance), nearest first."""
    if not mine or not theirs:
        return 0, 0, []
    other = {k.sha256 for k in theirs.values()}
    identical = sum(k.sha256 in other for k in mine.values())
    paths, their_paths = list(mine), list(theirs)
    dist, index = nearest(
        np.array([mine[p].phash for p in paths], dtype=np.uint64),
        np.array([theirs[p].phash for p in their_paths], dtype=np.uint64),
    )
    pairs = [
        {"image": str(p), "other": str(their_paths[j]), "distance": int(d)}
        for p, d, j in zip(paths, dist, index)
        if d <= distance
    ]
    return identical, len(pairs), sorted(pairs, key=lambda x: x["distance"])


def _same_items(
    mine: Sequence[EvalItem],
    theirs: Sequence[EvalItem],
    keys: dict[Path, ImageKey],
    distance: int,
) -> tuple[int, list[dict[str, str]], int, list[dict[str, str]]]:
    """Of my items: how many ask a question one of theirs asks (and examples), and how many ask it on
    near-identical images, in order (and examples)."""
    by_question: dict[str, list[EvalItem]] = defaultdict(list)
    for item in theirs:
        by_question[normalised(item.question)].append(item)

    def near(x: Path, y: Path) -> bool:
        return x in keys and y in keys and (keys[x].phash ^ keys[y].phash).bit_count() <= distance

    questions, items = [], []
    for item in mine:
        asked = by_question.get(normalised(item.question), [])
        if not asked:
            continue
        questions.append({"question": item.question, "id": item.id, "other": asked[0].id})
        same = next(
            (
                o
                for o in asked
                if len(o.images) == len(item.images) and all(near(x, y) for x, y in zip(item.images, o.images))
            ),
            None,
        )
        if same is not None:
            items.append({"question": item.question, "id": item.id, "other": same.id})
    return len(questions), questions, len(items), items


def overlap(a: Sequence[EvalItem], b: Sequence[EvalItem], distance: int, examples: int) -> dict[str, Any]:
    """One benchmark's overlap between sides A and B: per side (`[A, B]`), its distinct images, those unreadable,
    those with an identical and with a near-identical image on the other side, its items asking a question of
    the other side's, and its items the other side holds too (the same question on near-identical images)."""
    keys_a, bad_a = image_keys(a)
    keys_b, bad_b = image_keys(b)
    keys = {**keys_a, **keys_b}
    ident_a, near_a, pairs_a = _near_images(keys_a, keys_b, distance)
    ident_b, near_b, pairs_b = _near_images(keys_b, keys_a, distance)
    q_a, _, i_a, _ = _same_items(a, b, keys, distance)
    q_b, q_examples, i_b, i_examples = _same_items(b, a, keys, distance)
    return {
        "items": [len(a), len(b)],
        "images": [len(keys_a) + len(bad_a), len(keys_b) + len(bad_b)],
        "unreadable_images": [len(bad_a), len(bad_b)],
        "identical_images": [ident_a, ident_b],
        "near_identical_images": [near_a, near_b],
        "same_questions": [q_a, q_b],
        "same_items": [i_a, i_b],
        "examples": {
            "near_identical_images": pairs_b[:examples],
            "same_questions": q_examples[:examples],
            "same_items": i_examples[:examples],
            "unreadable_images": [
                {"image": str(p), "reason": r} for p, r in list({**bad_a, **bad_b}.items())[:examples]
            ],
        },
    }
