"""Toy-Bench's released file read back: the evaluation items (options lettered in the released order, the answer
the correct one's letter) and the rows of the Hugging Face and lmms-eval exports."""

from __future__ import annotations

from pathlib import Path

from benchfoundry.evaluation.choices import letter_of
from benchfoundry.evaluation.items import EvalItem, field_of, read_released_json, released_images
from benchfoundry.export.rows import Splits, refs
from toybench.identity import RELEASED


def items(build: Path) -> list[EvalItem]:
    path = build / RELEASED
    found = []
    for i, row in enumerate(read_released_json(path)):
        where = f"item {i}"
        options = [str(o) for o in field_of(path, where, row, "options")]
        answer = str(field_of(path, where, row, "answer"))
        if answer not in options:
            raise ValueError(f"{path}: {where}: answer {answer!r} is not one of its options")
        image = str(field_of(path, where, row, "image"))
        files, refused = released_images(path.parent, image, f"{path}: {where}")
        found.append(
            EvalItem(
                id=str(field_of(path, where, row, "id")),
                task=str(field_of(path, where, row, "task")),
                question=str(field_of(path, where, row, "question")),
                images=files,
                options=tuple(f"{letter_of(k)}. {t}" for k, t in enumerate(options)),
                answer=letter_of(options.index(answer)),
                meta={"image_path": image, "colour": answer},
                problem=refused,
            )
        )
    return found


def splits(build: Path) -> Splits:
    rows = [
        {
            "id": item.id,
            "task": item.task,
            "question": item.question,
            "options": list(item.options),
            "answer": item.answer,
            "answer_text": item.meta["colour"],
            "image": refs(item, [item.meta["image_path"]])[0],
            "image_path": item.meta["image_path"],
        }
        for item in items(build)
    ]
    return {"test": rows}
