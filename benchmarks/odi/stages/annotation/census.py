"""The detector's census of a whole panorama (docs/design/odi.md §2.1): every instance it found on the sphere, by class.

Kept instances lie inside one cube face. An object across a face edge is cut into detections that touch the
border on each face it spans; these are dropped from the instances, but the census counts them once: two
border detections of one class are one object when a mask pixel on the edge of one face has a pixel of the
other's mask (grown by `GROW_PX`) just across that edge on the neighbouring face (`sphere_coords.cube_neighbours`).
Groups join transitively (an object at a cube corner spans three faces). A group's direction is the normalised
mean of all its pixels' unit vectors, as for a kept instance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages.annotation.instances import Detection, Instance
from benchfoundry.benchmarks.odi.stages.annotation.mask_measures import mask_angles

#: Masks are grown by this many pixels before looking across an edge (a detector's masks stop short of it).
GROW_PX = 2
#: A face's edges, each as the mask's pixels along it in the order of `cube_neighbours`.
EDGES = {
    "top": lambda m: m[0, :],
    "bottom": lambda m: m[-1, :],
    "left": lambda m: m[:, 0],
    "right": lambda m: m[:, -1],
}


def _root(parent: list[int], k: int) -> int:
    while parent[k] != k:
        parent[k] = parent[parent[k]]
        k = parent[k]
    return k


def border_groups(border: Sequence[tuple[str, Detection]], face_width: int) -> list[list[int]]:
    """Indices into `border` grouped into objects (each group sorted, groups by their first index)."""
    neighbours = sm.cube_neighbours(face_width)
    kernel = np.ones((2 * GROW_PX + 1, 2 * GROW_PX + 1), np.uint8)
    grown = [cv2.dilate(det.mask.astype(np.uint8), kernel).astype(bool) for _, det in border]
    parent = list(range(len(border)))
    for k, (face, det) in enumerate(border):
        sides = neighbours[sm.FACES.index(face)]
        for side, edge in EDGES.items():
            along = np.nonzero(edge(det.mask))[0]
            if not len(along):
                continue
            faces, rows, cols = (a[along] for a in sides[side])
            for j, (other_face, other) in enumerate(border):
                if j == k or other.label != det.label:
                    continue
                here = faces == sm.FACES.index(other_face)
                if here.any() and grown[j][rows[here], cols[here]].any():
                    parent[_root(parent, k)] = _root(parent, j)
    groups: dict[int, list[int]] = {}
    for k in range(len(border)):
        groups.setdefault(_root(parent, k), []).append(k)
    return sorted(groups.values())


def group_direction(parts: Sequence[tuple[str, Detection]]) -> tuple[float, float]:
    """(θ, φ) of the normalised mean unit vector of every pixel of the parts' masks."""
    vectors = [sm.angles_to_vectors(*mask_angles(face, det.mask)) for face, det in parts]
    mean = np.concatenate(vectors).mean(axis=0)
    theta, phi = sm.vectors_to_angles(mean / np.linalg.norm(mean))
    return float(theta), float(phi)


def spanning_instances(border: Sequence[tuple[str, Detection]], face_width: int) -> list[dict[str, Any]]:
    """The objects the border detections make up: class, direction and the faces each spans."""
    found = []
    for group in border_groups(border, face_width):
        parts = [border[k] for k in group]
        theta, phi = group_direction(parts)
        found.append(
            {
                "class": parts[0][1].label,
                "theta_deg": theta,
                "phi_deg": phi,
                "faces": sorted({face for face, _ in parts}, key=sm.FACES.index),
            }
        )
    return found


def census(kept: Sequence[Instance], spanning: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Instances per class over the whole sphere: the kept ones and the objects across face edges."""
    counts = Counter(inst.detection.label for inst in kept) + Counter(str(s["class"]) for s in spanning)
    return dict(sorted(counts.items()))
