"""The `truth` annotator: a synthetic panorama's ERP instance map carried to the cube faces.

The map is sampled with nearest-neighbour interpolation (`sphere.erp_to_cubemap`), so ids are copied
exactly; each id present on a face whose category is among the asked classes is one detection (score 1).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.stages.annotation.instances import Detection
from benchfoundry.benchmarks.odi.stages.panoramas import truth_files
from benchfoundry.benchmarks.odi.stages.sphere_coords import FACES
from benchfoundry.benchmarks.odi.stages.sphere_images import erp_to_cubemap
from benchfoundry.core.camera import mask_box
from benchfoundry.core.image_decode import decode_file


def load_truth(panorama: Path, shape: tuple[int, int]) -> tuple[np.ndarray, dict[int, dict[str, Any]]]:
    """The panorama's instance map (H × W ids) and its records by id; missing or mismatched files are a
    ValueError naming them."""
    ids_path, json_path = truth_files(panorama)
    if not ids_path.exists() or not json_path.exists():
        raise ValueError(f"{panorama}: the truth annotator needs {ids_path.name} and {json_path.name} beside it")
    ids = decode_file(ids_path)
    if ids.ndim != 2 or ids.dtype not in (np.uint8, np.uint16) or ids.shape != shape:
        raise ValueError(
            f"{ids_path}: expected a one-channel 8/16-bit id map of {shape[1]}×{shape[0]}, got {ids.dtype} {ids.shape}"
        )
    try:
        records = {int(r["id"]): r for r in json.loads(json_path.read_text())["instances"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{json_path}: not a truth file with instances[].id ({exc})") from None
    return ids, records


def truth_detections(
    ids: np.ndarray, records: dict[int, dict[str, Any]], face_width: int, classes: Sequence[str]
) -> dict[str, list[Detection]]:
    """Per face, one detection per instance id present whose category is in `classes`."""
    wanted = set(classes)
    faces = erp_to_cubemap(ids, face_width, interpolation="nearest")
    found: dict[str, list[Detection]] = {}
    for face in FACES:
        found[face] = []
        for value in np.unique(faces[face]):
            record = records.get(int(value))
            if value == 0 or record is None or record["category"] not in wanted:
                continue
            mask = faces[face] == value
            found[face].append(Detection(record["category"], 1.0, mask_box(mask), mask, int(value)))
    return found
