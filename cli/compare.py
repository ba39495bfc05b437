"""`benchfoundry compare A B`: two builds of the benchmarks, or a build and the authors' released files, side by
side (benchfoundry.compare): a text table printed, the record as JSON (`--json`), and an HTML page, by default
`<A>/report/compare.html` when A is a build."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from benchfoundry.cli.args import path_text
from benchfoundry.pipeline.commands import print_out


def _load_config(path: str | None) -> Any:
    """The thresholds: `--config FILE` (a YAML mapping of CompareConfig's fields), else the defaults."""
    from benchfoundry.configs.compare import CompareConfig
    from benchfoundry.configs.loader import load_model

    return load_model(CompareConfig, path, "compare config")


def _check_targets(targets: dict[str, str | None], sides: list[Path], a_build: Path | None, config: str | None) -> None:
    """ValueError naming the flag when an output would replace what it is not: a file of either side (a build's
    record, its released files, an authors' file) but A's own `report/compare.html`, the `--config` file, the other
    output, or an existing FIFO, device or socket."""
    given = {flag: Path(path).resolve() for flag, path in targets.items() if path}
    if len(set(given.values())) < len(given):
        raise ValueError("--json and --html name the same file")
    own_page = (a_build / "report" / "compare.html").resolve() if a_build is not None else None
    for flag, target in given.items():
        if target.exists() and not target.is_file():
            raise ValueError(f"{flag} {target}: not a regular file (a FIFO, a device or a socket)")
        if config is not None and target == Path(config).resolve():
            raise ValueError(f"{flag} {target}: is the --config file the comparison reads; write it elsewhere")
        inside = [side for side in sides if target.is_relative_to(side.resolve())]
        if inside and target != own_page:
            raise ValueError(f"{flag} {target}: lies in {inside[0]}, a side of the comparison; write it elsewhere")


def _write_page(args: argparse.Namespace, a_build: Path | None, record: dict[str, Any]) -> Path | None:
    """The page at `--html`; else, when A is a build, `<A>/report/compare.html`, linked from the report's other
    pages (under the build's lock: never beside a build writing its report); else none."""
    from benchfoundry.compare.report import write_html
    from benchfoundry.core.output_root import hold_build_lock
    from benchfoundry.pipeline.report_nav import link_pages

    if args.html:
        return write_html(Path(args.html), record)
    if a_build is None:
        return None
    with hold_build_lock(a_build):
        page = write_html(a_build / "report" / "compare.html", record)
        link_pages(page.parent)
    return page


def _cmd_compare(args: argparse.Namespace) -> int:
    from benchfoundry.compare.comparison import compare
    from benchfoundry.compare.report import text
    from benchfoundry.compare.sides import open_side
    from benchfoundry.core.atomic_files import write_json_atomic
    from benchfoundry.core.output_root import check_output_file

    config = _load_config(args.config)
    json_target = check_output_file(args.json) if args.json else None
    if args.html:
        check_output_file(args.html)
    a = open_side("A", Path(args.a))
    b = open_side("B", Path(args.b))
    sides = [a.build or a.path, b.build or b.path]
    _check_targets({"--json": args.json, "--html": args.html}, sides, a.build, args.config)
    record = compare(a, b, config)
    print(text(record), end="")
    if json_target is not None:
        print_out(f"JSON: {write_json_atomic(json_target, record)}")
    page = _write_page(args, a.build, record)
    if page is not None:
        print_out(f"page: {page}")
    return 0


def add_commands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "compare",
        help="compare two builds, or a build and the authors' released files: distributions, overlap, model ranking",
    )
    p.add_argument("a", metavar="A", type=path_text, help="a build folder, or an authors' released file or folder")
    p.add_argument("b", metavar="B", type=path_text, help="the other side, likewise")
    p.add_argument("--json", metavar="PATH", type=path_text, help="write the comparison's record as JSON")
    p.add_argument(
        "--html",
        metavar="PATH",
        type=path_text,
        help="write the HTML page here (default: <A>/report/compare.html when A is a build)",
    )
    p.add_argument(
        "--config", metavar="FILE", type=path_text, help="YAML of the thresholds (tv_max, share_max, phash_distance, …)"
    )
    p.set_defaults(func=_cmd_compare)
