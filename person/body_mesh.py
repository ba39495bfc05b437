"""A posed body handed from the task process to the render worker: `BodyMesh`, its world frame and its file.

World frame of every `BodyMesh`: metres, +Z up, feet on z = 0 (the lowest vertex), the pelvis joint above
x = y = 0, the person facing −Y, so their left is +X. SMPL's own frame (+Y up, facing +Z, left +X) maps to
it by a +90° rotation about X (`SMPL_TO_WORLD`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchfoundry.core.atomic_files import atomic_path

#: SMPL frame (+Y up, facing +Z) → world frame (+Z up, facing −Y): +90° about X.
SMPL_TO_WORLD = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])

#: The 17 COCO keypoints, in COCO order (BodyMesh.keypoints rows).
COCO_KEYPOINTS: tuple[str, ...] = (
    "nose",
    "left_eye",
    "right_eye",
    "left_ear",
    "right_ear",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
)


@dataclass(frozen=True)
class BodyMesh:
    """A posed body in the world frame (see the module docstring)."""

    vertices: np.ndarray  # (V,3) float32
    faces: np.ndarray  # (F,3) int32
    uv: np.ndarray | None  # (F,3,2) float32 per-corner UVs in [0,1], OBJ convention (v = 0 at the image bottom)
    landmarks: dict[str, int]  # COCO keypoint names + head_top → vertex id
    height_m: float  # standing height of the rest body with these betas (Anny: this phenotype)
    keypoints: np.ndarray | None = None  # (17,3) COCO keypoints (Anny), world frame


def write_body_mesh(mesh: BodyMesh, path: Path) -> Path:
    """Save a BodyMesh as .npz (atomic), for handing a posed body to a render worker by path."""
    arrays: dict[str, np.ndarray] = {
        "vertices": mesh.vertices,
        "faces": mesh.faces,
        "height_m": np.array(mesh.height_m),
        "landmark_names": np.array(list(mesh.landmarks)),
        "landmark_ids": np.array(list(mesh.landmarks.values()), dtype=np.int64),
    }
    if mesh.uv is not None:
        arrays["uv"] = mesh.uv
    if mesh.keypoints is not None:
        arrays["keypoints"] = mesh.keypoints
        arrays["keypoint_names"] = np.array(COCO_KEYPOINTS)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    return Path(path)


def read_body_mesh(path: Path) -> BodyMesh:
    """Load a BodyMesh written by `write_body_mesh`."""
    with np.load(path) as data:
        return BodyMesh(
            vertices=data["vertices"],
            faces=data["faces"],
            uv=data["uv"] if "uv" in data.files else None,
            landmarks=dict(zip(data["landmark_names"].tolist(), data["landmark_ids"].tolist())),
            height_m=float(data["height_m"]),
            keypoints=data["keypoints"] if "keypoints" in data.files else None,
        )
