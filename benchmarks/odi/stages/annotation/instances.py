"""Instances of cube faces (docs/design/odi.md §2.1): border drops, COCO RLE masks, directions on the sphere, crops.

An annotator gives `Detection`s per face; an instance whose mask touches the face's border spans faces
and is dropped (counted). A kept instance gets its mask as COCO RLE (pycocotools), the direction (θ, φ)
of its mask centroid on the sphere (the direction of the sum of its pixels' unit vectors, to a millionth of a
degree) and an undistorted perspective crop centred there, whose field of view comes from the mask's angular
extent as in docs/design/odi.md §3: clip(max(Δθ, Δφ) + margin, min, max).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pycocotools import mask as mask_utils

from benchfoundry.benchmarks.odi.config import SphereConfig
from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages.annotation.mask_measures import (
    contact_elevation,
    erp_fraction,
    mask_angles,
    solid_angle,
)

#: Decimals of an instance's direction in degrees (a millionth of a degree): what the last bits of a sum
#: computed on another machine could change is well below it.
DIRECTION_DECIMALS = 6


@dataclass
class Detection:
    """One instance on one face: class name, score, box (x1, y1, x2, y2 in face pixels), boolean mask."""

    label: str
    score: float
    box: tuple[float, float, float, float]
    mask: np.ndarray
    truth_id: int | None = None


def touches_border(mask: np.ndarray) -> bool:
    """Whether any mask pixel lies on the face's outer rows or columns."""
    return bool(mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any())


def encode_rle(mask: np.ndarray) -> dict[str, Any]:
    """COCO RLE of a boolean mask, `counts` as text (JSON- and Parquet-ready)."""
    rle = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(v) for v in rle["size"]], "counts": rle["counts"].decode("ascii")}


def decode_rle(rle: dict[str, Any]) -> np.ndarray:
    """Inverse of `encode_rle`."""
    return mask_utils.decode({"size": rle["size"], "counts": rle["counts"].encode("ascii")}).astype(bool)


def mask_direction(face: str, mask: np.ndarray) -> tuple[float, float]:
    """(θ, φ) of the mask's centroid on the sphere: the direction of the sum of its pixels' unit vectors (each
    component summed exactly, in no order), rounded to `DIRECTION_DECIMALS`: the same bits on every run."""
    theta, phi = mask_angles(face, mask)
    vectors = sm.angles_to_vectors(theta, phi)
    total = np.array([math.fsum(vectors[:, k]) for k in range(3)])
    t, p = sm.vectors_to_angles(total)
    return round(float(t), DIRECTION_DECIMALS), round(float(p), DIRECTION_DECIMALS)


def angular_extent(face: str, mask: np.ndarray, centre_theta: float) -> tuple[float, float]:
    """(Δθ, Δφ) in degrees spanned by the mask's pixels, θ measured around `centre_theta` (no seam jump)."""
    theta, phi = mask_angles(face, mask)
    rel = (theta - centre_theta + 180.0) % 360.0 - 180.0
    return float(rel.max() - rel.min()), float(phi.max() - phi.min())


def crop_view(theta: float, phi: float, extent: tuple[float, float], sphere: SphereConfig) -> sm.View:
    """The square perspective view centred on (θ, φ) whose fov follows docs/design/odi.md §3 from the extent."""
    fov = min(max(max(extent) + sphere.crop_margin_deg, sphere.crop_min_fov_deg), sphere.crop_max_fov_deg)
    return sm.View.square(theta, phi, fov, sphere.crop_size)


@dataclass
class Instance:
    """A kept instance with its geometry on the sphere (benchmarks/odi/stages/annotation/mask_measures.py)."""

    face: str
    detection: Detection
    rle: dict[str, Any]
    area: int
    theta_deg: float
    phi_deg: float
    view: sm.View
    contact_phi_deg: float
    solid_angle_sr: float
    erp_fraction: float


def keep_instances(
    detections: dict[str, Sequence[Detection]], sphere: SphereConfig
) -> tuple[list[Instance], dict[str, int], list[tuple[str, Detection]]]:
    """The detections whose masks do not touch their face's border, in face order; the drops per face; and the
    dropped detections that touch a border, with their face (parts of objects spanning faces, for the census).

    Empty masks are dropped too (counted with the border drops: they cannot be located).
    """
    kept, dropped, border = [], {}, []
    for face in sm.FACES:
        dropped[face] = 0
        for det in detections.get(face, ()):
            if not det.mask.any() or touches_border(det.mask):
                dropped[face] += 1
                if det.mask.any():
                    border.append((face, det))
                continue
            theta, phi = mask_direction(face, det.mask)
            view = crop_view(theta, phi, angular_extent(face, det.mask, theta), sphere)
            kept.append(
                Instance(
                    face,
                    det,
                    encode_rle(det.mask),
                    int(det.mask.sum()),
                    theta,
                    phi,
                    view,
                    contact_elevation(face, det.mask, theta),
                    solid_angle(det.mask),
                    erp_fraction(face, det.mask),
                )
            )
    return kept, dropped, border


def coco_document(
    panorama: str, face_files: dict[str, str], face_width: int, instances: Sequence[Instance], classes: Sequence[str]
) -> dict[str, Any]:
    """A COCO instances file for one panorama: its six faces are the images, ids from 1."""
    image_ids = {face: k for k, face in enumerate(sm.FACES, start=1)}
    category_ids = {name: k for k, name in enumerate(classes, start=1)}
    images = [
        {
            "id": image_ids[f],
            "file_name": face_files[f],
            "width": face_width,
            "height": face_width,
            "panorama": panorama,
            "face": f,
        }
        for f in sm.FACES
    ]
    annotations = []
    for k, inst in enumerate(instances, start=1):
        x1, y1, x2, y2 = inst.detection.box
        annotations.append(
            {
                "id": k,
                "image_id": image_ids[inst.face],
                "category_id": category_ids[inst.detection.label],
                "segmentation": inst.rle,
                "area": inst.area,
                "bbox": [x1, y1, x2 - x1, y2 - y1],
                "iscrowd": 0,
                "score": inst.detection.score,
                "theta_deg": inst.theta_deg,
                "phi_deg": inst.phi_deg,
            }
        )
    categories = [{"id": i, "name": name, "supercategory": "object"} for name, i in category_ids.items()]
    return {
        "info": {"description": f"ODI-Bench instances of {panorama} (cube faces as images)"},
        "images": images,
        "annotations": annotations,
        "categories": categories,
    }
