"""A build's output root: checked before any work, marked as a benchfoundry build on first use, and
locked (`fcntl.flock`) for the whole build so that a second build into it stops at once. A command that
writes into a finished build (review-import, eval, score, label-import) takes the same lock
(`hold_build_lock`), so that it never writes beside a running build.

The lock file records its holder (host, pid, command, start). The OS releases a flock when its holder dies, so
a lock left by a killed build is simply taken over; a holder that exits normally empties the file, so
a non-empty lock file found free is the record of a killed build and is reported.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.buildinfo import os_reason, utc_now

#: Written on first use: the folder is a benchfoundry build and the build owns what it writes there.
MARKER_NAME = ".benchfoundry-build.json"
#: The lock file, beside the marker.
LOCK_NAME = ".benchfoundry.lock"
#: A build record written before the marker existed also makes a folder a build.
RECORD_NAME = "build.json"

#: Roots this process holds: resolved path → (lock file descriptor, nesting depth, what the lock file held
#: before, what to leave in it at release).
_HELD: dict[str, tuple[int, int, str, str]] = {}
_HELD_GUARD = threading.Lock()

#: Folders of the root a build writes whole besides its benchmarks' (`--adopt-out` refuses a folder whose own
#: files are there already: the build would replace them).
WRITTEN_WHOLE = ("report",)


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


def _own_entry(name: str) -> bool:
    """The lock file, and a temporary of the marker: what a build that was just starting leaves in a folder."""
    return name == LOCK_NAME or (name.startswith(f".{MARKER_NAME}.") and name.endswith(".tmp"))


def _is_our_record(record: Any) -> bool:
    """A build.json that benchfoundry wrote: its config hash (SHA-256), benchmarks and package versions,
    benchfoundry's among them."""
    if not isinstance(record, dict) or not isinstance(record.get("benchmarks"), dict):
        return False
    versions = record.get("versions")
    digest = record.get("config_hash")
    return (
        isinstance(versions, dict)
        and "benchfoundry" in versions
        and isinstance(digest, str)
        and re.fullmatch(r"[0-9a-f]{64}", digest) is not None
    )


def read_build_record(build: str | os.PathLike[str]) -> dict[str, Any]:
    """A build's `build.json`, read bounded ({} when there is none); ValueError naming it when it cannot be read
    or is not a JSON object."""
    path = Path(build) / RECORD_NAME
    if not path.is_file():
        return {}
    try:
        record = read_json(path)
    except OSError as exc:
        raise ValueError(f"{path}: unreadable build record ({os_reason(exc)})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a build record")
    return record


def is_build_root(folder: Path) -> bool:
    """Whether `folder` holds the marker, or the record of a build made before markers existed."""
    if (folder / MARKER_NAME).is_file():
        return True
    try:  # bounded, and by type first: a FIFO named build.json hung every command given its folder
        record = read_json(folder / RECORD_NAME)
    except (OSError, ValueError):
        return False
    return _is_our_record(record)


def check_build_root(path: str | os.PathLike[str], adopt: bool = False) -> Path:
    """The absolute output root of a build: a writable folder that is empty (but for the lock of a build
    just starting), already a build, or (with `adopt`) any folder the user hands over; OutputPathError
    otherwise."""
    folder = check_output_dir(path)
    if is_build_root(folder) or all(_own_entry(p.name) for p in folder.iterdir()):
        return folder
    if adopt:
        for name in WRITTEN_WHOLE:
            if (folder / name).is_symlink() or ((folder / name).is_dir() and any((folder / name).iterdir())):
                raise OutputPathError(
                    f"--adopt-out {folder}: {name}/ already holds files, and the build writes its {name} pages "
                    f"there (it owns {name}/): move them, or choose another folder"
                )
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
    command = f" ({holder['command']})" if holder.get("command") else ""
    return f"pid {holder.get('pid')}{command} on host {holder.get('host')}, started {holder.get('started')}"


def read_marker(folder: Path) -> dict[str, Any]:
    """The marker's record ({} when there is none or it is unreadable)."""
    try:
        found = json.loads((folder / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _write_marker(folder: Path, record: dict[str, Any]) -> None:
    """The marker, atomically and mode 0644; an OSError (a full disk) is raised naming it."""
    marker = folder / MARKER_NAME
    fd, tmp = tempfile.mkstemp(prefix=f".{MARKER_NAME}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh, sort_keys=True)
            fh.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, marker)
    except OSError as exc:
        if exc.filename is None:
            raise OSError(exc.errno, exc.strerror or str(exc), str(marker)) from exc
        raise
    finally:
        Path(tmp).unlink(missing_ok=True)


def _open_lock(path: Path) -> int:
    """The lock file, opened for writing only where it is this folder's own: a symbolic link (followed, the lock
    would truncate its target), a hard link to another file or anything but a regular file is refused."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        why = "a symbolic link" if path.is_symlink() else os_reason(exc)
        raise OutputPathError(f"{path}: {why}; refusing to write the build's lock through it (remove it)") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        what = "not a regular file" if not stat.S_ISREG(info.st_mode) else f"a hard link ({info.st_nlink} names)"
        raise OutputPathError(f"{path}: {what}; refusing to write the build's lock through it (remove it)")
    return fd


def _acquire(folder: Path) -> tuple[int, str]:
    """Lock `folder` (non-blocking) and record this process as holder; returns the descriptor and what the
    lock file held before (a killed holder's record, or nothing after a clean release)."""
    fd = _open_lock(folder / LOCK_NAME)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
        os.close(fd)
        raise OutputRootBusy(f"{folder}: another build is writing here: {describe_holder(holder)}") from None
    previous = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
    me = {"host": socket.gethostname(), "pid": os.getpid(), "started": utc_now(), "command": _command()}
    os.ftruncate(fd, 0)
    with contextlib.suppress(OSError):  # a full disk: the lock holds all the same, its holder goes unnamed
        os.pwrite(fd, (json.dumps(me) + "\n").encode("utf-8"), 0)
    return fd, previous


def _command() -> str:
    """What this process runs, for the holder record: `benchfoundry build`, `benchfoundry eval`, …"""
    words = [os.path.basename(sys.argv[0])] + [w for w in sys.argv[1:3] if not w.startswith("-")]
    return " ".join(words)[:80]


def _release(fd: int, restore: str) -> None:
    """Unlock: leave the lock file holding `restore` (empty after a build; a killed build's record after a
    command that held the lock meanwhile), then close it."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        if restore:
            os.pwrite(fd, (restore + "\n").encode("utf-8"), 0)
    os.close(fd)


def _prepare_root(folder: Path, adopt: bool, fresh_lock: bool, adopted: Callable[[Path], list[str]] | None) -> None:
    """Under the lock: check the folder may be a build's root and mark it on first use (recording, in an
    adopted folder, what `adopted` lists there: paths the build must leave alone). When this fails, the lock
    file this call created is removed again, so that no trace of the attempt stays."""
    try:
        check_build_root(folder, adopt)
        if not (folder / MARKER_NAME).is_file():
            record: dict[str, Any] = {"benchfoundry_build": True, "created": utc_now()}
            if adopted is not None and not all(_own_entry(p.name) for p in folder.iterdir()):
                record["adopted_leftovers"] = adopted(folder)
            _write_marker(folder, record)
    except BaseException:
        if fresh_lock and not (folder / MARKER_NAME).is_file():
            (folder / LOCK_NAME).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _hold(folder: Path, prepare: Callable[[Path, bool], None] | None, restore_previous: bool) -> Iterator[str]:
    """Lock `folder` for the block (reentrant within a process), after `prepare(folder, fresh_lock)`;
    yields what the lock file held before."""
    key = str(folder.resolve())
    with _HELD_GUARD:
        if key in _HELD:
            fd, depth, previous, restore = _HELD[key]
            _HELD[key] = (fd, depth + 1, previous, restore)
        else:
            fresh_lock = not (folder / LOCK_NAME).exists()
            fd, previous = _acquire(folder)
            try:
                if prepare is not None:
                    prepare(folder, fresh_lock)
            except BaseException:
                _release(fd, previous)
                raise
            _HELD[key] = (fd, 1, previous, previous if restore_previous else "")
    try:
        yield previous
    finally:
        with _HELD_GUARD:
            if key in _HELD:  # not released at once by `release_held`
                fd, depth, previous, restore = _HELD[key]
                if depth > 1:
                    _HELD[key] = (fd, depth - 1, previous, restore)
                else:
                    del _HELD[key]
                    _release(fd, restore)


def release_held() -> None:
    """Release every root this process holds, now: for a process about to exit at once (a second signal)."""
    if not _HELD_GUARD.acquire(timeout=1):  # the main thread stopped inside it: the OS releases the locks
        return
    try:
        while _HELD:
            _, (fd, _, _, restore) = _HELD.popitem()
            _release(fd, restore)
    finally:
        _HELD_GUARD.release()


@contextlib.contextmanager
def hold_output_root(
    path: str | os.PathLike[str], adopt: bool = False, adopted: Callable[[Path], list[str]] | None = None
) -> Iterator[dict[str, Any] | None]:
    """Lock, check and mark the output root for the block; yields the holder record of a killed build
    whose lock was taken over, or None. Reentrant within a process (the CLI, then the build flow);
    OutputRootBusy when another process holds it. The lock is taken first, so that of several builds
    started at once into a new folder one goes on and the others are told that it is busy. On first use of
    an adopted, non-empty folder the marker records what `adopted(folder)` lists (`adopted_leftovers`)."""
    folder = check_output_dir(path)
    with _hold(folder, lambda f, fresh: _prepare_root(f, adopt, fresh, adopted), False) as previous:
        yield (_holder(previous) or {"record": previous}) if previous else None


@contextlib.contextmanager
def hold_build_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """The lock of an existing build's root, for a command that writes into it (review-import, eval, score,
    label-import): OutputRootBusy while a build runs there. Nothing is checked or marked, and a killed
    build's record in the lock file is kept for the next build to report. A folder that is no build's root (none
    there, no marker, no build record of ours) holds no build: nothing is locked and no lock file is left in it
    (the command then reports its missing input)."""
    folder = Path(path).absolute()
    if not folder.is_dir() or not is_build_root(folder):
        yield
        return
    with _hold(folder, None, True):
        yield
