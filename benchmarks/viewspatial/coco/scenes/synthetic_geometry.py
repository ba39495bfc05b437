"""Pure geometry of the synthetic COCO set: a pinhole camera, keypoint projection, ray-cast visibility.

PosedCamera coordinates are OpenCV's (x right, y down, z forward, benchfoundry/core/camera.py); image coordinates are
continuous pixels with (0, 0) at the top-left corner of the top-left pixel, as COCO's keypoints. World: +Z up.
Visibility follows COCO: 0 out of frame (not labelled), 1 labelled but hidden, 2 visible. A point is
hidden when the ray from the camera to it meets a surface more than its tolerance before the point
(Möller–Trumbore, vectorised over triangles).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchfoundry.core.camera import (
    blender_camera_to_world,
    intrinsic_matrix,
    mask_box,
    opencv_to_blender,
    project,
    world_to_camera,
)

#: Segments of a cylinder (as Blender's primitive_cylinder_add(vertices=48)).
CYLINDER_SEGMENTS = 48


@dataclass(frozen=True)
class PosedCamera:
    """A posed pinhole camera in pixels, for projecting keypoints without Blender: its 4×4 camera-to-world
    matrix in OpenCV axes (benchfoundry/core/camera.py), focal length `f` in pixels and image size; the principal
    point is the image centre. Unlike `render_spec.PinholeCamera` (intrinsics in mm, pose per frame) it holds both."""

    camera_to_world: np.ndarray
    f: float
    width: int
    height: int

    @property
    def R(self) -> np.ndarray:
        """World → camera rotation (rows: the camera's axes in world coordinates)."""
        return self.camera_to_world[:3, :3].T

    @property
    def C(self) -> np.ndarray:
        """The camera centre."""
        return self.camera_to_world[:3, 3]

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return world_to_camera(points, self.camera_to_world)

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N,2) pixel coordinates and (N,) depths z of world points."""
        cam = self.to_camera(points)
        return project(cam, intrinsic_matrix(self.f, self.width / 2, self.height / 2)), cam[:, 2]

    def blender_matrix(self) -> list[list[float]]:
        """The camera's matrix_world in Blender."""
        return opencv_to_blender(self.camera_to_world).tolist()


def look_at(eye: np.ndarray, target: np.ndarray, f: float, width: int, height: int) -> PosedCamera:
    """A level-roll camera at `eye` looking at `target`: the rig's Blender look-at, in OpenCV axes."""
    return PosedCamera(opencv_to_blender(blender_camera_to_world(eye, target)), float(f), int(width), int(height))


def first_hits(origin: np.ndarray, targets: np.ndarray, triangles: np.ndarray, eps: float = 1e-9) -> np.ndarray:
    """For each target, the distance from `origin` along the segment towards it to the first triangle hit
    (inf when none, hits beyond the target included); `triangles` (F,3,3)."""
    origin = np.asarray(origin, dtype=np.float64)
    tri = np.asarray(triangles, dtype=np.float64)
    v0, e1, e2 = tri[:, 0], tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    s = origin - v0
    q = np.cross(s, e1)
    out = np.full(len(targets), np.inf)
    for k, target in enumerate(np.asarray(targets, dtype=np.float64)):
        d = target - origin
        length = float(np.linalg.norm(d))
        d = d / length
        p = np.cross(d, e2)
        det = np.einsum("ij,ij->i", e1, p)
        ok = np.abs(det) > eps
        inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
        u = np.einsum("ij,ij->i", s, p) * inv
        v = (q @ d) * inv
        t = np.einsum("ij,ij->i", e2, q) * inv
        hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > eps)
        if hit.any():
            out[k] = float(t[hit].min())
    return out


def visibility(points: np.ndarray, camera: PosedCamera, triangles: np.ndarray, tolerances: np.ndarray) -> np.ndarray:
    """COCO (N,3) keypoints [x, y, v] of world points: v 0 when behind the camera or outside the image
    (x, y then 0), 1 when a surface lies more than the point's tolerance (m) before it, else 2."""
    uv, z = camera.project(points)
    inside = (z > 0) & (uv[:, 0] >= 0) & (uv[:, 0] < camera.width) & (uv[:, 1] >= 0) & (uv[:, 1] < camera.height)
    distance = np.linalg.norm(np.asarray(points, dtype=np.float64) - camera.C, axis=1)
    hidden = first_hits(camera.C, points, triangles) < distance - np.asarray(tolerances, dtype=np.float64)
    v = np.where(inside, np.where(hidden, 1, 2), 0)
    return np.column_stack([np.where(inside[:, None], uv, 0.0), v])


def _turn(points: np.ndarray, yaw_deg: float) -> np.ndarray:
    a = np.radians(yaw_deg)
    rot = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return points @ rot.T


def box_triangles(center: np.ndarray, size: np.ndarray, yaw_deg: float = 0.0) -> np.ndarray:
    """(12,3,3) triangles of a box with full extents `size`, turned by `yaw_deg` about +Z."""
    corners = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    verts = _turn(corners * np.asarray(size, dtype=np.float64), yaw_deg) + np.asarray(center, dtype=np.float64)
    return np.array([verts[list(t)] for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])


def cylinder_triangles(center: np.ndarray, size: np.ndarray, segments: int = CYLINDER_SEGMENTS) -> np.ndarray:
    """Triangles of an upright cylinder (elliptic with `size` x/y diameters and z height), capped."""
    c, (sx, sy, sz) = np.asarray(center, dtype=np.float64), np.asarray(size, dtype=np.float64)
    a = 2 * np.pi * np.arange(segments) / segments
    ring = np.column_stack([sx / 2 * np.cos(a), sy / 2 * np.sin(a)])
    low = np.column_stack([ring, np.full(segments, -sz / 2)]) + c
    high = np.column_stack([ring, np.full(segments, sz / 2)]) + c
    tris = []
    for i in range(segments):
        j = (i + 1) % segments
        tris += [
            (low[i], low[j], high[j]),
            (low[i], high[j], high[i]),
            (c - [0, 0, sz / 2], low[j], low[i]),
            (c + [0, 0, sz / 2], high[i], high[j]),
        ]
    return np.array(tris)


def coco_box(mask: np.ndarray) -> tuple[list[float], int] | None:
    """COCO bbox [x, y, w, h] and pixel area of a boolean mask; None when empty."""
    box = mask_box(mask)
    if box is None:
        return None
    x1, y1, x2, y2 = box
    return [x1, y1, x2 - x1, y2 - y1], int(np.count_nonzero(mask))


def ellipsoid_triangles(center: np.ndarray, size: np.ndarray, yaw_deg: float = 0.0, rings: int = 12) -> np.ndarray:
    """Triangles of an ellipsoid with full extents `size`, turned by `yaw_deg` about +Z (Blender's UV sphere of
    radius 0.5 scaled by `size`)."""
    theta = np.linspace(0.0, np.pi, rings + 1)
    phi = 2 * np.pi * np.arange(2 * rings) / (2 * rings)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    unit = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], axis=-1) / 2
    verts = _turn(unit * np.asarray(size, dtype=np.float64), yaw_deg) + np.asarray(center, dtype=np.float64)
    tris = []
    for i in range(rings):
        for j in range(2 * rings):
            k = (j + 1) % (2 * rings)
            tris += [(verts[i, j], verts[i + 1, j], verts[i + 1, k]), (verts[i, j], verts[i + 1, k], verts[i, k])]
    return np.array(tris)
