"""A build's files as two builds are compared: what records the run (its record, the output root's marker and lock,
the report's time and front pages, the completion markers and clock records) left out, the rest by SHA-256."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from pathlib import Path

from benchfoundry.core.output_root import LOCK_NAME, MARKER_NAME, RECORD_NAME

#: Files that record a run rather than its outputs: the build record, the output root's marker and lock, the page
#: of where the time went (pipeline/timings_page.py) and the report's front page (the run's status, times, problems).
RUN_RECORDS = (RECORD_NAME, MARKER_NAME, LOCK_NAME, "report/build.html", "report/index.html")
#: Folders of per-run records: completion markers and clock records (their times).
RUN_FOLDERS = frozenset({"_done", "_clock"})


def output_hashes(root: Path, skip_folders: Collection[str] = RUN_FOLDERS) -> dict[str, str]:
    """sha256 of every file under `root` by relative path, but the run records and what lies in `skip_folders`."""
    hashes = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and rel.as_posix() not in RUN_RECORDS and not set(skip_folders) & set(rel.parts):
            hashes[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


def differences(built: Path, reference: Path, skip_folders: Collection[str] = RUN_FOLDERS) -> dict[str, list[str]]:
    """The output files in `built` only, in `reference` only, and in both with other bytes."""
    ours, theirs = output_hashes(built, skip_folders), output_hashes(reference, skip_folders)
    return {
        "only_here": sorted(set(ours) - set(theirs)),
        "only_reference": sorted(set(theirs) - set(ours)),
        "differ": sorted(rel for rel in set(ours) & set(theirs) if ours[rel] != theirs[rel]),
    }
