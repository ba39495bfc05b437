"""The items of a built benchmark as released, before any protocol: question, options, answer, images; each
benchmark's reader (its descriptor's `items`, in its own folder) makes them from its released files with the
helpers here.

Image paths in a released file are relative to that file's folder, and must stay inside it once links are
followed and name regular files (core/safe_paths.inside_file): a build folder someone hands over is input. An
item whose image is refused keeps no image and says why in `problem`: eval records it as a failed item and
sends nothing, the exports leave it out as a problem row; the other items go on. How an item is put to a model
and how a reply is read is its benchmark's evaluation hook's (evaluation/hooks.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.output_root import RECORD_NAME, read_build_record
from benchfoundry.core.safe_paths import UnsafePathError, inside_file
from benchfoundry.evaluation.choices import split_option
from benchfoundry.pipeline.benchmarks import hook

#: The options of a yes/no item, in any order and case.
YES_NO = frozenset({"yes", "no"})


@dataclass(frozen=True)
class EvalItem:
    id: str
    task: str
    question: str  # as released
    images: tuple[Path, ...]
    options: tuple[str, ...] = ()  # lettered "A. …" in the released order; empty for a free-form answer
    answer: str = ""  # the correct option's letter, or the reference answer of a free-form item
    meta: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None  # why the item's images were refused (then `images` is empty)

    @property
    def texts(self) -> tuple[str, ...]:
        """The options without their letters."""
        return tuple(split_option(o)[1] for o in self.options)

    @property
    def yes_no(self) -> bool:
        return len(self.options) == 2 and {t.lower() for t in self.texts} == YES_NO


def read_released_json(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; build the benchmark first")
    return read_json(path)


def released_images(folder: Path, names: Any, where: str) -> tuple[tuple[Path, ...], str | None]:
    """The released image names joined to their folder (inside it, regular files), or () and why not."""
    if not isinstance(names, (list, tuple)):
        names = [names]
    try:
        return tuple(inside_file(folder, str(name), f"{where}: image") for name in names), None
    except (UnsafePathError, OSError) as exc:
        return (), str(exc) if isinstance(exc, UnsafePathError) else f"{where}: image {exc.filename}: {exc.strerror}"


def refused_image(item: EvalItem) -> str:
    """The failed row's error of an item whose images were refused (nothing is sent for it)."""
    return f"cannot read the image: {item.problem}"


def field_of(path: Path, where: str, row: Any, name: str) -> Any:
    """The row's field `name`; a ValueError naming the file, the row and the field when it is missing."""
    if not isinstance(row, dict) or name not in row:
        raise ValueError(f"{path}: {where}: field {name!r} missing")
    return row[name]


def check_release(build: Path, benchmark: str) -> None:
    """A ValueError when the build's record says the benchmark failed (or was stopped before it ended): what it
    left is not a release, and neither eval nor export reads it. A folder without a build record (files someone
    hands over) is read as it is."""
    record = read_build_record(build)
    record_path = build / RECORD_NAME
    benchmarks = record.get("benchmarks")
    outcome = benchmarks.get(benchmark) if isinstance(benchmarks, dict) else None
    if isinstance(outcome, dict) and outcome.get("status") == "failed":
        raise ValueError(
            f"{record_path}: {benchmark} failed ({outcome.get('detail') or 'no detail'}); what it wrote is not a "
            "release: build it again first"
        )
    if record.get("status") in ("running", "interrupted") and outcome is None:
        raise ValueError(f"{record_path}: the build was {record['status']} before {benchmark} ended: build it first")


def load_items(benchmark: str, build: Path) -> list[EvalItem]:
    """The benchmark's items, read by its descriptor's reader (pipeline/benchmarks.py), of a release the build
    did not record as failed (`check_release`)."""
    check_release(build, benchmark)
    return hook(benchmark, "items")(build)
