"""The items of a built benchmark as a model is asked them: the prompt text, the images, the options, the answer.

- syndor: every row of `syndor/index/{human_detection,action_recognition}/{day,night,nv}.jsonl`, its
  prompt verbatim (DESIGN §2.5), the shown image; scored by tasks/syndor/scoring.
- viewspatial: `viewspatial/ViewSpatial-Bench.json`, multiple choice (lettered `choices`).
- odi: `odi/ODI-Bench.json`, closed-form items as multiple choice; open-form items are listed and sent
  but need an LLM judge to score, which is not built.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json
from benchfoundry.tasks.evaluation.choices import letter_of, split_option
from benchfoundry.tasks.syndor import task_files

#: The multiple-choice prompt: the question, the lettered options, and how to answer.
MC_TEMPLATE = "{question}\n{choices}\nAnswer with the option's letter from the given choices directly."

BENCHES = ("syndor", "viewspatial", "odi")


@dataclass(frozen=True)
class EvalItem:
    id: str
    task: str
    prompt: str
    images: tuple[Path, ...]
    options: tuple[str, ...] = ()  # lettered, "A. …"; empty for a free-form answer
    answer: str = ""  # the correct option's letter, or the reference answer
    meta: dict[str, Any] = field(default_factory=dict)


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; build the benchmark first")
    return read_json(path)


def syndor_items(build: Path) -> list[EvalItem]:
    """Every task-file row: the prompt verbatim, the shown image, the answer of tasks/syndor/qa_stage."""
    root = task_files.dataset_root(build)
    items = []
    for task in task_files.TASKS:
        for split in task_files.SPLITS:
            path = task_files.index_dir(build) / task / f"{split}.jsonl"
            if not path.is_file():
                raise FileNotFoundError(f"{path}: task file missing; build the syndor benchmark first")
            for line in path.read_text().splitlines():
                row = json.loads(line)
                items.append(
                    EvalItem(
                        id=f"{task}:{row['img_path']}",
                        task=task,
                        prompt=row["prompt"],
                        images=(root / row["img_path"],),
                        answer=str(task_files.answer(row, task)),
                        meta={"img_path": row["img_path"], "prompt": row["prompt"], "split": split},
                    )
                )
    return items


def viewspatial_items(build: Path) -> list[EvalItem]:
    path = build / "viewspatial" / "ViewSpatial-Bench.json"
    items = []
    for i, row in enumerate(_read_json(path)):
        options = tuple(row["choices"].split("\n"))
        letter, _ = split_option(row["answer"])
        if letter not in [split_option(o)[0] for o in options]:
            raise ValueError(f"{path}: item {i}: answer {row['answer']!r} is not one of its choices")
        items.append(
            EvalItem(
                id=f"viewspatial-{i:05d}",
                task=row["question_type"],
                prompt=MC_TEMPLATE.format(question=row["question"], choices=row["choices"]),
                images=tuple(path.parent / p for p in row["image_path"]),
                options=options,
                answer=letter,
            )
        )
    return items


def odi_items(build: Path) -> list[EvalItem]:
    """Closed items with their options lettered in their released order; open items with the reference answer."""
    path = build / "odi" / "ODI-Bench.json"
    items = []
    for row in _read_json(path):
        image = (path.parent / row["image"],)
        if row["form"] != "closed":
            items.append(
                EvalItem(
                    id=str(row["id"]),
                    task=row["task"],
                    prompt=row["question"],
                    images=image,
                    answer=str(row["answer"]),
                    meta={"form": "open", "question": row["question"]},
                )
            )
            continue
        texts = [split_option(o)[1] for o in row["options"]]
        answer = split_option(str(row["answer"]))[1]
        if answer not in texts:
            raise ValueError(f"{path}: item {row['id']}: answer {row['answer']!r} is not one of its options")
        options = tuple(f"{letter_of(k)}. {t}" for k, t in enumerate(texts))
        items.append(
            EvalItem(
                id=str(row["id"]),
                task=row["task"],
                prompt=MC_TEMPLATE.format(question=row["question"], choices="\n".join(options)),
                images=image,
                options=options,
                answer=letter_of(texts.index(answer)),
                meta={"form": "closed", "question": row["question"]},
            )
        )
    return items


def load_items(bench: str, build: Path) -> list[EvalItem]:
    loaders = {"syndor": syndor_items, "viewspatial": viewspatial_items, "odi": odi_items}
    return loaders[bench](build)
