"""Where a library asset's front faces (render/infinigen_asset.front_deg, stored in the manifest as `front_deg`) and
the layout turning that front to the camera (assets/room_layout.py), on objects built from boxes whose
front is known: a chair and a sofa with their backs, a bookcase with its back panel, a table and a lamp without a
front."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.assets.asset_library import AssetLibrary, LibraryAsset
from benchfoundry.assets.room_layout import Request, place
from benchfoundry.render.infinigen_asset import front_deg

Box = tuple[tuple[float, float, float], tuple[float, float, float]]  # (min corner, max corner)


def faces(boxes: list[Box]) -> tuple[np.ndarray, np.ndarray]:
    """The six faces of each box: centres (n × 3) and areas."""
    centres, areas = [], []
    for lo, hi in boxes:
        lo, hi = np.array(lo), np.array(hi)
        mid, size = (lo + hi) / 2, hi - lo
        for axis in range(3):
            for end in (lo[axis], hi[axis]):
                centre = mid.copy()
                centre[axis] = end
                centres.append(centre)
                areas.append(np.prod(np.delete(size, axis)))
    return np.array(centres), np.array(areas)


def legs(x: float, y: float, height: float) -> list[Box]:
    return [
        ((sx * x - 0.02, sy * y - 0.02, 0.0), (sx * x + 0.02, sy * y + 0.02, height))
        for sx in (-1, 1)
        for sy in (-1, 1)
    ]


#: Objects whose front is −Y (front_deg 0): their backs at +Y (`BACKS`: the box that is the back).
CHAIR = [((-0.25, -0.25, 0.43), (0.25, 0.25, 0.47)), *legs(0.22, 0.22, 0.43), ((-0.25, 0.2, 0.47), (0.25, 0.25, 1.0))]
SOFA = [
    ((-1.0, -0.45, 0.1), (1.0, 0.45, 0.45)),
    ((-1.0, 0.25, 0.45), (1.0, 0.45, 0.9)),
    ((-1.0, -0.45, 0.45), (-0.85, 0.25, 0.62)),
    ((0.85, -0.45, 0.45), (1.0, 0.25, 0.62)),
]
BOOKCASE = [
    ((-0.45, -0.17, 0.0), (-0.43, 0.17, 1.8)),
    ((0.43, -0.17, 0.0), (0.45, 0.17, 1.8)),
    ((-0.43, 0.15, 0.0), (0.43, 0.17, 1.8)),
    *[((-0.43, -0.17, z), (0.43, 0.15, z + 0.02)) for z in (0.0, 0.45, 0.9, 1.35, 1.78)],
]
BACKS = {"chair": len(CHAIR) - 1, "sofa": 1, "bookshelf": 2}
#: Objects without a front.
TABLE = [((-0.6, -0.4, 0.72), (0.6, 0.4, 0.76)), *legs(0.55, 0.35, 0.72)]
LAMP = [((-0.15, -0.15, 0.0), (0.15, 0.15, 0.03)), ((-0.01, -0.01, 0.03), (0.01, 0.01, 1.4))]
LAMP.append(((-0.2, -0.2, 1.4), (0.2, 0.2, 1.7)))


def turned(centres: np.ndarray, degrees: float) -> np.ndarray:
    t = math.radians(degrees)
    rot = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]])
    return centres @ rot.T


@pytest.mark.parametrize("boxes", [CHAIR, SOFA, BOOKCASE], ids=["chair", "sofa", "bookcase"])
@pytest.mark.parametrize("turn", [0, 90, 180, -90])
def test_the_front_is_opposite_the_back_however_the_object_is_turned(boxes: list[Box], turn: int) -> None:
    centres, areas = faces(boxes)
    assert front_deg(turned(centres, turn), areas) == (turn - 180) % -360 + 180  # in (-180, 180]


@pytest.mark.parametrize("boxes", [TABLE, LAMP], ids=["table", "lamp"])
@pytest.mark.parametrize("turn", [0, 90, 33])
def test_an_object_without_a_back_has_no_front(boxes: list[Box], turn: int) -> None:
    centres, areas = faces(boxes)
    assert front_deg(turned(centres, turn), areas) is None


def test_a_mesh_finely_cut_on_one_side_is_measured_by_area_not_by_face_count() -> None:
    """A table whose top's −Y half is cut into many small faces still has no front."""
    centres, areas = faces(TABLE)
    fine = np.array([[x, y, 0.76] for x in np.linspace(-0.59, 0.59, 40) for y in np.linspace(-0.39, -0.01, 20)])
    centres = np.vstack([centres, fine])
    areas = np.concatenate([areas, np.full(len(fine), 1e-6)])
    assert front_deg(centres, areas) is None


def asset(category: str, boxes: list[Box], turn: int) -> LibraryAsset:
    centres, areas = faces(boxes)
    centres = turned(centres, turn)
    lo, hi = centres.min(axis=0), centres.max(axis=0)
    return LibraryAsset(
        category=category,
        seed=turn % 360,
        path=f"{category}/{turn % 360}.blend",
        object_name="asset",
        bbox_min=tuple(lo),
        bbox_max=tuple(hi),
        vertices=8,
        generator="stand-in",
        generator_version="0",
        factory="Boxes",
        sha256="0" * 64,
        front_deg=front_deg(centres, areas),
    )


@pytest.mark.parametrize(("category", "boxes"), [("chair", CHAIR), ("sofa", SOFA), ("bookshelf", BOOKCASE)])
@pytest.mark.parametrize("turn", [0, 90, 180, -90])
@pytest.mark.parametrize("theta", [0.0, 75.0, -140.0])
def test_a_placed_object_shows_its_front_to_the_camera(
    category: str, boxes: list[Box], turn: int, theta: float
) -> None:
    """Made turned any way, measured and placed: its back (the box drawn as its back) stands farther from the camera
    than its footprint's centre, and its front (−Y turned by its yaw and front) points at the camera."""
    made = asset(category, boxes, turn)
    (placed,) = place(
        [Request(category, theta, 2.5)], AssetLibrary(Path("/lib"), (made,)), (4.0, 4.0), [], np.random.default_rng(0)
    )
    back = turned(np.mean(boxes[BACKS[category]], axis=0)[None], turn) * placed.scale
    back_world = turned(back, placed.yaw_deg)[0, :2] + np.array(placed.location[:2])
    x, y = placed.footprint_center
    assert np.linalg.norm(back_world) > math.hypot(x, y) + 0.05
    t = math.radians(placed.yaw_deg + made.front_deg)
    assert np.array([math.sin(t), -math.cos(t)]) @ -np.array([x, y]) / math.hypot(x, y) == pytest.approx(1.0)
