"""The `benchfoundry` command line."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchfoundry.core import dori
from benchfoundry.tasks.common.benchmarks import names

if TYPE_CHECKING:
    from benchfoundry.configs.build import BuildConfig

#: Modules that add their own subcommands through `add_commands(subparsers)`.
COMMAND_MODULES: tuple[str, ...] = (
    "benchfoundry.flows.cli_assets",
    "benchfoundry.flows.cli_coco",
    "benchfoundry.flows.cli_eval",
    "benchfoundry.flows.cli_export",
    "benchfoundry.flows.cli_odi",
    "benchfoundry.flows.cli_runner",
    "benchfoundry.flows.cli_scannet",
    "benchfoundry.flows.cli_sphere",
    "benchfoundry.flows.cli_score",
    "benchfoundry.flows.cli_syndor",
    "benchfoundry.flows.cli_viewspatial",
)


def _cmd_build(args: argparse.Namespace) -> int:
    # Prefect's temporary server would try to send usage data at start; build machines are often offline.
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from benchfoundry.configs.loader import load_config
    from benchfoundry.core.output_root import hold_output_root
    from benchfoundry.flows.build import adopted_leftovers, run_build

    config = load_config(args.config, args.set or [])
    only = None
    if args.only is not None:
        only = [name.strip() for name in args.only.split(",") if name.strip()]
        unknown = sorted(set(only) - set(names()))
        if unknown or not only:
            raise ValueError(
                f"--only {args.only!r}: "
                + (f"unknown benchmark(s) {unknown}" if unknown else "names no benchmark")
                + f"; known: {', '.join(names())}"
            )
    if args.plan:
        return _print_plans(config, only, args.out)
    out = args.out or str(config.output_root)
    # The root is checked and locked before Prefect starts: a second build stops at once.
    with hold_output_root(out, args.adopt_out, adopted_leftovers):
        record = run_build(config, out, only, args.adopt_out)
        if args.prune:
            _prune(out, record)
    for name, outcome in record["benchmarks"].items():
        print(f"{name}: {outcome['status']}" + (f" ({outcome['detail']})" if outcome["detail"] else ""))
    if record.get("timings", {}).get("benchmarks"):
        from benchfoundry.core.timings import format_table, time_table

        print("where the time went:\n" + format_table(time_table(record["timings"])))
    if "record_error" in record:
        print(f"error: {record['record_error']}", file=sys.stderr)
    else:
        print(f"build record: {out}/build.json")
    return 1 if record["status"] == "failed" else 0


def _prune(out: str, record: dict) -> None:
    """`build --prune`: remove the SynDORBench frame files the build's sample no longer uses; build.json says so."""
    from benchfoundry.flows.build import write_build_record
    from benchfoundry.tasks.syndor.frame_files import prune_build

    removed = prune_build(Path(out) / "syndor")
    render = record.get("benchmarks", {}).get("syndor", {}).get("stages", {}).get("render")
    if render is not None:
        render.update(unused_files=[], pruned_files=removed)
        write_build_record(Path(out) / "build.json", record)
    print(f"pruned {removed} unused frame file(s)")


def _print_plans(config: BuildConfig, only: list[str] | None, out: str | None) -> int:
    """`build --plan`: what each benchmark of the config would build (its plan function), from the config; with
    `--out`, against the build there where the benchmark plans against one (its `plan_against`)."""
    from benchfoundry.tasks.common.benchmarks import registered, resolve

    for benchmark in registered():
        if (only is not None and benchmark.name not in only) or not config.section(benchmark.section).enabled:
            print(f"{benchmark.name}: not built (nothing to plan)")
        elif out is not None and benchmark.plan_against is not None:
            print(resolve(benchmark.plan_against)(config, Path(out)))
        else:
            print(resolve(benchmark.plan)(config))
    return 0


def _given(value: float | None, default: float) -> float:
    """A flag's value when given (0 included, so that it is rejected, not replaced), else the preset's."""
    return default if value is None else value


def _cmd_dori(args: argparse.Namespace) -> int:
    explicit = (args.resolution, args.focal_mm, args.sensor_height_mm)
    if any(v is not None for v in explicit):
        base = dori.PRESETS[args.preset or "paper"]
        spec = dori.DoriOptics(
            resolution_h=_given(args.resolution, base.resolution_h),
            focal_mm=_given(args.focal_mm, base.focal_mm),
            sensor_height_mm=_given(args.sensor_height_mm, base.sensor_height_mm),
        )
    else:
        spec = dori.PRESETS[args.preset or "paper"]
    rows = dori.zone_table(spec)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(
        f"camera: {spec.resolution_h} px, f = {spec.focal_mm} mm, sensor height = {spec.sensor_height_mm} mm, "
        f"vertical FOV = {rows[0]['vfov_deg']:.2f} deg"
    )
    print(f"{'zone':<28}{'px/m':>8}{'distance (m)':>14}")
    for row in rows:
        print(f"{row['zone']:<28}{row['ppm']:>8.2f}{row['distance_m']:>14.2f}")
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchfoundry", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("build", help="build the benchmarks a config describes")
    p.add_argument("config", help="YAML build config: a file, or a preset name (e.g. smoke)")
    p.add_argument("--out", help="output root (default: the config's output_root)")
    p.add_argument("--only", help=f"comma-separated subset of: {','.join(names())}")
    p.add_argument("--set", action="append", metavar="KEY.PATH=VALUE", help="override a config value (repeatable)")
    p.add_argument(
        "--adopt-out",
        action="store_true",
        help="build into a non-empty folder that is not a benchfoundry build (it then owns only what it writes)",
    )
    p.add_argument(
        "--plan", action="store_true", help="print what the build would do (items, task runs) and stop; reads no asset"
    )
    p.add_argument(
        "--prune",
        action="store_true",
        help="after the build, remove the frame files its sample no longer uses (build.json lists them as unused)",
    )
    p.set_defaults(func=_cmd_build)

    p = sub.add_parser("dori", help="DORI distances for a camera spec")
    p.add_argument("--preset", choices=sorted(dori.PRESETS), help="named camera spec (default: paper)")
    p.add_argument("--resolution", type=int, help="vertical resolution, px")
    p.add_argument("--focal-mm", type=float, help="focal length, mm")
    p.add_argument("--sensor-height-mm", type=float, help="sensor height, mm")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=_cmd_dori)

    for name in COMMAND_MODULES:
        importlib.import_module(name).add_commands(sub)
    return parser


def _run(argv: list[str]) -> int:
    args = make_parser().parse_args(argv)
    return args.func(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: its exit status; bad input is one `error:` line and 2, a stop by a signal 128 + its
    number (130 for Ctrl-C, 143 for SIGTERM), without a traceback."""
    from benchfoundry.core.stopping import BuildInterrupted
    from benchfoundry.flows.slurm_jobs import ClusterFailed
    from benchfoundry.flows.stop_signals import stop_on_signals

    argv = list(sys.argv[1:] if argv is None else argv)
    # A build handles SIGTERM / SIGINT itself (flows/stop_signals.py), entered before the command modules are
    # imported: numpy's and OpenCV's native threads started then would not block the signals.
    stopping = stop_on_signals() if argv[:1] == ["build"] else contextlib.nullcontext()
    try:
        with stopping:
            return int(_run(argv) or 0)
    except BuildInterrupted as exc:
        print(f"interrupted: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except ClusterFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        from pydantic import ValidationError

        from benchfoundry.core.redact import redact
        from benchfoundry.flows.cli_args import validation_line

        message = validation_line(exc) if isinstance(exc, ValidationError) else str(exc)
        print(f"error: {redact(message)}", file=sys.stderr)
        return 2
    except OSError as exc:
        from benchfoundry.core.buildinfo import error_line

        print(f"error: {error_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
