"""COCO person-keypoint annotations → kept people and their orientation labels (DESIGN §4.2).

An image is used when it holds exactly one person (no crowd region), whose `area / (W·H)` reaches
`min_area_ratio`, with both shoulders labelled (keypoints 5 and 6, v > 0). Each kept person gets a
camera-relative facing label (from the more confident of the body and head estimates) and the head
turn Δ relative to the body in DESIGN's five bins; a person whose estimates are not confident enough,
or whose Δ falls outside ±90°, is rejected with the reason, as is a malformed annotation or image.
The estimates come from the keypoints (`cfg.estimator == "keypoints"`) or from Orient-Anything on the
head and body crops (`person_crops`: above and below the shoulder line, inside the person's box).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from benchfoundry.configs.coco import CocoConfig, OrientAnythingConfig
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.image_decode import decode_file, image_size
from benchfoundry.core.safe_paths import relative_name
from benchfoundry.tasks.viewspatial import orientation as ori

if TYPE_CHECKING:
    from benchfoundry.tasks.viewspatial.orient_anything import Estimate

PERSON_CATEGORY = 1
#: People whose images are decoded and cropped at once for Orient-Anything (bounds the crops held in memory).
CHUNK = 16


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
        data = read_json(path)
    except OSError as exc:
        raise ValueError(f"{path}: not a readable COCO JSON file ({exc.strerror})") from None
    except ValueError as exc:
        raise ValueError(f"not a readable COCO JSON file: {exc}") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("images"), list)
        or not isinstance(data.get("annotations"), list)
    ):
        raise ValueError(f"{path}: a COCO file needs `images` and `annotations` lists")
    return data


def _number(value: Any) -> bool:
    """A finite JSON number (not a boolean)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def coco_id(value: Any) -> bool:
    """A COCO id: an integer (not a boolean), as `images[].id`, `annotations[].id` and `image_id` are."""
    return isinstance(value, int) and not isinstance(value, bool)


def _person(image: dict[str, Any], ann: dict[str, Any]) -> Person:
    """One annotation as a Person; ValueError naming the bad field."""
    try:
        kp = np.asarray(ann.get("keypoints"), dtype=float)
    except (TypeError, ValueError):
        raise ValueError("keypoints is not 17 × (x, y, v)") from None
    if kp.shape != (51,):
        raise ValueError("keypoints is not 17 × (x, y, v)")
    if not np.isfinite(kp).all():
        raise ValueError("keypoints holds a value that is not a finite number")
    bbox = ann.get("bbox")
    if not (isinstance(bbox, list) and len(bbox) == 4 and all(_number(v) for v in bbox)):
        raise ValueError("bbox is not [x, y, w, h] of finite numbers")
    if bbox[2] <= 0 or bbox[3] <= 0:
        raise ValueError(f"bbox width and height must be positive (got {bbox[2]:g} x {bbox[3]:g})")
    size = (image.get("width"), image.get("height"))
    if not all(coco_id(v) and v > 0 for v in size):
        raise ValueError("image width/height missing")
    area = ann.get("area")
    if not _number(area) or area < 0:
        raise ValueError("area is not a finite number of pixels at least 0")
    if not coco_id(ann.get("id")):
        raise ValueError("annotation id is not an integer")
    return Person(
        image["id"],
        ann["id"],
        str(relative_name(image.get("file_name", ""), "file_name")),
        size,  # type: ignore[arg-type]
        tuple(float(v) for v in bbox),
        float(area),
        kp.reshape(17, 3),
    )  # type: ignore[arg-type]


def select_people(data: dict[str, Any], cfg: CocoConfig) -> tuple[list[Person], list[dict[str, Any]]]:
    """The kept people, and a rejection row {image_id, annotation_id, reason} for every other image."""
    by_image: dict[int, list[dict[str, Any]]] = {}
    for ann in data["annotations"]:
        if isinstance(ann, dict) and ann.get("category_id", PERSON_CATEGORY) == PERSON_CATEGORY:
            if coco_id(ann.get("image_id")):
                by_image.setdefault(ann["image_id"], []).append(ann)
    kept, rejected = [], []
    for image in data["images"]:
        image_id = image.get("id") if isinstance(image, dict) else None
        if not coco_id(image_id):
            rejected.append(
                {"image_id": None, "annotation_id": None, "reason": "malformed: image id is not an integer"}
            )
            continue
        anns = by_image.get(image_id, [])
        first = anns[0].get("id") if anns else None
        first = first if coco_id(first) else None
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
    """Why the person's image cannot be used (missing, unreadable, over the decoder's limits, another size),
    or None."""
    path = images / person.file_name
    try:
        size = image_size(path)
    except ValueError as exc:
        return str(exc)
    return (
        None
        if size == person.size
        else f"{path}: image is {size[0]}x{size[1]}, the annotation says {person.size[0]}x{person.size[1]}"
    )


class CropRejected(ValueError):
    """A person whose head or body crop cannot be cut; the message is the rejection reason."""


def person_crops(image: np.ndarray, person: Person) -> tuple[np.ndarray, np.ndarray]:
    """(head, body): the person's box, clipped to the image, above and below the shoulder line (the mean
    row of the labelled shoulders); CropRejected when either is empty."""
    rows, cols = image.shape[:2]
    x, y, w, h = person.bbox
    x0, x1 = max(0, math.floor(x)), min(cols, math.ceil(x + w))
    y0, y1 = max(0, math.floor(y)), min(rows, math.ceil(y + h))
    shoulders = [person.keypoints[i, 1] for i in (ori.LEFT_SHOULDER, ori.RIGHT_SHOULDER) if person.keypoints[i, 2] > 0]
    if not shoulders:
        raise CropRejected("shoulders not labelled")
    if x1 <= x0 or y1 <= y0:
        raise CropRejected("person box outside the image")
    line = min(max(round(float(np.mean(shoulders))), y0), y1)
    head, body = image[y0:line, x0:x1], image[line:y1, x0:x1]
    if head.size == 0:
        raise CropRejected("empty head crop")
    if body.size == 0:
        raise CropRejected("empty body crop")
    return head, body


def read_rgb(path: Path) -> np.ndarray:
    """An image as H × W × 3 RGB; ValueError naming the file when it cannot be decoded."""
    return cv2.cvtColor(decode_file(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def label_row(image_id: Any, annotation_id: Any, **fields: Any) -> dict[str, Any]:
    """One row of the labels: not kept and no label unless `fields` say otherwise."""
    return {
        "image_id": image_id,
        "annotation_id": annotation_id,
        "kept": False,
        "reason": None,
        "facing": None,
        "facing_yaw_deg": None,
        "head_delta_deg": None,
        "head_turn": None,
        "confidence": None,
        **fields,
    }


def label_person(
    person: Person, cfg: CocoConfig, shoulder_ratio: float, found: ori.Orientation | None = None
) -> dict[str, Any]:
    """The label row of one kept person (kept false with the reason when it is rejected), from `found`
    (another estimator's body and head yaw) or else from the keypoints."""
    row = label_row(person.image_id, person.annotation_id)
    found = found or ori.orient(person.keypoints, shoulder_ratio)
    if found is None or found.head is None or found.delta is None:
        return {**row, "reason": "no hip or face keypoint to estimate from"}
    confidence = min(found.body.confidence, found.head.confidence)
    turn = ori.head_turn(found.delta)
    if confidence < cfg.min_confidence:
        return {**row, "reason": "low confidence", "confidence": confidence}
    if turn is None:
        return {
            **row,
            "reason": "head turn outside ±90°",
            "head_delta_deg": round(found.delta, 2),
            "confidence": confidence,
        }
    facing = found.head if found.head.confidence > found.body.confidence else found.body
    return {
        **row,
        "kept": True,
        "facing": ori.facing_label(facing.degrees),
        "facing_yaw_deg": round(facing.degrees, 2),
        "head_delta_deg": round(found.delta, 2),
        "head_turn": turn,
        "confidence": confidence,
    }


def crop_orientation(found_head: Estimate, found_body: Estimate) -> ori.Orientation:
    """Body and head yaw of one person, with their confidences, from Orient-Anything's crop estimates."""
    from benchfoundry.tasks.viewspatial.orient_anything import yaw_deg

    head = ori.Yaw(yaw_deg(found_head.azimuth_deg), round(found_head.confidence, 4))
    body = ori.Yaw(yaw_deg(found_body.azimuth_deg), round(found_body.confidence, 4))
    return ori.Orientation(body, head, ori.head_delta(head.degrees, body.degrees))


def implausible_angle(found: tuple[Estimate, ...], cfg: OrientAnythingConfig) -> str | None:
    """Why the crops' estimates are implausible for a person (seen from too far above or below, or rolled in
    the image plane), or None (DESIGN §4.2: implausible angles are rejected)."""
    for part, est in zip(("head", "body"), found):
        if abs(est.polar_deg) > cfg.max_polar_deg:
            return f"{part} polar {est.polar_deg:g}° beyond ±{cfg.max_polar_deg:g}°"
        if abs(est.rotation_deg) > cfg.max_rotation_deg:
            return f"{part} rotation {est.rotation_deg:g}° beyond ±{cfg.max_rotation_deg:g}°"
    return None


def label_with_crops(people: list[Person], images: Path, cfg: CocoConfig) -> list[dict[str, Any]]:
    """Label rows of `people` from Orient-Anything on their head and body crops (the model loaded once,
    CHUNK people cropped and estimated at a time); an undecodable image or empty crop rejects its person."""
    from benchfoundry.tasks.viewspatial import orient_anything

    if not people:
        return []
    estimator = orient_anything.load(cfg.orient_anything, batch_size=2 * CHUNK)
    labels = []
    for start in range(0, len(people), CHUNK):
        cropped = []
        for person in people[start : start + CHUNK]:
            row = label_row(person.image_id, person.annotation_id)
            try:
                cropped.append((person, *person_crops(read_rgb(images / person.file_name), person)))
            except CropRejected as exc:
                labels.append({**row, "reason": str(exc)})
            except ValueError as exc:
                labels.append({**row, "reason": "image unusable", "detail": str(exc)})
        found = estimator.estimate([crop for _, head, body in cropped for crop in (head, body)])
        for k, (person, _, _) in enumerate(cropped):
            head, body = found[2 * k], found[2 * k + 1]
            implausible = implausible_angle((head, body), cfg.orient_anything)
            if implausible:
                labels.append(
                    {
                        **label_row(person.image_id, person.annotation_id),
                        "reason": "implausible angle",
                        "detail": implausible,
                    }
                )
            else:
                labels.append(label_person(person, cfg, 0.0, crop_orientation(head, body)))
    return labels


def label_file(annotations: str | Path, images: str | Path | None, cfg: CocoConfig) -> dict[str, Any]:
    """`{"labels": [...], "rejected": {reason: count}, "shoulder_ratio": r}` for one annotation file."""
    return label_people(read_annotations(annotations), images, cfg)[0]


def label_people(
    data: dict[str, Any], images: str | Path | None, cfg: CocoConfig
) -> tuple[dict[str, Any], list[Person]]:
    """`label_file`'s result for a read COCO file, and the people whose images were usable."""
    if cfg.estimator == "orient-anything" and images is None:
        raise ValueError("the orient-anything estimator reads the head and body crops: give the images folder")
    people, rejected = select_people(data, cfg)
    usable = []
    for person in people:
        problem = None if images is None else check_image(Path(images), person)
        if problem is None:
            usable.append(person)
        else:
            rejected.append(
                {
                    "image_id": person.image_id,
                    "annotation_id": person.annotation_id,
                    "reason": "image unusable",
                    "detail": problem,
                }
            )
    ratio = cfg.shoulder_ratio or ori.calibrate_shoulder_ratio([p.keypoints for p in usable])
    if cfg.estimator == "orient-anything":
        labels = label_with_crops(usable, Path(images), cfg)  # type: ignore[arg-type]
    else:
        labels = [label_person(p, cfg, ratio) for p in usable]
    reasons = Counter(r["reason"] for r in rejected) + Counter(r["reason"] for r in labels if not r["kept"])
    rows = [label_row(**r) for r in rejected] + labels
    return {
        "labels": sorted(rows, key=lambda r: (r["image_id"] is None, r["image_id"] or 0)),
        "rejected": dict(sorted(reasons.items())),
        "shoulder_ratio": round(ratio, 4),
    }, usable
