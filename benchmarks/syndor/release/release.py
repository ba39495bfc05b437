"""SynDORBench's released task files (docs/design/syndor.md §5): their layout, columns, splits and answers, and how to
read them back. What the QA stage writes (benchmarks/syndor/stages/qa_stage.py) and what evaluation and scoring read.

    <out>/syndor/index/master_index.{jsonl,parquet}
    <out>/syndor/index/{human_detection,action_recognition}/{day,night,nv}.{jsonl,parquet}
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS

#: The released master-index columns, in their released order (docs/design/syndor.md §2).
MASTER_COLUMNS: tuple[str, ...] = (
    "source_dir",
    "action",
    "scene",
    "lighting",
    "radius",
    "smplx_texture",
    "img_path",
    "mask_path",
    "img_name",
    "nv_path",
    "human_discernable",
)
#: Task-file columns: a master-index row whose `img_path` is the shown image, the raw frame, prompt, task, and the
#: action's released name, the action-recognition reference ("stepping over something", not `stepping_over`).
TASK_COLUMNS: tuple[str, ...] = (*MASTER_COLUMNS, "raw_img_path", "prompt", "task", "action_phrase")
SPLITS: tuple[str, ...] = ("day", "night", "nv")
CATEGORIES: tuple[str, ...] = tuple(TASK_PROMPTS)
#: Optional manifest column: the night-vision image's own label, when the discern stage gives one.
NV_LABEL_COLUMN = "human_discernable_nv"
#: Optional manifest column marking renders without a person (presence negatives).
EMPTY_SCENE_COLUMN = "empty_scene"


def dataset_root(out: str | os.PathLike[str]) -> Path:
    return Path(out) / "syndor"


def index_dir(out: str | os.PathLike[str]) -> Path:
    return dataset_root(out) / "index"


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The JSON rows of a JSONL file; a line that is not JSON is a ValueError naming the file and line."""
    rows = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
    return rows


def answer(row: dict[str, Any], task: str) -> int | str:
    """The presence label, or the action phrase (the slug in task files written before `action_phrase`)."""
    if task == "human_detection":
        return row["human_discernable"]
    return row.get("action_phrase") or row["action"]


def answer_key(index: str | os.PathLike[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """(task, shown image path = task-file `img_path`) → {truth, action, radius, split}, from the task files under
    `index/` (`action` as released: the authors' E5 reference).

    Task files written before `img_path` became the shown image (no `raw_img_path`) are an error:
    their nv rows name the raw night frame.
    """
    key: dict[tuple[str, str], dict[str, Any]] = {}
    for task in CATEGORIES:
        for split in SPLITS:
            path = Path(index) / task / f"{split}.jsonl"
            if not path.is_file():
                raise FileNotFoundError(f"{path}: task file missing; run the QA export first")
            for row in read_jsonl(path):
                if "raw_img_path" not in row:
                    raise ValueError(
                        f"{path}: rows lack raw_img_path (written by an older export); "
                        "rerun the build to rewrite the QA files"
                    )
                key[(task, row["img_path"])] = {
                    "truth": answer(row, task),
                    "action": row["action"],
                    "radius": row["radius"],
                    "split": split,
                }
    return key
