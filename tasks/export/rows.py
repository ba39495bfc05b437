"""A built benchmark's released items as table rows, by split, with their images as `hf.ImageRef`s: what the
Hugging Face and lmms-eval exports write.

- syndor: one split per task file, `<task>_<split>` (the authors' dataset names: `human_detection_day`, …),
  every task-file column and `image`, the shown image.
- viewspatial: split `test`, the released fields (`question_type` as the authors' string) and `images`.
- odi: split `test`, the released fields, `image` the panorama and `image_path` its released path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.tasks.common.benchmarks import get, resolve
from benchfoundry.tasks.evaluation.items import EvalItem, odi_items, syndor_items, viewspatial_items
from benchfoundry.tasks.export.hf import ImageRef

Splits = dict[str, list[dict[str, Any]]]


def refs(item: EvalItem, names: list[str]) -> list[ImageRef]:
    """The item's images under their released names; a refused item's one ref carries why (a problem row)."""
    if item.problem is not None:
        return [ImageRef(Path(), names[0] if names else "", refused=item.problem)]
    return [ImageRef(file, name) for file, name in zip(item.images, names)]


def syndor_splits(build: Path) -> Splits:
    splits: Splits = {}
    for item in syndor_items(build):
        row = {**item.meta["row"], "image": refs(item, [item.meta["img_path"]])[0]}
        splits.setdefault(f"{item.task}_{item.meta['split']}", []).append(row)
    return splits


def viewspatial_splits(build: Path) -> Splits:
    rows = [
        {
            "question_type": item.meta["question_type"],
            "image_path": item.meta["image_path"],
            "question": item.question,
            "answer": item.meta["answer_text"],
            "choices": item.meta["choices"],
            "images": refs(item, item.meta["image_path"]),
        }
        for item in viewspatial_items(build)
    ]
    return {"test": rows}


def odi_splits(build: Path) -> Splits:
    rows = []
    for item in odi_items(build):
        released = {k: v for k, v in item.meta["row"].items() if k != "image"}
        rows.append({**released, "image": refs(item, [item.meta["image_path"]])[0]})
        rows[-1]["image_path"] = item.meta["image_path"]
    return {"test": rows}


def splits_of(benchmark: str, build: Path) -> Splits:
    """The benchmark's rows by split, from its descriptor's export rows (tasks/common/benchmarks.py)."""
    return resolve(get(benchmark).export_rows)(build)
