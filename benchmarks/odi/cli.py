"""ODI-Bench's commands, its descriptor's `commands`: `benchfoundry odi review-import BUILD FILE` (reviewers'
decisions on ODI-Bench items, then the release), `benchfoundry sphere …` (cli_sphere.py) and `benchfoundry assets
infinigen` (cli_assets.py)."""

from __future__ import annotations

import argparse

from benchfoundry.benchmarks.odi import cli_assets, cli_sphere
from benchfoundry.pipeline.review import built_config, import_review_file, review_import_command


def _cmd_review_import(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.odi.stages.qa_stage import release_from_decisions
    from benchfoundry.core.output_root import hold_build_lock
    from benchfoundry.pipeline import review

    build, config = built_config(args.build, "odi")
    with hold_build_lock(build):
        items = release_from_decisions(build, config.odi)["items"]
        counts = import_review_file(args.file, items, build / "odi" / review.FOLDER)
        if counts is None:
            return 1
        result = release_from_decisions(build, config.odi)
    print(
        f"imported {counts[0]} decisions ({counts[1]} bad rows skipped); ODI-Bench.json now holds "
        f"{result['released']} items, {result['verified']} verified"
    )
    return 0


COMMANDS = (
    review_import_command("odi", "ODI-Bench", "ODI-Bench items", _cmd_review_import),
    cli_sphere.COMMAND,
    cli_assets.COMMAND,
)
