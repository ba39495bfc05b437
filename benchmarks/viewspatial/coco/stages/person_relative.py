"""Per-Rel. Dir. items (docs/design/viewspatial.md §2.4): "from this person's viewpoint, where is X?", X another object
or person.

The person's facing is the frame: forward where the body faces, up the world's up, right = f × u, and
the 8-way label of docs/design/viewspatial.md §1.4. Camera coordinates are x right, y down, z forward; a facing yaw ψ
(benchmarks/viewspatial/coco/stages/orientation.py: 0 = toward the camera, 90 = toward the image's left) points along
f = (−sin ψ, 0, −cos ψ).

- synthetic people: exact from 3D (the set's truth gives each object's angle in the person's frame);
- real COCO: candidates, routed to human review. Each object and the person stand on a ground
  plane seen by a level camera of `ASSUMED_HFOV_DEG` whose horizon is the image's middle row; a box's
  ground point is its bottom centre (the person's: the mean of its labelled ankles, else its box bottom).
  When a ground point is not seen (a box cut by the image's bottom edge, or above the horizon) the object
  is placed at the person's depth (lateral offset only). Objects whose category occurs once in the image,
  and the image's other people (named apart, benchmarks/viewspatial/coco/stages/subjects.py), that cover
  `min_object_area_ratio` of it are asked about.

"Which hand" items (the release's two-option Per-Rel. Dir. form, "A. left\nB. right", the person's own sides)
ask which hand holds an object ("Which hand is the woman holding the phone with?"): exact from the synthetic
rig (the truth's held object and the hand joint it hangs from), or, in a real photograph, a candidate where
exactly one labelled wrist keypoint lies inside or touches (within `hand_touch` of the person's height) the box
of a holdable object (held_objects.HOLDABLE), reviewed like every candidate. An image is asked "which hand" with
probability `hand_share` (drawn by its seed) when it has such an item. The release never asks which hand or foot
is nearer something, so neither is asked.

The wording is drawn by the item's seed from `per_rel.templates` (`hand_templates`) by weight;
`per_rel.per_image` caps the items of an image (the release asks one question an image). Objects are named as the
release names them ("the phone", "the bag": `OBJECT_PHRASES`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.coco.scenes.held_objects import HOLDABLE, WRIST
from benchfoundry.benchmarks.viewspatial.release.qa_items import with_options, worded
from benchfoundry.core.directions import HORIZONTAL_LABELS, boundary_margin, horizontal_angle, horizontal_label
from benchfoundry.core.seeding import item_rng

PER_REL = CATEGORIES["Per-Rel. Dir."]
ASSUMED_HFOV_DEG = 60.0
CAMERA_UP = np.array([0.0, -1.0, 0.0])
LEFT_ANKLE, RIGHT_ANKLE = 15, 16
HAND_CHOICES = "A. left\nB. right"
#: COCO names → the word a question uses.
OBJECT_PHRASES = {"cell phone": "phone", "handbag": "bag"}


def object_phrase(name: str) -> str:
    """ "the phone" for COCO's "cell phone"."""
    return f"the {OBJECT_PHRASES.get(name, name)}"


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
    obj_ground: np.ndarray | None = None,
) -> float:
    """The candidate angle of an object in a real photograph (the module's ground-plane rule); `obj_ground`:
    the object's ground point when known otherwise than from its box (a person's ankles)."""
    p = _person_ground(person_bbox, keypoints, size)
    o = _box_ground(obj_bbox, size) if obj_ground is None else obj_ground
    if p is None or o is None:
        px, ox = person_bbox[0] + person_bbox[2] / 2.0, obj_bbox[0] + obj_bbox[2] / 2.0
        p, o = np.zeros(3), np.array([ox - px, 0.0, 0.0])
    return person_angle(yaw_deg, p, o)


def _item(
    stem: str,
    split: str,
    image: str,
    annotation_ids: list[int],
    names: tuple[str, str],
    angle: float,
    review: bool,
    config: CocoConfig,
    seed: int,
) -> dict[str, Any]:
    """One item: `names` are the viewer's and the target's phrases ("the woman", "the chair")."""
    item_id = f"{stem}:per_rel:{annotation_ids[1]}"
    question = worded(config.per_rel.templates, seed, item_id, subject=names[0], target=names[1])
    return _row(
        item_id,
        stem,
        split,
        image,
        question,
        {},
        horizontal_label(angle),
        annotation_ids,
        names,
        boundary_margin(angle),
        review,
    )


def _row(
    item_id: str,
    stem: str,
    split: str,
    image: str,
    question: str,
    options: dict[str, Any],
    answer_label: str,
    annotation_ids: list[int],
    names: tuple[str, str],
    margin_deg: float | None,
    review: bool,
) -> dict[str, Any]:
    """A Per-Rel. Dir. row in the stage's column order; `options` (a two-option item's answer and choices) stand
    between the question and the answer label."""
    return {
        "item_id": item_id,
        "scene_id": stem.rsplit(":", 1)[0],
        "split": split,
        "question_type": PER_REL,
        "image_path": [image],
        "question": question,
        **options,
        "answer_label": answer_label,
        "object_ids": annotation_ids,
        "labels": list(names),
        "frame_ids": [],
        "margin_deg": margin_deg,
        "needs_review": review,
    }


def box_distance(point: Sequence[float], bbox: Sequence[float]) -> float:
    """Pixels from an image point to a COCO box [x, y, w, h] (0 inside)."""
    x, y, w, h = bbox
    dx = max(x - point[0], 0.0, point[0] - (x + w))
    dy = max(y - point[1], 0.0, point[1] - (y + h))
    return math.hypot(dx, dy)


def holding_hand(keypoints: np.ndarray, bbox: Sequence[float], touch_px: float) -> str | None:
    """ "left" or "right" (the person's own): the one labelled wrist keypoint inside or within `touch_px` of an
    object's box; None when both or neither are, or a wrist is unlabelled."""
    if not all(keypoints[WRIST[side], 2] > 0 for side in WRIST):
        return None
    touching = [side for side in WRIST if box_distance(keypoints[WRIST[side], :2], bbox) <= touch_px]
    return touching[0] if len(touching) == 1 else None


def is_hand_item(item_id: str) -> bool:
    """Whether an item id is a two-option "which hand" item's (`hand_item`), not a direction item's."""
    return ":per_rel_hand:" in item_id


def hand_item(
    stem: str,
    split: str,
    image: str,
    annotation_ids: list[int],
    names: tuple[str, str],
    side: str,
    review: bool,
    config: CocoConfig,
    seed: int,
) -> dict[str, Any]:
    """A two-option "which hand" item: the person `names[0]` holds `names[1]` in their own `side` hand."""
    item_id = f"{stem}:per_rel_hand:{annotation_ids[1]}"
    question = worded(config.per_rel.hand_templates, seed, item_id, subject=names[0], target=names[1])
    options = {"answer": "A. left" if side == "left" else "B. right", "choices": HAND_CHOICES}
    return _row(item_id, stem, split, image, question, options, side, annotation_ids, names, None, review)


def unique_objects(objects: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The objects whose category name no other object of the image shares."""
    names = [o["name"] for o in objects]
    return [o for o in objects if names.count(o["name"]) == 1]


def _per_image(items: list[dict[str, Any]], config: CocoConfig, seed: int) -> list[dict[str, Any]]:
    """One kind of item an image ("which hand" with probability `hand_share` when the image has one, else the
    direction items), at most `per_rel.per_image` of them, drawn by the seed (direction items by their answer's
    `per_rel.answer_weights`, uniformly where none of the image's answers has one), in their order."""
    cap = config.per_rel.per_image
    by_image: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_image.setdefault(item["scene_id"], []).append(item)
    kept = []
    for scene, of_image in by_image.items():
        hands = [i for i in of_image if _is_hand(i)]
        directions = [i for i in of_image if not _is_hand(i)]
        ask_hand = item_rng(seed, "viewspatial.coco.per_rel_kind", scene).random() < config.per_rel.hand_share
        of_image = hands if hands and (ask_hand or not directions) else directions
        if cap is not None and len(of_image) > cap:
            weights = np.array([config.per_rel.answer_weights.get(i["answer_label"], 0.0) for i in of_image])
            if _is_hand(of_image[0]) or np.count_nonzero(weights) < cap:
                weights = np.ones(len(of_image))
            rng = item_rng(seed, "viewspatial.coco.per_rel_image", scene)
            picks = rng.choice(len(of_image), cap, replace=False, p=weights / weights.sum())
            of_image = [of_image[i] for i in sorted(picks)]
        kept += of_image
    return kept


def _is_hand(item: Mapping[str, Any]) -> bool:
    return item.get("choices") == HAND_CHOICES


def _with_options(items: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Direction items with their lettered options; "which hand" items have theirs."""
    return [item if _is_hand(item) else with_options(item, HORIZONTAL_LABELS, seed) for item in items]


def synthetic_items(
    truth: Sequence[Mapping[str, Any]],
    image_of: Mapping[int, str],
    subject_of: Mapping[int, str],
    viewers: set[int],
    split: str,
    config: CocoConfig,
    seed: int,
) -> list[dict[str, Any]]:
    """Exact items from the synthetic set's truth: each relation of a kept viewer (`viewers`: annotation ids) to
    an object of a unique category or to another person, at its angle in the viewer's frame (not to what the viewer
    holds), and which hand a kept viewer holds an object of a unique category in (the object's `held_by` and
    `hand`)."""
    items = []
    for image in truth:
        if image["image_id"] not in image_of:
            continue
        unique = {o["annotation_id"] for o in unique_objects(image["objects"])}
        allowed = unique | {p["annotation_id"] for p in image["people"]}
        names = {o["annotation_id"]: object_phrase(o["name"]) for o in image["objects"]}
        names.update({a: subject_of.get(a, "the person") for a in (p["annotation_id"] for p in image["people"])})
        holder = {o["annotation_id"]: o.get("held_by") for o in image["objects"]}
        path = image_of[image["image_id"]]
        for rel in image["relations"]:
            viewer, target = int(rel["viewer"]), int(rel["target"])
            if viewer not in viewers or target not in allowed or holder.get(target) == viewer:
                continue
            stem = f"coco:{image['image_id']}:{viewer}"
            names_of = (names[viewer], names[target])
            item = _item(stem, split, path, [viewer, target], names_of, float(rel["angle_deg"]), False, config, seed)
            if item["margin_deg"] >= config.per_rel.margin_deg:
                items.append(item)
        for obj in image["objects"]:
            viewer, target = obj.get("held_by"), obj["annotation_id"]
            if viewer in viewers and target in unique:
                stem = f"coco:{image['image_id']}:{viewer}"
                names_of = (names[viewer], names[target])
                items.append(hand_item(stem, split, path, [viewer, target], names_of, obj["hand"], False, config, seed))
    return _with_options(_per_image(items, config, seed), seed)


def candidate_items(
    people_of: Mapping[int, Sequence[Any]],
    facing: Mapping[int, float],
    objects: Mapping[int, Sequence[Mapping[str, Any]]],
    image_of: Mapping[int, str],
    subject_of: Mapping[int, str],
    split: str,
    config: CocoConfig,
    seed: int,
) -> list[dict[str, Any]]:
    """Candidates for review: `people_of` image id → its coco_people.Person, `facing` annotation id → facing
    yaw of the kept (the viewers), `objects` image id → [{annotation_id, name, bbox, area}] of its other
    objects. A viewer is asked about each object of a unique category and each other person covering
    `min_object_area_ratio` of the image, and which hand holds a holdable object of a unique category that one of
    their wrists alone touches."""
    items = []
    for image_id, people in sorted(people_of.items()):
        if image_id not in image_of:
            continue
        for viewer in people:
            if viewer.annotation_id not in facing:
                continue
            w, h = viewer.size
            least = config.per_rel.min_object_area_ratio * w * h
            stem = f"coco:{image_id}:{viewer.annotation_id}"
            subject = subject_of.get(viewer.annotation_id, "the person")
            targets = [
                (int(o["annotation_id"]), object_phrase(o["name"]), None, o["bbox"])
                for o in unique_objects([o for o in objects.get(image_id, []) if o["area"] >= least])
            ]
            targets += [
                (
                    p.annotation_id,
                    subject_of.get(p.annotation_id, "the person"),
                    _person_ground(p.bbox, p.keypoints, (w, h)),
                    p.bbox,
                )
                for p in people
                if p.annotation_id != viewer.annotation_id and p.area >= least
            ]
            for annotation_id, name, ground, bbox in targets:
                angle = candidate_angle(
                    facing[viewer.annotation_id], viewer.bbox, viewer.keypoints, bbox, (w, h), ground
                )
                ids = [viewer.annotation_id, annotation_id]
                item = _item(stem, split, image_of[image_id], ids, (subject, name), angle, True, config, seed)
                if item["margin_deg"] >= config.per_rel.margin_deg:
                    items.append(item)
            for o in unique_objects(objects.get(image_id, [])):
                side = holding_hand(viewer.keypoints, o["bbox"], config.per_rel.hand_touch * viewer.bbox[3])
                if o["name"] in HOLDABLE and side is not None:
                    ids, names = [viewer.annotation_id, int(o["annotation_id"])], (subject, object_phrase(o["name"]))
                    items.append(hand_item(stem, split, image_of[image_id], ids, names, side, True, config, seed))
    return _with_options(_per_image(items, config, seed), seed)


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
