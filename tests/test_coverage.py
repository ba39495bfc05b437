"""Max-coverage selection: lazy greedy equals plain greedy, greedy equals a set-based reference,
back-projection lands on the known wall, both scan layouts select the same frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_scannet_io import WALL_Y, _intrinsics, _pose, _wall_depth, make_tiny_scan

from benchfoundry.benchmarks.viewspatial.scannet.stages import coverage as cov
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import open_scan


def _reference_greedy(sets: list[set[int]], n: int, budget: int, min_gain: float) -> list[int]:
    """Greedy max coverage with Python sets; ties go to the lowest position."""
    covered: set[int] = set()
    chosen: list[int] = []
    while len(chosen) < budget:
        gains = [len(s - covered) for s in sets]
        if not gains:
            break
        best = max(range(len(sets)), key=lambda i: (gains[i], -i))
        if gains[best] == 0 or gains[best] < min_gain * n:
            break
        chosen.append(best)
        covered |= sets[best]
    return chosen


def _random_instance(rng: np.random.Generator) -> tuple[list[np.ndarray], int]:
    """Few voxels, many frames, small sets: lots of equal gains and duplicate sets."""
    n = int(rng.integers(1, 25))
    m = int(rng.integers(0, 30))
    sets = [np.unique(rng.integers(0, n, int(rng.integers(0, 7)))).astype(np.int32) for _ in range(m)]
    if m > 3:
        sets[int(rng.integers(m))] = sets[0].copy()  # an exact duplicate
    return sets, n


def test_lazy_equals_plain_and_reference_on_random_instances() -> None:
    rng = np.random.default_rng(7)
    ties = 0
    for _ in range(1500):
        sets, n = _random_instance(rng)
        budget = int(rng.integers(1, 10))
        min_gain = float(rng.choice([0.0, 0.05, 0.15, 0.5]))
        plain = cov.greedy_plain(sets, n, budget, min_gain)
        lazy = cov.greedy_lazy(sets, n, budget, min_gain)
        ref = _reference_greedy([set(s.tolist()) for s in sets], n, budget, min_gain)
        assert plain == ref
        assert lazy == plain
        sizes = [len(s) for s in sets]
        ties += len(sizes) != len(set(sizes))
    assert ties > 500  # the instances really exercise tie-breaking


def test_greedy_gains_shrink_and_stop_rule() -> None:
    rng = np.random.default_rng(3)
    n = 400
    sets = [np.unique(rng.integers(0, n, 60)).astype(np.int32) for _ in range(50)]
    order = cov.greedy_lazy(sets, n, budget=50, min_gain=0.02)
    covered = np.zeros(n, bool)
    gains = []
    for i in order:
        gains.append(int((~covered[sets[i]]).sum()))
        covered[sets[i]] = True
    assert gains == sorted(gains, reverse=True)
    assert min(gains) >= 0.02 * n
    best_next = max(int((~covered[s]).sum()) for s in sets)
    assert best_next < 0.02 * n  # it stopped because of the minimum gain, not the budget
    assert cov.greedy_lazy(sets, n, budget=3) == order[:3]


def test_voxel_keys_match_floor_coordinates() -> None:
    rng = np.random.default_rng(1)
    pts = rng.uniform(-30, 30, (5000, 3))
    keys = cov.voxel_keys(pts, 0.1)
    cells = [tuple(c) for c in np.floor(pts / 0.1).astype(int)]
    same_key = keys[:, None] == keys[None, :1000]
    same_cell = np.array([[a == b for b in cells[:1000]] for a in cells])
    assert np.array_equal(same_key, same_cell)


def test_big_triangles_count_as_surface() -> None:
    """A 2 m × 2 m square (two triangles) at z = 0.55 fills its 20 × 20 (+ edge row/column) voxels."""
    verts = np.array([[0.0, 0, 0.55], [2, 0, 0.55], [2, 2, 0.55], [0, 2, 0.55]])
    faces = np.array([[0, 1, 2], [0, 2, 3]])
    keys = cov.scene_voxels(verts, faces, 0.1)
    i, j = np.meshgrid(np.arange(20), np.arange(20), indexing="ij")
    centres = np.column_stack([i.ravel() * 0.1 + 0.05, j.ravel() * 0.1 + 0.05, np.full(i.size, 0.55)])
    assert np.isin(cov.voxel_keys(centres, 0.1), keys).all()
    assert len(keys) == 21 * 21  # the square's edges at x = 2, y = 2 fall in a 21st row/column
    assert len(cov.scene_voxels(verts, None, 0.1)) == 4


def test_backprojection_lands_on_the_wall() -> None:
    intr = _intrinsics()
    pose = _pose(0.3, 15)
    depth = _wall_depth(pose, intr.depth, intr.depth_size)
    pts = cov.backproject(depth, intr.depth, pose, 1000.0)
    assert len(pts) == (depth > 0).sum()
    assert np.abs(pts[:, 1] - WALL_Y).max() < 2e-3  # depth is rounded to 1 mm
    wrong = cov.backproject(depth, intr.color, pose, 1000.0)
    assert np.abs(wrong[:, 1] - WALL_Y).max() > 0.02  # the colour intrinsics would miss it
    strided = cov.backproject(depth, intr.depth, pose, 1000.0, stride=4)
    sparse = np.zeros_like(depth)
    sparse[::4, ::4] = depth[::4, ::4]
    np.testing.assert_allclose(strided, cov.backproject(sparse, intr.depth, pose, 1000.0), atol=1e-12)


def test_raw_and_export_select_the_same(tmp_path: Path) -> None:
    raw = cov.select_frames(make_tiny_scan(tmp_path / "raw", "raw"), depth_stride=1)
    exp = cov.select_frames(make_tiny_scan(tmp_path / "exp", "export"), depth_stride=1)
    assert raw.summary() == exp.summary() and raw.gains == exp.gains
    assert 2 not in raw.selected and raw.skipped[0]["frame"] == 2
    assert cov.select_frames(tmp_path / "raw", depth_stride=1, method="plain").selected == raw.selected


def test_selection_coverage_matches_independent_count(tmp_path: Path) -> None:
    scan = open_scan(make_tiny_scan(tmp_path / "raw", "raw"))
    sel = cov.select_frames(scan, budget=2, depth_stride=2, min_gain=0.0)
    intr = _intrinsics()
    # the wall's voxels: x in [-2, 2], z in [0, 2.5], one layer at y = 2.05
    n_scene = 41 * 26
    assert sel.n_voxels == n_scene
    seen: set[tuple[int, int, int]] = set()
    per_frame = {}
    for frame in scan.iter_frames():
        pts = cov.backproject(frame.depth_mm, intr.depth, frame.pose, 1000.0, stride=2)
        cells = {
            tuple(c) for c in np.floor(pts / 0.1).astype(int) if -20 <= c[0] <= 20 and 0 <= c[2] <= 25 and c[1] == 20
        }
        per_frame[frame.frame_id] = cells
    first = max(per_frame, key=lambda f: (len(per_frame[f]), -f))
    assert sel.selected[0] == first
    for fid in sel.selected:
        seen |= per_frame[fid]
    assert sel.covered == len(seen)
    assert sel.coverage == pytest.approx(len(seen) / n_scene)


def test_corrupt_export_frame_is_reported_and_skipped(tmp_path: Path) -> None:
    root = make_tiny_scan(tmp_path / "exp", "export")
    (root / "depth" / "1.png").write_bytes(b"not a png")
    sel = cov.select_frames(root, depth_stride=1)
    reasons = {s["frame"]: s["reason"] for s in sel.skipped}
    assert set(reasons) == {1, 2} and "1.png" in reasons[1]
    assert 1 not in sel.selected and sel.selected


def test_frames_are_drawn_from_every_nth_frame(tmp_path: Path) -> None:
    assert cov.frame_pool([0, 3, 10, 19, 20, 31, 40], 10) == [0, 10, 20, 40]
    scan = open_scan(make_tiny_scan(tmp_path / "raw", "raw"))
    every_other = cov.select_frames(scan, depth_stride=2, min_gain=0.0, frame_step=2)
    assert every_other.selected and all(f % 2 == 0 for f in every_other.selected)
    assert set(every_other.selected) <= set(scan.frame_ids())
