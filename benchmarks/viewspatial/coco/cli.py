"""`benchfoundry coco label ANNOTATIONS.json --images DIR [--estimator keypoints|orient-anything] --json`: orientation
labels of one COCO file."""

from __future__ import annotations

import argparse
import json
import sys

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig, OrientAnythingConfig
from benchfoundry.pipeline.commands import Command, arg, model_from_flags


def _cmd_label(args: argparse.Namespace) -> int:
    from benchfoundry.benchmarks.viewspatial.coco.stages.people import label_file

    model = model_from_flags(
        OrientAnythingConfig,
        {"dinov2_dir": "--dinov2-dir", "checkpoint": "--checkpoint", "device": "--device"},
        {"dinov2_dir": args.dinov2_dir, "checkpoint": args.checkpoint, "device": args.device},
    )
    config = model_from_flags(
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
    result = label_file(args.annotations, args.images, config)
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


_DEFAULTS = CocoConfig()

COMMAND = Command(
    "coco",
    "COCO person orientation (ViewSpatial-Bench)",
    commands=(
        Command(
            "label",
            "facing and head-turn labels of the people in one annotation file",
            (
                arg("annotations", metavar="ANNOTATIONS.json", help="COCO person-keypoints JSON"),
                arg("--images", metavar="DIR", help="the images folder (checked: present, readable, right size)"),
                arg(
                    "--estimator",
                    choices=["keypoints", "orient-anything"],
                    default="keypoints",
                    help="keypoints: from the annotation; orient-anything: DINOv2 + MLP on the crops (needs --images)",
                ),
                arg("--dinov2-dir", metavar="DIR", help="orient-anything: local DINOv2 folder (transformers layout)"),
                arg("--checkpoint", metavar="FILE", help="orient-anything: the model's weights (.pt)"),
                arg("--device", default=OrientAnythingConfig().device, help="orient-anything: torch device"),
                arg("--min-area-ratio", type=float, default=_DEFAULTS.min_area_ratio),
                arg("--min-confidence", type=float, default=_DEFAULTS.min_confidence),
                arg("--max-people", type=int, default=_DEFAULTS.max_people, help="most people in an image"),
                arg("--min-head-px", type=float, default=_DEFAULTS.min_head_px, help="least head height, px"),
                arg(
                    "--min-sharpness",
                    type=float,
                    default=_DEFAULTS.min_sharpness,
                    help="least variance of the Laplacian of a person's crop (needs --images; 0: no blur filter)",
                ),
                arg("--json", action="store_true", help="print {labels, rejected} as JSON"),
            ),
            _cmd_label,
        ),
    ),
)
