"""SynDORBench's commands: `benchfoundry syndor label-sample BUILD`, `benchfoundry syndor label-import BUILD FILE`
and `benchfoundry dori` (the DORI distances of a camera spec); `benchfoundry score syndor …` is the generic `score`
command's, with this benchmark's flags (cli_score.py)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from benchfoundry.benchmarks.syndor.scenes import dori
from benchfoundry.configs.build import BuildConfig
from benchfoundry.pipeline.commands import Arg, Command, arg, print_error, print_note, print_out
from benchfoundry.pipeline.review import recorded_config


def _build_config(build: Path, config_path: str | None, overrides: list[str]) -> BuildConfig:
    """The config of a build: `--config` (with `--set`) when given, else the one in BUILD/build.json."""
    from benchfoundry.configs.loader import load_config

    if config_path is not None:
        return load_config(config_path, overrides)
    record = build / "build.json"
    if not record.is_file():
        raise ValueError(f"{record}: no build record; pass --config CONFIG (the build's YAML)")
    return recorded_config(record)


def _cmd_label_sample(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.syndor.stages.label_stage import export_label_sample
    from benchfoundry.core.output_root import check_output_dir, hold_build_lock

    check_output_dir(args.build, create=False)
    config = _build_config(Path(args.build), args.config, args.set or [])
    with hold_build_lock(args.build):
        result = export_label_sample(args.build, config)
    print(
        f"{result['sample']} of {result['population']} images to label ({result['holdout']} of them held out to "
        "test the classifier; stratified by distance × lighting group × raw/NV)"
    )
    print_out(f"CSV (fill the label column with yes/no): {result['csv']}")
    print_out(f"Label Studio tasks: {result['label_studio']} (labelling config {result['label_studio_config']})")
    print_out(f"then: benchfoundry syndor label-import {args.build} FILE")
    return 0


def _cmd_label_import(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.syndor.stages.label_stage import import_labels
    from benchfoundry.core.output_root import check_output_dir, hold_build_lock

    check_output_dir(args.build, create=False)
    config = _build_config(Path(args.build), args.config, args.set or [])
    try:
        with hold_build_lock(args.build):
            result = import_labels(args.build, config, args.file)
    except OSError as exc:
        print_error(f"{args.file}: {exc.strerror}")
        return 2
    for bad in result["bad_rows"]:
        print_note(f"{args.file}:{bad['line']}: skipped: {bad['reason']}")
    if result["labels"] is None:
        print_error(
            f"{args.file}: no usable label ({len(result['bad_rows'])} bad rows); nothing imported, "
            "earlier imports are kept"
        )
        return 1
    print_out(
        f"imported {result['imported']} labels ({len(result['bad_rows'])} bad rows skipped) into {result['labels']}"
    )
    if config.syndor.discern.labels.source == "human":
        print("rerun the build to train the classifier on them")
    else:
        print(_ignored_labels_warning(config.syndor.discern.labels.source), file=sys.stderr)
    return 0


def _ignored_labels_warning(source: str) -> str:
    """Why a rerun would ignore imported labels, and the setting that uses them."""
    return (
        f"warning: this build's syndor.discern.labels.source is {source!r}, so a rerun trains the classifier "
        "on simulated labels and ignores the imported ones; rerun the build with "
        "--set syndor.discern.labels.source=human (or set it in the config YAML) to train on them"
    )


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


def _label_command(name: str, run: Callable[[argparse.Namespace], int], text: str, *more: Arg) -> Command:
    """`syndor label-sample` or `label-import`: BUILD, `more`, then the build's config."""
    return Command(
        name,
        text,
        (
            arg("build", metavar="BUILD", help="the build's output root"),
            *more,
            arg("--config", help="the build's YAML config (default: the config in BUILD/build.json)"),
            arg("--set", action="append", metavar="KEY.PATH=VALUE", help="override a config value (with --config)"),
        ),
        run,
    )


COMMANDS = (
    Command(
        "syndor",
        "SynDORBench human-label loop",
        commands=(
            _label_command(
                "label-sample", _cmd_label_sample, "export the Cochran-sized label sample (CSV + Label Studio JSON)"
            ),
            _label_command(
                "label-import",
                _cmd_label_import,
                "import labels from a CSV (image,label) or a Label Studio export",
                arg("file", metavar="FILE", help="CSV with image,label (yes/no) or Label Studio JSON export"),
            ),
        ),
    ),
    Command(
        "dori",
        "DORI distances for a camera spec",
        (
            arg("--preset", choices=sorted(dori.PRESETS), help="named camera spec (default: paper)"),
            arg("--resolution", type=int, help="vertical resolution, px"),
            arg("--focal-mm", type=float, help="focal length, mm"),
            arg("--sensor-height-mm", type=float, help="sensor height, mm"),
            arg("--json", action="store_true", help="print a JSON list"),
        ),
        _cmd_dori,
    ),
)
