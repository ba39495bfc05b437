"""Where an export may write: never inside the build it reads (nor over it), and never over a file it did not
write. An export's `export.json` lists the files it wrote (`files`, relative to its folder); any other file in
the folder is the user's, and an export into such a folder is refused unless forced. An export records itself as
`running` (with the user's files then, `foreign`) before it writes: after one killed mid-write, the next takes every
other file as that export's own and sweeps its temporaries."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json

SUMMARY = "export.json"
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


def _recorded_list(folder: Path, key: str) -> set[str] | None:
    """The list `key` of the last export's `export.json` in `folder`, or None when it records none readable."""
    try:
        summary = read_json(folder / SUMMARY)
    except (OSError, ValueError):
        return None
    files = summary.get(key) if isinstance(summary, dict) else None
    return {str(f) for f in files} if isinstance(files, list) else None


def recorded(folder: Path) -> set[str]:
    """The files the last export into `folder` recorded writing (none when it recorded nothing readable)."""
    return _recorded_list(folder, "files") or set()


def foreign_files(folder: Path) -> set[str]:
    """The files in `folder` no export recorded writing (its own summary aside); after an export that never
    finished (killed), the user's files it recorded finding."""
    present = files_under(folder)
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
    record = {"build": str(build), "benchmarks": benchmarks, "files": files}
    return {**record, "running": True, "foreign": sorted(foreign)} if running else record
