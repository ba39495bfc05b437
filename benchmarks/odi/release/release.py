"""The one writer of ODI-Bench's released files: `odi/ODI-Bench.json` and its Parquet copy for Hugging Face
`datasets` (`odi/hf/ODI-Bench.parquet`), the same rows, on a build and after `odi review-import`.

The items are those reviewers accepted or edited (`verified: true`), plus the undecided ones as
`verified: false` when `release_unreviewed` is set (pipeline/review.py). Every path in them is relative to
the release root `odi/`; an absolute one is an error naming the item.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import pandas as pd

from benchfoundry.core.atomic_files import write_json_atomic
from benchfoundry.core.store import write_parquet_atomic
from benchfoundry.pipeline import review

RELEASE_JSON = "ODI-Bench.json"
RELEASE_PARQUET = "hf/ODI-Bench.parquet"
#: The released item fields (docs/design/odi.md §2.5): the paper's, then the ones this pipeline adds.
COLUMNS = (
    "id",
    "task",
    "form",
    "question",
    "options",
    "answer",
    "image",
    "instance_ids",
    "source",
    "verified",
    "answer_from",
    "distractors_from",
)


def check_relative(items: Sequence[dict[str, Any]]) -> None:
    """Every item's image is a relative path inside the release root."""
    for item in items:
        image = str(item["image"])
        if PurePosixPath(image).is_absolute() or PureWindowsPath(image).is_absolute() or ".." in image.split("/"):
            raise ValueError(f"item {item['id']}: image {image!r} is not a path inside the release root odi/")


def write_release(
    benchmark_dir: Path, items: Sequence[dict[str, Any]], decisions: dict[str, dict[str, Any]], release_unreviewed: bool
) -> list[dict[str, Any]]:
    """Write the JSON and the Parquet of the released items; returns them."""
    released = review.release(items, decisions, release_unreviewed)
    check_relative(released)
    write_json_atomic(benchmark_dir / RELEASE_JSON, released)
    frame = pd.DataFrame(
        [
            {
                **{c: item.get(c, "") for c in COLUMNS},
                "options": list(item["options"]),
                "instance_ids": [int(i) for i in item["instance_ids"]],
            }
            for item in released
        ],
        columns=list(COLUMNS),
    )
    write_parquet_atomic(benchmark_dir / RELEASE_PARQUET, frame)
    return released
