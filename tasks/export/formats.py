"""`benchfoundry export FORMAT`: which benchmarks a build holds, and one benchmark written in one format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.tasks.evaluation.items import BENCHES, ODI_JSON, VIEWSPATIAL_JSON
from benchfoundry.tasks.export import lmms_tasks, rows, vlmevalkit
from benchfoundry.tasks.export.hf import write_dataset
from benchfoundry.tasks.syndor import release

#: Format → the folder under `--to` it writes.
FORMATS = {"vlmevalkit": "vlmevalkit", "lmms-eval": "lmms-eval", "hf": "hf"}


def built_benchmarks(build: Path) -> list[str]:
    """The benchmarks whose released files the build holds."""
    released = {
        "syndor": release.index_dir(build),
        "viewspatial": build / VIEWSPATIAL_JSON,
        "odi": build / ODI_JSON,
    }
    return [b for b in BENCHES if released[b].exists()]


def export(fmt: str, bench: str, build: Path, to: Path) -> dict[str, Any]:
    """Write one benchmark of the build in one format under `to/<format folder>/`; its files, rows and problems."""
    folder = to / FORMATS[fmt]
    if fmt == "vlmevalkit":
        return vlmevalkit.export(bench, build, folder)
    if fmt == "lmms-eval":
        return lmms_tasks.export(bench, build, folder)
    return write_dataset(folder / bench, rows.TITLES[bench], rows.SPLITS[bench](build), str(build))
