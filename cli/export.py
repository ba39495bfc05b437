"""`benchfoundry export FORMAT --build OUT --to DIR [--benchmark NAME,…]`: a built benchmark in the formats of the
harnesses people evaluate with (docs/design/evaluation.md §7), as export/formats.FORMATS lists them."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchfoundry.cli.args import path_text
from benchfoundry.export.formats import FORMATS, built_benchmarks, export, format_folder
from benchfoundry.pipeline.benchmarks import names
from benchfoundry.pipeline.commands import print_error, print_note, print_out


def _cmd_export(args: argparse.Namespace) -> int:
    from benchfoundry.core.output_root import hold_build_lock

    # the build's lock while the export reads it: never beside a build that is rewriting its files
    with hold_build_lock(args.build):
        return _export(args)


def _export(args: argparse.Namespace) -> int:
    from benchfoundry.core.atomic_files import write_json_atomic
    from benchfoundry.core.output_root import check_output_dir
    from benchfoundry.export import target

    build = Path(args.build)
    chosen = args.benchmark
    wanted = list(dict.fromkeys(b.strip() for b in chosen.split(",") if b.strip())) if chosen else None
    if wanted == []:
        print_error(f"--benchmark {chosen!r} names no benchmark; known: {', '.join(names())}")
        return 2
    wanted = wanted or built_benchmarks(build)
    unknown = sorted(set(wanted) - set(names()))
    if unknown or not wanted:
        why = f"unknown benchmark(s) {unknown}" if unknown else f"{build} holds no built benchmark"
        print_error(f"{why}; known: {', '.join(names())}")
        return 2
    try:
        target.check_apart(build, format_folder(Path(args.to), args.format))
        folder = check_output_dir(format_folder(Path(args.to), args.format))
    except ValueError as exc:
        print_error(exc)
        return 2
    foreign = target.foreign_files(folder)
    if foreign and not args.force:
        print_error(target.refusal(folder, foreign))
        return 2
    swept = target.sweep_temporaries(folder, foreign)
    if swept:
        print_out(f"removed {len(swept)} temporary file(s) an earlier export left in {folder}")
    write_json_atomic(folder / target.SUMMARY, target.summary(build, {}, folder, foreign, running=True))
    summary, status = {}, 0
    for benchmark in wanted:
        try:
            summary[benchmark] = export(args.format, benchmark, build, Path(args.to))
        except (OSError, ValueError, KeyError) as exc:
            print_error(f"{benchmark}: {exc}")
            write_json_atomic(folder / target.SUMMARY, target.summary(build, summary, folder, foreign))
            return 2
        done = summary[benchmark]
        problems = done["problems"]
        for p in problems[:5]:
            print_note(f"{benchmark}: skipped {p['item']}: {p['reason']}")
        if len(problems) > 5:
            print_note(f"{benchmark}: … and {len(problems) - 5} more skipped (see export.json)")
        rows = ", ".join(f"{name} {n}" for name, n in done["rows"].items())
        print_out(f"{benchmark}: {rows} rows → {done['folder']}")
        status = 1 if problems and not any(done["rows"].values()) else status
    record = target.summary(build, summary, folder, foreign)
    print_out(f"summary: {write_json_atomic(folder / target.SUMMARY, record)}")
    return status


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    *others, last = (f.help for f in FORMATS.values())
    p = subparsers.add_parser("export", help=f"write a built benchmark for {', '.join(others)} or {last}")
    p.add_argument("format", choices=tuple(FORMATS))
    p.add_argument("--build", required=True, metavar="OUT", type=path_text, help="the build's output root")
    p.add_argument(
        "--to",
        required=True,
        metavar="DIR",
        type=path_text,
        help="where the export goes (DIR/<format>/, or DIR when named so)",
    )
    p.add_argument(
        "--benchmark",
        metavar="NAME[,NAME…]",
        help=f"comma-separated benchmarks of {','.join(names())} (default: every one the build holds)",
    )
    p.add_argument("--bench", dest="benchmark", help=argparse.SUPPRESS)  # its former name, still read
    p.add_argument("--force", action="store_true", help="write even where DIR/<format>/ holds files no export wrote")
    p.set_defaults(func=_cmd_export)
