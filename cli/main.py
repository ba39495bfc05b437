"""The `benchfoundry` command line: `build`, the generic commands of `COMMAND_MODULES`, and each registered
benchmark's own (its descriptor's `commands`)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchfoundry.cli.args import Parser, add_command, path_text
from benchfoundry.core.safe_paths import file_kind
from benchfoundry.pipeline.benchmarks import hook, names, registered
from benchfoundry.pipeline.commands import print_error, print_out

if TYPE_CHECKING:
    from benchfoundry.configs.build import BuildConfig

#: The generic modules that add their own subcommands through `add_commands(subparsers)`.
COMMAND_MODULES: tuple[str, ...] = (
    "benchfoundry.cli.compare",
    "benchfoundry.cli.evaluate",
    "benchfoundry.cli.export",
    "benchfoundry.cli.runner",
    "benchfoundry.cli.score",
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
        if args.out is not None:
            _check_plan_root(Path(args.out))
        return _print_plans(config, only, args.out)
    out = args.out or str(config.output_root)
    # The root is checked and locked before Prefect starts: a second build stops at once.
    with hold_output_root(out, args.adopt_out, adopted_leftovers):
        record = run_build(config, out, only, args.adopt_out)
        if args.prune:
            _prune(Path(out), record)
    for name, outcome in record["benchmarks"].items():
        print(f"{name}: {outcome['status']}" + (f" ({outcome['detail']})" if outcome["detail"] else ""))
    if record.get("timings", {}).get("benchmarks"):
        from benchfoundry.core.timings import format_table, time_table

        print("where the time went:\n" + format_table(time_table(record["timings"])))
    if "record_error" in record:
        print_error(record["record_error"])
    else:
        print_out(f"build record: {out}/build.json")
    return 1 if record["status"] == "failed" else 0


def _prune(out: Path, record: dict) -> None:
    """`build --prune`: each built benchmark's prune hook removes the files its build no longer uses; build.json
    then says what went."""
    from benchfoundry.flows.build import write_build_record

    for benchmark in registered():
        prune = hook(benchmark.name, "prune")
        outcome = record.get("benchmarks", {}).get(benchmark.name)
        if prune is None or outcome is None or outcome.get("status") == "not built":
            continue
        print_out(f"{benchmark.name}: pruned {prune(out, outcome)} unused file(s)")
    write_build_record(out / "build.json", record)


def _check_plan_root(out: Path) -> None:
    """`build --plan --out OUT` reads a build root: ValueError naming OUT, or the nearest existing path above it,
    when that is not a folder (a FIFO, a device, a file); a missing OUT is a root with no build yet."""
    existing = next((p for p in (out, *out.parents) if p.exists() or p.is_symlink()), None)
    if existing is None or existing.is_dir():
        return
    if existing.is_symlink() and not existing.exists():
        kind = "a broken link"
    else:
        kind = file_kind(existing.stat().st_mode)
    raise ValueError(f"--out {out}: {existing} is {kind}, not a folder; --plan reads a build root")


def _print_plans(config: BuildConfig, only: list[str] | None, out: str | None) -> int:
    """`build --plan`: what each benchmark of the config would build (its plan function), from the config; with
    `--out`, against the build there where the benchmark plans against one (its `plan_against`)."""
    for benchmark in registered():
        if (only is not None and benchmark.name not in only) or not config.section(benchmark.name).enabled:
            print(f"{benchmark.name}: not built (nothing to plan)")
        elif out is not None and benchmark.plan_against is not None:
            print(hook(benchmark.name, "plan_against")(config, Path(out)))
        else:
            print(hook(benchmark.name, "plan")(config))
    return 0


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="benchfoundry", description="Build, plan, evaluate and export vision-language benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("build", help="build the benchmarks a config describes")
    p.add_argument("config", help="YAML build config: a file, or a preset name (e.g. smoke)")
    p.add_argument("--out", type=path_text, help="output root (default: the config's output_root)")
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
        help="after the build, remove the files it no longer uses, e.g. frames its sample dropped (build.json lists "
        "them as unused)",
    )
    p.set_defaults(func=_cmd_build)

    for name in COMMAND_MODULES:
        importlib.import_module(name).add_commands(sub)
    for benchmark in registered():
        if benchmark.commands is not None:
            for command in hook(benchmark.name, "commands"):
                add_command(sub, command)
    return parser


def _run(argv: list[str]) -> int:
    args = make_parser().parse_args(argv)
    return args.func(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: its exit status; bad input is one `error:` line and 2, a stop by a signal 128 + its
    number (130 for Ctrl-C, 143 for SIGTERM), without a traceback."""
    from benchfoundry.core.plugins import PluginError
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
    except (ClusterFailed, PluginError) as exc:
        print_error(exc)
        return 2
    except ValueError as exc:
        from pydantic import ValidationError

        from benchfoundry.core.redact import redact
        from benchfoundry.pipeline.commands import validation_line

        message = validation_line(exc) if isinstance(exc, ValidationError) else str(exc)
        print_error(redact(message))
        return 2
    except OSError as exc:
        from benchfoundry.core.buildinfo import error_line

        print_error(error_line(exc))
        return 2


if __name__ == "__main__":
    sys.exit(main())
