"""COCO person-keypoint annotations → kept people and their orientation labels (docs/design/viewspatial.md §2.1).

An image is used when it holds at most `max_people` people (no crowd region; the authors kept images with
exactly one). Each of its people is labelled when their `area / (W·H)` reaches `min_area_ratio`, both
shoulders are labelled (keypoints 5 and 6, v > 0), the head (box top to shoulder line) is at least
`min_head_px` tall and, when the images are read, the person's crop is sharp enough (`min_sharpness`,
benchmarks/viewspatial/coco/stages/quality.py). Each kept person gets the camera-relative facing label (the authors'
bins,
`benchfoundry.core.directions.facing_direction`, of the body's yaw, or with `facing_from: more-confident` of
the more confident of the body and head estimates) and
the head turn Δ relative to the body in the five bins of docs/design/viewspatial.md §2.3 (none when the body's side is
unknown and its mirror yaw would give another bin; a portrait whose face and shoulders agree has no mirror); a person
whose estimates are not confident enough, or whose head and body disagree by more than `max_head_turn_deg`, is rejected
with the reason, as is a malformed annotation or image; a reason names what was missing or measured. The estimates come
from the keypoints (`config.estimator == "keypoints"`, benchmarks/viewspatial/coco/stages/orientation.py: a close-up
without hips is
read from the shoulders and the head; the frontal ratios are calibrated on every well-formed person of the
used images) or from Orient-Anything on the head and body crops (`person_crops`:
above and below the shoulder line, inside the person's box). Every well-formed person of a used image,
kept or not, can be another person's Per-Rel. Dir. target.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import cv2
import numpy as np

from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig, OrientAnythingConfig
from benchfoundry.benchmarks.viewspatial.coco.stages import orientation as ori
from benchfoundry.benchmarks.viewspatial.coco.stages.quality import sharpness
from benchfoundry.core.bounded_read import read_json
from benchfoundry.core.directions import facing_direction
from benchfoundry.core.image_decode import decode_file, image_size
from benchfoundry.core.safe_paths import inside, relative_name

if TYPE_CHECKING:
    from benchfoundry.benchmarks.viewspatial.coco.stages.orient_anything import Estimate

PERSON_CATEGORY = 1
#: People whose images are decoded and cropped at once (bounds the crops held in memory).
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


#: Called with an image the labelling decoded (H × W × 3 RGB) and every well-formed person of it.
ImageHook = Callable[[np.ndarray, list[Person]], None]


class Selection(NamedTuple):
    """People to label, rejection rows, and every well-formed person of each used image (Per-Rel. Dir. targets)."""

    kept: list[Person]
    rejected: list[dict[str, Any]]
    people_of: dict[int, list[Person]]


class Labelled(NamedTuple):
    """`label_file`'s result, the people whose images were usable, and every person of each used image."""

    result: dict[str, Any]
    usable: list[Person]
    people_of: dict[int, list[Person]]


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
    )


def shoulder_line(person: Person, rows: int) -> tuple[int, int, int]:
    """(top, line, bottom) rows of the person's box clipped to an image of `rows` rows, the line being the
    mean row of the labelled shoulders (clipped into the box)."""
    x, y, w, h = person.bbox
    top, bottom = max(0, math.floor(y)), min(rows, math.ceil(y + h))
    shoulders = [person.keypoints[i, 1] for i in (ori.LEFT_SHOULDER, ori.RIGHT_SHOULDER) if person.keypoints[i, 2] > 0]
    line = round(float(np.mean(shoulders))) if shoulders else top
    return top, min(max(line, top), max(top, bottom)), bottom


def _person_reason(person: Person, config: CocoConfig) -> str | None:
    """Why a well-formed person is not labelled (area, shoulders, head size), or None."""
    w, h = person.size
    if person.area / (w * h) < config.min_area_ratio:
        return f"person area below {config.min_area_ratio:g} of the image"
    lacking = ori.missing(person.keypoints, (ori.LEFT_SHOULDER, ori.RIGHT_SHOULDER))
    if lacking:
        return f"{' and '.join(lacking)} not labelled"
    top, line, _ = shoulder_line(person, h)
    if line - top < config.min_head_px:
        return f"subject too small: head below {config.min_head_px:g} px"
    return None


def select_people(data: dict[str, Any], config: CocoConfig) -> Selection:
    """The people to label, a rejection row {image_id, annotation_id, reason} for every other person (or
    image without a usable person), and the well-formed people of each used image."""
    by_image: dict[int, list[dict[str, Any]]] = {}
    for ann in data["annotations"]:
        if isinstance(ann, dict) and ann.get("category_id", PERSON_CATEGORY) == PERSON_CATEGORY:
            if coco_id(ann.get("image_id")):
                by_image.setdefault(ann["image_id"], []).append(ann)
    kept, rejected, people_of = [], [], {}
    for image in data["images"]:
        image_id = image.get("id") if isinstance(image, dict) else None
        if not coco_id(image_id):
            rejected.append(
                {"image_id": None, "annotation_id": None, "reason": "malformed: image id is not an integer"}
            )
            continue
        anns = by_image.get(image_id, [])
        if any(a.get("iscrowd") for a in anns) or not anns or len(anns) > config.max_people:
            reason = (
                "crowd region"
                if any(a.get("iscrowd") for a in anns)
                else "no person"
                if not anns
                else f"{len(anns)} people, more than {config.max_people}"
            )
            first = anns[0].get("id") if anns else None
            rejected.append(
                {"image_id": image_id, "annotation_id": first if coco_id(first) else None, "reason": reason}
            )
            continue
        people = []
        for ann in anns:
            try:
                person = _person(image, ann)
            except (ValueError, TypeError, KeyError) as exc:
                annotation_id = ann.get("id") if coco_id(ann.get("id")) else None
                rejected.append({"image_id": image_id, "annotation_id": annotation_id, "reason": f"malformed: {exc}"})
                continue
            people.append(person)
            reason = _person_reason(person, config)
            if reason is None:
                kept.append(person)
            else:
                rejected.append({"image_id": image_id, "annotation_id": person.annotation_id, "reason": reason})
        people_of[image_id] = people
    return Selection(kept, rejected, people_of)


def check_image(images: Path, person: Person) -> str | None:
    """Why the person's image cannot be used (missing, unreadable, over the decoder's limits, another size),
    or None."""
    try:
        path = inside(images, person.file_name, "file_name")  # a link out of the images folder is refused
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
    x, _, w, _ = person.bbox
    x0, x1 = max(0, math.floor(x)), min(cols, math.ceil(x + w))
    if not (person.keypoints[[ori.LEFT_SHOULDER, ori.RIGHT_SHOULDER], 2] > 0).any():
        raise CropRejected("shoulders not labelled")
    y0, line, y1 = shoulder_line(person, rows)
    if x1 <= x0 or y1 <= y0:
        raise CropRejected("person box outside the image")
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


def label_person(person: Person, config: CocoConfig, found: ori.Orientation | str) -> dict[str, Any]:
    """The label row of one person (kept false with the reason when rejected) from their body and head yaw,
    or the reason they could not be estimated."""
    row = label_row(person.image_id, person.annotation_id)
    if isinstance(found, str):
        return {**row, "reason": found}
    confidence = min(found.body.confidence, found.head.confidence)
    if confidence < config.min_confidence:
        return {**row, "reason": "low confidence", "confidence": confidence}
    if abs(found.delta) > config.max_head_turn_deg:
        return {
            **row,
            "reason": f"head and body disagree beyond ±{config.max_head_turn_deg:g}°",
            "head_delta_deg": round(found.delta, 2),
            "confidence": confidence,
        }
    more_confident = found.head if found.head.confidence > found.body.confidence else found.body
    facing = found.body if config.facing_from == "body" else more_confident
    return {
        **row,
        "kept": True,
        "facing": facing_direction(facing.degrees),
        "facing_yaw_deg": round(facing.degrees, 2),
        "head_delta_deg": round(found.delta, 2),
        "head_turn": ori.sure_head_turn(found),
        "confidence": confidence,
    }


def crop_orientation(found_head: Estimate, found_body: Estimate) -> ori.Orientation:
    """Body and head yaw of one person, with their confidences, from Orient-Anything's crop estimates."""
    from benchfoundry.benchmarks.viewspatial.coco.stages.orient_anything import yaw_deg

    head = ori.Yaw(yaw_deg(found_head.azimuth_deg), round(found_head.confidence, 4))
    body = ori.Yaw(yaw_deg(found_body.azimuth_deg), round(found_body.confidence, 4))
    return ori.Orientation(body, head, ori.head_delta(head.degrees, body.degrees))


def implausible_angle(found: tuple[Estimate, ...], config: OrientAnythingConfig) -> str | None:
    """Why the crops' estimates are implausible for a person (seen from too far above or below, or rolled in
    the image plane), or None (docs/design/viewspatial.md §2.1: implausible angles are rejected)."""
    for part, est in zip(("head", "body"), found):
        if abs(est.polar_deg) > config.max_polar_deg:
            return f"{part} polar {est.polar_deg:g}° beyond ±{config.max_polar_deg:g}°"
        if abs(est.rotation_deg) > config.max_rotation_deg:
            return f"{part} rotation {est.rotation_deg:g}° beyond ±{config.max_rotation_deg:g}°"
    return None


def _blurry(image: np.ndarray, person: Person, config: CocoConfig) -> str | None:
    """Why the person's crop is too blurry to read, or None (no filter at `min_sharpness` 0)."""
    if config.min_sharpness <= 0:
        return None
    x, _, w, _ = person.bbox
    top, _, bottom = shoulder_line(person, image.shape[0])
    crop = image[top:bottom, max(0, math.floor(x)) : min(image.shape[1], math.ceil(x + w))]
    if crop.size == 0:
        return None  # the crops reject it by name
    measured = sharpness(crop)
    return None if measured >= config.min_sharpness else f"blurry: sharpness below {config.min_sharpness:g}"


def _read_image(images: Path, person: Person) -> np.ndarray | ValueError:
    """The person's image as RGB, or the error saying why it cannot be read."""
    try:
        return read_rgb(inside(images, person.file_name, "file_name"))
    except ValueError as exc:
        return exc


def _label_from_images(
    people: list[Person],
    images: Path,
    config: CocoConfig,
    ratios: tuple[float, float],
    people_of: dict[int, list[Person]],
    on_image: ImageHook | None,
) -> list[dict[str, Any]]:
    """Label rows of `people` (grouped by image) whose images are read, each image once (and handed to
    `on_image` with all its people): the blur filter, then the estimator (the keypoints, or Orient-Anything on
    the head and body crops, the model loaded once), CHUNK people at a time; an undecodable image or an empty
    crop rejects its person."""
    estimator = None
    if config.estimator == "orient-anything" and people:
        from benchfoundry.benchmarks.viewspatial.coco.stages import orient_anything

        estimator = orient_anything.load(config.orient_anything, batch_size=2 * CHUNK)
    labels = []
    decoded: dict[int, np.ndarray | ValueError] = {}
    for start in range(0, len(people), CHUNK):
        cropped = []
        for person in people[start : start + CHUNK]:
            row = label_row(person.image_id, person.annotation_id)
            if person.image_id not in decoded:
                decoded = {person.image_id: _read_image(images, person)}
                if on_image is not None and isinstance(decoded[person.image_id], np.ndarray):
                    on_image(decoded[person.image_id], people_of[person.image_id])
            image = decoded[person.image_id]
            if isinstance(image, ValueError):
                labels.append({**row, "reason": "image unusable", "detail": str(image)})
                continue
            try:
                head, body = person_crops(image, person)
            except CropRejected as exc:
                labels.append({**row, "reason": str(exc)})
                continue
            blurry = _blurry(image, person, config)
            if blurry:
                labels.append({**row, "reason": blurry})
            elif estimator is None:
                labels.append(label_person(person, config, ori.orient(person.keypoints, *ratios)))
            else:
                cropped.append((person, head, body))
        if estimator is None or not cropped:
            continue
        found = estimator.estimate([crop for _, head, body in cropped for crop in (head, body)])
        for k, (person, _, _) in enumerate(cropped):
            head, body = found[2 * k], found[2 * k + 1]
            implausible = implausible_angle((head, body), config.orient_anything)
            if implausible:
                row = label_row(person.image_id, person.annotation_id)
                labels.append({**row, "reason": "implausible angle", "detail": implausible})
            else:
                labels.append(label_person(person, config, crop_orientation(head, body)))
    return labels


def label_file(annotations: str | Path, images: str | Path | None, config: CocoConfig) -> dict[str, Any]:
    """`{"labels": [...], "rejected": {reason: count}, "shoulder_ratio": r, "head_ratio": r}` for one
    annotation file."""
    return label_people(read_annotations(annotations), images, config).result


def label_people(
    data: dict[str, Any], images: str | Path | None, config: CocoConfig, on_image: ImageHook | None = None
) -> Labelled:
    """`label_file`'s result for a read COCO file, the people whose images were usable, and every person of
    each used image; `on_image` is called once with each image decoded and all its people."""
    if config.estimator == "orient-anything" and images is None:
        raise ValueError("the orient-anything estimator reads the head and body crops: give the images folder")
    people, rejected, people_of = select_people(data, config)
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
    measured = [p.keypoints for people in people_of.values() for p in people]
    ratios = (
        config.shoulder_ratio or ori.calibrate_ratio(measured, "torso"),
        config.head_ratio or ori.calibrate_ratio(measured, "head"),
    )
    if images is None:
        labels = [label_person(p, config, ori.orient(p.keypoints, *ratios)) for p in usable]
    else:
        labels = _label_from_images(usable, Path(images), config, ratios, people_of, on_image)
    reasons = Counter(r["reason"] for r in rejected) + Counter(r["reason"] for r in labels if not r["kept"])
    rows = [label_row(**r) for r in rejected] + labels
    result = {
        "labels": sorted(rows, key=lambda r: (r["image_id"] is None, r["image_id"] or 0, r["annotation_id"] or 0)),
        "rejected": dict(sorted(reasons.items())),
        "shoulder_ratio": round(ratios[0], 4),
        "head_ratio": round(ratios[1], 4),
    }
    return Labelled(result, usable, people_of)
