"""`benchfoundry export FORMAT`: which benchmarks a build holds, where a format's files go, and one benchmark written
in one format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.evaluation.items import check_release
from benchfoundry.export import lmms_tasks, rows, vlmevalkit
from benchfoundry.export.hf import write_dataset
from benchfoundry.pipeline.benchmarks import registered

#: Format → the folder under `--to` it writes.
FORMATS = {"vlmevalkit": "vlmevalkit", "lmms-eval": "lmms-eval", "hf": "hf"}


def built_benchmarks(build: Path) -> list[str]:
    """The benchmarks whose released files the build holds."""
    return [b.name for b in registered() if (build / b.released).exists()]


def format_folder(to: Path, fmt: str) -> Path:
    """Where a format's files go: `to/<format folder>/`, or `to` itself when it is already named so (`--to DIR/hf`
    writes `DIR/hf/<benchmark>`, not `DIR/hf/hf/<benchmark>`)."""
    return to if to.name == FORMATS[fmt] else to / FORMATS[fmt]


def export(fmt: str, benchmark: str, build: Path, to: Path) -> dict[str, Any]:
    """Write one benchmark of the build in one format under its format folder (`format_folder`); its files, rows
    and problems. A benchmark the build recorded as failed is refused (evaluation/items.check_release)."""
    check_release(build, benchmark)
    folder = format_folder(to, fmt)
    if fmt == "vlmevalkit":
        return vlmevalkit.export(benchmark, build, folder)
    if fmt == "lmms-eval":
        return lmms_tasks.export(benchmark, build, folder)
    return write_dataset(folder / benchmark, benchmark, rows.splits_of(benchmark, build), str(build))
