"""Files that appear whole or not at all: written beside their final path under a temporary name, then renamed
into place. Kept apart from the artifact store (benchfoundry/core/store.py) so that the render worker, which
writes only JSON, does not import pandas."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: The mode of every file written here, as of the rendered frames: readable by a web server and colleagues.
FILE_MODE = 0o644


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it into place, with mode `FILE_MODE`, only if the block
    succeeds. An OSError of the block that names no file (a write on a full disk) is raised again naming
    `path`."""
    final = Path(path)
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, final)
    except OSError as exc:
        if exc.filename is None:  # a failed write (ENOSPC, EIO) names no file: name the one being written
            raise OSError(exc.errno, exc.strerror or str(exc), str(final)) from exc
        raise
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_json_atomic(path: str | os.PathLike[str], obj: Any) -> Path:
    text = json.dumps(obj, indent=2, sort_keys=True, default=str)
    return write_bytes_atomic(path, (text + "\n").encode("utf-8"))
