"""ViewSpatial-Bench's released file read back: the evaluation items (`viewspatial/ViewSpatial-Bench.json`;
`question_type` either the authors' released string or the paper's short name, categories.py, the item's task
always the short name, the report's column) and the rows of the exports: split `test`, the released fields
(`question_type` as the authors' string) and `images`."""

from __future__ import annotations

from pathlib import Path

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES, SHORT_NAMES
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.evaluation.choices import split_option
from benchfoundry.evaluation.items import EvalItem, field_of, read_released_json, released_images
from benchfoundry.export.rows import Splits, refs

RELEASED = Path(BENCHMARK) / "ViewSpatial-Bench.json"


def items(build: Path) -> list[EvalItem]:
    """Multiple choice: the released `choices` lines are the options, the answer's letter the answer."""
    return release_items(build / RELEASED)


def release_items(path: Path) -> list[EvalItem]:
    """The items of a `ViewSpatial-Bench.json` wherever it lies (a build's, the authors'), its image paths relative
    to its folder."""
    found = []
    for i, row in enumerate(read_released_json(path)):
        where = f"item {i}"
        question_type = str(field_of(path, where, row, "question_type"))
        short = SHORT_NAMES.get(question_type, question_type)
        if short not in CATEGORIES:
            raise ValueError(f"{path}: {where}: unknown question_type {question_type!r}")
        choices = str(field_of(path, where, row, "choices"))
        options = tuple(choices.split("\n"))
        letter, _ = split_option(str(field_of(path, where, row, "answer")))
        if letter not in [split_option(o)[0] for o in options]:
            raise ValueError(f"{path}: {where}: answer {row['answer']!r} is not one of its choices")
        images = field_of(path, where, row, "image_path")
        files, refused = released_images(path.parent, images, f"{path}: {where}")
        found.append(
            EvalItem(
                id=f"viewspatial-{i:05d}",
                task=short,
                question=str(field_of(path, where, row, "question")),
                images=files,
                options=options,
                answer=letter,
                meta={
                    "question_type": CATEGORIES[short],
                    "choices": choices,
                    "answer_text": str(row["answer"]),
                    "image_path": [str(p) for p in images],
                },
                problem=refused,
            )
        )
    return found


def splits(build: Path) -> Splits:
    rows = [
        {
            "question_type": item.meta["question_type"],
            "image_path": item.meta["image_path"],
            "question": item.question,
            "answer": item.meta["answer_text"],
            "choices": item.meta["choices"],
            "images": refs(item, item.meta["image_path"]),
        }
        for item in items(build)
    ]
    return {"test": rows}
