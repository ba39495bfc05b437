"""What a build records about itself in `build.json`: config, hash, versions, times, outcomes."""

from __future__ import annotations

import errno
import importlib.metadata
import platform
import time
import traceback
from typing import Any

#: Distributions whose versions go into every build.json.
KEY_PACKAGES = (
    "benchfoundry",
    "bpy",
    "prefect",
    "prefect-dask",
    "torch",
    "numpy",
    "pandas",
    "pyarrow",
    "opencv-python-headless",
    "scipy",
    "scikit-learn",
    "xgboost-cpu",
    "bm4d",
    "smplx",
    "pydantic",
    "transformers",
)


def package_versions(names: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str | None]:
    """Installed versions, read from metadata (nothing is imported); None when absent."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def benchmark_outcome(
    status: str,
    detail: str = "",
    *,
    stages: dict[str, Any] | None = None,
    problems: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """What a benchmark's subflow returns: `built`, `not built`, `stopped` or `failed`, and why."""
    if status not in {"built", "not built", "stopped", "failed"}:
        raise ValueError(f"unknown benchmark status {status!r}")
    return {"status": status, "detail": detail, "stages": stages or {}, "problems": problems or [], **extra}


def problem(stage: str, item: str, reason: str, *, kind: str = "skipped", path: str | None = None) -> dict[str, Any]:
    """One skipped or failed item, as listed in build.json."""
    row = {"stage": stage, "item": item, "kind": kind, "reason": reason}
    if path is not None:
        row["path"] = path
    return row


def os_reason(exc: OSError) -> str:
    """`No space left on device (errno 28 ENOSPC)`: the strerror with the errno number and name."""
    code = exc.errno
    name = errno.errorcode.get(code, "?") if code is not None else "?"
    return f"{exc.strerror or exc} (errno {code} {name})"


def error_line(exc: BaseException) -> str:
    """A failure in one line: an OSError as `PATH: reason (errno N NAME)`, anything else as `Type: message`."""
    if isinstance(exc, OSError) and exc.errno is not None:
        where = exc.filename if exc.filename is not None else "?"
        return f"{type(exc).__name__}: {where}: {os_reason(exc)}"
    return " ".join("".join(traceback.format_exception_only(type(exc), exc)).split("\n")).strip()
