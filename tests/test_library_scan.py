"""Library objects in the synthetic ScanNet scans (issue 50, deliver 2): the room's pieces of the library's classes
placed by the shared room layout around the pieces that stay (inside the room, clear of them, a sofa and a bookcase
backed onto a wall, chairs facing the table), and, rendered with stand-in box assets, the scan's mesh holding each
library object at exactly the box its manifest row, scale, turn and place give."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from stand_in_library import box_asset, make_library

from benchfoundry.assets.asset_library import AssetLibrary, LibraryError
from benchfoundry.benchmarks.viewspatial.scannet.library_room import (
    ASSET_LIBRARY_FIELD,
    LIBRARY_CLASS,
    LibraryPiece,
    furnish,
)
from benchfoundry.benchmarks.viewspatial.scannet.scannet_read import ScanFormatError, open_scan
from benchfoundry.benchmarks.viewspatial.scannet.synthetic_room import SyntheticScene, scene_room, synthetic_scenes
from benchfoundry.benchmarks.viewspatial.scannet.synthetic_scan import (
    RenderSettings,
    make_synthetic_scan,
    rendered_library_meshes,
)
from benchfoundry.benchmarks.viewspatial.scannet.synthetic_stage import synthetic_task
from benchfoundry.benchmarks.viewspatial.scannet.visibility import scan_boxes
from benchfoundry.configs.loader import load_config
from benchfoundry.core.render_spec import LIBRARY_MESHES
from benchfoundry.pipeline import render_client

#: Stand-ins shaped as Infinigen's are: chairs, sofas and bookcases built facing +X (front_deg 90).
LIBRARY = AssetLibrary(
    Path("/lib"),
    (
        box_asset("chair", 1, (0.5, 0.5, 0.9), front_deg=90.0),
        box_asset("sofa", 1, (0.9, 2.0, 0.85), front_deg=90.0),
        box_asset("table", 1, (1.2, 0.7, 0.75)),
        box_asset("lamp", 1, (0.3, 0.3, 1.6)),
        box_asset("bookshelf", 1, (0.35, 0.9, 1.8), offset=0.05, front_deg=90.0),
    ),
)
SCENES = synthetic_scenes({"val": 3, "train": 3})


def asset_of(piece: LibraryPiece, library: AssetLibrary = LIBRARY):
    (asset,) = [a for a in library.assets if str(library.file_of(a)) == piece.placed.blend]
    return asset


def world_corners(piece: LibraryPiece, library: AssetLibrary = LIBRARY) -> np.ndarray:
    """The 8 corners of the placed asset's box in the room: the manifest's box scaled, turned and moved."""
    asset, placed = asset_of(piece, library), piece.placed
    lo, hi = np.array(asset.bbox_min), np.array(asset.bbox_max)
    local = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    t = math.radians(placed.yaw_deg)
    turn = np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])
    return local * placed.scale @ turn.T + np.array(placed.location)


def front(piece: LibraryPiece) -> np.ndarray:
    """Where the placed piece's front faces (world x, y): −Y turned by its front_deg, then by its yaw."""
    t = math.radians((asset_of(piece).front_deg or 0.0) + piece.placed.yaw_deg)
    return np.array([math.sin(t), -math.cos(t)])


def inside_box(points: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.all((points > lo[:2]) & (points < hi[:2]), axis=1)


def sampled_footprint(piece: LibraryPiece) -> np.ndarray:
    """Points spread over the placed footprint (bilinear in its four bottom corners)."""
    c = world_corners(piece)[[0, 4, 6, 2], :2]  # (lo, lo), (hi, lo), (hi, hi), (lo, hi) at the bottom
    u, v = np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 9))
    u, v = u.reshape(-1, 1), v.reshape(-1, 1)
    return (1 - u) * (1 - v) * c[0] + u * (1 - v) * c[1] + u * v * c[2] + (1 - u) * v * c[3]


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_the_library_classes_are_drawn_from_the_library_and_the_rest_stay(scene: SyntheticScene) -> None:
    room = scene_room(scene)
    kept, pieces = furnish(room, LIBRARY)
    assert Counter(p.label for p in pieces) == Counter(f.label for f in room.furniture if f.label in LIBRARY_CLASS)
    assert list(kept.furniture) == [f for f in room.furniture if f.label not in LIBRARY_CLASS]
    assert len(pieces) == 6 and all(p.placed.blend.startswith("/lib/") for p in pieces)


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_placed_pieces_stand_on_the_floor_inside_the_room_clear_of_the_pieces_that_stay(
    scene: SyntheticScene,
) -> None:
    kept, pieces = furnish(scene_room(scene), LIBRARY)
    w, d, _ = kept.size
    floor_pieces = [f for f in kept.furniture if f.lo[2] < 0.05]
    for piece in pieces:
        corners = world_corners(piece)
        assert corners[:, 2].min() == pytest.approx(0.0, abs=1e-9)
        assert corners[:, 0].min() > 0 and corners[:, 0].max() < w and corners[:, 1].min() > 0
        assert corners[:, 1].max() < d
        points = sampled_footprint(piece)
        for f in floor_pieces:
            assert not inside_box(points, f.lo, f.hi).any(), (piece.label, f.label)


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_a_sofa_and_a_bookcase_back_onto_a_wall_and_the_chairs_face_the_table(scene: SyntheticScene) -> None:
    kept, pieces = furnish(scene_room(scene), LIBRARY)
    w, d, _ = kept.size
    (table,) = [p for p in pieces if p.label == "table"]
    table_xy = world_corners(table)[:, :2].mean(axis=0)
    for piece in pieces:
        corners, facing = world_corners(piece), front(piece)
        centre = corners[:, :2].mean(axis=0)
        if piece.label in ("sofa", "bookshelf"):
            depth = ((corners[:, :2] - centre) @ -facing).max()  # how far its back lies behind its centre
            behind = centre - facing * depth
            assert min(behind[0], w - behind[0], behind[1], d - behind[1]) < 0.12, piece.label
            assert abs(facing[0]) > 0.99 or abs(facing[1]) > 0.99  # square to the wall
            assert facing @ (np.array([w / 2, d / 2]) - behind) > 0  # its front faces into the room
        if piece.label == "chair":
            towards = table_xy - centre
            assert facing @ towards > 0.9 * np.linalg.norm(towards)


def test_without_the_classes_in_the_library_the_room_is_unchanged() -> None:
    room = scene_room(SCENES[0])
    only_plants = AssetLibrary(Path("/lib"), (box_asset("potted plant", 1, (0.5, 0.5, 1.0)),))
    assert furnish(room, only_plants) == (room, ())


def test_library_meshes_missing_or_malformed_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ScanFormatError, match=LIBRARY_MESHES):
        rendered_library_meshes(tmp_path, 1)
    np.savez(tmp_path / LIBRARY_MESHES, vertices_0=np.zeros((3, 3)), faces_0=np.array([[0, 1, 3]]))
    with pytest.raises(ScanFormatError, match=f"{LIBRARY_MESHES}: library object 0"):
        rendered_library_meshes(tmp_path, 1)
    with pytest.raises(ScanFormatError, match="vertices_1"):
        rendered_library_meshes(tmp_path, 2)


@pytest.mark.blender
def test_a_rendered_scan_holds_each_library_object_at_its_exact_box(tmp_path: Path) -> None:
    wanted = [
        ("chair", (0.5, 0.5, 0.9), (0.6, 0.1, 0.1)),
        ("sofa", (2.0, 0.9, 0.85), (0.1, 0.2, 0.6)),
        ("table", (1.2, 0.7, 0.75), (0.5, 0.3, 0.1)),
    ]
    library = make_library(tmp_path / "library", wanted, ASSET_LIBRARY_FIELD)
    scene = SCENES[0]
    settings = RenderSettings(width=64, height=48, samples=1, frames=4)
    try:
        make_synthetic_scan(tmp_path / "root", scene, settings, library)
    finally:
        render_client.close_all()
    kept, pieces = furnish(scene_room(scene), library)
    scan = open_scan(tmp_path / "root" / "scans" / scene.scene_id)
    boxes = scan_boxes(scan, None)
    library_boxes = sorted(boxes, key=lambda b: b.object_id)[-len(pieces) :]
    assert [b.label for b in library_boxes] == [p.label for p in pieces]
    for box, piece in zip(library_boxes, pieces, strict=True):
        corners = world_corners(piece, library)
        np.testing.assert_allclose(box.lo, corners.min(axis=0), atol=1e-5)
        np.testing.assert_allclose(box.hi, corners.max(axis=0), atol=1e-5)
    stayed = sorted(boxes, key=lambda b: b.object_id)[: -len(pieces)]
    assert [b.label for b in stayed] == [f.label for f in kept.furniture]
    for box, f in zip(stayed, kept.furniture, strict=True):
        np.testing.assert_allclose(box.lo, f.lo, atol=1e-5)
        np.testing.assert_allclose(box.hi, f.hi, atol=1e-5)


def test_a_scan_build_without_its_library_names_the_config_field(tmp_path: Path) -> None:
    config = load_config("smoke", [f"viewspatial.synthetic.asset_library={tmp_path / 'none'}"])
    with pytest.raises(LibraryError, match=f"{ASSET_LIBRARY_FIELD}: {tmp_path / 'none'}"):
        synthetic_task.fn(str(tmp_path / "out"), "val", config)
    assert not (tmp_path / "out" / "viewspatial" / "synthetic" / "scans").exists()
