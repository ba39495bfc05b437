"""Our layout of library objects (assets/room_layout.py) and the furnished panorama scenes
(benchmarks/odi/synthetic_panoramas.furnish): footprints inside the room, on the floor, apart from each other and from
the scene's other objects, heights of their class, the camera at eye height; and one tiny render with two
stand-in `.blend` assets whose instance ids land in the truth map with their classes."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from stand_in_library import box_asset, make_library

from benchfoundry.assets.asset_library import (
    AssetLibrary,
)
from benchfoundry.assets.room_layout import (
    CLASS_HEIGHTS_M,
    EYE_HEIGHT_M,
    WALL_GAP_M,
    Obstacle,
    Placement,
    Request,
    place,
)
from benchfoundry.benchmarks.odi.config import ASSET_LIBRARY_FIELD, SyntheticPanoramaConfig
from benchfoundry.benchmarks.odi.scenes.synthetic_panoramas import (
    furnish,
    index_map_from_pass,
    render_spec,
    scene_named,
)
from benchfoundry.core.render_spec import LibraryObject, Primitive, write_spec
from benchfoundry.pipeline import render_client

#: A library whose sizes are partly off their class's range (a 3 m chair, a 0.2 m lamp, a palm 10.1 m tall as
#: Infinigen makes them) and off-centre.
LIBRARY = AssetLibrary(
    Path("/lib"),
    (
        box_asset("chair", 1, (0.6, 0.6, 0.9)),
        box_asset("chair", 2, (2.0, 2.0, 3.0), offset=0.2),
        box_asset("sofa", 1, (2.0, 0.9, 0.85)),
        box_asset("lamp", 1, (0.05, 0.05, 0.2)),
        box_asset("bookshelf", 1, (0.9, 0.35, 1.8), offset=-0.1),
        box_asset("potted plant", 1, (0.6, 0.6, 1.1)),
        box_asset("tree", 1, (1.8, 1.7, 10.1)),
    ),
)


def _corners(p: Placement) -> np.ndarray:
    """The footprint rectangle's four world corners, from the manifest's box, the scale, yaw and location."""
    lo, hi = np.array(p.asset.bbox_min[:2]) * p.scale, np.array(p.asset.bbox_max[:2]) * p.scale
    local = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    t = math.radians(p.yaw_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return local @ rot.T + np.array(p.location[:2])


def _rectangles_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Separating-axis test of two convex polygons."""
    for poly in (a, b):
        for k in range(len(poly)):
            edge = poly[(k + 1) % len(poly)] - poly[k]
            axis = np.array([-edge[1], edge[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return True


def _circle_meets_polygon(poly: np.ndarray, centre: np.ndarray, radius: float) -> bool:
    inside = all(np.cross(poly[(k + 1) % 4] - poly[k], centre - poly[k]) >= 0 for k in range(4)) or all(
        np.cross(poly[(k + 1) % 4] - poly[k], centre - poly[k]) <= 0 for k in range(4)
    )
    if inside:
        return True
    for k in range(4):
        a, b = poly[k], poly[(k + 1) % 4]
        t = np.clip(np.dot(centre - a, b - a) / np.dot(b - a, b - a), 0, 1)
        if np.linalg.norm(a + t * (b - a) - centre) < radius:
            return True
    return False


def _check(placements: tuple[Placement, ...], room_half: tuple[float, float], obstacles: list[Obstacle]) -> None:
    corners = [_corners(p) for p in placements]
    for i, a in enumerate(corners):
        assert np.all(np.abs(a[:, 0]) <= room_half[0]) and np.all(np.abs(a[:, 1]) <= room_half[1])
        for b in corners[i + 1 :]:
            assert not _rectangles_overlap(a, b)
        for o in obstacles:
            assert not _circle_meets_polygon(a, np.array([o.x, o.y]), o.radius)
        assert not _circle_meets_polygon(a, np.zeros(2), 0.3)  # the camera stands free
    for p in placements:
        lo_z, hi_z = p.asset.bbox_min[2], p.asset.bbox_max[2]
        assert p.location[2] + lo_z * p.scale == pytest.approx(0.0)  # on the floor
        height = (hi_z - lo_z) * p.scale
        least, largest = CLASS_HEIGHTS_M[p.category]
        assert least - 1e-9 <= height <= largest + 1e-9
        assert p.asset.category == p.category
        if least <= p.asset.size[2] <= largest:
            assert p.scale == 1.0  # an asset of a plausible size keeps its own


def test_crowded_requests_get_footprints_inside_the_room_apart_and_of_their_class_size() -> None:
    requests = [
        Request(c, theta, 2.0)
        for c, theta in zip(["chair", "sofa", "lamp", "bookshelf", "potted plant"] * 2, range(0, 360, 36))
    ]
    obstacles = [Obstacle(0.0, -2.5, 0.4), Obstacle(2.0, 0.0, 0.3)]
    placements = place(requests, LIBRARY, (3.0, 3.5), obstacles, np.random.default_rng(0))
    assert [p.category for p in placements] == [r.category for r in requests]
    _check(placements, (3.0, 3.5), obstacles)
    assert all(p.scale > 1 for p in placements if p.category == "lamp")  # the 0.2 m lamp grows to a lamp's height


def test_an_object_faces_the_camera_and_stays_at_its_anchor_when_free() -> None:
    (p,) = place([Request("sofa", 20.0, 2.0)], LIBRARY, (3.0, 3.5), [], np.random.default_rng(0))
    x, y = p.footprint_center
    assert (x, y) == pytest.approx((2.0 * math.sin(math.radians(20)), 2.0 * math.cos(math.radians(20))))
    front = np.array([math.sin(math.radians(p.yaw_deg)), -math.cos(math.radians(p.yaw_deg))])  # −Y turned
    assert front @ -np.array([x, y]) / math.hypot(x, y) == pytest.approx(1.0)


def test_the_layout_is_seeded_and_refuses_what_cannot_fit() -> None:
    requests = [Request("chair", 0.0, 2.0), Request("chair", 10.0, 2.0)]
    one = place(requests, LIBRARY, (3.0, 3.5), [], np.random.default_rng(4))
    assert one == place(requests, LIBRARY, (3.0, 3.5), [], np.random.default_rng(4))
    with pytest.raises(ValueError, match="no room for a 'sofa'"):
        place([Request("sofa", 0.0, 1.0)], LIBRARY, (1.0, 1.0), [], np.random.default_rng(0))
    with pytest.raises(ValueError, match="has no 'bed'"):
        place([Request("bed", 0.0, 2.0)], LIBRARY, (3.0, 3.5), [], np.random.default_rng(0))


def _front(p: Placement) -> np.ndarray:
    """The unit direction a placed object's front faces in the world (−Y turned by its yaw and front)."""
    t = math.radians(p.yaw_deg + (p.asset.front_deg or 0.0))
    return np.array([math.sin(t), -math.cos(t)])


def _towards(p: Placement, x: float, y: float) -> float:
    """The cosine between a placed object's front and the direction from it to (x, y)."""
    cx, cy = p.footprint_center
    return float(_front(p) @ np.array([x - cx, y - cy]) / math.hypot(x - cx, y - cy))


#: Infinigen's way: every front at +X.
TURNED = AssetLibrary(
    Path("/lib"),
    tuple(
        replace(box_asset(c, 1, size), front_deg=90.0)
        for c, size in [
            ("sofa", (0.9, 2.0, 0.85)),
            ("bookshelf", (0.35, 0.9, 1.8)),
            ("chair", (0.55, 0.5, 0.9)),
            ("table", (0.9, 1.4, 0.75)),
            ("lamp", (0.3, 0.3, 1.6)),
        ]
    ),
)
ROOM = (3.0, 3.5)


@pytest.mark.parametrize("theta", [0.0, 80.0, -120.0, 175.0])
def test_in_a_room_a_sofa_and_a_bookcase_stand_with_their_backs_to_the_nearest_wall(theta: float) -> None:
    requests = [Request("sofa", theta, 2.4), Request("bookshelf", theta + 90.0, 2.0)]
    placements = place(requests, TURNED, ROOM, [], np.random.default_rng(0), walls=True)
    _check(placements, ROOM, [])
    for p in placements:
        corners = _corners(p)
        back = -_front(p)
        axis = int(np.argmax(np.abs(back)))
        assert abs(back[axis]) == pytest.approx(1.0)  # square to a wall
        # its back side touches that wall (less the gap), and it is the wall nearest where it stands
        assert np.max(corners[:, axis] * np.sign(back[axis])) == pytest.approx(ROOM[axis] - WALL_GAP_M, abs=0.002)
        x, y = p.footprint_center
        gaps = [ROOM[0] - x, ROOM[0] + x, ROOM[1] - y, ROOM[1] + y]
        assert gaps[2 * axis + (back[axis] < 0)] == pytest.approx(min(gaps), abs=0.5)
    # without walls (a courtyard) the same sofa faces the camera
    (free,) = place(requests[:1], TURNED, ROOM, [], np.random.default_rng(0))
    assert _towards(free, 0.0, 0.0) == pytest.approx(1.0)


def test_chairs_face_a_table_and_stand_at_its_sides() -> None:
    requests = [Request("chair", 40.0, 2.5), Request("chair", -30.0, 2.0), Request("table", 0.0, 2.2)]
    placements = place(requests, TURNED, ROOM, [], np.random.default_rng(1), walls=True)
    _check(placements, ROOM, [])
    table = placements[2]
    tx, ty = table.footprint_center
    for chair in placements[:2]:
        assert _towards(chair, tx, ty) == pytest.approx(1.0)
        # beside the table: within a chair's depth and a hand's breadth of its edge
        cx, cy = chair.footprint_center
        reach = table.footprint.reach(_front(chair)) + chair.footprint.reach(_front(chair))
        assert math.hypot(cx - tx, cy - ty) <= reach + 0.5


def test_without_a_table_chairs_face_the_sofa_and_a_lamp_stands_at_its_end() -> None:
    requests = [Request("chair", 90.0, 2.3), Request("lamp", -70.0, 2.5), Request("sofa", 0.0, 2.7)]
    chair, lamp, sofa = place(requests, TURNED, ROOM, [], np.random.default_rng(2), walls=True)
    _check((chair, lamp, sofa), ROOM, [])
    assert _towards(chair, *sofa.footprint_center) == pytest.approx(1.0)
    sx, sy = sofa.footprint_center
    along = np.array([-_front(sofa)[1], _front(sofa)[0]])  # the sofa's long axis, across its front
    offset = np.array(lamp.footprint_center) - (sx, sy)
    assert abs(offset @ along) >= sofa.size[1] / 2 and abs(offset @ _front(sofa)) <= 0.4 + 1e-9


@pytest.mark.parametrize("name", ["living_room", "courtyard"])
def test_a_furnished_scene_replaces_the_floor_objects_of_the_library_classes(name: str) -> None:
    scene = scene_named(name)
    furnished = furnish(scene, LIBRARY, seed=3)
    assert furnished.camera_height_m == EYE_HEIGHT_M
    replaced = [(a, b) for a, b in zip(scene.things, furnished.things, strict=True) if b.asset is not None]
    assert replaced and all(a.category == b.category and a.category in LIBRARY.categories for a, b in replaced)
    expected = {t.category for t in scene.things if t.category in LIBRARY.categories and t.parts}
    assert {b.category for _, b in replaced} == expected  # the courtyard's tree among them
    kept = [b for b in furnished.things if b.asset is None]
    assert all(t.category not in LIBRARY.categories or not t.parts or t.parts[0].center[2] > 1.0 for t in kept)
    obstacles = [Obstacle(t.person[0], t.person[1], 0.35) for t in kept if t.person is not None]
    obstacles += [
        Obstacle(p.center[0], p.center[1], math.hypot(*p.size[:2]) / 2)
        for t in kept
        for p in t.parts
        if p.center[2] - p.size[2] / 2 < 0.05
    ]
    _check(tuple(b.asset for _, b in replaced), furnished.floor_half_m, obstacles)


def test_the_spec_of_a_furnished_scene_carries_library_objects_with_the_instance_ids(tmp_path: Path) -> None:
    scene = furnish(scene_named("courtyard"), LIBRARY, seed=0)
    people = dict.fromkeys(("upright", "walking"), ("/m.npz", "/t.png", 1.7, None))
    spec, truth = render_spec(
        scene, people, SyntheticPanoramaConfig(), 1, tmp_path / "i.png", tmp_path / "i.npy", LIBRARY
    )
    objects = {inst.id: inst.parts for inst in spec.instances if any(isinstance(p, LibraryObject) for p in inst.parts)}
    records = {r["id"]: r for r in truth}
    assert objects and all(len(parts) == 1 for parts in objects.values())
    for k, (obj,) in objects.items():
        assert obj.pass_index == k and records[k]["asset"] == Path(obj.blend).relative_to("/lib").as_posix()
        assert records[k]["colour"] is None and records[k]["category"] in LIBRARY.categories
    assert spec.camera_height_m == EYE_HEIGHT_M


@pytest.fixture(scope="module")
def stand_in_library(tmp_path_factory: pytest.TempPathFactory) -> AssetLibrary:
    wanted = [("chair", (0.6, 0.6, 0.95), (0.6, 0.1, 0.1)), ("sofa", (1.9, 0.9, 0.8), (0.1, 0.2, 0.6))]
    return make_library(tmp_path_factory.mktemp("library"), wanted, ASSET_LIBRARY_FIELD)


@pytest.mark.blender
def test_a_tiny_render_puts_the_library_objects_in_the_truth_map_with_their_classes(
    stand_in_library: AssetLibrary, tmp_path: Path
) -> None:
    room = scene_named("living_room")
    room = replace(room, things=tuple(t for t in room.things if t.category in {"sofa", "chair", "box", "rug"}))
    scene = furnish(room, stand_in_library, seed=0)
    settings = SyntheticPanoramaConfig(width=256, samples=2)
    spec, truth = render_spec(scene, {}, settings, 1, tmp_path / "pano.png", tmp_path / "ids.npy", stand_in_library)
    try:
        render_client.render_spec(write_spec(tmp_path / "spec.json", spec), timeout_s=600, shards_per_worker=1)
    finally:
        render_client.close_all()
    ids = index_map_from_pass(tmp_path / "ids.npy")
    assert ids.shape == (128, 256) and (tmp_path / "pano.png").stat().st_size > 0
    by_id = {r["id"]: r for r in truth}
    library_ids = {inst.id for inst in spec.instances if isinstance(inst.parts[0], LibraryObject)}
    assert {by_id[k]["category"] for k in library_ids} == {"chair", "sofa"} and len(library_ids) == 3
    for k in library_ids:
        columns = np.nonzero((ids == k).any(axis=0))[0]
        assert columns.size > 2, by_id[k]
        # the instance shows where the truth says it is: θ → column (θ = 0 at the image centre, +90° right)
        expected = (by_id[k]["theta_deg"] / 360.0 + 0.5) * 256
        distance = np.min(np.abs(((columns + 0.5 - expected) + 128) % 256 - 128))
        assert distance < 8
    primitives = {inst.id for inst in spec.instances if isinstance(inst.parts[0], Primitive)}
    assert set(np.unique(ids)) - {0} == library_ids | primitives


@pytest.mark.parametrize("name", ["living_room", "living_room-0004", "living_room-0010"])
def test_a_library_lamp_lights_the_room_from_its_shade_wherever_it_stands(name: str) -> None:
    from benchfoundry.benchmarks.odi.scenes.synthetic_panoramas import posed

    drawn = scene_named(name, seed=0)
    scene = posed(furnish(drawn, LIBRARY, seed=0), seed=0)
    lamps = [t.asset for t in scene.things if t.asset is not None and t.category == "lamp"]
    ceiling = len(drawn.lighting.lamps)
    bulbs = scene.lighting.lamps[ceiling:]
    assert lamps and len(bulbs) == len(lamps)
    for lamp, bulb in zip(lamps, bulbs, strict=True):
        top = lamp.location[2] + lamp.asset.bbox_max[2] * lamp.scale
        assert bulb.location[:2] == pytest.approx(lamp.footprint_center) and 0.5 * top < bulb.location[2] < top
    assert furnish(scene_named("courtyard"), LIBRARY, seed=0).lighting == scene_named("courtyard").lighting


def test_a_rug_lies_where_it_was_drawn_square_to_the_room_and_the_others_stand_on_it() -> None:
    rugs = AssetLibrary(Path("/lib"), (*TURNED.assets, box_asset("rug", 1, (6.0, 4.0, 0.015))))
    requests = [Request("rug", 135.0, 0.3), Request("sofa", 0.0, 2.7), Request("chair", 170.0, 1.2)]
    rug, sofa, chair = place(requests, rugs, ROOM, [], np.random.default_rng(0), walls=True)
    anchor = 0.3 * np.array([math.sin(math.radians(135.0)), math.cos(math.radians(135.0))])
    assert rug.footprint_center == pytest.approx(tuple(anchor))  # under the camera, where it was drawn
    corners = _corners(rug)
    extent = corners.max(axis=0) - corners.min(axis=0)
    # square to the room, its long side along the room's longer (y) side, at most 0.6 of the shorter side long
    assert extent[1] > extent[0] and max(extent) == pytest.approx(0.6 * 2 * ROOM[0])
    assert np.all(np.abs(corners) <= np.array(ROOM) - WALL_GAP_M)
    assert _rectangles_overlap(_corners(chair), corners)  # the chair stands on the rug
    _check((sofa, chair), ROOM, [])
