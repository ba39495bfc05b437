"""COCO person-keypoint annotations → kept people and their orientation labels (DESIGN §4.2).

An image is used when it holds exactly one person (no crowd region), whose `area / (W·H)` reaches
`min_area_ratio`, with both shoulders labelled (keypoints 5 and 6, v > 0). Each kept person gets a
camera-relative facing label (from the more confident of the body and head estimates) and the head
turn Δ relative to the body in DESIGN's five bins; a person whose estimates are not confident enough,
or whose Δ falls outside ±90°, is rejected with the reason, as is a malformed annotation or image.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from benchfoundry.configs.coco import CocoConfig
from benchfoundry.tasks.viewspatial import orientation as ori

PERSON_CATEGORY = 1


@dataclass(frozen=True)
class Person:
    image_id: int
    annotation_id: int
    file_name: str
    size: tuple[int, int]  # (W, H)
    bbox: tuple[float, float, float, float]  # x, y, w, h
    area: float
    keypoints: np.ndarray  # (17, 3): x, y, v


def read_annotations(path: str | Path) -> dict[str, Any]:
    """A COCO annotation file; ValueError naming the file when it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable COCO JSON file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("images"), list) or not isinstance(
            data.get("annotations"), list):
        raise ValueError(f"{path}: a COCO file needs `images` and `annotations` lists")
    return data


def _person(image: dict[str, Any], ann: dict[str, Any]) -> Person:
    """One annotation as a Person; ValueError naming the bad field."""
    kp = np.asarray(ann.get("keypoints"), dtype=float)
    if kp.shape != (51,):
        raise ValueError("keypoints is not 17 × (x, y, v)")
    bbox = ann.get("bbox")
    if not (isinstance(bbox, list) and len(bbox) == 4 and all(isinstance(v, (int, float)) for v in bbox)):
        raise ValueError("bbox is not [x, y, w, h]")
    size = (image.get("width"), image.get("height"))
    if not all(isinstance(v, int) and v > 0 for v in size):
        raise ValueError("image width/height missing")
    area = ann.get("area")
    if not isinstance(area, (int, float)) or area < 0:
        raise ValueError("area missing")
    return Person(int(image["id"]), int(ann["id"]), str(image.get("file_name", "")), size,  # type: ignore[arg-type]
                  tuple(float(v) for v in bbox), float(area), kp.reshape(17, 3))  # type: ignore[arg-type]


def select_people(data: dict[str, Any], cfg: CocoConfig) -> tuple[list[Person], list[dict[str, Any]]]:
    """The kept people, and a rejection row {image_id, annotation_id, reason} for every other image."""
    by_image: dict[int, list[dict[str, Any]]] = {}
    for ann in data["annotations"]:
        if isinstance(ann, dict) and ann.get("category_id", PERSON_CATEGORY) == PERSON_CATEGORY:
            by_image.setdefault(ann.get("image_id"), []).append(ann)
    kept, rejected = [], []
    for image in data["images"]:
        anns = by_image.get(image.get("id"), []) if isinstance(image, dict) else []
        image_id = image.get("id") if isinstance(image, dict) else None
        first = anns[0].get("id") if anns else None
        if any(a.get("iscrowd") for a in anns):
            reason = "crowd region"
        elif len(anns) != 1:
            reason = f"{len(anns)} people, not one"
        else:
            try:
                person = _person(image, anns[0])
            except (ValueError, TypeError, KeyError) as exc:
                rejected.append({"image_id": image_id, "annotation_id": first, "reason": f"malformed: {exc}"})
                continue
            w, h = person.size
            if person.area / (w * h) < cfg.min_area_ratio:
                reason = f"person area below {cfg.min_area_ratio:g} of the image"
            elif not (person.keypoints[ori.LEFT_SHOULDER, 2] > 0 and person.keypoints[ori.RIGHT_SHOULDER, 2] > 0):
                reason = "shoulders not labelled"
            else:
                kept.append(person)
                continue
        rejected.append({"image_id": image_id, "annotation_id": first, "reason": reason})
    return kept, rejected


def check_image(images: Path, person: Person) -> str | None:
    """Why the person's image cannot be used (missing, unreadable, another size), or None."""
    path = images / person.file_name
    try:
        with Image.open(path) as img:
            size = img.size
    except (OSError, SyntaxError, ValueError) as exc:
        return f"{path}: cannot read the image ({exc})"
    return None if size == person.size else f"{path}: image is {size[0]}x{size[1]}, the annotation says " \
                                              f"{person.size[0]}x{person.size[1]}"


def label_row(image_id: Any, annotation_id: Any, **fields: Any) -> dict[str, Any]:
    """One row of the labels: not kept and no label unless `fields` say otherwise."""
    return {"image_id": image_id, "annotation_id": annotation_id, "kept": False, "reason": None, "facing": None,
            "facing_yaw_deg": None, "head_delta_deg": None, "head_turn": None, "confidence": None, **fields}


def label_person(person: Person, cfg: CocoConfig, shoulder_ratio: float) -> dict[str, Any]:
    """The label row of one kept person (kept false with the reason when it is rejected)."""
    row = label_row(person.image_id, person.annotation_id)
    found = ori.orient(person.keypoints, shoulder_ratio)
    if found is None or found.head is None:
        return {**row, "reason": "no hip or face keypoint to estimate from"}
    confidence = min(found.body.confidence, found.head.confidence)
    turn = ori.head_turn(found.delta)
    if confidence < cfg.min_confidence:
        return {**row, "reason": "low confidence", "confidence": confidence}
    if turn is None:
        return {**row, "reason": "head turn outside ±90°", "head_delta_deg": round(found.delta, 2),
                "confidence": confidence}
    facing = found.head if found.head.confidence > found.body.confidence else found.body
    return {**row, "kept": True, "facing": ori.facing_label(facing.degrees), "facing_yaw_deg": round(facing.degrees, 2),
            "head_delta_deg": round(found.delta, 2), "head_turn": turn, "confidence": confidence}


def label_file(annotations: str | Path, images: str | Path | None, cfg: CocoConfig) -> dict[str, Any]:
    """`{"labels": [...], "rejected": {reason: count}, "shoulder_ratio": r}` for one annotation file."""
    people, rejected = select_people(read_annotations(annotations), cfg)
    usable = []
    for person in people:
        problem = None if images is None else check_image(Path(images), person)
        if problem is None:
            usable.append(person)
        else:
            rejected.append({"image_id": person.image_id, "annotation_id": person.annotation_id,
                             "reason": "image unusable", "detail": problem})
    ratio = cfg.shoulder_ratio or ori.calibrate_shoulder_ratio([p.keypoints for p in usable])
    labels = [label_person(p, cfg, ratio) for p in usable]
    reasons = Counter(r["reason"] for r in rejected) + Counter(r["reason"] for r in labels if not r["kept"])
    rows = [label_row(**r) for r in rejected] + labels
    return {"labels": sorted(rows, key=lambda r: (r["image_id"] is None, r["image_id"] or 0)),
            "rejected": dict(sorted(reasons.items())), "shoulder_ratio": round(ratio, 4)}
