"""`benchfoundry score BENCHMARK PREDICTIONS --build DIR`: score a predictions file offline against a built
benchmark, as `benchfoundry eval` scores its replies: the file is eval's own `predictions.jsonl` or a format of
the benchmark's authors (its evaluation hook reads it, evaluation/hooks.py), each reply read as the protocol
reads it and scored by the same code as eval's. One subcommand per registered benchmark, with its own flags."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
from pathlib import Path
from typing import Any

from benchfoundry.cli.args import add_args, path_text
from benchfoundry.evaluation.hooks import evaluation_of
from benchfoundry.evaluation.protocols import PROTOCOLS
from benchfoundry.pipeline.benchmarks import get, names
from benchfoundry.pipeline.commands import print_error, print_note, print_out


def _writes_into(build: Path, out: str | None, benchmark: str) -> bool:
    """Whether scoring writes into the build: its default score file, an --out inside it, or the benchmark's report
    page (re-rendered with the scores, where it shows them)."""
    inside = out is None or Path(out).absolute().resolve().is_relative_to(build.absolute().resolve())
    return inside or (build / "report" / get(benchmark).report_page).is_file()


def _check_target(target: Path, predictions: Path, build: Path) -> None:
    """ValueError naming `--out` when the score would replace what is not a score: the predictions file, what the
    build owns (a benchmark's folder, `build.json`, its marker and lock, `report/` but `report/scores/`), or a FIFO,
    device or socket."""
    from benchfoundry.core.output_root import LOCK_NAME, MARKER_NAME, RECORD_NAME

    resolved = target.resolve()
    if resolved == predictions.resolve():
        raise ValueError(f"--out {target}: is the predictions file being scored; write the score elsewhere")
    if resolved.exists() and not resolved.is_file():
        raise ValueError(f"--out {target}: not a regular file (a FIFO, a device or a socket)")
    root = build.resolve()
    owned = [root / name for name in (*names(), "report", RECORD_NAME, MARKER_NAME, LOCK_NAME)]
    if any(resolved.is_relative_to(p) for p in owned) and not resolved.is_relative_to(root / "report" / "scores"):
        raise ValueError(f"--out {target}: would replace a file of the build {build}; write it elsewhere")


def _cmd_score(args: argparse.Namespace) -> int:
    from benchfoundry.core.output_root import hold_build_lock

    build = Path(args.build)
    # the build's lock while writing into it (not for a read-only build scored into a file elsewhere)
    with hold_build_lock(build) if _writes_into(build, args.out, args.benchmark) else contextlib.nullcontext():
        return _score(args, build)


def _score(args: argparse.Namespace, build: Path) -> int:
    from benchfoundry.core.atomic_files import write_json_atomic
    from benchfoundry.core.bounded_read import MAX_TEXT_BYTES, read_bytes
    from benchfoundry.core.output_root import check_output_file
    from benchfoundry.evaluation.items import load_items

    evaluation = evaluation_of(args.benchmark)
    predictions = Path(args.predictions)
    flags = vars(args)
    try:
        target = check_output_file(args.out or build / "report" / "scores" / f"{predictions.stem}.json")
        _check_target(target, predictions, build)
        raw = read_bytes(predictions, MAX_TEXT_BYTES, "predictions file")
        items = load_items(args.benchmark, build)
        result = evaluation.score_file(build, items, predictions, args.protocol, target, flags)
    except (OSError, ValueError, KeyError) as exc:
        print_error(exc)
        return 2
    score: dict[str, Any] = {
        "benchmark": args.benchmark,
        "predictions": str(predictions),
        "predictions_sha256": hashlib.sha256(raw).hexdigest(),
        "protocol": args.protocol,
        "build": str(build),
        **result,
    }
    write_json_atomic(target, score)
    problems = score.get("problems", [])
    for p in problems:
        print_note(f"{predictions}:{p['line']}: skipped: {p['reason']}")
    print(evaluation.score_text(score))
    print_out(f"\nscore file: {target}" + (f" ({len(problems)} bad lines skipped)" if problems else ""))
    for line in evaluation.scored(build, flags):
        print(line)
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    score = subparsers.add_parser(
        "score", help="score a predictions file (eval's, or the benchmark authors' format) against a built benchmark"
    )
    sub = score.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for name in names():
        p = sub.add_parser(name, help=f"{get(name).title}: score a predictions file as `eval {name}` scores")
        p.add_argument("predictions", metavar="PREDICTIONS", help="eval's predictions.jsonl or the authors' format")
        p.add_argument("--build", required=True, metavar="DIR", type=path_text, help="the build's output root")
        p.add_argument(
            "--out",
            metavar="FILE",
            type=path_text,
            help="score JSON (default DIR/report/scores/<predictions name>.json)",
        )
        p.add_argument(
            "--protocol",
            choices=PROTOCOLS,
            default="authors",
            help="read the replies as the benchmark's authors do (default, as `eval`), or the project's way",
        )
        add_args(p, evaluation_of(name).score_flags)
        p.set_defaults(func=_cmd_score)
