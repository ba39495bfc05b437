"""`benchfoundry assets infinigen …`: an asset library of Infinigen objects for the realistic panoramas
(benchmarks/odi/scenes/infinigen_assets.py; `make assets-infinigen` creates Infinigen's venv and runs this)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchfoundry.benchmarks.odi.scenes.infinigen_assets import MAX_VERTICES
from benchfoundry.core.output_root import check_output_dir
from benchfoundry.pipeline.commands import Command, arg, non_negative_int, positive_int

#: Where `make assets-infinigen` puts Infinigen's venv and the library.
CACHE = Path(".cache/infinigen")


def _cmd_infinigen(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.odi.scenes.infinigen_assets import build_library, plan

    classes = [c.strip() for c in args.classes.split(",") if c.strip()]
    if not classes:
        raise ValueError(f"--classes {args.classes!r}: names no class")
    jobs = plan(classes, args.per_class + args.spares, args.seed, args.max_vertices)
    if not args.python.is_file():
        raise ValueError(f"--python: {args.python}: no Infinigen interpreter (make assets-infinigen creates one)")
    root = check_output_dir(args.library)
    wanted = dict.fromkeys(classes, args.per_class)
    outcome = build_library(
        root, jobs, args.python.absolute(), wanted=wanted, workers=args.workers, timeout_s=args.timeout
    )
    print(json.dumps({"library": str(root), **outcome}))
    return 1 if outcome["short"] else 0


COMMAND = Command(
    "assets",
    "asset libraries for the realistic scenes",
    metavar="SUBCOMMAND",
    commands=(
        Command(
            "infinigen",
            "generate seeded Infinigen objects per class as .blend files with a manifest (resumable)",
            (
                arg("--classes", required=True, help="comma-separated classes, e.g. chair,sofa,table,lamp"),
                arg("--per-class", type=positive_int, default=4, help="assets per class (default 4)"),
                arg(
                    "--spares",
                    type=non_negative_int,
                    default=2,
                    help="further seeds a class may try, in order, in place of assets that fail (default 2); the run "
                    "exits 1 only when a class is still short of --per-class",
                ),
                arg("--seed", type=int, default=0, help="the library's seed (default 0)"),
                arg("--library", type=Path, default=CACHE / "library", help="the library folder (manifest.json)"),
                arg("--python", type=Path, default=CACHE / "venv/bin/python", help="Infinigen venv's Python"),
                arg(
                    "--max-vertices",
                    type=non_negative_int,
                    default=MAX_VERTICES,
                    help=f"decimate an asset's mesh to at most this many vertices, 0: never (default {MAX_VERTICES:,})",
                ),
                arg("--workers", type=positive_int, default=2, help="assets generated at once (default 2)"),
                arg("--timeout", type=float, default=900.0, help="seconds one asset may take (default 900)"),
            ),
            _cmd_infinigen,
        ),
    ),
)
