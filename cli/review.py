"""What the `review-import` commands share: the build's record and config, and importing one review file.
A command holds the build's lock while it writes (benchfoundry/core/output_root.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchfoundry.cli.args import print_error, print_note
from benchfoundry.configs.build import BuildConfig


def built_config(build_arg: str, benchmark: str) -> tuple[Path, BuildConfig]:
    """The build folder and the config it was built with; ValueError when it has no usable build record."""
    from benchfoundry.core.output_root import check_output_dir

    build = check_output_dir(build_arg, create=False)
    record = build / "build.json"
    if not record.is_file():
        raise ValueError(f"{record}: no build record; build the {benchmark} benchmark first")
    return build, recorded_config(record)


def recorded_config(record: Path) -> BuildConfig:
    """The config a build record holds; ValueError naming the record when it holds none."""
    from pydantic import ValidationError

    from benchfoundry.cli.args import validation_line
    from benchfoundry.core.bounded_read import read_json

    data = read_json(record)
    config = data.get("config") if isinstance(data, dict) else None
    if not isinstance(config, dict):
        raise ValueError(f"{record}: no `config` in the build record")
    try:
        return BuildConfig.model_validate(config)
    except ValidationError as exc:
        raise ValueError(f"{record}: the recorded config is not valid now: {validation_line(exc)}") from None


#: Bad rows of a review file printed one by one; the rest are counted.
SHOWN_BAD_ROWS = 20


def import_review_file(path: str, items: Sequence[dict[str, Any]], directory: Path) -> tuple[int, int] | None:
    """Store the file's usable decisions in `directory`; (imported, bad rows), or None (said on stderr) when
    it holds none. Each bad row is reported by line."""
    from benchfoundry.pipeline import review

    decisions, bad = review.read_decisions(path, items)
    for row in bad[:SHOWN_BAD_ROWS]:
        print_note(f"{path}:{row['line']}: skipped: {row['reason']}")
    if len(bad) > SHOWN_BAD_ROWS:
        print_note(f"{path}: … and {len(bad) - SHOWN_BAD_ROWS} more bad rows")
    if not decisions:
        print_error(f"{path}: no usable decision ({len(bad)} bad rows); nothing imported")
        return None
    review.store_decisions(directory, decisions)
    return len(decisions), len(bad)


def add_review_import(
    subparsers: argparse._SubParsersAction,
    benchmark: str,
    title: str,
    items: str,
    func: Callable[[argparse.Namespace], int],
) -> None:
    """`benchfoundry BENCHMARK review-import BUILD FILE`, the group's one command."""
    group = subparsers.add_parser(benchmark, help=f"{title} human review")
    sub = group.add_subparsers(dest=f"{benchmark}_command", required=True, metavar="COMMAND")
    p = sub.add_parser(
        "review-import",
        aliases=["verify-import"],
        help=f"import accept / reject / edit decisions on {items} (CSV or Label Studio JSON); "
        "verify-import: its old name, kept for one release",
    )
    p.add_argument("build", metavar="BUILD", help="the build's output root")
    p.add_argument("file", metavar="FILE", help=f"the filled {benchmark}/review/review.csv, or a Label Studio export")
    p.set_defaults(func=func)
