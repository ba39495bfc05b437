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


def path_cell(names: str | Sequence[str]) -> str:
    """The `image_path` cell: the released relative path, or a JSON list of them. VLMEvalKit evaluates a cell
    shaped like a list (`toliststr`: `eval` of "[…]"), so a single name that starts with "[" or ends with "]"
    is written as a one-element list too: the harness reads the name back as a plain string, never as code."""
    names = [names] if isinstance(names, str) else list(names)
    name = names[0] if len(names) == 1 else None
    if name is not None and not name.strip().startswith("[") and not name.strip().endswith("]"):
        return name
    return json.dumps(names, ensure_ascii=False)


#: Characters that end a line or a cell for some reader of a TSV file (pandas' C parser ends a row at a bare
#: `\r`; Python's `str.splitlines` also at U+0085, U+2028, U+2029, `\v`, `\f` and the separators \x1c–\x1e):
#: a cell holding one is quoted.
SPLITTING = frozenset('\t\n\r"\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029')
#: The columns VLMEvalKit reads through `toliststr` (a cell shaped like a list is evaluated).
LIST_COLUMNS = ("image_path",)


def tsv_cell(value: Any, column: str) -> str:
    """One cell as the TSV file holds it: quoted (a quote doubled) when it holds a character that splits a row or
    a cell for some reader; a NUL, which no reader keeps, is refused naming the column."""
    text = path_cell(value) if column in LIST_COLUMNS else "" if value is None else str(value)
    if "\0" in text:
        raise ValueError(f"column {column!r}: a NUL character in {text[:60]!r}")
    if SPLITTING.isdisjoint(text):
        return text
    return '"' + text.replace('"', '""') + '"'


def options(item: EvalItem) -> dict[str, str]:
    """The option columns `A`…`D` of a multiple-choice item (empty where it has fewer options)."""
    texts = item.texts
    if len(texts) > len(OPTION_COLUMNS):
        raise ValueError(f"item {item.id}: {len(texts)} options, VLMEvalKit's columns hold {len(OPTION_COLUMNS)}")
    return {letter: texts[k] if k < len(texts) else "" for k, letter in enumerate(OPTION_COLUMNS)}


def write_tsv(path: Path, rows: Sequence[Row], where: str) -> tuple[int, list]:
    """The rows with `index` and `image` first, each cell through `tsv_cell`; a row whose image is unreadable,
    or a cell that cannot be written, is left out as a problem row."""
    images = ImageColumn()
    columns = ["index", "image", *dict.fromkeys(k for row, _ in rows for k in row)]
    written, problems = 0, []
    with atomic_path(path) as tmp, tmp.open("w", newline="", encoding="utf-8") as handle:
        handle.write("\t".join(columns) + "\n")
        for k, (row, refs) in enumerate(rows):
            try:
                cells = {"index": written, "image": images.cell(written, refs), **row}
                line = "\t".join(tsv_cell(cells.get(c, ""), c) for c in columns)
            except ValueError as exc:
                problems.append(problem(STAGE, f"{where}:{k}", str(exc)))
                continue
            handle.write(line + "\n")
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
