"""The project's one camera convention: a look-at, the two camera axis conventions, pinhole projection.

World: metres, +Z up (`WORLD_UP`). Every camera computation uses OpenCV's camera axes: x right, y down,
z forward (the viewing direction). Blender's camera looks along its local −Z with +Y up; its 4×4
camera-to-world matrix is the OpenCV one with the y and z columns negated (`opencv_to_blender`), and is
used only where a matrix is handed to the render worker. A look-at keeps the horizon level: the camera's
x axis is horizontal.

Pixel coordinates are continuous, x to the right and y down; where a pixel's centre lies is the
intrinsic matrix's business: a principal point of (W/2, H/2) puts pixel centres at integer + 0.5 with
(0, 0) the top-left pixel's corner (COCO's keypoints, Blender's pinhole), ScanNet's intrinsics put them
at integers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

WORLD_UP = np.array([0.0, 0.0, 1.0])


def look_at_axes(
    eye: Sequence[float], target: Sequence[float], up: Sequence[float] = WORLD_UP
) -> tuple[np.ndarray, np.ndarray]:
    """The unit right and forward axes, in world coordinates, of a camera at `eye` looking at `target` with a
    level horizon; a view along `up` has no defined roll (ValueError)."""
    forward = np.asarray(target, dtype=float) - np.asarray(eye, dtype=float)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, np.asarray(up, dtype=float))
    norm = np.linalg.norm(right)
    if norm < 1e-9:
        raise ValueError("look_at: the view direction is vertical, the camera roll is undefined")
    return right / norm, forward


def _matrix(columns: tuple[np.ndarray, np.ndarray, np.ndarray], eye: Sequence[float]) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, 0], matrix[:3, 1], matrix[:3, 2] = columns
    matrix[:3, 3] = np.asarray(eye, dtype=float)
    return matrix


def opencv_camera_to_world(eye: Sequence[float], target: Sequence[float], up: Sequence[float] = WORLD_UP) -> np.ndarray:
    """4×4 camera-to-world matrix of a level look-at, OpenCV axes: columns right, down, forward, position."""
    right, forward = look_at_axes(eye, target, up)
    return _matrix((right, np.cross(forward, right), forward), eye)


def blender_camera_to_world(
    eye: Sequence[float], target: Sequence[float], up: Sequence[float] = WORLD_UP
) -> np.ndarray:
    """4×4 camera-to-world matrix of a level look-at in Blender's axes (what the render worker places): columns
    right, up, backward, position."""
    right, forward = look_at_axes(eye, target, up)
    return _matrix((right, np.cross(right, forward), -forward), eye)


def opencv_to_blender(camera_to_world: np.ndarray) -> np.ndarray:
    """The same camera in the other axis convention (OpenCV ↔ Blender): the y and z columns negated."""
    matrix = np.array(camera_to_world, dtype=float)
    matrix[:3, 1:3] = -matrix[:3, 1:3]
    return matrix


def world_to_camera(points: np.ndarray, camera_to_world: np.ndarray) -> np.ndarray:
    """World points (N,3) in the camera's axes (the matrix's convention, OpenCV for projection)."""
    rotation, position = np.asarray(camera_to_world, dtype=float)[:3, :3], np.asarray(camera_to_world, float)[:3, 3]
    return (np.asarray(points, dtype=float) - position) @ rotation


def intrinsic_matrix(focal_px: float, cx: float, cy: float) -> np.ndarray:
    """3×3 pinhole intrinsics with square pixels and principal point (cx, cy)."""
    return np.array([[focal_px, 0.0, cx], [0.0, focal_px, cy], [0.0, 0.0, 1.0]])


def project(points_cam: np.ndarray, intrinsic: np.ndarray) -> np.ndarray:
    """(N,2) pixel coordinates of points in OpenCV camera axes; z ≤ 0 (behind the camera) gives inf or NaN."""
    k = np.asarray(intrinsic, dtype=float)[:3, :3]
    points = np.asarray(points_cam, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (points[:, :2] / points[:, 2:3]) @ k[:2, :2].T + k[:2, 2]


def mask_box(mask: np.ndarray) -> tuple[float, float, float, float] | None:
    """A boolean mask's tight box (x1, y1, x2, y2) in continuous pixel coordinates (x2, y2 exclusive);
    None for an empty mask."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)
