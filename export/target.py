"""Where an export may write: never inside the build it reads (nor over it), and never over a file it did not
write. An export's `export.json` lists the files it wrote (`files`, relative to its folder); any other file in
the folder is the user's, and an export into such a folder is refused unless forced."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json

SUMMARY = "export.json"
#: Foreign files named in a refusal; the rest are counted.
SHOWN = 5


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


def recorded(folder: Path) -> set[str]:
    """The files the last export into `folder` recorded writing (none when it recorded nothing readable)."""
    try:
        summary = read_json(folder / SUMMARY)
    except (OSError, ValueError):
        return set()
    files = summary.get("files") if isinstance(summary, dict) else None
    return {str(f) for f in files} if isinstance(files, list) else set()


def foreign_files(folder: Path) -> set[str]:
    """The files in `folder` no export recorded writing (its own summary aside)."""
    return files_under(folder) - recorded(folder) - {SUMMARY}


def refusal(folder: Path, foreign: set[str]) -> str:
    names = sorted(foreign)
    more = f" and {len(names) - SHOWN} more" if len(names) > SHOWN else ""
    return (
        f"--to: {folder} holds files no export wrote ({', '.join(names[:SHOWN])}{more}); an export may overwrite "
        "them: choose another folder, or pass --force"
    )


def summary(build: Path, benchmarks: dict[str, Any], folder: Path, foreign: set[str]) -> dict[str, Any]:
    """`export.json`: the build, each benchmark's outcome, and the files this export wrote (what was there before
    and not an export's stays the user's)."""
    files = sorted(files_under(folder) - foreign - {SUMMARY})
    return {"build": str(build), "benchmarks": benchmarks, "files": files}
