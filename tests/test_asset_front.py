"""Where a library asset's front faces (render/infinigen_asset.front_deg, stored in the manifest as `front_deg`) and
the layout turning that front to the camera (assets/room_layout.py), on objects built from boxes whose
front is known: a chair and a sofa with their backs, a bookcase with its back panel, a table and a lamp without a
front."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.assets.asset_library import AssetLibrary, LibraryAsset, file_sha256
from benchfoundry.assets.room_layout import Request, place
from benchfoundry.benchmarks.viewspatial.scannet.scenes.spec import ScanRoomFrame, ScanRoomShard
from benchfoundry.core.camera import opencv_camera_to_world
from benchfoundry.core.render_spec import AreaLamp, LibraryObject, write_spec
from benchfoundry.pipeline import render_client
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


#: Builds a stand-in whose back box's rear face (its +Y side, the side away from its −Y front) is red and the rest grey,
#: turned by a given yaw, with the project's bpy in a subprocess (bpy lives only in render/).
_MAKE_MARKED = r"""
import json, math, sys
import bpy
path, boxes, back, turn = json.loads(sys.argv[1])
bpy.ops.wm.read_factory_settings(use_empty=True)
verts, faces, marks = [], [], []
for k, (lo, hi) in enumerate(boxes):
    base = len(verts)
    verts += [(x, y, z) for z in (lo[2], hi[2]) for y in (lo[1], hi[1]) for x in (lo[0], hi[0])]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces += [tuple(base + i for i in q) for q in quads]
    marks += [int(k == back and q == (2, 3, 7, 6)) for q in quads]  # (2, 3, 7, 6): the box's +Y face
t = math.radians(turn)
verts = [(x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t), z) for x, y, z in verts]
mesh = bpy.data.meshes.new("asset")
mesh.from_pydata(verts, [], faces)
for name, rgb in (("grey", (0.5, 0.5, 0.5)), ("red", (0.9, 0.02, 0.02))):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (*rgb, 1.0)
    mesh.materials.append(mat)
for polygon, mark in zip(mesh.polygons, marks):
    polygon.material_index = mark
obj = bpy.data.objects.new("asset", mesh)
bpy.context.scene.collection.objects.link(obj)
bpy.ops.wm.save_as_mainfile(filepath=path)
"""


def red_share(image: np.ndarray) -> float:
    """Share of the pixels that are the marked rear face's red."""
    r, g, b = (image[..., k].astype(int) for k in range(3))
    return float(np.mean((r > 90) & (r > 3 * g) & (r > 3 * b)))


@pytest.mark.blender
@pytest.mark.parametrize(("category", "boxes"), [("chair", CHAIR), ("sofa", SOFA), ("bookshelf", BOOKCASE)])
def test_a_rendered_object_placed_by_its_measured_front_shows_the_camera_its_front(
    category: str, boxes: list[Box], tmp_path: Path
) -> None:
    """Made facing +X (as Infinigen makes them), its front measured and the layout turning it to the camera: the
    rendered image shows no red of its rear face; the same object turned half round shows it (the check can fail)."""
    turn = 90
    blend = tmp_path / f"{category}.blend"
    job = [str(blend), boxes, BACKS[category], turn]
    subprocess.run([sys.executable, "-c", _MAKE_MARKED, json.dumps(job)], check=True, capture_output=True)
    made = asset(category, boxes, turn)
    assert made.front_deg == 90.0
    (placed,) = place(
        [Request(category, 0.0, 2.5)], AssetLibrary(tmp_path, (made,)), (4.0, 4.0), [], np.random.default_rng(0)
    )
    x, y = placed.footprint_center
    pose = opencv_camera_to_world((0.0, 0.0, 1.3), (x, y, 0.5))
    shares = []
    placed_obj = LibraryObject(
        str(blend), "asset", file_sha256(blend), placed.location, placed.yaw_deg, placed.scale, 0
    )
    # turned half round about its footprint's centre, so that it stands where the placed one stood
    turned_obj = replace(
        placed_obj,
        location=(2 * x - placed.location[0], 2 * y - placed.location[1], placed.location[2]),
        yaw_deg=placed.yaw_deg + 180.0,
    )
    shares = []
    for name, obj in (("placed", placed_obj), ("turned", turned_obj)):
        spec = ScanRoomShard(
            scene_id=name, out_dir=str(tmp_path / name), width=96, height=72, hfov_deg=60.0, depth_stride=1,
            samples=4, seed=0, parts=(), lamps=(AreaLamp((0.0, 0.5, 3.0), 2.0, 400.0),),
            frames=(ScanRoomFrame(0, tuple(map(tuple, pose.tolist()))),), library=(obj,),
        )  # fmt: skip
        try:
            render_client.render_spec(write_spec(tmp_path / f"{name}.json", spec), timeout_s=600, shards_per_worker=1)
        finally:
            render_client.close_all()
        image = cv2.cvtColor(cv2.imread(str(tmp_path / name / "frame-000000.color.png")), cv2.COLOR_BGR2RGB)
        assert (image.max(axis=2) > 20).mean() > 0.02  # the object is in view
        shares.append(red_share(image))
    assert shares[0] < 0.001 < shares[1], shares
