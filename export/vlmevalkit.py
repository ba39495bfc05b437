"""VLMEvalKit custom datasets: tab-separated files to put in `$LMUData` and name with `--data <file stem>`.

    <to>/vlmevalkit/<stem>.tsv                      one per file a benchmark's descriptor lists (`vlmevalkit`)
    <to>/vlmevalkit/benchfoundry_vlmeval.py         `register()`: every dataset class beside it (vlmevalkit_datasets.py)
    <to>/vlmevalkit/benchfoundry_vlmeval_<name>.py  benchmark <name>'s dataset classes (its `vlmevalkit_dataset`)

A benchmark's descriptor names each TSV file's stem and the function that makes its rows (a row's cells, and its
images as `hf.ImageRef`s); the rows' columns are the benchmark's (its `harness.py`). This module writes them:
`index`, then `image` (base64 of the file; a row whose single image an earlier row already holds names that
row's index instead, as VLMEvalKit's loader resolves; several images are a list), then the row's own columns
in their first-seen order. A multiple-choice row's options are the columns `A`…`D` (`options`: empty when an
item has fewer). The stems do not clash with VLMEvalKit's own datasets, which it would download instead.

`benchfoundry_vlmeval.py` (vlmevalkit_datasets.py) and the dataset module of every exported benchmark are copied
beside the TSV files; `benchfoundry_vlmeval.register()` registers the classes of every such module it finds
there, which ask and score each benchmark as its authors do.
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
from benchfoundry.core.plugins import resolve
from benchfoundry.evaluation.items import EvalItem
from benchfoundry.export.copied import module_source
from benchfoundry.export.hf import STAGE, ImageRef, image_bytes
from benchfoundry.pipeline.benchmarks import get

OPTION_COLUMNS = tuple(LETTERS[:4])
#: The generic module (export/vlmevalkit_datasets.py), copied beside the TSV files: `register()`.
DATASETS_MODULE = "benchfoundry_vlmeval.py"
#: A benchmark's dataset module is copied beside it as `<prefix><benchmark>.py`, where `register()` finds it.
BENCHMARK_MODULE_PREFIX = "benchfoundry_vlmeval_"

#: A TSV row: its cells (without `index` and `image`), and its images.
Row = tuple[dict[str, Any], list[ImageRef]]


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


def path_cell(names: Sequence[str]) -> str:
    """The `image_path` cell: the released relative path, or a JSON list of them. VLMEvalKit evaluates a cell
    shaped like a list (`toliststr`: `eval` of "[…]"), so a single name that starts with "[" or ends with "]"
    is written as a one-element list too: the harness reads the name back as a plain string, never as code."""
    name = names[0] if len(names) == 1 else None
    if name is not None and not name.strip().startswith("[") and not name.strip().endswith("]"):
        return name
    return json.dumps(list(names), ensure_ascii=False)


def options(item: EvalItem) -> dict[str, str]:
    """The option columns `A`…`D` of a multiple-choice item (empty where it has fewer options)."""
    texts = item.texts
    if len(texts) > len(OPTION_COLUMNS):
        raise ValueError(f"item {item.id}: {len(texts)} options, VLMEvalKit's columns hold {len(OPTION_COLUMNS)}")
    return {letter: texts[k] if k < len(texts) else "" for k, letter in enumerate(OPTION_COLUMNS)}


def write_tsv(path: Path, rows: Sequence[Row], where: str) -> tuple[int, list]:
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


def export(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """The benchmark's TSV files and its dataset module, as its descriptor names them (pipeline/benchmarks.py),
    with the generic module that registers the dataset classes."""
    descriptor = get(benchmark)
    if not descriptor.vlmevalkit:
        raise ValueError(f"{benchmark}: no VLMEvalKit dataset")
    counts, problems = {}, []
    write_bytes_atomic(folder / DATASETS_MODULE, Path(__file__).with_name("vlmevalkit_datasets.py").read_bytes())
    if descriptor.vlmevalkit_dataset is not None:
        source = module_source(descriptor.vlmevalkit_dataset, f"{benchmark}: VLMEvalKit dataset")
        write_bytes_atomic(folder / f"{BENCHMARK_MODULE_PREFIX}{benchmark}.py", source)
    for stem, rows_of in descriptor.vlmevalkit:
        rows = resolve(rows_of)(build)
        if rows:
            counts[stem], bad = write_tsv(folder / f"{stem}.tsv", rows, stem)
            problems += bad
    return {"folder": str(folder), "rows": counts, "problems": problems}
