"""Names that come from input (an annotation's `file_name`, a file extension on the command line) joined
to a folder: the result lies inside that folder, or the name is refused naming the field that gave it.

`inside` is the one check for every such name: an absolute name, a `..` that climbs out, a NUL byte, an
empty name, or a symbolic link on the way that leads out of the folder are all refused.
"""

from __future__ import annotations

import os
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
