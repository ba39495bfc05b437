"""`benchfoundry scannet ...`: commands on ScanNet scan folders (raw `.sens` or export layout)."""

from __future__ import annotations

import argparse
import json
import sys

from benchfoundry.benchmarks.viewspatial.scannet.config import CoverageConfig
from benchfoundry.pipeline.commands import Command, arg, model_from_flags

#: CoverageConfig field → its flag.
FLAGS = {
    "voxel_m": "--voxel",
    "budget": "--budget",
    "min_gain": "--min-gain",
    "depth_stride": "--depth-stride",
    "method": "--method",
}


def _cmd_select(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.viewspatial.scannet.stages.coverage import select_frames

    config = model_from_flags(
        CoverageConfig, FLAGS, {field: getattr(args, flag[2:].replace("-", "_")) for field, flag in FLAGS.items()}
    )
    try:
        sel = select_frames(
            args.scan_dir,
            voxel=config.voxel_m,
            budget=config.budget,
            min_gain=config.min_gain,
            depth_stride=config.depth_stride,
            method=config.method,
        )
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(sel.summary()))
        return 0
    print(
        f"selected {len(sel.selected)} frames covering {sel.coverage:.1%} of {sel.n_voxels} scene voxels "
        f"({config.voxel_m} m)"
    )
    for fid, gain in zip(sel.selected, sel.gains):
        print(f"  frame {fid:>6}  +{gain} voxels")
    for s in sel.skipped:
        print(f"  skipped frame {s['frame']}: {s['reason']}")
    return 0


_DEFAULTS = CoverageConfig()

COMMAND = Command(
    "scannet",
    "ScanNet scans: frame selection",
    metavar="SUBCOMMAND",
    commands=(
        Command(
            "select",
            "max-coverage frame selection of one scan folder (either layout)",
            (
                arg("scan_dir", metavar="SCAN_DIR", help="folder with <scene>.sens or color/ depth/ pose/ intrinsic/"),
                arg("--budget", type=int, help=f"most frames (default {_DEFAULTS.budget})"),
                arg("--voxel", type=float, help=f"voxel edge in metres (default {_DEFAULTS.voxel_m})"),
                arg(
                    "--min-gain",
                    type=float,
                    help=f"stop below this fraction of scene voxels gained (default {_DEFAULTS.min_gain})",
                ),
                arg("--depth-stride", type=int, help=f"depth subsampling (default {_DEFAULTS.depth_stride})"),
                arg("--method", choices=["lazy", "plain"], help="selection algorithm (default lazy; same result)"),
                arg("--json", action="store_true", help='print {"selected", "coverage", "skipped"} as JSON'),
            ),
            _cmd_select,
        ),
    ),
)
