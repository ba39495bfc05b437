"""`benchfoundry scannet ...`: commands on ScanNet scan folders (raw `.sens` or export layout)."""

from __future__ import annotations

import argparse
import json
import sys

from benchfoundry.benchmarks.viewspatial.scannet.config import CoverageConfig
from benchfoundry.cli.args import model_from_flags

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

    cfg = model_from_flags(
        CoverageConfig, FLAGS, {field: getattr(args, flag[2:].replace("-", "_")) for field, flag in FLAGS.items()}
    )
    try:
        sel = select_frames(
            args.scan_dir,
            voxel=cfg.voxel_m,
            budget=cfg.budget,
            min_gain=cfg.min_gain,
            depth_stride=cfg.depth_stride,
            method=cfg.method,
        )
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(sel.summary()))
        return 0
    print(
        f"selected {len(sel.selected)} frames covering {sel.coverage:.1%} of {sel.n_voxels} scene voxels "
        f"({cfg.voxel_m} m)"
    )
    for fid, gain in zip(sel.selected, sel.gains):
        print(f"  frame {fid:>6}  +{gain} voxels")
    for s in sel.skipped:
        print(f"  skipped frame {s['frame']}: {s['reason']}")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    defaults = CoverageConfig()
    scannet = subparsers.add_parser("scannet", help="ScanNet scans: frame selection")
    sub = scannet.add_subparsers(dest="scannet_command", required=True, metavar="SUBCOMMAND")
    p = sub.add_parser("select", help="max-coverage frame selection of one scan folder (either layout)")
    p.add_argument("scan_dir", metavar="SCAN_DIR", help="folder with <scene>.sens or color/ depth/ pose/ intrinsic/")
    p.add_argument("--budget", type=int, help=f"most frames (default {defaults.budget})")
    p.add_argument("--voxel", type=float, help=f"voxel edge in metres (default {defaults.voxel_m})")
    p.add_argument(
        "--min-gain", type=float, help=f"stop below this fraction of scene voxels gained (default {defaults.min_gain})"
    )
    p.add_argument("--depth-stride", type=int, help=f"depth subsampling (default {defaults.depth_stride})")
    p.add_argument("--method", choices=["lazy", "plain"], help="selection algorithm (default lazy; same result)")
    p.add_argument("--json", action="store_true", help='print {"selected", "coverage", "skipped"} as JSON')
    p.set_defaults(func=_cmd_select)
