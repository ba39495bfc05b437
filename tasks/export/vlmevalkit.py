"""VLMEvalKit custom datasets: tab-separated files to put in `$LMUData` and name with `--data <file stem>`.

    <to>/vlmevalkit/benchfoundry_ViewSpatial.tsv  multiple choice (VLMEvalKit's CustomMCQDataset)
    <to>/vlmevalkit/benchfoundry_ODI.tsv          ODI's closed items, multiple choice
    <to>/vlmevalkit/benchfoundry_ODI_open.tsv     ODI's open items (CustomVQADataset)
    <to>/vlmevalkit/benchfoundry_SynDOR.tsv       both SynD tasks, every split (CustomVQADataset)

Columns: `index`, `image` (base64 of the file; a row whose single image an earlier row already holds names
that row's index instead, as VLMEvalKit's loader resolves; several images are a list), `image_path` (the
released relative path, or list), `question`, the options `A`…`D` (multiple choice; empty when an item has
fewer), `answer` (the option's letter; for free-form items the reference), `category` (the authors' strings:
ViewSpatial's `question_type`, ODI's task, SynD's dataset name `<task>_<split>`) and `l2-category`. The names
do not clash with VLMEvalKit's own datasets (`ViewSpatialBench` would be downloaded instead). ViewSpatial adds
`choices` (the released string, for the authors' prompt), SynD `action` (the authors' E5 reference).
`benchfoundry_vlmeval.py` beside them (tasks/export/vlmevalkit_datasets.py) holds the dataset classes that ask
and score ViewSpatial, ODI's closed items and SynD as the authors do.
"""

from __future__ import annotations

import base64
import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchfoundry.core.atomic_files import atomic_path, write_bytes_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.directions import LETTERS
from benchfoundry.tasks.common.benchmarks import get, resolve
from benchfoundry.tasks.evaluation.items import EvalItem, odi_items, syndor_items, viewspatial_items
from benchfoundry.tasks.export.hf import STAGE, ImageRef, image_bytes
from benchfoundry.tasks.export.rows import refs
from benchfoundry.tasks.odi.benchmark import SPATIAL as ODI_SPATIAL

OPTION_COLUMNS = tuple(LETTERS[:4])
#: The dataset classes (tasks/export/vlmevalkit_datasets.py), copied beside the TSV files.
DATASETS_MODULE = "benchfoundry_vlmeval.py"


class ImageColumn:
    """Base64 cells, each image embedded once: a repeat of a single image becomes the index of its first row."""

    def __init__(self) -> None:
        self.first: dict[Path, int] = {}

    def cell(self, index: int, images: Sequence[ImageRef]) -> str:
        if len(images) == 1:
            if images[0].refused is not None:
                raise ValueError(images[0].refused)
            file = images[0].file.resolve()
            if file in self.first:
                return str(self.first[file])
            cell = base64.b64encode(image_bytes(images[0])).decode()
            self.first[file] = index  # only once the image was read: an unreadable one is no row to point to
            return cell
        return json.dumps([base64.b64encode(image_bytes(ref)).decode() for ref in images])


def _path_cell(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else json.dumps(list(names))


def _options(item: EvalItem) -> dict[str, str]:
    texts = item.texts
    if len(texts) > len(OPTION_COLUMNS):
        raise ValueError(f"item {item.id}: {len(texts)} options, VLMEvalKit's columns hold {len(OPTION_COLUMNS)}")
    return {letter: texts[k] if k < len(texts) else "" for k, letter in enumerate(OPTION_COLUMNS)}


def viewspatial_rows(build: Path) -> list[tuple[dict[str, Any], list[ImageRef]]]:
    rows = []
    for item in viewspatial_items(build):
        names = item.meta["image_path"]
        row = {
            "image_path": _path_cell(names),
            "question": item.question,
            **_options(item),
            "answer": item.answer,
            "choices": item.meta.get("choices", "\n".join(item.options)),
            "category": item.meta["question_type"],
            "l2-category": item.meta["question_type"].split(" - ")[0],
        }
        rows.append((row, refs(item, names)))
    return rows


def odi_rows(build: Path, closed: bool) -> list[tuple[dict[str, Any], list[ImageRef]]]:
    rows = []
    for item in odi_items(build):
        if bool(item.options) != closed:
            continue
        names = [item.meta["image_path"]]
        row: dict[str, Any] = {"image_path": names[0], "question": item.question}
        if closed:
            row |= _options(item)
        row |= {
            "answer": item.answer,
            "category": item.task,
            "l2-category": "spatial" if item.task in ODI_SPATIAL else "general",
            "id": item.id,
        }
        rows.append((row, refs(item, names)))
    return rows


def syndor_rows(build: Path) -> list[tuple[dict[str, Any], list[ImageRef]]]:
    rows = []
    for item in syndor_items(build):
        names = [item.meta["img_path"]]
        row = {
            "image_path": names[0],
            "question": item.question,
            "answer": item.answer,
            "category": f"{item.task}_{item.meta['split']}",
            "l2-category": item.task,
            "split": item.meta["split"],
            "radius": item.meta["radius"],
            "lighting": item.meta["row"].get("lighting", ""),
            "action": item.meta["row"].get("action", ""),
        }
        rows.append((row, refs(item, names)))
    return rows


def write_tsv(path: Path, rows: Sequence[tuple[dict[str, Any], list[ImageRef]]], where: str) -> tuple[int, list]:
    """The rows with `index` and `image` first; a row whose image is unreadable is left out as a problem row."""
    images = ImageColumn()
    columns = ["index", "image", *dict.fromkeys(k for row, _ in rows for k in row)]
    written, problems = 0, []
    with atomic_path(path) as tmp, tmp.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writeheader()
        for k, (row, refs) in enumerate(rows):
            try:
                image = images.cell(written, refs)
            except ValueError as exc:
                problems.append(problem(STAGE, f"{where}:{k}", str(exc)))
                continue
            writer.writerow({"index": written, "image": image, **row})
            written += 1
    return written, problems


def odi_closed_rows(build: Path) -> list[tuple[dict[str, Any], list[ImageRef]]]:
    return odi_rows(build, closed=True)


def odi_open_rows(build: Path) -> list[tuple[dict[str, Any], list[ImageRef]]]:
    return odi_rows(build, closed=False)


def export(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """The benchmark's TSV files, as its descriptor names them (tasks/common/benchmarks.py)."""
    files = get(benchmark).vlmevalkit
    if not files:
        raise ValueError(f"{benchmark}: no VLMEvalKit dataset")
    counts, problems = {}, []
    module = Path(__file__).with_name("vlmevalkit_datasets.py")
    write_bytes_atomic(folder / DATASETS_MODULE, module.read_bytes())
    for stem, rows_of in files:
        rows = resolve(rows_of)(build)
        if rows:
            counts[stem], bad = write_tsv(folder / f"{stem}.tsv", rows, stem)
            problems += bad
    return {"folder": str(folder), "rows": counts, "problems": problems}
