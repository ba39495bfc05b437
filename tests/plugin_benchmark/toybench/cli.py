"""`benchfoundry toybench count BUILD`: how many released items of each colour a build holds."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from benchfoundry.pipeline.commands import Command, arg
from toybench.identity import BENCHMARK, RELEASED, TITLE


def _count(args: argparse.Namespace) -> int:
    from benchfoundry.evaluation.items import read_released_json

    rows = read_released_json(Path(args.build) / RELEASED)
    colours = Counter(row["answer"] for row in rows)
    print(f"{TITLE}: {len(rows)} items; " + ", ".join(f"{c} {n}" for c, n in sorted(colours.items())))
    return 0


COMMANDS = (
    Command(
        BENCHMARK,
        f"{TITLE}'s own commands",
        commands=(
            Command(
                "count",
                "the released items of each colour",
                (arg("build", metavar="BUILD", help="the build's output root"),),
                _count,
            ),
        ),
    ),
)
