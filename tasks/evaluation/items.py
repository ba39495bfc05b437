"""The items of a built benchmark as released, before any protocol: question, options, answer, images.

- syndor: every row of `syndor/index/{human_detection,action_recognition}/{day,night,nv}.jsonl`
  (tasks/syndor/release.py), its prompt verbatim (DESIGN §2.5), the shown image.
- viewspatial: `viewspatial/ViewSpatial-Bench.json`; `question_type` either the authors' released string or
  the paper's short name (tasks/viewspatial/task_names), the item's task always the short name (report column).
- odi: `odi/ODI-Bench.json`, closed items with their options lettered in the released order (yes/no items
  too), open items with the reference answer.

Image paths in a released file are relative to that file's folder, and must stay inside it once links are
followed and name regular files (core/safe_paths.inside_file): a build folder someone hands over is input. An
item whose image is refused keeps no image and says why in `problem`: eval records it as a failed item and
sends nothing, the exports leave it out as a problem row; the other items go on. How an item is put to a model and how a
reply is read is the protocol's (tasks/evaluation/protocols.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.safe_paths import UnsafePathError, inside_file
from benchfoundry.tasks.common.benchmarks import get, resolve
from benchfoundry.tasks.evaluation.choices import letter_of, split_option
from benchfoundry.tasks.syndor import release
from benchfoundry.tasks.viewspatial.task_names import RELEASED_TYPES, SHORT_NAMES

VIEWSPATIAL_JSON = Path("viewspatial") / "ViewSpatial-Bench.json"
ODI_JSON = Path("odi") / "ODI-Bench.json"
#: The options of a yes/no item, in any order and case.
YES_NO = frozenset({"yes", "no"})


@dataclass(frozen=True)
class EvalItem:
    id: str
    task: str
    question: str  # as released (SynD: the prompt verbatim)
    images: tuple[Path, ...]
    options: tuple[str, ...] = ()  # lettered "A. …" in the released order; empty for a free-form answer
    answer: str = ""  # the correct option's letter, or the reference answer of a free-form item
    meta: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why the item's images were refused (then `images` is empty)

    @property
    def texts(self) -> tuple[str, ...]:
        """The options without their letters."""
        return tuple(split_option(o)[1] for o in self.options)

    @property
    def yes_no(self) -> bool:
        return len(self.options) == 2 and {t.lower() for t in self.texts} == YES_NO


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; build the benchmark first")
    return read_json(path)


def _images(folder: Path, names: Any, where: str) -> tuple[tuple[Path, ...], str | None]:
    """The released image names joined to their folder (inside it, regular files), or () and why not."""
    if not isinstance(names, (list, tuple)):
        names = [names]
    try:
        return tuple(inside_file(folder, str(name), f"{where}: image") for name in names), None
    except (UnsafePathError, OSError) as exc:
        return (), str(exc) if isinstance(exc, UnsafePathError) else f"{where}: image {exc.filename}: {exc.strerror}"


def refused_image(item: EvalItem) -> str:
    """The failed row's error of an item whose images were refused (nothing is sent for it)."""
    return f"cannot read the image: {item.problem}"


def _field(path: Path, where: str, row: Any, name: str) -> Any:
    if not isinstance(row, dict) or name not in row:
        raise ValueError(f"{path}: {where}: field {name!r} missing")
    return row[name]


def syndor_items(build: Path) -> list[EvalItem]:
    """Every task-file row: the prompt verbatim, the shown image, the answer of tasks/syndor/qa_stage."""
    root = release.dataset_root(build)
    items = []
    for task in release.TASKS:
        for split in release.SPLITS:
            path = release.index_dir(build) / task / f"{split}.jsonl"
            if not path.is_file():
                raise FileNotFoundError(f"{path}: task file missing; build the syndor benchmark first")
            for number, row in enumerate(release.read_jsonl(path), start=1):
                where = f"line {number}"
                img_path = str(_field(path, where, row, "img_path"))
                images, refused = _images(root, img_path, f"{path}: {where}")
                items.append(
                    EvalItem(
                        id=f"{task}:{img_path}",
                        task=task,
                        question=str(_field(path, where, row, "prompt")),
                        images=images,
                        answer=str(release.answer(row, task)),
                        meta={
                            "img_path": img_path,
                            "split": split,
                            "radius": _field(path, where, row, "radius"),
                            "row": row,
                        },
                        problem=refused,
                    )
                )
    return items


def viewspatial_items(build: Path) -> list[EvalItem]:
    """Multiple choice: the released `choices` lines are the options, the answer's letter the answer."""
    path = build / VIEWSPATIAL_JSON
    items = []
    for i, row in enumerate(_read_json(path)):
        where = f"item {i}"
        question_type = str(_field(path, where, row, "question_type"))
        short = SHORT_NAMES.get(question_type, question_type)
        if short not in RELEASED_TYPES:
            raise ValueError(f"{path}: {where}: unknown question_type {question_type!r}")
        choices = str(_field(path, where, row, "choices"))
        options = tuple(choices.split("\n"))
        letter, _ = split_option(str(_field(path, where, row, "answer")))
        if letter not in [split_option(o)[0] for o in options]:
            raise ValueError(f"{path}: {where}: answer {row['answer']!r} is not one of its choices")
        images = _field(path, where, row, "image_path")
        files, refused = _images(path.parent, images, f"{path}: {where}")
        items.append(
            EvalItem(
                id=f"viewspatial-{i:05d}",
                task=short,
                question=str(_field(path, where, row, "question")),
                images=files,
                options=options,
                answer=letter,
                meta={
                    "question_type": RELEASED_TYPES[short],
                    "choices": choices,
                    "answer_text": str(row["answer"]),
                    "image_path": [str(p) for p in images],
                },
                problem=refused,
            )
        )
    return items


def odi_items(build: Path) -> list[EvalItem]:
    """Closed items with their options lettered in their released order; open items with the reference answer."""
    path = build / ODI_JSON
    items = []
    for i, row in enumerate(_read_json(path)):
        where = f"item {i}"
        item_id = str(_field(path, where, row, "id"))
        image = str(_field(path, where, row, "image"))
        form = _field(path, where, row, "form")
        files, refused = _images(path.parent, image, f"{path}: {where}")
        base = {
            "id": item_id,
            "task": str(_field(path, where, row, "task")),
            "question": str(_field(path, where, row, "question")),
            "images": files,
            "problem": refused,
        }
        meta = {"form": form, "image_path": image, "row": row}
        if form == "open":
            items.append(EvalItem(**base, answer=str(_field(path, where, row, "answer")), meta=meta))
            continue
        if form != "closed":
            raise ValueError(f"{path}: item {item_id}: form {form!r} is neither closed nor open")
        texts = [split_option(str(o))[1] for o in _field(path, where, row, "options")]
        answer = split_option(str(row["answer"]))[1]
        if answer not in texts:
            raise ValueError(f"{path}: item {item_id}: answer {row['answer']!r} is not one of its options")
        options = tuple(f"{letter_of(k)}. {t}" for k, t in enumerate(texts))
        items.append(EvalItem(**base, options=options, answer=letter_of(texts.index(answer)), meta=meta))
    return items


def load_items(benchmark: str, build: Path) -> list[EvalItem]:
    """The benchmark's items, read by its descriptor's reader (tasks/common/benchmarks.py)."""
    return resolve(get(benchmark).items)(build)
