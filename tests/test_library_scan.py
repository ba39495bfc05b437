"""Library objects in the synthetic ScanNet scans (issue 50, deliver 2): the room's pieces of the library's classes
placed by the shared room layout around the pieces that stay (inside the room, clear of them, a sofa, a bookcase, a
desk, a cabinet and a bed backed onto a wall facing into the room, the nightstand at the bed's head, chairs facing
the table, no two overlapping), what rested on a drawn piece on the library object's top where it stood on the box,
what hung above one on its wall clear of it, and, rendered with stand-in box assets, the scan's mesh holding each
library object at exactly the box its manifest row, scale, turn and place give."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from stand_in_library import box_asset, make_library

from benchfoundry.assets.asset_library import AssetLibrary, LibraryError
from benchfoundry.benchmarks.viewspatial.scannet.scenes.library_room import (
    ASSET_LIBRARY_FIELD,
    LIBRARY_CLASS,
    LibraryPiece,
    furnish,
)
from benchfoundry.benchmarks.viewspatial.scannet.scenes.spec import LIBRARY_MESHES
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_room import (
    Room,
    SyntheticScene,
    scene_room,
    synthetic_scenes,
)
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_scan import (
    RenderSettings,
    camera_walk,
    make_synthetic_scan,
    render_spec,
    rendered_library_meshes,
    room_mesh,
)
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_stage import synthetic_task
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import ScanFormatError, open_scan
from benchfoundry.benchmarks.viewspatial.scannet.stages.visibility import scan_boxes
from benchfoundry.configs.loader import load_config
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


def sampled_footprint(piece: LibraryPiece, library: AssetLibrary = LIBRARY) -> np.ndarray:
    """Points spread over the placed footprint (bilinear in its four bottom corners)."""
    c = world_corners(piece, library)[[0, 4, 6, 2], :2]  # (lo, lo), (hi, lo), (hi, hi), (lo, hi) at the bottom
    u, v = np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 9))
    u, v = u.reshape(-1, 1), v.reshape(-1, 1)
    return (1 - u) * (1 - v) * c[0] + u * (1 - v) * c[1] + u * v * c[2] + (1 - u) * v * c[3]


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_the_library_classes_are_drawn_from_the_library_and_the_rest_stay(scene: SyntheticScene) -> None:
    room = scene_room(scene)
    kept, pieces = furnish(room, LIBRARY)
    drawn = [f for f in room.furniture if LIBRARY_CLASS.get(f.label) in LIBRARY.categories]
    assert Counter(p.label for p in pieces) == Counter(f.label for f in drawn)
    assert list(kept.furniture) == [f for f in room.furniture if f not in drawn]
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


@pytest.mark.parametrize("scene", SCENES[:2], ids=[s.scene_id for s in SCENES[:2]])
def test_a_library_lamp_lights_the_scan_from_under_its_top_over_its_middle(scene: SyntheticScene) -> None:
    room = scene_room(scene)
    kept, pieces = furnish(room, LIBRARY)
    walk = camera_walk(kept, 4)
    plain = render_spec(kept, room_mesh(kept), walk, RenderSettings(), ".")
    lit = render_spec(kept, room_mesh(kept, pieces, [box_mesh(p) for p in pieces]), walk, RenderSettings(), ".", pieces)
    (lamp,) = [p for p in pieces if p.label == "lamp"]
    assert lit.lamps[: len(plain.lamps)] == plain.lamps and len(lit.lamps) == len(plain.lamps) + 1
    corners = world_corners(lamp)
    bulb = lit.lamps[-1]
    assert bulb.location[:2] == pytest.approx(corners[:, :2].mean(axis=0), abs=1e-9)
    assert 0.5 * corners[:, 2].max() < bulb.location[2] < corners[:, 2].max()
    assert all(p.light is None for p in pieces if p.label != "lamp")


def box_mesh(piece: LibraryPiece) -> tuple[np.ndarray, np.ndarray]:
    """The placed piece's box as a closed triangle mesh (what the render worker would write for a box asset)."""
    faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6), (0, 2, 6)]
    faces += [(0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return world_corners(piece), np.array(faces)


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


def rendered_scan(
    tmp_path: Path,
    wanted: list[tuple[str, tuple[float, float, float], tuple[float, float, float]]],
    scene: SyntheticScene,
) -> tuple[AssetLibrary, Room, tuple[LibraryPiece, ...], list]:
    """A tiny scan of `scene` rendered with a library of stand-in boxes (`wanted`: class, size, colour): the library,
    the room's kept pieces and library pieces, and the scan's object boxes by object id."""
    library = make_library(tmp_path / "library", wanted, ASSET_LIBRARY_FIELD)
    settings = RenderSettings(width=64, height=48, samples=1, frames=4)
    try:
        make_synthetic_scan(tmp_path / "root", scene, settings, library)
    finally:
        render_client.close_all()
    kept, pieces = furnish(scene_room(scene), library)
    boxes = scan_boxes(open_scan(tmp_path / "root" / "scans" / scene.scene_id), None)
    return library, kept, pieces, sorted(boxes, key=lambda b: b.object_id)


def assert_library_boxes(boxes: list, pieces: tuple[LibraryPiece, ...], library: AssetLibrary) -> None:
    """The scan's last boxes are the library pieces', each its manifest box scaled, turned and moved."""
    assert [b.label for b in boxes[-len(pieces) :]] == [p.label for p in pieces]
    for box, piece in zip(boxes[-len(pieces) :], pieces, strict=True):
        corners = world_corners(piece, library)
        np.testing.assert_allclose(box.lo, corners.min(axis=0), atol=1e-5)
        np.testing.assert_allclose(box.hi, corners.max(axis=0), atol=1e-5)


@pytest.mark.blender
def test_a_rendered_scan_holds_each_library_object_at_its_exact_box(tmp_path: Path) -> None:
    wanted = [
        ("chair", (0.5, 0.5, 0.9), (0.6, 0.1, 0.1)),
        ("sofa", (2.0, 0.9, 0.85), (0.1, 0.2, 0.6)),
        ("table", (1.2, 0.7, 0.75), (0.5, 0.3, 0.1)),
    ]
    library, kept, pieces, boxes = rendered_scan(tmp_path, wanted, SCENES[0])
    assert_library_boxes(boxes, pieces, library)
    stayed = boxes[: -len(pieces)]
    assert [b.label for b in stayed] == [f.label for f in kept.furniture]
    for box, f in zip(stayed, kept.furniture, strict=True):
        np.testing.assert_allclose(box.lo, f.lo, atol=1e-5)
        np.testing.assert_allclose(box.hi, f.hi, atol=1e-5)


def test_a_scan_build_without_its_library_names_the_config_field(tmp_path: Path) -> None:
    config = load_config("smoke", [f"viewspatial.synthetic.asset_library={tmp_path / 'none'}"])
    with pytest.raises(LibraryError, match=f"{ASSET_LIBRARY_FIELD}: {tmp_path / 'none'}"):
        synthetic_task.fn(str(tmp_path / "out"), "val", config)
    assert not (tmp_path / "out" / "viewspatial" / "synthetic" / "scans").exists()


#: Stand-ins of every class a scan draws, shaped as Infinigen's are: the desk's knee side, the cabinet's doors and the
#: bed's foot (its headboard at −X) at +X; the nightstand, as Infinigen's side tables, without a front.
ROOM_LIBRARY = AssetLibrary(
    Path("/lib"),
    (
        *LIBRARY.assets,
        box_asset("desk", 1, (0.6, 1.3, 0.72), front_deg=90.0),
        box_asset("cabinet", 1, (0.35, 1.8, 0.95), front_deg=90.0),
        box_asset("nightstand", 1, (0.5, 0.5, 0.55)),
        box_asset("bed", 1, (2.1, 1.7, 0.6), offset=-0.05, front_deg=90.0),
    ),
)
#: What rests on what in the scans' rooms, and what hangs on the wall above what.
RESTING = {"pillow": "bed", "books": "nightstand", "box": "desk"}
HUNG = {"tv": "cabinet", "whiteboard": "desk", "picture": "bed"}


def room_front(f, size) -> np.ndarray:
    """A box's front: away from the wall nearest to it."""
    gaps = [f.lo[0], size[0] - f.hi[0], f.lo[1], size[1] - f.hi[1]]
    return np.array([(1, 0), (-1, 0), (0, 1), (0, -1)][int(np.argmin(gaps))], float)


def inside_polygon(points: np.ndarray, polygon: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Whether each point lies inside the convex polygon (corners in order), `margin` inside its edges."""
    polygon = polygon if np.cross(polygon[1] - polygon[0], polygon[2] - polygon[1]) > 0 else polygon[::-1]
    inside = np.ones(len(points), bool)
    for a, b in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        edge = (b - a) / np.linalg.norm(b - a)
        inside &= (edge[0] * (points[:, 1] - a[1]) - edge[1] * (points[:, 0] - a[0])) > margin
    return inside


def footprint_polygon(piece: LibraryPiece, library: AssetLibrary = ROOM_LIBRARY) -> np.ndarray:
    return world_corners(piece, library)[[0, 4, 6, 2], :2]


def box_points(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    u, v = np.meshgrid(np.linspace(lo[0], hi[0], 7), np.linspace(lo[1], hi[1], 7))
    return np.column_stack([u.ravel(), v.ravel()])


def pieces_of(pieces: tuple[LibraryPiece, ...], label: str) -> LibraryPiece:
    (piece,) = [p for p in pieces if p.label == label]
    return piece


def piece_front(piece: LibraryPiece, library: AssetLibrary = ROOM_LIBRARY) -> np.ndarray:
    t = math.radians((asset_of(piece, library).front_deg or 0.0) + piece.placed.yaw_deg)
    return np.array([math.sin(t), -math.cos(t)])


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_desk_cabinet_bed_and_nightstand_back_onto_a_wall_facing_in_and_nothing_overlaps(scene: SyntheticScene) -> None:
    room = scene_room(scene)
    kept, pieces = furnish(room, ROOM_LIBRARY)
    assert sorted(p.label for p in pieces) == sorted(f.label for f in room.furniture if f.label in LIBRARY_CLASS)
    w, d, _ = kept.size
    for piece in pieces:
        if piece.label not in ("desk", "cabinet", "bed", "nightstand"):
            continue
        corners, facing = world_corners(piece, ROOM_LIBRARY), piece_front(piece)
        centre = corners[:, :2].mean(axis=0)
        depth = ((corners[:, :2] - centre) @ -facing).max()
        behind = centre - facing * depth
        assert min(behind[0], w - behind[0], behind[1], d - behind[1]) < 0.12, piece.label
        assert abs(facing[0]) > 0.99 or abs(facing[1]) > 0.99, piece.label
        assert facing @ (np.array([w / 2, d / 2]) - behind) > 0, piece.label
    bed, nightstand = pieces_of(pieces, "bed"), pieces_of(pieces, "nightstand")
    bed_front = piece_front(bed)
    bed_back = (world_corners(bed, ROOM_LIBRARY)[:, :2] @ bed_front).min()
    stand_corners = world_corners(nightstand, ROOM_LIBRARY)[:, :2]
    assert (stand_corners @ bed_front).min() == pytest.approx(bed_back, abs=0.01)  # at the head, the same wall
    gap = (stand_corners @ bed_front).max() - bed_back
    assert gap < 0.6  # its depth, not beside the bed's foot
    # no two placed pieces' footprints overlap, and none meets a box left standing on the floor
    floor = [f for f in kept.furniture if f.lo[2] < 0.05]
    for i, a in enumerate(pieces):
        for b in pieces[i + 1 :]:
            assert not inside_polygon(sampled_footprint(a, ROOM_LIBRARY), footprint_polygon(b), 1e-6).any(), (
                a.label,
                b.label,
            )
            assert not inside_polygon(sampled_footprint(b, ROOM_LIBRARY), footprint_polygon(a), 1e-6).any(), (
                a.label,
                b.label,
            )
        for f in floor:
            assert not inside_box(sampled_footprint(a, ROOM_LIBRARY), f.lo, f.hi).any(), (a.label, f.label)


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_what_rested_on_a_drawn_piece_rests_on_the_library_objects_top_where_it_stood(scene: SyntheticScene) -> None:
    room = scene_room(scene)
    kept, pieces = furnish(room, ROOM_LIBRARY)
    before = {f.label: f for f in room.furniture}
    after = {f.label: f for f in kept.furniture}
    for label, below in RESTING.items():
        piece, support = after[label], pieces_of(pieces, below)
        corners = world_corners(support, ROOM_LIBRARY)
        assert piece.lo[2] == pytest.approx(corners[:, 2].max(), abs=1e-9), label  # on the object's top
        # the whole of its bottom over the object's top
        assert inside_polygon(box_points(piece.lo, piece.hi), footprint_polygon(support), -1e-9).all(), label
        # as far towards the front or the back as it stood on the box
        old, new = before[label], piece_front(support)
        box = before[below]
        old_offset = (np.asarray(old.center[:2]) - np.asarray(box.center[:2])) @ room_front(box, room.size)
        new_offset = (np.asarray(piece.center[:2]) - corners[:, :2].mean(axis=0)) @ new
        if abs(old_offset) < 1e-9:  # centred on the box: centred on the object
            assert new_offset == pytest.approx(0.0, abs=1e-9), label
        else:  # at the front edge or the back (the pillow at the head): there still
            assert np.sign(new_offset) == np.sign(old_offset) and abs(new_offset) > 0.05, label
        assert sorted(piece.size[:2]) == sorted(old.size[:2]) and piece.size[2] == old.size[2]


@pytest.mark.parametrize("scene", SCENES[:3], ids=[s.scene_id for s in SCENES[:3]])
def test_the_pillow_lies_on_a_library_beds_mattress_below_its_headboard(scene: SyntheticScene) -> None:
    """A bed whose manifest says things rest 0.5 m up (its mattress) under a 1.2 m headboard: the pillow lies there."""
    beds = [a for a in ROOM_LIBRARY.assets if a.category == "bed"]
    bed = replace(beds[0], bbox_max=(*beds[0].bbox_max[:2], 1.2), rest_m=0.5)
    library = AssetLibrary(Path("/lib"), (*(a for a in ROOM_LIBRARY.assets if a.category != "bed"), bed))
    kept, pieces = furnish(scene_room(scene), library)
    pillow, placed = {f.label: f for f in kept.furniture}["pillow"], pieces_of(pieces, "bed").placed
    assert pillow.lo[2] == pytest.approx(placed.location[2] + 0.5 * placed.scale, abs=1e-9)
    assert pillow.lo[2] < world_corners(pieces_of(pieces, "bed"), library)[:, 2].max() - 0.3


@pytest.mark.parametrize("scene", SCENES, ids=[s.scene_id for s in SCENES])
def test_what_hung_above_a_drawn_piece_stays_on_a_wall_clear_of_it(scene: SyntheticScene) -> None:
    room = scene_room(scene)
    kept, pieces = furnish(room, ROOM_LIBRARY)
    w, d, h = kept.size
    after = {f.label: f for f in kept.furniture}
    placed = [(p.label, world_corners(p, ROOM_LIBRARY)) for p in pieces]
    for label, below in HUNG.items():
        piece = after[label]
        assert min(piece.lo[0], w - piece.hi[0], piece.lo[1], d - piece.hi[1]) < 0.02, label  # on a wall
        assert piece.hi[2] < h
        for other, corners in placed:
            lo, hi = corners.min(axis=0), corners.max(axis=0)
            assert not (np.all(piece.lo < hi) and np.all(lo < piece.hi)), (label, other)
        support = world_corners(pieces_of(pieces, below), ROOM_LIBRARY)
        assert piece.lo[2] >= support[:, 2].max()
    tv, cabinet = after["tv"], world_corners(pieces_of(pieces, "cabinet"), ROOM_LIBRARY)
    lo, hi = cabinet.min(axis=0), cabinet.max(axis=0)
    for axis in (0, 1):  # over the cabinet, on the wall it backs onto
        if hi[axis] - lo[axis] > 1.0:
            assert lo[axis] < tv.center[axis] < hi[axis]


def test_a_library_without_the_new_classes_leaves_their_pieces_and_what_they_hold_alone() -> None:
    for scene in SCENES[:2]:
        room = scene_room(scene)
        kept, pieces = furnish(room, LIBRARY)
        assert {p.label for p in pieces} == {"chair", "sofa", "table", "lamp", "bookshelf"}
        stay = ("desk", "cabinet", "nightstand", "bed", *RESTING, *HUNG)
        assert [f for f in kept.furniture if f.label in stay] == [f for f in room.furniture if f.label in stay]


@pytest.mark.blender
def test_a_rendered_scan_holds_the_desk_cabinet_nightstand_and_bed_at_their_library_boxes(tmp_path: Path) -> None:
    wanted = [
        ("desk", (0.6, 1.3, 0.72), (0.5, 0.3, 0.1)),
        ("cabinet", (0.35, 1.8, 0.95), (0.6, 0.5, 0.3)),
        ("nightstand", (0.5, 0.5, 0.55), (0.4, 0.2, 0.1)),
        ("bed", (2.1, 1.7, 0.6), (0.7, 0.2, 0.2)),
    ]
    library, kept, pieces, boxes = rendered_scan(tmp_path, wanted, SCENES[1])
    assert sorted(p.label for p in pieces) == ["bed", "cabinet", "desk", "nightstand"]
    assert_library_boxes(boxes, pieces, library)
    stayed = {b.label: b for b in boxes[: -len(pieces)]}
    for label, below in RESTING.items():  # the scan's box of what rests on an object lies on the object's mesh
        (piece,) = [p for p in pieces if p.label == below]
        assert stayed[label].lo[2] == pytest.approx(world_corners(piece, library)[:, 2].max(), abs=1e-5)
    for f in kept.furniture:
        if f.label in stayed and Counter(g.label for g in kept.furniture)[f.label] == 1:
            np.testing.assert_allclose(stayed[f.label].lo, f.lo, atol=1e-5)
            np.testing.assert_allclose(stayed[f.label].hi, f.hi, atol=1e-5)
