"""SynDORBench's released task files read back: the evaluation items (every row of
`syndor/index/{human_detection,action_recognition}/{day,night,nv}.jsonl`, release.py, its prompt verbatim, the
shown image) and the rows of the exports, one split per task file, `<task>_<split>` (the authors' dataset
names: `human_detection_day`, …), every task-file column and `image`, the shown image."""

from __future__ import annotations

from pathlib import Path

from benchfoundry.benchmarks.syndor.release import release
from benchfoundry.evaluation.items import EvalItem, field_of, released_images
from benchfoundry.export.rows import Splits, refs


def items(build: Path) -> list[EvalItem]:
    """Every task-file row: the prompt verbatim, the shown image, the answer of benchmarks/syndor/qa_stage."""
    return release_items(release.index_dir(build))


def release_items(index: Path) -> list[EvalItem]:
    """The rows of a task index wherever it lies (a build's, the authors'): `index/<task>/<split>.jsonl`, image
    paths relative to the dataset root, the index's parent folder."""
    root = index.parent
    found = []
    for task in release.CATEGORIES:
        for split in release.SPLITS:
            path = index / task / f"{split}.jsonl"
            if not path.is_file():
                raise FileNotFoundError(f"{path}: task file missing; build the syndor benchmark first")
            for number, row in enumerate(release.read_jsonl(path), start=1):
                where = f"line {number}"
                img_path = str(field_of(path, where, row, "img_path"))
                images, refused = released_images(root, img_path, f"{path}: {where}")
                found.append(
                    EvalItem(
                        id=f"{task}:{img_path}",
                        task=task,
                        question=str(field_of(path, where, row, "prompt")),
                        images=images,
                        answer=str(release.answer(row, task)),
                        meta={
                            "img_path": img_path,
                            "split": split,
                            "radius": field_of(path, where, row, "radius"),
                            "row": row,
                        },
                        problem=refused,
                    )
                )
    return found


def splits(build: Path) -> Splits:
    splits: Splits = {}
    for item in items(build):
        row = {**item.meta["row"], "image": refs(item, [item.meta["img_path"]])[0]}
        splits.setdefault(f"{item.task}_{item.meta['split']}", []).append(row)
    return splits
