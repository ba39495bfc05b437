"""`benchfoundry coco label ANNOTATIONS.json --images DIR [--estimator keypoints|orient-anything] --json`: orientation
labels of one COCO file."""

from __future__ import annotations

import argparse
import json
import sys

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig, OrientAnythingConfig
from benchfoundry.cli.args import model_from_flags


def _cmd_label(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.viewspatial.coco.stages.people import label_file

    model = model_from_flags(
        OrientAnythingConfig,
        {"dinov2_dir": "--dinov2-dir", "checkpoint": "--checkpoint", "device": "--device"},
        {"dinov2_dir": args.dinov2_dir, "checkpoint": args.checkpoint, "device": args.device},
    )
    cfg = model_from_flags(
        CocoConfig,
        {
            "estimator": "--estimator",
            "min_area_ratio": "--min-area-ratio",
            "min_confidence": "--min-confidence",
            "max_people": "--max-people",
            "min_head_px": "--min-head-px",
            "min_sharpness": "--min-sharpness",
        },
        {
            "estimator": args.estimator,
            "min_area_ratio": args.min_area_ratio,
            "min_confidence": args.min_confidence,
            "max_people": args.max_people,
            "min_head_px": args.min_head_px,
            "min_sharpness": args.min_sharpness,
            "orient_anything": model,
        },
    )
    result = label_file(args.annotations, args.images, cfg)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
        return 0
    kept = [r for r in result["labels"] if r["kept"]]
    for r in kept:
        print(
            f"image {r['image_id']} person {r['annotation_id']}: facing {r['facing']} (the camera looking front), "
            f"head turned {r['head_turn'] or 'unsure'} (Δ {r['head_delta_deg']:+.1f}°), "
            f"confidence {r['confidence']:.2f}"
        )
    print(
        f"{len(kept)} labelled; rejected: " + (", ".join(f"{k}: {n}" for k, n in result["rejected"].items()) or "none")
    )
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    coco = subparsers.add_parser("coco", help="COCO person orientation (ViewSpatial-Bench)")
    sub = coco.add_subparsers(dest="coco_command", required=True, metavar="COMMAND")
    p = sub.add_parser("label", help="facing and head-turn labels of the people in one annotation file")
    p.add_argument("annotations", metavar="ANNOTATIONS.json", help="COCO person-keypoints JSON")
    p.add_argument("--images", metavar="DIR", help="the images folder (checked: present, readable, right size)")
    p.add_argument(
        "--estimator",
        choices=["keypoints", "orient-anything"],
        default="keypoints",
        help="keypoints: from the annotation; orient-anything: DINOv2 + MLP on the crops (needs --images)",
    )
    p.add_argument("--dinov2-dir", metavar="DIR", help="orient-anything: local DINOv2 folder (transformers layout)")
    p.add_argument("--checkpoint", metavar="FILE", help="orient-anything: the model's weights (.pt)")
    p.add_argument("--device", default=OrientAnythingConfig().device, help="orient-anything: torch device")
    p.add_argument("--min-area-ratio", type=float, default=CocoConfig().min_area_ratio)
    p.add_argument("--min-confidence", type=float, default=CocoConfig().min_confidence)
    p.add_argument("--max-people", type=int, default=CocoConfig().max_people, help="most people in an image")
    p.add_argument("--min-head-px", type=float, default=CocoConfig().min_head_px, help="least head height, px")
    p.add_argument(
        "--min-sharpness",
        type=float,
        default=CocoConfig().min_sharpness,
        help="least variance of the Laplacian of a person's crop (needs --images; 0: no blur filter)",
    )
    p.add_argument("--json", action="store_true", help="print {labels, rejected} as JSON")
    p.set_defaults(func=_cmd_label)
