"""Names that come from input (an annotation's `file_name`, a file extension on the command line) joined
to a folder: the result lies inside that folder, or the name is refused naming the field that gave it.

`inside` is the one check for every such name: an absolute name, a `..` that climbs out, a NUL byte, an
empty name, or a symbolic link on the way that leads out of the folder are all refused. `inside_file` also
refuses, by its type and before anything opens it, what is not a regular file once links are followed (a FIFO
would hang a reader, a character device such as the zero device never ends); `regular_file` is that check alone.
`own_file` is the check of a file a build wrote before it hard-links it into a released folder: a regular file
reached through no symbolic link at all (a hard link follows a link to its target, which could be anything).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath


class UnsafePathError(ValueError):
    """A name from input that would lead outside its folder; the message names the field and the value."""


def relative_name(name: str, field: str) -> PurePosixPath:
    """`name` as a clean relative path (`a/./b` → `a/b`); UnsafePathError when it is empty, absolute, holds a
    NUL byte or a backslash, or climbs with `..`."""
    if not isinstance(name, str) or not name.strip():
        raise UnsafePathError(f"{field}: empty file name {name!r}")
    if "\0" in name or "\\" in name:
        raise UnsafePathError(f"{field}: {name!r} holds a NUL byte or a backslash")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise UnsafePathError(f"{field}: {name!r} is an absolute path; a name relative to its folder is expected")
    parts = [p for p in path.parts if p not in ("", ".")]
    if ".." in parts:
        raise UnsafePathError(f"{field}: {name!r} climbs out of its folder with '..'")
    if not parts:
        raise UnsafePathError(f"{field}: {name!r} names no file")
    return PurePosixPath(*parts)


def inside(root: str | os.PathLike[str], name: str, field: str) -> Path:
    """`root / name`, checked to lie inside `root` once symbolic links are resolved; UnsafePathError naming
    `field` otherwise."""
    base = Path(root)
    target = base / relative_name(name, field)
    resolved_root = base.resolve()
    if not target.resolve().is_relative_to(resolved_root):
        raise UnsafePathError(f"{field}: {name!r} leads outside {base} (through a symbolic link)")
    return target


def regular_file(path: str | os.PathLike[str], field: str) -> Path:
    """`path` when it is a regular file once links are followed; UnsafePathError naming `field` for a FIFO, a
    device, a socket or a folder (checked by type, without opening it); a missing file is FileNotFoundError."""
    path = Path(path)
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        raise UnsafePathError(f"{field}: {path} is {file_kind(mode)}, not a regular file")
    return path


def file_kind(mode: int) -> str:
    """What a file of `mode` (st_mode) is, in words: "a FIFO", "a device", "a socket", "a folder", "a file"."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a folder" if stat.S_ISDIR(mode) else "a file"


def inside_file(root: str | os.PathLike[str], name: str, field: str) -> Path:
    """`inside(root, name, field)` that is also a regular file (`regular_file`)."""
    return regular_file(inside(root, name, field), field)


def within(root: str | os.PathLike[str], path: str | os.PathLike[str], field: str) -> Path:
    """`path` (found by listing `root`) when it lies inside `root` once links are followed; UnsafePathError
    naming `field` otherwise."""
    path = Path(path)
    if not path.resolve().is_relative_to(Path(root).resolve()):
        raise UnsafePathError(f"{field}: {path} leads outside {root} (through a symbolic link)")
    return path


def own_file(root: str | os.PathLike[str], path: str | os.PathLike[str], field: str) -> Path:
    """`path` (`root / name`) when it is a regular file reached from `root` through no symbolic link (the file
    itself included); UnsafePathError naming `field` and the file otherwise, a missing file FileNotFoundError."""
    base, path = Path(root), Path(path)
    try:
        parts = path.relative_to(base).parts
    except ValueError:
        raise UnsafePathError(f"{field}: {path} is not under {base}") from None
    if ".." in parts:
        raise UnsafePathError(f"{field}: {path} climbs out of {base} with '..'")
    current = base
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise UnsafePathError(f"{field}: {path} is reached through a symbolic link ({current})")
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise UnsafePathError(f"{field}: {path} is not a regular file")
    return path
