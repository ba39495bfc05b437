"""A build's output root: checked before any work, marked as a benchfoundry build on first use, and
locked (`fcntl.flock`) for the whole build so that a second build into it stops at once.

The lock file records its holder (host, pid, start). The OS releases a flock when its holder dies, so
a lock left by a killed build is simply taken over; a holder that exits normally empties the file, so
a non-empty lock file found free is the record of a killed build and is reported.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchfoundry.core.buildinfo import os_reason, utc_now

#: Written on first use: the folder is a benchfoundry build and the build owns what it writes there.
MARKER_NAME = ".benchfoundry-build.json"
#: The lock file, beside the marker.
LOCK_NAME = ".benchfoundry.lock"
#: A build record written before the marker existed also makes a folder a build.
RECORD_NAME = "build.json"

#: Roots this process holds: resolved path → (lock file descriptor, nesting depth, lock taken over).
_HELD: dict[str, tuple[int, int, dict[str, Any] | None]] = {}
_HELD_GUARD = threading.Lock()


class OutputPathError(ValueError):
    """An output path that cannot be used; the message names it and why."""


class OutputRootBusy(OutputPathError):
    """Another build holds the output root's lock; the message names the holder."""


def _check_no_file_above(path: Path, folder: Path) -> None:
    """OutputPathError naming `path` when `folder` or the nearest of its existing parents is not a folder."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        where = "is a file, not a folder" if existing == path else f"lies under {existing}, which is a file"
        raise OutputPathError(f"{path}: {where}")


def check_output_dir(path: str | os.PathLike[str], create: bool = True) -> Path:
    """The absolute folder `path` after checking it is a folder (with no file on the way) that this process
    can write into, created if missing (or, with `create` False, its nearest existing parent probed
    instead); OutputPathError naming it otherwise."""
    folder = Path(path).absolute()
    _check_no_file_above(folder, folder)
    probe = folder
    if not create:
        while not probe.exists():
            probe = probe.parent
    try:
        probe.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=probe, prefix=".benchfoundry-probe."):
            pass
    except OSError as exc:
        raise OutputPathError(f"{folder}: cannot write here: {os_reason(exc)}") from None
    return folder


def check_output_file(path: str | os.PathLike[str]) -> Path:
    """The absolute file path `path` after checking it is not a folder and its folder can be written (its
    missing folders are not created)."""
    target = Path(path).absolute()
    if target.is_dir():
        raise OutputPathError(f"{target}: is a folder, expected a file name")
    _check_no_file_above(target, target.parent)
    check_output_dir(target.parent, create=False)
    return target


def is_build_root(folder: Path) -> bool:
    """Whether `folder` holds the marker, or the record of a build made before markers existed."""
    if (folder / MARKER_NAME).is_file():
        return True
    try:
        record = json.loads((folder / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and {"config_hash", "benchmarks"} <= record.keys()


def check_build_root(path: str | os.PathLike[str], adopt: bool = False) -> Path:
    """The absolute output root of a build: a writable folder that is empty, already a build, or (with
    `adopt`) any folder the user hands over; OutputPathError otherwise."""
    folder = check_output_dir(path)
    if adopt or is_build_root(folder) or not any(folder.iterdir()):
        return folder
    raise OutputPathError(
        f"{folder}: not empty and not a benchfoundry build (no {MARKER_NAME}); choose an empty or new folder, "
        "or pass --adopt-out to build into it (the build then owns only the files it writes)"
    )


def _holder(text: str) -> dict[str, Any] | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def describe_holder(holder: dict[str, Any] | None) -> str:
    if not holder:
        return "a build that is starting (no holder recorded yet)"
    return f"pid {holder.get('pid')} on host {holder.get('host')}, started {holder.get('started')}"


def _write_marker(folder: Path) -> None:
    marker = folder / MARKER_NAME
    if marker.is_file():
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{MARKER_NAME}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"benchfoundry_build": True, "created": utc_now()}, fh)
            fh.write("\n")
        os.replace(tmp, marker)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _acquire(folder: Path) -> tuple[int, dict[str, Any] | None]:
    """Lock `folder` (non-blocking) and record this process as holder; returns the descriptor and the
    record of a killed build whose lock was taken over (None after a clean release)."""
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
        os.close(fd)
        raise OutputRootBusy(f"{folder}: another build is writing here: {describe_holder(holder)}") from None
    previous = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
    me = {"host": socket.gethostname(), "pid": os.getpid(), "started": utc_now()}
    os.ftruncate(fd, 0)
    with contextlib.suppress(OSError):  # a full disk: the lock holds all the same, its holder goes unnamed
        os.pwrite(fd, (json.dumps(me) + "\n").encode("utf-8"), 0)
    return fd, (_holder(previous) or {"record": previous}) if previous else None


@contextlib.contextmanager
def hold_output_root(path: str | os.PathLike[str], adopt: bool = False) -> Iterator[dict[str, Any] | None]:
    """Check, lock and mark the output root for the block; yields the holder record of a killed build
    whose lock was taken over, or None. Reentrant within a process (the CLI, then the build flow);
    OutputRootBusy when another process holds it."""
    folder = Path(path).absolute()
    key = str(folder.resolve()) if folder.exists() else str(folder)
    with _HELD_GUARD:
        if key in _HELD:
            fd, depth, taken_over = _HELD[key]
            _HELD[key] = (fd, depth + 1, taken_over)
        else:
            folder = check_build_root(folder, adopt)
            fd, taken_over = _acquire(folder)
            try:
                _write_marker(folder)
            except OSError:
                os.close(fd)
                raise
            _HELD[str(folder.resolve())] = (fd, 1, taken_over)
            key = str(folder.resolve())
    try:
        yield taken_over
    finally:
        with _HELD_GUARD:
            fd, depth, taken_over = _HELD[key]
            if depth > 1:
                _HELD[key] = (fd, depth - 1, taken_over)
            else:
                del _HELD[key]
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
                os.close(fd)
