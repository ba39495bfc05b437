"""The fixtures set into the embedded panoramas' walls (benchmarks/odi/scenes/panorama_parts.py): each stands on its
wall's inner face, inside the wall, clear of every labelled object, and moves with the scene when it is posed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchfoundry.benchmarks.odi.scenes.panorama_parts import FRAME_PROUD_M, Part, Wall, door, window
from benchfoundry.benchmarks.odi.scenes.synthetic_panoramas import posed, scene_named


def corners(part: Part) -> np.ndarray:
    """The eight corners of a box part, world coordinates."""
    half = np.array(part.size) / 2
    local = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    t = math.radians(part.yaw_deg)
    turn = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]])
    return local @ turn.T + np.array(part.center)


def is_fixture(name: str) -> bool:
    """A room's windows, doors and skirting; a building's own (`building<k>_…`), not the building."""
    return name.split("_")[0] in ("window", "door", "skirting") or (name.startswith("building") and "_" in name)


def test_a_box_on_a_wall_stands_out_of_its_face_by_its_proud_and_runs_along_it() -> None:
    # a wall at 45°: its face through (1, 1), running along (1, -1)/√2, facing the origin
    s = math.sqrt(0.5)
    wall = Wall((1.0, 1.0), (s, -s), (-s, -s))
    box = wall.box(0.5, 1.2, 0.8, 0.4, 0.1, ("white", "wood"))
    points = corners(box)
    offsets = (points[:, :2] - np.array(wall.origin)) @ np.array(wall.normal)
    along = (points[:, :2] - np.array(wall.origin)) @ np.array(wall.along)
    assert offsets.min() == pytest.approx(0.0, abs=1e-9) and offsets.max() == pytest.approx(0.1)
    assert along.min() == pytest.approx(0.1) and along.max() == pytest.approx(0.9)
    assert points[:, 2].min() == pytest.approx(1.0) and points[:, 2].max() == pytest.approx(1.4)


def test_a_window_is_a_pane_framed_on_four_sides_and_a_door_has_a_handle_on_its_leaf() -> None:
    wall = Wall((0.0, 3.0), (1.0, 0.0), (0.0, -1.0))
    parts = dict(window(wall, "w", 0.0, 1.0, 1.2, 1.0, "window"))
    pane = corners(parts["w_pane"])
    assert parts["w_pane"].surface == "window"
    for side in ("top", "bottom", "left", "right"):
        bar = corners(parts[f"w_{side}"])
        # every bar stands further out than the pane (the pane is recessed) and touches the pane's outline
        assert bar[:, 1].min() == pytest.approx(3.0 - FRAME_PROUD_M)
        assert bar[:, 1].min() < pane[:, 1].min()
    outline = np.vstack([corners(parts[f"w_{s}"]) for s in ("top", "bottom", "left", "right")])
    assert outline[:, 0].min() == pytest.approx(pane[:, 0].min()) and outline[:, 2].max() == pytest.approx(2.0)
    leaf, handle = dict(door(wall, "d", 0.5))["d_leaf"], dict(door(wall, "d", 0.5))["d_handle"]
    low, high = corners(leaf).min(axis=0), corners(leaf).max(axis=0)
    assert low[0] < handle.center[0] < high[0] and handle.center[1] < low[1]  # on the leaf, in front of it


@pytest.mark.parametrize("name", ["living_room", "courtyard"])
def test_fixtures_stand_inside_their_walls_and_clear_of_every_labelled_object(name: str) -> None:
    scene = scene_named(name)
    fixtures = [(n, p) for n, p in scene.structure if is_fixture(n)]
    assert {n.split("_")[0] for n, _ in fixtures} >= (
        {"window", "door", "skirting"} if name == "living_room" else {"building0"}
    )
    boxes = [(corners(p).min(axis=0), corners(p).max(axis=0)) for _, p in fixtures]
    for thing in scene.things:
        for part in thing.parts:
            low, high = corners(part).min(axis=0), corners(part).max(axis=0)
            for (n, _), (f_low, f_high) in zip(fixtures, boxes):
                overlap = np.minimum(high, f_high) - np.maximum(low, f_low)
                assert (overlap <= 1e-6).any(), f"{thing.category} overlaps {n}"
    if name == "living_room":
        room = np.array([3.0, 3.5, 2.8])
        for (n, _), (low, high) in zip(fixtures, boxes):
            assert (np.abs(low[:2]) <= room[:2] + 1e-6).all() and (np.abs(high[:2]) <= room[:2] + 1e-6).all(), n
            assert low[2] >= -1e-6 and high[2] <= room[2], n
    else:
        # on each building's face, inside the part its neighbours (45° round) leave in view
        visible = 11.5 * math.tan(math.radians(22.5))
        for n, part in fixtures:
            bearing = 45.0 * int(n.split("_")[0].removeprefix("building"))
            t = math.radians(bearing)
            along = corners(part)[:, :2] @ np.array([math.cos(t), -math.sin(t)])
            assert np.abs(along).max() < visible, n


def test_a_posed_variant_moves_its_fixtures_with_its_walls() -> None:
    drawn, variant = scene_named("living_room"), posed(scene_named("living_room-7"), 0)
    before, after = dict(drawn.structure), dict(variant.structure)
    assert set(before) == set(after)
    for name in ("window_n_pane", "door_w_leaf", "wall_n"):
        assert math.hypot(*before[name].center[:2]) == pytest.approx(math.hypot(*after[name].center[:2]))
    # the pane keeps its distance from its wall
    gaps = [math.dist(s["window_n_pane"].center[:2], s["wall_n"].center[:2]) for s in (before, after)]
    assert gaps[0] == pytest.approx(gaps[1])
