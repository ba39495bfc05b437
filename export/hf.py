"""Parquet with Hugging Face `datasets` features: every benchmark loads as one `DatasetDict` with `load_dataset(DIR)`.

    <to>/hf/<benchmark>/  README.md, croissant.json, data/<split>.parquet (the splits of its descriptor's `export_rows`)

The dataset card (export/card.py) names each split's file in its `configs`; `croissant.json` (export/croissant.py)
describes the same files. A column's type is decided over every split of the dataset together, so a column that is
null in one split has the type of its values in the others; images are `Image` features (the file's bytes and its
released relative path), a list of images a `Sequence` of them. The features travel in the Parquet schema's
`huggingface` metadata, which `datasets` reads; writing needs only pyarrow.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from benchfoundry.core.atomic_files import atomic_path, write_bytes_atomic, write_json_atomic
from benchfoundry.core.buildinfo import problem
from benchfoundry.core.image_decode import check_complete, check_header, check_image_type, read_image_bytes
from benchfoundry.export.card import dataset_card
from benchfoundry.export.card_facts import card_facts
from benchfoundry.export.croissant import croissant
from benchfoundry.export.dataset_files import split_file
from benchfoundry.export.provenance import provenance

STAGE = "export"
#: The Croissant metadata beside the card (export/croissant.py).
CROISSANT = "croissant.json"
IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
#: Rows per Parquet row group (and per batch of images read at once).
BATCH = 256


@dataclass(frozen=True)
class ImageRef:
    """An image of a row: the file, and its path as the released file names it."""

    file: Path
    name: str
    refused: str | None = None  # why the released name was refused (outside the build, not a regular file)


def image_bytes(ref: ImageRef) -> bytes:
    """The file's bytes after checking they hold a whole image of a known type; ValueError naming the file
    otherwise (a refused name, a special file, anything that is not an image)."""
    if ref.refused is not None:
        raise ValueError(ref.refused)
    data = read_image_bytes(ref.file)
    check_header(data, str(ref.file))
    check_image_type(data, str(ref.file))
    check_complete(data, str(ref.file))
    return data


def _kind(values: Sequence[Any], column: str) -> tuple[pa.DataType, dict[str, Any]]:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, ImageRef) for v in present):
        return IMAGE_TYPE, {"_type": "Image"}
    if present and all(isinstance(v, (list, tuple)) for v in present):
        inner_type, inner = _kind([x for v in present for x in v], column)
        return pa.list_(inner_type), {"_type": "Sequence", "feature": inner}
    if all(isinstance(v, bool) for v in present) and present:
        return pa.bool_(), {"_type": "Value", "dtype": "bool"}
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and present:
        return pa.int64(), {"_type": "Value", "dtype": "int64"}
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present) and present:
        return pa.float64(), {"_type": "Value", "dtype": "float64"}
    if all(isinstance(v, str) for v in present):
        return pa.string(), {"_type": "Value", "dtype": "string"}
    kinds = sorted({type(v).__name__ for v in present})
    raise ValueError(f"column {column!r}: values of several kinds ({', '.join(kinds)}) cannot share one feature")


def typed_schema(splits: Mapping[str, Sequence[Mapping[str, Any]]]) -> pa.Schema:
    """One schema for every split: the columns in first-seen order, each typed over all splits' values, with
    the `datasets` features in the schema's metadata."""
    columns: dict[str, list[Any]] = {}
    for rows in splits.values():
        for row in rows:
            for name in row:
                columns.setdefault(name, [])
    for rows in splits.values():
        for row in rows:
            for name, values in columns.items():
                values.append(row.get(name))
    fields, features = [], {}
    for name, values in columns.items():
        arrow, feature = _kind(values, name)
        fields.append(pa.field(name, arrow))
        features[name] = feature
    metadata = {"huggingface": json.dumps({"info": {"features": features}})}
    return pa.schema(fields, metadata=metadata)


def _materialise(value: Any) -> Any:
    if isinstance(value, ImageRef):
        return {"bytes": image_bytes(value), "path": value.name}
    if isinstance(value, (list, tuple)):
        return [_materialise(v) for v in value]
    return value


def write_split(path: Path, schema: pa.Schema, rows: Iterable[Mapping[str, Any]], where: str) -> tuple[int, list]:
    """Write the rows with their images read in; a row whose image is unreadable or broken is left out as a
    problem row. (rows written, problems)"""
    written, problems = 0, []
    with atomic_path(path) as tmp, pq.ParquetWriter(tmp, schema) as writer:
        batch: list[dict[str, Any]] = []

        def flush() -> None:
            if batch:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch.clear()

        for k, row in enumerate(rows):
            try:
                batch.append({name: _materialise(row.get(name)) for name in schema.names})
            except ValueError as exc:
                problems.append(problem(STAGE, f"{where}:{k}", str(exc)))
                continue
            written += 1
            if len(batch) == BATCH:
                flush()
        flush()
    return written, problems


def write_dataset(
    folder: Path, benchmark: str, splits: Mapping[str, Sequence[Mapping[str, Any]]], source: str
) -> dict[str, Any]:
    """Every split's Parquet under `folder/data/` with one schema, then the dataset card and Croissant metadata
    read from the files written and the build's record (read first: a bad license writes nothing); rows and
    problems."""
    schema = typed_schema(splits)
    facts = card_facts(benchmark)
    prov = provenance(source, facts.licensed_assets)
    counts, problems, files = {}, [], []
    for split, rows in splits.items():
        relative = f"data/{split}.parquet"
        counts[split], bad = write_split(folder / relative, schema, rows, f"{facts.pretty_name}/{split}")
        problems += bad
        files.append(split_file(folder, split, relative))
    features = json.loads(schema.metadata[b"huggingface"])["info"]["features"]
    write_bytes_atomic(folder / "README.md", dataset_card(facts, prov, files, features).encode())
    write_json_atomic(folder / CROISSANT, croissant(facts, prov, files, features))
    return {"folder": str(folder), "rows": counts, "problems": problems}
