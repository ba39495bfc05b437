"""`benchfoundry viewspatial verify-import BUILD FILE`: reviewers' decisions on Per-Rel. Dir. candidates."""

from __future__ import annotations

import argparse
import json
import sys

from benchfoundry.configs.build import BuildConfig


def _cmd_verify_import(args: argparse.Namespace) -> int:
    from benchfoundry.tasks.common import verification
    from benchfoundry.tasks.common.output_root import check_output_dir
    from benchfoundry.tasks.viewspatial import review
    from benchfoundry.tasks.viewspatial.release import all_rows, write_benchmark_files

    build = check_output_dir(args.build, create=False)
    record = build / "build.json"
    if not record.is_file():
        raise ValueError(f"{record}: no build record; build the viewspatial benchmark first")
    config = BuildConfig.model_validate(json.loads(record.read_text())["config"])
    items = review.review_items(all_rows(str(build)))
    decisions, bad = verification.read_decisions(args.file, items)
    for row in bad:
        print(f"{args.file}:{row['line']}: skipped: {row['reason']}", file=sys.stderr)
    if not decisions:
        print(f"error: {args.file}: no usable decision ({len(bad)} bad rows); nothing imported", file=sys.stderr)
        return 1
    verification.store_decisions(review.review_dir(build), decisions)
    files = write_benchmark_files(str(build), config.viewspatial)
    print(f"imported {len(decisions)} decisions ({len(bad)} bad rows skipped); ViewSpatial-Bench.json now holds "
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
