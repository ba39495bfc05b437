"""ODI-Bench's released file read back: the evaluation items (`odi/ODI-Bench.json`: closed items with their
options lettered in the released order, yes/no items too, open items with the reference answer) and the rows of
the exports: split `test`, the released fields, `image` the panorama and `image_path` its released path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.evaluation.choices import letter_of, split_option
from benchfoundry.evaluation.items import EvalItem, field_of, read_released_json, released_images
from benchfoundry.export.rows import Splits, refs

RELEASED = Path(BENCHMARK) / "ODI-Bench.json"


def items(build: Path) -> list[EvalItem]:
    """Closed items with their options lettered in their released order; open items with the reference answer."""
    return release_items(build / RELEASED)


def release_items(path: Path) -> list[EvalItem]:
    """The items of an `ODI-Bench.json` wherever it lies (a build's, the authors'), or of its Parquet copy
    (`ODI-Bench.parquet`, in the release root or in its `hf/` folder); image paths are relative to the release
    root."""
    if path.suffix == ".parquet":
        return _items_of(path, _parquet_rows(path), path.parent.parent if path.parent.name == "hf" else path.parent)
    return _items_of(path, read_released_json(path), path.parent)


def _parquet_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a Parquet release, its list columns as lists."""
    import pyarrow.parquet as pq

    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found")
    try:
        return pq.read_table(path).to_pylist()
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable Parquet file ({exc})") from None


def _items_of(path: Path, rows: Any, root: Path) -> list[EvalItem]:
    """The items of released rows read from `path`, their images inside `root`."""
    if not isinstance(rows, list):
        raise ValueError(f"{path}: not a list of items")
    found = []
    for i, row in enumerate(rows):
        where = f"item {i}"
        item_id = str(field_of(path, where, row, "id"))
        image = str(field_of(path, where, row, "image"))
        form = field_of(path, where, row, "form")
        files, refused = released_images(root, image, f"{path}: {where}")
        base = {
            "id": item_id,
            "task": str(field_of(path, where, row, "task")),
            "question": str(field_of(path, where, row, "question")),
            "images": files,
            "problem": refused,
        }
        meta = {"form": form, "image_path": image, "row": row}
        if form == "open":
            found.append(EvalItem(**base, answer=str(field_of(path, where, row, "answer")), meta=meta))
            continue
        if form != "closed":
            raise ValueError(f"{path}: item {item_id}: form {form!r} is neither closed nor open")
        texts = [split_option(str(o))[1] for o in field_of(path, where, row, "options")]
        answer = split_option(str(row["answer"]))[1]
        if answer not in texts:
            raise ValueError(f"{path}: item {item_id}: answer {row['answer']!r} is not one of its options")
        options = tuple(f"{letter_of(k)}. {t}" for k, t in enumerate(texts))
        found.append(EvalItem(**base, options=options, answer=letter_of(texts.index(answer)), meta=meta))
    return found


def splits(build: Path) -> Splits:
    rows = []
    for item in items(build):
        released = {k: v for k, v in item.meta["row"].items() if k != "image"}
        rows.append({**released, "image": refs(item, [item.meta["image_path"]])[0]})
        rows[-1]["image_path"] = item.meta["image_path"]
    return {"test": rows}
