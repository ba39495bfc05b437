"""`benchfoundry export FORMAT`: the one table of export formats (`FORMATS`: each one's name, what the command's help
calls it, its writer), which benchmarks a build holds, where a format's files go, and one benchmark written in one
format. Each writer imports its module when it runs, so the command line reads the table without loading pyarrow."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchfoundry.evaluation.items import check_release
from benchfoundry.pipeline.benchmarks import registered

#: A format's writer: `(benchmark, build, folder)` → the files written, the rows per split and the problems.
Writer = Callable[[str, Path, Path], dict[str, Any]]


def _vlmevalkit(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """VLMEvalKit's TSV files and dataset modules (export/vlmevalkit.py)."""
    from benchfoundry.export import vlmevalkit

    return vlmevalkit.export(benchmark, build, folder)


def _lmms_eval(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """lmms-eval's task folder (export/lmms_tasks.py)."""
    from benchfoundry.export import lmms_tasks

    return lmms_tasks.export(benchmark, build, folder)


def _hf(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """Parquet for Hugging Face `datasets` with its dataset card and Croissant metadata, in `folder/<benchmark>/`
    (export/hf.py)."""
    from benchfoundry.export import rows
    from benchfoundry.export.hf import write_dataset

    return write_dataset(folder / benchmark, benchmark, rows.splits_of(benchmark, build), str(build))


@dataclass(frozen=True)
class Format:
    """An export format: its name (the command's choice, and the folder under `--to` it writes), what the command's
    help calls it (the harness or library it is for) and its writer."""

    name: str
    help: str
    write: Writer


#: Every export format, by name, in the command's order.
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("vlmevalkit", "VLMEvalKit", _vlmevalkit),
        Format("lmms-eval", "lmms-eval", _lmms_eval),
        Format("hf", "Hugging Face datasets", _hf),
    )
}


def built_benchmarks(build: Path) -> list[str]:
    """The benchmarks whose released files the build holds."""
    return [b.name for b in registered() if (build / b.released).exists()]


def format_folder(to: Path, fmt: str) -> Path:
    """Where a format's files go: `to/<format>/`, or `to` itself when it is already named so (`--to DIR/hf` writes
    `DIR/hf/<benchmark>`, not `DIR/hf/hf/<benchmark>`)."""
    name = FORMATS[fmt].name
    return to if to.name == name else to / name


def export(fmt: str, benchmark: str, build: Path, to: Path) -> dict[str, Any]:
    """Write one benchmark of the build in one format under its format folder (`format_folder`); its files, rows
    and problems. A benchmark the build recorded as failed is refused (evaluation/items.check_release)."""
    check_release(build, benchmark)
    return FORMATS[fmt].write(benchmark, build, format_folder(to, fmt))
