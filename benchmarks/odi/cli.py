"""`benchfoundry odi review-import BUILD FILE`: reviewers' decisions on ODI-Bench items, then the release."""

from __future__ import annotations

import argparse

from benchfoundry.benchmarks.odi import cli_assets, cli_sphere
from benchfoundry.cli.review import add_review_import, built_config, import_review_file


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


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    add_review_import(subparsers, "odi", "ODI-Bench", "ODI-Bench items", _cmd_review_import)
    cli_sphere.add_commands(subparsers)
    cli_assets.add_commands(subparsers)
