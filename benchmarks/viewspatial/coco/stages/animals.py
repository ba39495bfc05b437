"""Animals as orientation subjects (docs/design/viewspatial.md §2): COCO's animal boxes labelled through
Orient-Anything.

The release asks Cam-Obj. and Per-Obj. Ori. about animals as well as people (about 322 of its 1,992 items:
bears, dogs, horses, …; read off its questions, the categories are COCO's ten animal categories). An animal
has no keypoints, so it is labelled only through Orient-Anything: its box is cropped whole, and the crop's
azimuth gives its facing (the authors' bins, `core.directions.facing_direction`), with the people's filters:
the box covers `min_area_ratio` of the image, its category occurs once in the image (so "the dog" names one
animal), the estimate's confidence reaches `min_confidence` and its polar and rotation angles are plausible.
With one crop there is no head turn: an animal's row has `head_turn` None.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.stages.people import implausible_angle, label_row, read_rgb
from benchfoundry.core.directions import facing_direction
from benchfoundry.core.safe_paths import inside

#: COCO's animal categories, every one of which the release asks orientation questions about.
ANIMALS = ("bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe")


@dataclass(frozen=True)
class Animal:
    """One animal box of a COCO file: ids, image file and size, its category name, box [x, y, w, h], area."""

    image_id: int
    annotation_id: int
    file_name: str
    size: tuple[int, int]
    name: str
    bbox: tuple[float, float, float, float]
    area: float


def select_animals(data: Mapping[str, Any], config: CocoConfig, names: Sequence[str] = ANIMALS) -> list[Animal]:
    """Non-crowd boxes of the animal categories large enough (`min_area_ratio`) and alone of their category in
    their image, in annotation order."""
    category = {c.get("id"): str(c.get("name")) for c in data.get("categories") or [] if isinstance(c, dict)}
    images = {i.get("id"): i for i in data.get("images") or [] if isinstance(i, dict)}
    anns = [
        a
        for a in data.get("annotations") or []
        if isinstance(a, dict) and category.get(a.get("category_id")) in names and a.get("image_id") in images
    ]
    per_image = Counter((a["image_id"], a["category_id"]) for a in anns)
    found = []
    for a in anns:
        image, bbox = images[a["image_id"]], a.get("bbox")
        if a.get("iscrowd") or per_image[(a["image_id"], a["category_id"])] != 1:
            continue
        if not (isinstance(bbox, list) and len(bbox) == 4):
            continue
        w, h = int(image["width"]), int(image["height"])
        area = float(a.get("area") or bbox[2] * bbox[3])
        if area < config.min_area_ratio * w * h:
            continue
        found.append(
            Animal(
                int(a["image_id"]),
                int(a["id"]),
                str(image["file_name"]),
                (w, h),
                category[a["category_id"]],
                tuple(float(v) for v in bbox),
                area,
            )
        )
    return found


def box_crop(image: np.ndarray, bbox: Sequence[float]) -> np.ndarray:
    """The box's pixels, clipped to the image (possibly empty)."""
    x, y, w, h = bbox
    rows, cols = image.shape[:2]
    return image[
        max(0, math.floor(y)) : min(rows, math.ceil(y + h)), max(0, math.floor(x)) : min(cols, math.ceil(x + w))
    ]


def label_animals(animals: Sequence[Animal], images: Path, estimator: Any, config: CocoConfig) -> list[dict[str, Any]]:
    """One label row per animal (people's columns, `head_turn` None, `name` its category): kept with its facing,
    or the reason it is not (image unusable, empty crop, implausible angle, low confidence)."""
    from benchfoundry.benchmarks.viewspatial.coco.stages.orient_anything import yaw_deg

    rows: list[dict[str, Any]] = []
    cropped: list[tuple[Animal, np.ndarray]] = []
    for animal in animals:
        row = label_row(animal.image_id, animal.annotation_id, name=animal.name)
        try:
            crop = box_crop(read_rgb(inside(images, animal.file_name, "file_name")), animal.bbox)
        except ValueError as exc:
            rows.append({**row, "reason": "image unusable", "detail": str(exc)})
            continue
        if crop.size == 0:
            rows.append({**row, "reason": "box outside the image"})
        else:
            cropped.append((animal, crop))
    found = estimator.estimate([crop for _, crop in cropped]) if cropped else []
    for (animal, _), est in zip(cropped, found):
        row = label_row(animal.image_id, animal.annotation_id, name=animal.name, confidence=round(est.confidence, 4))
        implausible = implausible_angle((est,), config.orient_anything)
        if implausible:
            rows.append({**row, "reason": "implausible angle", "detail": implausible.replace("head", "box", 1)})
        elif est.confidence < config.min_confidence:
            rows.append({**row, "reason": "low confidence"})
        else:
            yaw = yaw_deg(est.azimuth_deg)
            rows.append({**row, "kept": True, "facing": facing_direction(yaw), "facing_yaw_deg": round(yaw, 2)})
    return sorted(rows, key=lambda r: (r["image_id"], r["annotation_id"]))
