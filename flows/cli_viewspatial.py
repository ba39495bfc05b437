"""`benchfoundry viewspatial verify-import BUILD FILE`: reviewers' decisions on Per-Rel. Dir. candidates."""

from __future__ import annotations

import argparse

from benchfoundry.flows.cli_review import built_config, import_review_file


def _cmd_verify_import(args: argparse.Namespace) -> int:
    from benchfoundry.tasks.viewspatial import review
    from benchfoundry.tasks.viewspatial.release import all_rows, write_benchmark_files

    build, config = built_config(args.build, "viewspatial")
    counts = import_review_file(args.file, review.review_items(all_rows(str(build))), review.review_dir(build))
    if counts is None:
        return 1
    files = write_benchmark_files(str(build), config.viewspatial)
    print(f"imported {counts[0]} decisions ({counts[1]} bad rows skipped); ViewSpatial-Bench.json now holds "
          f"{files['val_items']} items, the SFT files {files['train_items']}")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    vs = subparsers.add_parser("viewspatial", help="ViewSpatial-Bench human verification")
    sub = vs.add_subparsers(dest="viewspatial_command", required=True, metavar="COMMAND")
    p = sub.add_parser("verify-import", help="import accept / reject / edit decisions on Per-Rel. Dir. candidates")
    p.add_argument("build", metavar="BUILD", help="the build's output root")
    p.add_argument("file", metavar="FILE",
                   help="the filled viewspatial/verification/review.csv, or a Label Studio export")
    p.set_defaults(func=_cmd_verify_import)
