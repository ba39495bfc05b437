"""The two sides of a comparison: a build folder (each built benchmark's released items, read by its descriptor's
reader, and its `eval` results) or an authors' released file or folder (read by the descriptor's `release_items`
of the benchmark whose released file bears its name)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from benchfoundry.core.descriptor import Benchmark
from benchfoundry.core.output_root import is_build_root, read_build_record
from benchfoundry.evaluation.items import EvalItem, load_items
from benchfoundry.evaluation.report_page import load_results
from benchfoundry.evaluation.run import eval_dir
from benchfoundry.evaluation.tables import Result
from benchfoundry.pipeline.benchmarks import hook, registered


@dataclass(frozen=True)
class Side:
    label: str  # "A" or "B"
    path: Path
    what: str  # a line saying what it is: a build (its name and config hash) or an authors' release
    items: dict[str, list[EvalItem]]  # by benchmark name, in build order
    results: list[Result] = field(default_factory=list)  # its `eval` result files
    build: Path | None = None  # the build root; None for a released file

    @property
    def benchmarks(self) -> list[str]:
        return list(self.items)


def _release_name_matches(descriptor: Benchmark, path: Path) -> bool:
    """Whether `path` is named as the benchmark's released file or folder (its stem for another format of it)."""
    released = Path(descriptor.released)
    return path.name == released.name or (path.is_file() and path.stem == released.stem)


def _release_in(folder: Path, descriptor: Benchmark) -> Path | None:
    """The benchmark's released file or folder in `folder`: the one of its released name, else another format."""
    exact = folder / Path(descriptor.released).name
    if exact.exists():
        return exact
    return next((c for c in sorted(folder.iterdir()) if _release_name_matches(descriptor, c)), None)


def _readable_releases() -> list[Benchmark]:
    return [d for d in registered() if d.release_items is not None]


def _build_side(label: str, build: Path) -> Side:
    built = [d for d in registered() if (build / d.released).exists()]
    if not built:
        raise ValueError(f"{build}: a build folder holding no released benchmark ({_accepted()})")
    record = read_build_record(build)
    where = " ".join(
        str(record[k])[: 12 if k == "config_hash" else None] for k in ("name", "config_hash") if record.get(k)
    )
    results = load_results(eval_dir(build)) if eval_dir(build).is_dir() else []
    return Side(
        label,
        build,
        f"build {where or build.name}",
        {d.name: load_items(d.name, build) for d in built},
        results,
        build,
    )


def _release_side(label: str, path: Path, found: list[tuple[Benchmark, Path]]) -> Side:
    items = {d.name: hook(d.name, "release_items")(p) for d, p in found}
    names = ", ".join(p.name for _, p in found)
    return Side(label, path, f"released files ({names})", items)


def _accepted() -> str:
    names = sorted({Path(d.released).name for d in _readable_releases()})
    return "a build folder, or one of the authors' released files: " + ", ".join(names)


def open_side(label: str, path: Path) -> Side:
    """The side at `path`: a build folder, an authors' released file or folder (named as a benchmark's released
    one), or a folder holding such files; a ValueError naming the path when it is none of them."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: not found ({_accepted()})")
    if path.is_dir() and (is_build_root(path) or any((path / d.released).exists() for d in registered())):
        return _build_side(label, path)
    found = [(d, path) for d in _readable_releases() if _release_name_matches(d, path)]
    if not found and path.is_dir():
        found = [(d, child) for d in _readable_releases() if (child := _release_in(path, d)) is not None]
    if not found:
        raise ValueError(f"{path}: neither a build folder nor a released file it can read ({_accepted()})")
    return _release_side(label, path, found)
