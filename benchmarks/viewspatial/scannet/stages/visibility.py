"""Per-frame object visibility (docs/design/viewspatial.md §1.3, after the authors' code).

An object's axis-aligned 3D box (from its mesh segments) is projected into a frame with the
colour intrinsics; a corner counts as visible when it is in front of the camera, inside the
image and not occluded (depth present and z − depth ≤ 0.1 m, depth looked up through the depth
intrinsics). One row per frame and object: visibility ratio, 2D box centre, 3D centre in
camera coordinates. With the label map TSV an object is named by its NYU40 class ("tv" → "television",
as the release names them) and excluded by NYU40 id (the authors' 0, 1, 2, 22, 38, 39, 40 leave the
release's 34 classes); when no label map is given, by raw category name (structure: wall, floor, …).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.viewspatial.scannet.config import EXCLUDED_LABELS, EXCLUDED_NYU40, NYU40_NAMES
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import ScanFormatError
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_write import encode_jpeg
from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.core.camera import project, world_to_camera

#: The `nyu40_id` of every object when no label map is given (not a NYU40 id: unknown).
NO_NYU40 = -1
VISIBILITY_COLUMNS = (
    "scene_id",
    "frame_id",
    "object_id",
    "label",
    "nyu40_id",
    "n_visible",
    "visibility",
    "center_in_image",
    "u_center",
    "v_center",
    "x_cam",
    "y_cam",
    "z_cam",
)


@dataclass(frozen=True)
class ObjectBox:
    """One annotated object: its id, name (its NYU40 class name with a label map, else its raw label), NYU40 id
    and world axis-aligned box."""

    object_id: int
    label: str
    nyu40_id: int
    lo: tuple[float, float, float]
    hi: tuple[float, float, float]

    @property
    def center(self) -> np.ndarray:
        return (np.asarray(self.lo) + np.asarray(self.hi)) / 2.0

    def corners(self) -> np.ndarray:
        """(8, 3) world corners."""
        lo, hi = np.asarray(self.lo, float), np.asarray(self.hi, float)
        return np.array([[(hi if (i >> k) & 1 else lo)[k] for k in range(3)] for i in range(8)])


def object_class(
    label: str,
    nyu40_of: Mapping[str, int] | None,
    excluded: frozenset[int] = EXCLUDED_NYU40,
    excluded_labels: frozenset[str] = EXCLUDED_LABELS,
) -> tuple[int, bool]:
    """(NYU40 id, excluded?) of a raw label.

    With a label map an unmapped label is 0 and an id outside NYU40 is excluded; without one (`nyu40_of` None) the
    id is `NO_NYU40` and the label is excluded when its lower-cased name is in `excluded_labels`.
    """
    if nyu40_of is None:
        return NO_NYU40, label.strip().lower() in excluded_labels
    nyu40 = int(nyu40_of.get(label, 0))
    return nyu40, nyu40 in excluded or nyu40 not in NYU40_NAMES


def object_boxes(
    vertices: np.ndarray,
    seg_indices: Sequence[int],
    groups: Sequence[Mapping[str, Any]],
    nyu40_of: Mapping[str, int] | None,
    excluded: frozenset[int] = EXCLUDED_NYU40,
    excluded_labels: frozenset[str] = EXCLUDED_LABELS,
) -> list[ObjectBox]:
    """Boxes of the aggregation's non-excluded objects: vertices whose segment belongs to the object; named by
    NYU40 class with a label map, by raw label without."""
    verts = np.asarray(vertices, dtype=float)[:, :3]
    segs = np.asarray(seg_indices)
    if len(segs) != len(verts):
        raise ValueError(f"segIndices has {len(segs)} entries for {len(verts)} vertices")
    boxes = []
    for group in groups:
        label = str(group["label"])
        nyu40, skip = object_class(label, nyu40_of, excluded, excluded_labels)
        if skip:
            continue
        mask = np.isin(segs, np.asarray(group["segments"]))
        if not mask.any():
            continue
        pts = verts[mask]
        name = label if nyu40_of is None else NYU40_NAMES[nyu40]
        boxes.append(ObjectBox(int(group["objectId"]), name, nyu40, tuple(pts.min(0)), tuple(pts.max(0))))
    return boxes


def _in_image(uv: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Whether pixel coordinates (..., 2) fall inside an image of `size` (w, h); NaN is outside."""
    w, h = size
    return (uv[..., 0] >= -0.5) & (uv[..., 0] < w - 0.5) & (uv[..., 1] >= -0.5) & (uv[..., 1] < h - 0.5)


def corner_visibility(
    corners_cam: np.ndarray,
    color_intrinsic: np.ndarray,
    color_size: tuple[int, int],
    depth_m: np.ndarray,
    depth_intrinsic: np.ndarray,
    occlusion_m: float = 0.1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per corner: (in front and inside the colour image, visible, pixel coordinates).

    A corner whose depth-image pixel falls outside the depth image has no depth: not visible.
    """
    z = corners_cam[:, 2]
    front = z > 1e-6
    uv = np.full((len(z), 2), np.nan)
    uv[front] = project(corners_cam[front], color_intrinsic)
    inside = front & _in_image(uv, color_size)
    visible = np.zeros(len(z), dtype=bool)
    if inside.any():
        dh, dw = depth_m.shape
        duv = np.rint(project(corners_cam[inside], depth_intrinsic)).astype(int)
        has = (duv[:, 0] >= 0) & (duv[:, 0] < dw) & (duv[:, 1] >= 0) & (duv[:, 1] < dh)
        d = np.zeros(len(duv))
        d[has] = depth_m[duv[has, 1], duv[has, 0]]
        visible[inside] = (d > 0) & (z[inside] - d <= occlusion_m)
    return inside, visible, uv


def frame_visibility(
    boxes: Sequence[ObjectBox],
    pose_c2w: np.ndarray,
    color_intrinsic: np.ndarray,
    color_size: tuple[int, int],
    depth_mm: np.ndarray,
    depth_intrinsic: np.ndarray,
    depth_shift: float = 1000.0,
    occlusion_m: float = 0.1,
) -> list[dict[str, Any]]:
    """One row per object: visible corners, ratio, 2D box centre, camera-frame 3D centre."""
    depth_m = np.asarray(depth_mm, dtype=np.float64) / depth_shift
    w, h = color_size
    rows = []
    for box in boxes:
        corners_cam = world_to_camera(box.corners(), pose_c2w)
        inside, visible, uv = corner_visibility(
            corners_cam, color_intrinsic, color_size, depth_m, depth_intrinsic, occlusion_m
        )
        centre_cam = world_to_camera(box.center[None], pose_c2w)[0]
        centre_in = False
        if centre_cam[2] > 1e-6:
            centre_in = bool(_in_image(project(centre_cam[None], color_intrinsic)[0], color_size))
        front = ~np.isnan(uv[:, 0])
        if front.any():
            pts = np.clip(uv[front], [0.0, 0.0], [w - 1.0, h - 1.0])
            u_c, v_c = (pts.min(0) + pts.max(0)) / 2.0
        else:
            u_c = v_c = float("nan")
        n_vis = int(visible.sum())
        rows.append(
            {
                "object_id": box.object_id,
                "label": box.label,
                "nyu40_id": box.nyu40_id,
                "n_visible": n_vis,
                "visibility": n_vis / 8.0,
                "center_in_image": centre_in,
                "u_center": float(u_c),
                "v_center": float(v_c),
                "x_cam": float(centre_cam[0]),
                "y_cam": float(centre_cam[1]),
                "z_cam": float(centre_cam[2]),
            }
        )
    return rows


def visibility_table(scene_id: str, per_frame: Mapping[int, list[dict[str, Any]]]) -> pd.DataFrame:
    """The per-frame table of a scan, rows ordered by frame then object."""
    rows = [
        {"scene_id": scene_id, "frame_id": int(fid), **row}
        for fid, frame_rows in per_frame.items()
        for row in frame_rows
    ]
    table = pd.DataFrame(rows, columns=list(VISIBILITY_COLUMNS))
    return table.sort_values(["frame_id", "object_id"], kind="stable").reset_index(drop=True)


def scan_boxes(
    scan: Any,
    nyu40_of: Mapping[str, int] | None,
    excluded: frozenset[int] = EXCLUDED_NYU40,
    excluded_labels: frozenset[str] = EXCLUDED_LABELS,
) -> list[ObjectBox]:
    """Object boxes of a `scannet_read.Scan` from its mesh, segments and aggregation (`nyu40_of` None: no label map).

    Segments that do not match the mesh raise ScanFormatError naming the segments file.
    """
    vertices, _, _ = scan.mesh()
    segs = scan.segments()
    if len(segs) != len(vertices):
        raise ScanFormatError(
            f"{scan.segs_path}: segIndices has {len(segs)} entries for the "
            f"{len(vertices)} vertices of {scan.ply_path.name}"
        )
    return object_boxes(vertices, segs, scan.aggregation(), nyu40_of, excluded, excluded_labels)


def scan_visibility(
    scan: Any,
    boxes: Sequence[ObjectBox],
    frame_ids: Sequence[int],
    occlusion_m: float = 0.1,
    image_dir: Path | None = None,
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The per-frame table of `frame_ids`, read one frame at a time; a frame that cannot be read
    is reported as {"frame", "reason"} and skipped. With `image_dir`, each frame's colour image
    is written there as `<frame_id>.jpg`, and other `.jpg` files there (an earlier selection's) are removed."""
    intr = scan.intrinsics
    per_frame: dict[int, list[dict[str, Any]]] = {}
    skipped: list[dict[str, Any]] = []
    for fid in frame_ids:
        try:
            frame = scan.read_frame(int(fid))
        except (ValueError, OSError, KeyError) as exc:
            skipped.append({"frame": int(fid), "reason": str(exc)})
            continue
        per_frame[int(fid)] = frame_visibility(
            boxes, frame.pose, intr.color, intr.color_size, frame.depth_mm, intr.depth, intr.depth_shift, occlusion_m
        )
        if image_dir is not None:
            write_bytes_atomic(image_dir / f"{int(fid)}.jpg", encode_jpeg(frame.color, 95))
    if image_dir is not None:
        for stale in set(image_dir.glob("*.jpg")) - {image_dir / f"{fid}.jpg" for fid in per_frame}:
            stale.unlink()
    return visibility_table(scan.scene_id, per_frame), skipped
