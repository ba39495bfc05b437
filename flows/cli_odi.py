"""`benchfoundry odi verify-import BUILD FILE`: reviewers' decisions on ODI-Bench items, then the release."""

from __future__ import annotations

import argparse
import json
import sys

from benchfoundry.configs.build import BuildConfig


def _cmd_verify_import(args: argparse.Namespace) -> int:
    from benchfoundry.tasks.common.output_root import check_output_dir
    from benchfoundry.tasks.common import verification
    from benchfoundry.tasks.odi.qa_stage import release_from_decisions

    build = check_output_dir(args.build, create=False)
    record = build / "build.json"
    if not record.is_file():
        raise ValueError(f"{record}: no build record; build the odi benchmark first")
    config = BuildConfig.model_validate(json.loads(record.read_text())["config"])
    items = release_from_decisions(build, config.odi)["items"]
    decisions, bad = verification.read_decisions(args.file, items)
    for row in bad:
        print(f"{args.file}:{row['line']}: skipped: {row['reason']}", file=sys.stderr)
    if not decisions:
        print(f"error: {args.file}: no usable decision ({len(bad)} bad rows); nothing imported", file=sys.stderr)
        return 1
    verification.store_decisions(build / "odi" / "verification", decisions)
    result = release_from_decisions(build, config.odi)
    print(f"imported {len(decisions)} decisions ({len(bad)} bad rows skipped); ODI-Bench.json now holds "
          f"{result['released']} items, {result['verified']} verified")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    odi = subparsers.add_parser("odi", help="ODI-Bench human verification")
    sub = odi.add_subparsers(dest="odi_command", required=True, metavar="COMMAND")
    p = sub.add_parser("verify-import", help="import accept / reject / edit decisions (CSV or Label Studio JSON)")
    p.add_argument("build", metavar="BUILD", help="the build's output root")
    p.add_argument("file", metavar="FILE", help="the filled odi/verification/review.csv, or a Label Studio export")
    p.set_defaults(func=_cmd_verify_import)
