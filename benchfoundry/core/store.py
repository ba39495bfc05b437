"""The artifact store: per-shard completion markers, one Parquet manifest per stage, atomic Parquet writes
(benchfoundry/core/atomic_files.py for other files).

Layout under a build's output root::

    <benchmark>/<stage>/shards/<shard>.parquet   rows of one shard
    <benchmark>/<stage>/_done/<shard>.json       completion marker, written after the rows
    <benchmark>/<stage>/manifest.parquet         all current shards' rows, written last

A shard counts as finished only when its marker exists and records the same spec hash,
so a rerun skips it; the manifest is rebuilt from shard files and never holds a row twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from benchfoundry.core.atomic_files import atomic_path, write_json_atomic
from benchfoundry.core.buildinfo import utc_now
from benchfoundry.core.task_clock import current_clock

_SHARD_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=+-]{0,199}$")
#: Temporary files of `atomic_path`: `.NAME.XXXXXXXX.tmp` (mkstemp's eight random characters).
_TEMPORARY = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
#: Staging folders of stages: `<benchmark>/<stage>/_tmp` (render shards, calibration) and `.hf.*` (the
#: imagefolder export, a benchmark's QA stage).
_STAGING = re.compile(r"^(_tmp|\.hf\..+)$")


def read_parquet(path: str | os.PathLike[str], **options: Any) -> pd.DataFrame:
    """A Parquet file's rows (`options` as pandas takes them: `columns`, `filters`); ValueError naming the file when
    it is not one (truncated, another format): pyarrow's own error names only `<Buffer>`. Every Parquet read of the
    project goes through here."""
    try:
        return pd.read_parquet(path, **options)
    except ValueError as exc:
        raise ValueError(f"{path}: not a readable Parquet file ({exc})") from None


def build_leftovers(root: str | os.PathLike[str], owned_dirs: Iterable[str], owned_files: Iterable[str]) -> list[Path]:
    """What a killed build may have left in its output root: temporaries and staging folders under the
    benchmark folders `owned_dirs`, and temporaries of the root's own files `owned_files`; a user's
    `.draft.tmp` beside the build, or in a folder of their own inside the root, is not one."""
    root = Path(root)
    names = set(owned_files)
    swept = [
        p
        for p in sorted(root.glob(".*.tmp"))
        if _TEMPORARY.match(p.name) and p.is_file() and p.name[1:].rsplit(".", 2)[0] in names
    ]
    for folder in (root / name for name in sorted(set(owned_dirs))):
        if not folder.is_dir() or folder.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            here = Path(dirpath)
            staged = [d for d in dirnames if _STAGING.match(d)]
            dirnames[:] = sorted(d for d in dirnames if d not in staged)
            swept += [here / d for d in sorted(staged)]
            swept += [here / f for f in sorted(filenames) if _TEMPORARY.match(f)]
    return swept


def sweep_build_leftovers(
    root: str | os.PathLike[str], owned_dirs: Iterable[str], owned_files: Iterable[str], keep: Iterable[str] = ()
) -> list[Path]:
    """Delete the `build_leftovers` of the root but those in `keep` (paths relative to the root: what an
    adopted folder held before the first build) and return them.

    Call it only while holding the root's lock (benchfoundry/core/output_root.py), when no writer of this
    build can be busy.
    """
    root = Path(root)
    kept = {root / name for name in keep}
    swept = [p for p in build_leftovers(root, owned_dirs, owned_files) if p not in kept]
    for path in swept:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return swept


def write_parquet_atomic(path: str | os.PathLike[str], frame: pd.DataFrame) -> Path:
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, index=False)
    return Path(path)


def spec_hash(spec: Any) -> str:
    """A short, stable hash of a shard's settings (canonical JSON), recorded in its marker."""
    canonical = json.dumps(spec, sort_keys=True, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def check_shard_id(shard_id: str) -> str:
    """Shard ids become file names: letters, digits and `_.=+-` only."""
    if not _SHARD_ID.match(shard_id):
        raise ValueError(f"invalid shard id {shard_id!r}: use letters, digits and _.=+- only")
    return shard_id


class StageStore:
    """Shards and the manifest of one stage of one benchmark under a build root."""

    def __init__(self, root: str | os.PathLike[str], benchmark: str, stage: str) -> None:
        self.root = Path(root)
        self.benchmark = benchmark
        self.stage = stage
        self.dir = self.root / benchmark / stage

    @property
    def manifest_path(self) -> Path:
        return self.dir / "manifest.parquet"

    def shard_path(self, shard_id: str) -> Path:
        return self.dir / "shards" / f"{check_shard_id(shard_id)}.parquet"

    def marker_path(self, shard_id: str) -> Path:
        return self.dir / "_done" / f"{check_shard_id(shard_id)}.json"

    def marker(self, shard_id: str) -> dict[str, Any] | None:
        path = self.marker_path(shard_id)
        if not path.exists():
            return None
        return json.loads(path.read_text())

    def is_done(self, shard_id: str, spec_hash: str | None = None) -> bool:
        """Finished, and (when given) with the same spec hash as now."""
        marker = self.marker(shard_id)
        if marker is None or not self.shard_path(shard_id).exists():
            return False
        return spec_hash is None or marker.get("spec_hash") == spec_hash

    def write_shard(
        self,
        shard_id: str,
        rows: pd.DataFrame,
        *,
        spec_hash: str | None = None,
        problems: Sequence[dict[str, Any]] = (),
        info: dict[str, Any] | None = None,
    ) -> Path:
        """Write a shard's rows, then its marker (the marker is the commit point). Inside a shard task the marker
        records the task's time since it started or wrote its previous marker (`timing`,
        benchfoundry/core/task_clock.py)."""
        write_parquet_atomic(self.shard_path(shard_id), rows)
        marker = {
            "shard": shard_id,
            "rows": int(len(rows)),
            "spec_hash": spec_hash,
            "problems": list(problems),
            "finished": utc_now(),
            **(info or {}),
        }
        clock = current_clock()
        if clock is not None:
            marker["timing"] = clock.lap()
        write_json_atomic(self.marker_path(shard_id), marker)
        return self.shard_path(shard_id)

    def shard_rows(self, shard_id: str) -> pd.DataFrame:
        return read_parquet(self.shard_path(shard_id))

    def done_shards(self) -> list[str]:
        done = self.dir / "_done"
        if not done.exists():
            return []
        return sorted(p.stem for p in done.glob("*.json") if self.shard_path(p.stem).exists())

    def problems(self, shard_ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Items that finished shards reported as skipped or failed."""
        ids = self.done_shards() if shard_ids is None else shard_ids
        found: list[dict[str, Any]] = []
        for shard_id in ids:
            marker = self.marker(shard_id)
            if marker:
                found.extend(marker.get("problems", []))
        return found

    def collect_rows(self, shard_ids: Sequence[str] | None = None) -> pd.DataFrame:
        """The rows of `shard_ids` (default: every finished shard), read in sorted id order, so
        the result does not depend on the order in which shards ran."""
        ids = sorted(set(self.done_shards() if shard_ids is None else shard_ids))
        missing = [s for s in ids if not self.is_done(s)]
        if missing:
            raise FileNotFoundError(f"{self.dir}: shards not finished: {', '.join(missing[:5])}")
        shards = [self.shard_rows(s) for s in ids]
        frames = [f for f in shards if len(f)]
        if frames:
            return pd.concat(frames, ignore_index=True)
        # no rows at all: keep the columns of an empty shard, so that a reader finds its columns empty
        return shards[0] if shards else pd.DataFrame()

    def write_manifest(self, shard_ids: Sequence[str] | None = None) -> Path:
        """The manifest: `collect_rows(shard_ids)`, written atomically."""
        return write_parquet_atomic(self.manifest_path, self.collect_rows(shard_ids))

    def read_manifest(self) -> pd.DataFrame:
        return read_parquet(self.manifest_path)
