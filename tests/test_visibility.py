"""Per-frame visibility against hand-built scenes: depth maps made analytically in the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_scannet_io import make_tiny_scan

from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import room_mesh, synthetic_room
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import (
    ScanFormatError,
    ScanFrame,
    ScanIntrinsics,
    open_scan,
    read_segs_json,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_write import write_segs_json
from benchfoundry.benchmarks.viewspatial.scannet.stages.visibility import (
    EXCLUDED_NYU40,
    NO_NYU40,
    ObjectBox,
    frame_visibility,
    object_boxes,
    scan_boxes,
    scan_visibility,
    visibility_table,
)
from benchfoundry.core.camera import opencv_camera_to_world

W, H, FX = 160, 120, 100.0
K = np.array([[FX, 0, (W - 1) / 2, 0], [0, FX, (H - 1) / 2, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
IDENTITY = np.eye(4)  # camera at the origin looking down +z (OpenCV axes)


def flat_depth_mm(distance_m: float, shape: tuple[int, int] = (H, W)) -> np.ndarray:
    """A wall facing the camera at `distance_m` (planar depth is constant)."""
    return np.full(shape, int(round(distance_m * 1000)), dtype=np.uint16)


def box(lo, hi, object_id=1, label="chair", nyu40=5) -> ObjectBox:
    return ObjectBox(object_id, label, nyu40, tuple(map(float, lo)), tuple(map(float, hi)))


def test_box_in_front_of_a_far_wall_is_fully_visible() -> None:
    b = box((-0.3, -0.3, 2.0), (0.3, 0.3, 2.6))
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(5.0), K)
    assert row["n_visible"] == 8 and row["visibility"] == 1.0
    assert row["center_in_image"]
    assert (row["x_cam"], row["y_cam"], row["z_cam"]) == pytest.approx((0.0, 0.0, 2.3))
    assert (row["u_center"], row["v_center"]) == pytest.approx(((W - 1) / 2, (H - 1) / 2))


def test_occluder_nearer_than_the_box_hides_every_corner() -> None:
    b = box((-0.3, -0.3, 2.0), (0.3, 0.3, 2.6))
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(1.0), K)
    assert row["n_visible"] == 0
    # Depth within 0.1 m of the corners counts as not occluded (the 0.1 m tolerance).
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(1.95), K)
    assert row["n_visible"] == 4  # the four front corners at z = 2.0
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(2.55), K)
    assert row["n_visible"] == 8


def test_missing_depth_counts_as_not_visible() -> None:
    b = box((-0.3, -0.3, 2.0), (0.3, 0.3, 2.6))
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), np.zeros((H, W), np.uint16), K)
    assert row["n_visible"] == 0


def test_corners_behind_the_camera_or_outside_the_image_are_not_visible() -> None:
    # x from 0 to 10 at z = 2..2.5: the right half lies far outside the image (u > W).
    wide = box((0.0, -0.1, 2.0), (10.0, 0.1, 2.5))
    (row,) = frame_visibility([wide], IDENTITY, K, (W, H), flat_depth_mm(9.0), K)
    expected = (
        sum(1 for x in (0.0, 10.0) for z in (2.0, 2.5) if -0.5 <= FX * x / z + (W - 1) / 2 < W - 0.5) * 2
    )  # y = ±0.1 both project inside
    assert row["n_visible"] == expected == 4
    behind = box((-0.3, -0.3, -2.0), (0.3, 0.3, -1.0))
    (row,) = frame_visibility([behind], IDENTITY, K, (W, H), flat_depth_mm(9.0), K)
    assert row["n_visible"] == 0 and not row["center_in_image"]


def test_half_resolution_depth_with_its_own_intrinsics_gives_the_same_answer() -> None:
    rng = np.random.default_rng(3)
    k_half = K.copy()
    k_half[:2, :3] /= 2
    for _ in range(30):
        c = rng.uniform([-1, -1, 1.5], [1, 1, 4])
        b = box(c - 0.2, c + 0.2)
        wall = rng.uniform(1.0, 5.0)
        full = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(wall), K)[0]
        half = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(wall, (H // 2, W // 2)), k_half)[0]
        assert full["n_visible"] == half["n_visible"]


def test_corners_outside_the_depth_images_field_of_view_have_no_depth() -> None:
    # The depth camera has twice the focal length: it sees only the central half of the colour view.
    k_narrow = K.copy()
    k_narrow[0, 0] = k_narrow[1, 1] = 2 * FX
    b = box((0.0, -0.1, 2.0), (1.2, 0.1, 2.5))
    corners = [(x, y, z) for x in (0.0, 1.2) for y in (-0.1, 0.1) for z in (2.0, 2.5)]

    def within(k: np.ndarray, size: tuple[int, int], x: float, y: float, z: float) -> bool:
        u, v = round(k[0, 0] * x / z + k[0, 2]), round(k[1, 1] * y / z + k[1, 2])
        return 0 <= u < size[0] and 0 <= v < size[1]

    in_colour = [c for c in corners if within(K, (W, H), *c)]
    in_depth = [c for c in in_colour if within(k_narrow, (W, H), *c)]
    assert len(in_colour) == 8 and len(in_depth) == 4  # the geometry does what the test is about
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), flat_depth_mm(5.0), k_narrow)
    assert row["n_visible"] == len(in_depth)
    # A depth image cropped to its left 70 columns (same intrinsics) loses the corners beyond them.
    crop = flat_depth_mm(5.0)[:, :70]
    (row,) = frame_visibility([b], IDENTITY, K, (W, H), crop, K)
    assert row["n_visible"] == sum(within(K, (70, H), *c) for c in corners) == 0


def test_camera_coordinates_follow_the_pose() -> None:
    eye, target = np.array([1.0, -2.0, 1.5]), np.array([1.0, 3.0, 1.5])
    pose = opencv_camera_to_world(eye, target)  # looking along +y with z up: camera x = world +x, camera y = world −z
    b = box((1.3, 1.8, 1.0), (1.7, 2.2, 1.4))
    (row,) = frame_visibility([b], pose, K, (W, H), flat_depth_mm(9.0), K)
    # The centre (1.5, 2.0, 1.2) is 0.5 m right, 0.3 m below and 4 m ahead of the eye.
    assert (row["x_cam"], row["y_cam"], row["z_cam"]) == pytest.approx((0.5, 0.3, 4.0))


def test_object_boxes_of_the_synthetic_room_match_its_furniture_and_exclude_structure() -> None:
    room = synthetic_room("scene0900_00")
    mesh = room_mesh(room)
    nyu40 = {"wall": 1, "floor": 2, "ceiling": 22, **{f.label: f.nyu40_id for f in room.furniture}}
    boxes = object_boxes(mesh.vertices, mesh.seg_indices, mesh.groups, nyu40)
    kept = [f for f in room.furniture if f.nyu40_id not in EXCLUDED_NYU40]
    assert len(boxes) == len(kept)
    assert all(b.nyu40_id not in EXCLUDED_NYU40 for b in boxes)
    # Named by NYU40 class as the release names them: the synthetic "tv" (NYU40 25) is "television".
    assert [b.label for b in boxes] == [{"tv": "television"}.get(f.label, f.label) for f in kept]
    assert "television" in {b.label for b in boxes}
    for b, f in zip(boxes, kept):
        np.testing.assert_allclose(b.lo, np.array(f.center) - np.array(f.size) / 2, atol=1e-9)
        np.testing.assert_allclose(b.hi, np.array(f.center) + np.array(f.size) / 2, atol=1e-9)
    # An unmapped label is NYU40 0, and an id outside NYU40 is no class: both excluded.
    assert not object_boxes(mesh.vertices, mesh.seg_indices, mesh.groups, {})
    assert not object_boxes(mesh.vertices, mesh.seg_indices, mesh.groups, {f.label: 41 for f in room.furniture})


def test_without_a_label_map_structure_is_excluded_by_raw_name_and_the_rest_kept() -> None:
    room = synthetic_room("scene0900_00")
    mesh = room_mesh(room)
    structure = {"wall", "floor", "ceiling"}
    assert structure <= {str(g["label"]) for g in mesh.groups}
    boxes = object_boxes(mesh.vertices, mesh.seg_indices, mesh.groups, None)
    # Every piece of furniture (the otherprop trash can too: its raw name is not a structure name).
    assert [b.label for b in boxes] == [f.label for f in room.furniture]
    assert all(b.nyu40_id == NO_NYU40 for b in boxes)
    for b, f in zip(boxes, room.furniture):
        np.testing.assert_allclose(b.lo, f.lo, atol=1e-9)
    # Names match case-insensitively; the list is the caller's.
    shouting = [{**g, "label": str(g["label"]).upper()} for g in mesh.groups]
    assert len(object_boxes(mesh.vertices, mesh.seg_indices, shouting, None)) == len(room.furniture)
    only_beds = object_boxes(mesh.vertices, mesh.seg_indices, mesh.groups, None, excluded_labels=frozenset({"bed"}))
    assert {b.label for b in only_beds} == structure | {f.label for f in room.furniture} - {"bed"}


def test_table_has_one_row_per_frame_and_object() -> None:
    b1, b2 = box((-0.3, -0.3, 2.0), (0.3, 0.3, 2.6), 1), box((0.5, 0.0, 3.0), (0.9, 0.4, 3.4), 2, "desk", 14)
    per_frame = {fid: frame_visibility([b2, b1], IDENTITY, K, (W, H), flat_depth_mm(5.0), K) for fid in (7, 3)}
    table = visibility_table("scene0000_00", per_frame)
    assert list(zip(table["frame_id"], table["object_id"])) == [(3, 1), (3, 2), (7, 1), (7, 2)]
    assert (table["scene_id"] == "scene0000_00").all()


class _FakeScan:
    """Three frames of a scan looking at one box; frame 5 cannot be decoded."""

    scene_id = "scene0000_00"

    def __init__(self) -> None:
        self.intrinsics = ScanIntrinsics(K, K, (W, H), (W, H), 1000.0)

    def read_frame(self, fid: int) -> ScanFrame:
        if fid == 5:
            raise ScanFormatError(f"scene0000_00.sens: frame {fid}: colour image cannot be decoded")
        return ScanFrame(fid, np.full((H, W, 3), 128, np.uint8), flat_depth_mm(5.0), IDENTITY)


def test_scan_visibility_skips_an_unreadable_frame_and_writes_the_others(tmp_path: Path) -> None:
    b = box((-0.3, -0.3, 2.0), (0.3, 0.3, 2.6))
    table, skipped = scan_visibility(_FakeScan(), [b], [4, 5, 6], image_dir=tmp_path)
    assert [s["frame"] for s in skipped] == [5] and "frame 5" in skipped[0]["reason"]
    assert list(table["frame_id"]) == [4, 6] and (table["visibility"] == 1.0).all()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["4.jpg", "6.jpg"]


def test_scan_visibility_removes_images_of_an_earlier_selection(tmp_path: Path) -> None:
    b = box((-0.3, -0.3, 2.0), (0.3, 0.3, 2.6))
    scan_visibility(_FakeScan(), [b], [1, 2, 4], image_dir=tmp_path)
    scan_visibility(_FakeScan(), [b], [4, 5, 6], image_dir=tmp_path)  # frame 5 cannot be read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["4.jpg", "6.jpg"]


def test_segments_that_do_not_match_the_mesh_name_the_segments_file(tmp_path: Path) -> None:
    scan = open_scan(make_tiny_scan(tmp_path / "scan", "export"))
    write_segs_json(scan.segs_path, scan.scene_id, read_segs_json(scan.segs_path)[:-5])
    with pytest.raises(ScanFormatError, match=rf"{scan.segs_path.name}: segIndices has \d+ entries"):
        scan_boxes(scan, None)
