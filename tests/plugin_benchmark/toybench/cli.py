"""`benchfoundry toybench count BUILD`: how many released items of each colour a build holds."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from toybench.identity import BENCHMARK, RELEASED, TITLE


def _count(args: argparse.Namespace) -> int:
    from benchfoundry.evaluation.items import read_released_json

    rows = read_released_json(Path(args.build) / RELEASED)
    colours = Counter(row["answer"] for row in rows)
    print(f"{TITLE}: {len(rows)} items; " + ", ".join(f"{c} {n}" for c, n in sorted(colours.items())))
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(BENCHMARK, help=f"{TITLE}'s own commands")
    sub = p.add_subparsers(dest=f"{BENCHMARK}_command", required=True, metavar="COMMAND")
    count = sub.add_parser("count", help="the released items of each colour")
    count.add_argument("build", metavar="BUILD", help="the build's output root")
    count.set_defaults(func=_count)
