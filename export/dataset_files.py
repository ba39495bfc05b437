"""The Parquet files an export wrote, as its card and Croissant metadata describe them: rows, sizes, checksum."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

#: Bytes read at once while hashing a file.
CHUNK = 1 << 20


@dataclass(frozen=True)
class SplitFile:
    """One split's Parquet file: its path relative to the dataset folder (POSIX), rows and sizes, SHA-256."""

    split: str
    path: str
    rows: int
    num_bytes: int  # uncompressed, as the file's row groups record it (Hugging Face's `num_bytes`)
    size: int  # on disk
    sha256: str


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def split_file(folder: Path, split: str, relative: str) -> SplitFile:
    """The split's file `folder/relative` as written, read back from its footer and bytes."""
    path = folder / relative
    meta = pq.read_metadata(path)
    uncompressed = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return SplitFile(split, relative, meta.num_rows, uncompressed, path.stat().st_size, sha256_of(path))
