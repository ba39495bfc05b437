"""ViewSpatial-Bench's commands: `benchfoundry viewspatial review-import BUILD FILE` (reviewers' decisions on
Per-Rel. Dir. candidates), `benchfoundry coco …` (coco/cli.py) and `benchfoundry scannet …` (scannet/cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.viewspatial.coco import cli as coco_cli
from benchfoundry.benchmarks.viewspatial.scannet import cli as scannet_cli
from benchfoundry.configs.build import BuildConfig
from benchfoundry.pipeline.review import review_import_command


def _to_review(build: Path, config: BuildConfig) -> tuple[list[dict[str, Any]], Path]:
    """The Per-Rel. Dir. candidates of the build's rows, and their review folder."""
    from benchfoundry.benchmarks.viewspatial.coco.stages import relative_review
    from benchfoundry.benchmarks.viewspatial.release.release import all_rows

    return relative_review.review_items(all_rows(str(build))), relative_review.review_dir(build)


def _release(build: Path, config: BuildConfig) -> str:
    from benchfoundry.benchmarks.viewspatial.release.release import write_benchmark_files

    files = write_benchmark_files(str(build), config.viewspatial, config.seed)
    return f"ViewSpatial-Bench.json now holds {files['val_items']} items, the SFT files {files['train_items']}"


COMMANDS = (
    review_import_command("viewspatial", "ViewSpatial-Bench", "Per-Rel. Dir. candidates", _to_review, _release),
    coco_cli.COMMAND,
    scannet_cli.COMMAND,
)
