"""ViewSpatial-Bench's commands: `benchfoundry viewspatial review-import BUILD FILE` (reviewers' decisions on
Per-Rel. Dir. candidates), `benchfoundry coco …` (coco/cli.py) and `benchfoundry scannet …` (scannet/cli.py)."""

from __future__ import annotations

import argparse

from benchfoundry.benchmarks.viewspatial.coco import cli as coco_cli
from benchfoundry.benchmarks.viewspatial.scannet import cli as scannet_cli
from benchfoundry.pipeline.review import built_config, import_review_file, review_import_command


def _cmd_review_import(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.viewspatial.coco.stages import relative_review
    from benchfoundry.benchmarks.viewspatial.release.release import all_rows, write_benchmark_files
    from benchfoundry.core.output_root import hold_build_lock

    build, config = built_config(args.build, "viewspatial")
    with hold_build_lock(build):
        counts = import_review_file(
            args.file, relative_review.review_items(all_rows(str(build))), relative_review.review_dir(build)
        )
        if counts is None:
            return 1
        files = write_benchmark_files(str(build), config.viewspatial, config.seed)
    print(
        f"imported {counts[0]} decisions ({counts[1]} bad rows skipped); ViewSpatial-Bench.json now holds "
        f"{files['val_items']} items, the SFT files {files['train_items']}"
    )
    return 0


COMMANDS = (
    review_import_command("viewspatial", "ViewSpatial-Bench", "Per-Rel. Dir. candidates", _cmd_review_import),
    coco_cli.COMMAND,
    scannet_cli.COMMAND,
)
