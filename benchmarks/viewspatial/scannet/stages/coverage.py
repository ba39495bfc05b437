"""Max-coverage frame selection (docs/design/viewspatial.md §1.2).

Each frame's depth is back-projected with the depth intrinsics to world points and voxelised
(0.1 m); the voxels that are also scene voxels (the mesh surface voxelised) form the frame's set.
Greedy selection adds the frame covering the most not-yet-covered scene voxels, the lowest
frame id winning ties, until the budget is reached or the gain drops below `min_gain`: a
fraction of the scene's voxels (a gain of zero always stops). `greedy_lazy` returns exactly the
selection of `greedy_plain` (coverage gains only shrink as frames are added, so a stale gain is an
upper bound and most frames are never re-evaluated).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import Scan, ScanFormatError, open_scan

_BITS = 21
_OFFSET = 1 << (_BITS - 1)
_MASK = (1 << _BITS) - 1


def voxel_keys(points: np.ndarray, voxel: float) -> np.ndarray:
    """One int64 key per point for its voxel (21 bits per axis); points out of range are dropped."""
    idx = np.floor(np.asarray(points, dtype=np.float64) / voxel).astype(np.int64) + _OFFSET
    inside = ((idx >= 0) & (idx <= _MASK)).all(axis=1)
    idx = idx[inside]
    return (idx[:, 0] << (2 * _BITS)) | (idx[:, 1] << _BITS) | idx[:, 2]


def surface_points(vertices: np.ndarray, faces: np.ndarray, spacing: float) -> np.ndarray:
    """Vertices plus points on each triangle at most `spacing` apart (a barycentric grid), so that
    large triangles (walls of a decimated mesh) count as surface, not only their corners."""
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    chunks = [v]
    if len(f):
        a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
        longest = np.max(
            [np.linalg.norm(b - a, axis=1), np.linalg.norm(c - b, axis=1), np.linalg.norm(a - c, axis=1)], axis=0
        )
        steps = np.ceil(longest / spacing).astype(np.int64)
        for n in np.unique(steps[steps > 1]):
            sel = steps == n
            i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
            keep = (i + j) <= n
            wb, wc = (i[keep] / n)[None, :, None], (j[keep] / n)[None, :, None]
            pa, pb, pc = a[sel][:, None, :], b[sel][:, None, :], c[sel][:, None, :]
            chunks.append((pa + wb * (pb - pa) + wc * (pc - pa)).reshape(-1, 3))
    return np.concatenate(chunks)


def scene_voxels(vertices: np.ndarray, faces: np.ndarray | None, voxel: float) -> np.ndarray:
    """Sorted unique voxel keys of the mesh surface (vertices, and triangles sampled at voxel/2)."""
    faces = np.zeros((0, 3), dtype=np.int64) if faces is None else faces
    return np.unique(voxel_keys(surface_points(vertices, faces, voxel / 2), voxel))


def backproject(
    depth_mm: np.ndarray, k_depth: np.ndarray, pose: np.ndarray, depth_shift: float = 1000.0, stride: int = 1
) -> np.ndarray:
    """World points (N,3) of the pixels with depth, every `stride`-th row and column.

    Pixel (u, v) at integer indices: X = (u − cx)·z/fx, Y = (v − cy)·z/fy (OpenCV camera axes),
    then camera-to-world `pose`. Uses the depth intrinsics, never the colour ones.
    """
    d = np.asarray(depth_mm)[::stride, ::stride]
    h, w = d.shape
    v, u = np.mgrid[0 : h * stride : stride, 0 : w * stride : stride]
    valid = d > 0
    z = d[valid].astype(np.float64) / depth_shift
    x = (u[valid] - k_depth[0, 2]) * z / k_depth[0, 0]
    y = (v[valid] - k_depth[1, 2]) * z / k_depth[1, 1]
    cam = np.stack([x, y, z], axis=1)
    return cam @ np.asarray(pose[:3, :3], dtype=np.float64).T + pose[:3, 3]


def frame_voxel_set(points: np.ndarray, scene_keys: np.ndarray, voxel: float) -> np.ndarray:
    """Sorted indices (int32) into `scene_keys` of the scene voxels that `points` fall in."""
    keys = np.unique(voxel_keys(points, voxel))
    if not len(scene_keys) or not len(keys):
        return np.zeros(0, dtype=np.int32)
    pos = np.minimum(np.searchsorted(scene_keys, keys), len(scene_keys) - 1)
    return pos[scene_keys[pos] == keys].astype(np.int32)


def _threshold(n_voxels: int, min_gain: float) -> float:
    return max(min_gain * n_voxels, 1e-12)


def greedy_plain(sets: Sequence[np.ndarray], n_voxels: int, budget: int, min_gain: float = 0.0) -> list[int]:
    """Reference greedy: every round, every set's gain; the first (lowest position) maximum wins.

    Returns positions into `sets`. Stops at `budget` or when the best gain < min_gain·n_voxels or is 0.
    """
    if not len(sets):
        return []
    flat = np.concatenate([np.asarray(s, dtype=np.intp) for s in sets])
    sizes = np.array([len(s) for s in sets], dtype=np.int64)
    ends = np.cumsum(sizes)
    starts = ends - sizes
    covered = np.zeros(n_voxels, dtype=bool)
    threshold = _threshold(n_voxels, min_gain)
    chosen: list[int] = []
    while len(chosen) < budget:
        uncovered = np.concatenate([[0], np.cumsum(~covered[flat], dtype=np.int64)])
        gains = uncovered[ends] - uncovered[starts]
        best = int(np.argmax(gains))
        if gains[best] < threshold:
            break
        chosen.append(best)
        covered[sets[best]] = True
    return chosen


def greedy_lazy(sets: Sequence[np.ndarray], n_voxels: int, budget: int, min_gain: float = 0.0) -> list[int]:
    """Lazy greedy (CELF): the same selection as `greedy_plain`, re-evaluating only frames whose
    stale gain (an upper bound) tops the heap. Heap entries (−gain, position) break ties the same way."""
    covered = np.zeros(n_voxels, dtype=bool)
    threshold = _threshold(n_voxels, min_gain)
    heap = [(-len(s), i) for i, s in enumerate(sets)]
    heapq.heapify(heap)
    fresh_at = [0] * len(sets)
    chosen: list[int] = []
    while heap and len(chosen) < budget:
        neg_gain, i = heap[0]
        if fresh_at[i] == len(chosen):
            if -neg_gain < threshold:
                break
            heapq.heappop(heap)
            chosen.append(i)
            covered[sets[i]] = True
        else:
            gain = len(sets[i]) - int(np.count_nonzero(covered[sets[i]]))
            fresh_at[i] = len(chosen)
            heapq.heapreplace(heap, (-gain, i))
    return chosen


GREEDY = {"plain": greedy_plain, "lazy": greedy_lazy}


@dataclass
class Selection:
    """A scan's selected frames, in the order chosen, and what they cover."""

    selected: list[int]
    gains: list[int]
    covered: int
    n_voxels: int
    skipped: list[dict[str, Any]] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return self.covered / self.n_voxels if self.n_voxels else 0.0

    def summary(self) -> dict[str, Any]:
        """The CLI's JSON: selected frame ids, covered fraction, skipped frames."""
        return {"selected": self.selected, "coverage": self.coverage, "skipped": self.skipped}


def frame_pool(frame_ids: Sequence[int], frame_step: int) -> list[int]:
    """The frames selection draws from: every `frame_step`-th frame id (0, 10, 20, … for the authors' 10)."""
    return [int(f) for f in frame_ids if int(f) % frame_step == 0]


def iter_frame_sets(
    scan: Scan,
    scene_keys: np.ndarray,
    voxel: float,
    depth_stride: int,
    skipped: list[dict[str, Any]],
    frame_step: int = 1,
) -> Iterator[tuple[int, np.ndarray]]:
    """(frame id, scene-voxel indices) one pool frame at a time; frames that fail to read go to `skipped`."""
    k = scan.intrinsics.depth
    for fid in frame_pool(scan.frame_ids(), frame_step):
        try:
            _, depth, pose = next(scan.iter_depth([fid]))
        except ScanFormatError as exc:
            skipped.append({"frame": fid, "reason": str(exc)})
            continue
        points = backproject(depth, k, pose, scan.intrinsics.depth_shift, depth_stride)
        yield fid, frame_voxel_set(points, scene_keys, voxel)


def select_frames(
    scan: Scan | str | Path,
    *,
    voxel: float = 0.1,
    budget: int = 32,
    min_gain: float = 0.001,
    depth_stride: int = 4,
    method: str = "lazy",
    frame_step: int = 1,
) -> Selection:
    """Max-coverage selection over a scan's every `frame_step`-th frame (either layout)."""
    if not isinstance(scan, Scan):
        scan = open_scan(scan)
    vertices, faces, _ = scan.mesh()
    scene_keys = scene_voxels(vertices, faces, voxel)
    skipped = list(scan.skipped)
    ids, sets = [], []
    for fid, s in iter_frame_sets(scan, scene_keys, voxel, depth_stride, skipped, frame_step):
        ids.append(fid)
        sets.append(s)
    order = GREEDY[method](sets, len(scene_keys), budget, min_gain)
    covered = np.zeros(len(scene_keys), dtype=bool)
    gains = []
    for i in order:
        gains.append(int(np.count_nonzero(~covered[sets[i]])))
        covered[sets[i]] = True
    skipped.sort(key=lambda s: s["frame"])
    return Selection([ids[i] for i in order], gains, int(covered.sum()), len(scene_keys), skipped)
