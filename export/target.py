"""Where an export may write: never inside the build it reads (nor over it), and never over a file it did not
write. An export's `export.json` lists the files it wrote (`files`, relative to its folder); any other file in
the folder is the user's, and an export into such a folder is refused unless forced. An export records itself as
`running` (with the user's files then, `foreign`) before it writes: after one killed mid-write, the next takes every
other file as that export's own and sweeps its temporaries. An `export.json` is an export's only when it says so
(`writer`; one of an earlier version by its keys): another tool's, and the files it lists, are the user's."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json

SUMMARY = "export.json"
#: What an export's summary says wrote it.
WRITER = "benchfoundry export"
#: The keys of an export's summary before it named its writer (while running, and finished).
LEGACY_KEYS = ({"build", "benchmarks", "files", "running", "foreign"}, {"build", "benchmarks", "files"})
#: Foreign files named in a refusal; the rest are counted.
SHOWN = 5
#: A temporary of core/atomic_files.atomic_path: `.NAME.XXXXXXXX.tmp` (mkstemp's eight random characters).
TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def check_apart(build: Path, folder: Path) -> None:
    """ValueError when the export folder lies inside the build, or the build inside the export folder."""
    build, target = build.resolve(), folder.resolve()
    if target.is_relative_to(build) or build.is_relative_to(target):
        raise ValueError(f"--to: {folder} lies inside the build {build} (or holds it); export somewhere else")


def files_under(folder: Path) -> set[str]:
    """Every file under `folder` (links included, not followed), relative, POSIX style."""
    if not folder.is_dir():
        return set()
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


def is_export_summary(summary: Any) -> bool:
    """Whether a parsed `export.json` is an export's: it names the writer, or has an earlier export's keys."""
    if not isinstance(summary, dict):
        return False
    return summary.get("writer") == WRITER or (set(summary) in LEGACY_KEYS and isinstance(summary["build"], str))


def _export_summary(folder: Path) -> dict[str, Any] | None:
    """The last export's `export.json` in `folder`; None when there is none, or it is unreadable or another tool's."""
    try:
        summary = read_json(folder / SUMMARY)
    except (OSError, ValueError):
        return None
    return summary if is_export_summary(summary) else None


def _recorded_list(folder: Path, key: str) -> set[str] | None:
    """The list `key` of the last export's `export.json` in `folder`, or None when it records none readable."""
    files = (_export_summary(folder) or {}).get(key)
    return {str(f) for f in files} if isinstance(files, list) else None


def recorded(folder: Path) -> set[str]:
    """The files the last export into `folder` recorded writing (none when it recorded nothing readable)."""
    return _recorded_list(folder, "files") or set()


def foreign_files(folder: Path) -> set[str]:
    """The files in `folder` no export recorded writing (its own summary aside); after an export that never
    finished (killed), the user's files it recorded finding."""
    present = files_under(folder)
    if _export_summary(folder) is None:  # no export's summary: every file, an export.json too, is the user's
        return present
    killed = _recorded_list(folder, "foreign")
    if killed is not None:
        return present & killed
    return present - recorded(folder) - {SUMMARY}


def sweep_temporaries(folder: Path, foreign: set[str]) -> list[str]:
    """Remove the temporaries (`.NAME.XXXXXXXX.tmp`, regular files, no link) an earlier export left in `folder`,
    the user's `foreign` files aside; returns them, relative."""
    swept = sorted(
        rel
        for rel in files_under(folder) - foreign
        if TEMPORARY.fullmatch(Path(rel).name) and (folder / rel).is_file() and not (folder / rel).is_symlink()
    )
    for rel in swept:
        (folder / rel).unlink(missing_ok=True)
    return swept


def refusal(folder: Path, foreign: set[str]) -> str:
    names = sorted(foreign)
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return (
        f"--to: {folder} holds files no export wrote ({', '.join(names[:SHOWN])}{more}); an export may overwrite "
        "them: choose another folder, or pass --force"
    )


def summary(
    build: Path, benchmarks: dict[str, Any], folder: Path, foreign: set[str], running: bool = False
) -> dict[str, Any]:
    """`export.json`: the build, each benchmark's outcome, and the files this export wrote (what was there before
    and not an export's stays the user's); while `running`, also the user's files (`foreign`)."""
    files = sorted(files_under(folder) - foreign - {SUMMARY})
    record = {"writer": WRITER, "build": str(build), "benchmarks": benchmarks, "files": files}
    return {**record, "running": True, "foreign": sorted(foreign)} if running else record
