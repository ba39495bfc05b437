"""`benchfoundry odi verify-import BUILD FILE`: reviewers' decisions on ODI-Bench items, then the release."""

from __future__ import annotations

import argparse

from benchfoundry.flows.cli_review import built_config, import_review_file


def _cmd_verify_import(args: argparse.Namespace) -> int:
    from benchfoundry.tasks.odi.qa_stage import release_from_decisions

    build, config = built_config(args.build, "odi")
    items = release_from_decisions(build, config.odi)["items"]
    counts = import_review_file(args.file, items, build / "odi" / "verification")
    if counts is None:
        return 1
    result = release_from_decisions(build, config.odi)
    print(f"imported {counts[0]} decisions ({counts[1]} bad rows skipped); ODI-Bench.json now holds "
          f"{result['released']} items, {result['verified']} verified")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    odi = subparsers.add_parser("odi", help="ODI-Bench human verification")
    sub = odi.add_subparsers(dest="odi_command", required=True, metavar="COMMAND")
    p = sub.add_parser("verify-import", help="import accept / reject / edit decisions (CSV or Label Studio JSON)")
    p.add_argument("build", metavar="BUILD", help="the build's output root")
    p.add_argument("file", metavar="FILE", help="the filled odi/verification/review.csv, or a Label Studio export")
    p.set_defaults(func=_cmd_verify_import)
