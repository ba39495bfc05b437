"""Per-Rel. Dir. items (DESIGN §4.2): "from this person's viewpoint, where is X?".

The person's facing is the frame: forward where the body faces, up the world's up, right = f × u, and
the 8-way label of DESIGN §4.1. Camera coordinates are x right, y down, z forward; a facing yaw ψ
(tasks/viewspatial/orientation.py: 0 = toward the camera, 90 = toward the image's left) points along
f = (−sin ψ, 0, −cos ψ).

- synthetic people: exact from 3D (the set's truth gives each object's angle in the person's frame);
- real COCO: candidates, routed to human review. Each object and the person stand on a ground
  plane seen by a level camera of `ASSUMED_HFOV_DEG` whose horizon is the image's middle row; a box's
  ground point is its bottom centre (the person's: the mean of its labelled ankles, else its box bottom).
  When a ground point is not seen (a box cut by the image's bottom edge, or above the horizon) the object
  is placed at the person's depth (lateral offset only). Objects whose category occurs once in the image
  and that cover `min_object_area_ratio` of it are asked about.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchfoundry.configs.coco import CocoConfig
from benchfoundry.core.directions import HORIZONTAL_LABELS, boundary_margin, horizontal_angle, horizontal_label
from benchfoundry.tasks.viewspatial.questions import with_options

PER_REL = "Per-Rel. Dir."
ASSUMED_HFOV_DEG = 60.0
CAMERA_UP = np.array([0.0, -1.0, 0.0])
LEFT_ANKLE, RIGHT_ANKLE = 15, 16


def facing_vector(yaw_deg: float) -> np.ndarray:
    """The camera-frame direction a person of facing yaw ψ looks along."""
    psi = math.radians(yaw_deg)
    return np.array([-math.sin(psi), 0.0, -math.cos(psi)])


def person_angle(yaw_deg: float, person: Sequence[float], obj: Sequence[float]) -> float:
    """Angle of `obj` in the person's frame, [0, 360) clockwise from their front (camera coordinates)."""
    v = np.asarray(obj, dtype=float) - np.asarray(person, dtype=float)
    return horizontal_angle(v, facing_vector(yaw_deg), CAMERA_UP)


def ground_point(u: float, v: float, size: tuple[int, int], hfov_deg: float = ASSUMED_HFOV_DEG) -> np.ndarray | None:
    """The ground point seen at pixel (u, v) by a level camera one unit above the ground; None above the horizon."""
    w, h = size
    focal = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    below = (v - h / 2.0) / focal
    if below <= 1e-3:
        return None
    return np.array([(u - w / 2.0) / focal, below, 1.0]) / below


def _box_ground(bbox: Sequence[float], size: tuple[int, int]) -> np.ndarray | None:
    x, y, w, h = bbox
    if y + h >= size[1] - 2:
        return None
    return ground_point(x + w / 2.0, y + h, size)


def _person_ground(bbox: Sequence[float], keypoints: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    ankles = keypoints[[LEFT_ANKLE, RIGHT_ANKLE]]
    ankles = ankles[ankles[:, 2] > 0]
    if len(ankles):
        return ground_point(float(ankles[:, 0].mean()), float(ankles[:, 1].mean()), size)
    return _box_ground(bbox, size)


def candidate_angle(
    yaw_deg: float,
    person_bbox: Sequence[float],
    keypoints: np.ndarray,
    obj_bbox: Sequence[float],
    size: tuple[int, int],
) -> float:
    """The candidate angle of an object in a real photograph (the module's ground-plane rule)."""
    p, o = _person_ground(person_bbox, keypoints, size), _box_ground(obj_bbox, size)
    if p is None or o is None:
        px, ox = person_bbox[0] + person_bbox[2] / 2.0, obj_bbox[0] + obj_bbox[2] / 2.0
        p, o = np.zeros(3), np.array([ox - px, 0.0, 0.0])
    return person_angle(yaw_deg, p, o)


def _item(
    stem: str, split: str, image: str, cfg: CocoConfig, annotation_ids: list[int], name: str, angle: float, review: bool
) -> dict[str, Any]:
    return {
        "item_id": f"{stem}:per_rel:{annotation_ids[1]}",
        "scene_id": stem.rsplit(":", 1)[0],
        "split": split,
        "question_type": PER_REL,
        "image_path": [image],
        "question": cfg.per_rel.template.format(object=name),
        "answer_label": horizontal_label(angle),
        "object_ids": annotation_ids,
        "labels": ["person", name],
        "frame_ids": [],
        "margin_deg": boundary_margin(angle),
        "needs_review": review,
    }


def _unique(objects: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    names = [o["name"] for o in objects]
    return [o for o in objects if names.count(o["name"]) == 1]


def synthetic_items(
    truth: Sequence[Mapping[str, Any]], image_of: Mapping[int, str], split: str, cfg: CocoConfig, seed: int
) -> list[dict[str, Any]]:
    """Exact items from the synthetic set's truth (its images' objects and their angles in the person's frame)."""
    items = []
    for image in truth:
        if image["image_id"] not in image_of:
            continue
        stem = f"coco:{image['image_id']}:{image['person']['annotation_id']}"
        for obj in _unique(image["objects"]):
            item = _item(
                stem,
                split,
                image_of[image["image_id"]],
                cfg,
                [int(image["person"]["annotation_id"]), int(obj["annotation_id"])],
                obj["name"],
                float(obj["person_angle_deg"]),
                review=False,
            )
            if item["margin_deg"] >= cfg.per_rel.margin_deg:
                items.append(item)
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]


def candidate_items(
    people: Sequence[Any],
    facing: Mapping[int, float],
    objects: Mapping[int, Sequence[Mapping[str, Any]]],
    image_of: Mapping[int, str],
    split: str,
    cfg: CocoConfig,
    seed: int,
) -> list[dict[str, Any]]:
    """Candidates for review: `people` are coco_people.Person, `facing` annotation id → facing yaw of the kept,
    `objects` image id → [{annotation_id, name, bbox, area}] of the image's other objects."""
    items = []
    for person in people:
        if person.annotation_id not in facing or person.image_id not in image_of:
            continue
        w, h = person.size
        stem = f"coco:{person.image_id}:{person.annotation_id}"
        big = [o for o in objects.get(person.image_id, []) if o["area"] >= cfg.per_rel.min_object_area_ratio * w * h]
        for obj in _unique(big):
            angle = candidate_angle(facing[person.annotation_id], person.bbox, person.keypoints, obj["bbox"], (w, h))
            item = _item(
                stem,
                split,
                image_of[person.image_id],
                cfg,
                [person.annotation_id, int(obj["annotation_id"])],
                obj["name"],
                angle,
                review=True,
            )
            if item["margin_deg"] >= cfg.per_rel.margin_deg:
                items.append(item)
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]


def image_objects(data: Mapping[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """Image id → its non-person, non-crowd objects {annotation_id, name, bbox, area} of a COCO file."""
    names = {c.get("id"): str(c.get("name")) for c in data.get("categories") or [] if isinstance(c, dict)}
    found: dict[int, list[dict[str, Any]]] = {}
    for ann in data.get("annotations") or []:
        if not isinstance(ann, dict) or ann.get("iscrowd") or ann.get("category_id") in (None, 1):
            continue
        bbox = ann.get("bbox")
        if ann.get("category_id") not in names or not (isinstance(bbox, list) and len(bbox) == 4):
            continue
        found.setdefault(ann.get("image_id"), []).append(
            {
                "annotation_id": int(ann["id"]),
                "name": names[ann["category_id"]],
                "bbox": [float(v) for v in bbox],
                "area": float(ann.get("area") or bbox[2] * bbox[3]),
            }
        )
    return found
