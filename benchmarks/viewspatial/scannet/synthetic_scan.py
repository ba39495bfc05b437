"""The embedded ScanNet default (DESIGN §5): a synthetic room described in plain Python.

A room of a few metres (walls, floor, ceiling) with labelled furniture boxes, a camera walk
(one frame with an `-inf` pose, as ScanNet has), the mesh with per-face segments and the
aggregation, and the render spec that `render/scannet_room.py` turns into colour and depth.
`write_synthetic_scan` writes the rendered frames with the ScanNet writers in both layouts.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.viewspatial.config import MAX_SYNTHETIC_SCANS
from benchfoundry.benchmarks.viewspatial.scannet.scannet_read import (
    ScanFormatError,
    ScanFrame,
    ScanIntrinsics,
    scan_file_names,
)
from benchfoundry.benchmarks.viewspatial.scannet.scannet_write import (
    write_aggregation_json,
    write_export_layout,
    write_label_map,
    write_ply,
    write_segs_json,
    write_sens,
)
from benchfoundry.core.atomic_files import write_bytes_atomic, write_json_atomic
from benchfoundry.core.camera import opencv_camera_to_world
from benchfoundry.core.image_decode import decode_file
from benchfoundry.core.render_spec import AreaLamp, MeshPart, ScanRoomFrame, ScanRoomShard, to_json, write_spec
from benchfoundry.core.seeding import item_rng
from benchfoundry.pipeline import render_client

#: NYU40 ids of the room's structure.
STRUCTURE_NYU40 = {"wall": 1, "floor": 2, "ceiling": 22}


@dataclass(frozen=True)
class Furniture:
    """A labelled box standing in the room: raw label, NYU40 id, centre and size in metres, RGB 0–1."""

    label: str
    nyu40_id: int
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    color: tuple[float, float, float]

    @property
    def lo(self) -> np.ndarray:
        return np.asarray(self.center) - np.asarray(self.size) / 2.0

    @property
    def hi(self) -> np.ndarray:
        return np.asarray(self.center) + np.asarray(self.size) / 2.0


@dataclass(frozen=True)
class Room:
    """A box-shaped room with its corner at the origin, z up (ScanNet's axes), and its furniture."""

    scene_id: str
    size: tuple[float, float, float]
    furniture: tuple[Furniture, ...]


#: A 6 × 5 × 2.8 m room; chairs repeat, the other categories occur once; the trash can maps to
#: NYU40 "otherprop" (40) and is excluded from questions. Pieces stand at different depths and heights, as a
#: ScanNet room's do: a table and a bag in the middle (in front of the far walls from the camera walk), things on
#: others or on the wall above them (pillow on the bed, books on the nightstand, television over the cabinet,
#: whiteboard over the desk, window over the sofa), so that Cam-Rel. Dir. finds pairs of every released direction
#: (front, back, above, down and their mixes), not only left and right. A box stands at the desk's front edge, as
#: the release's lamp on a nightstand or clothes on a table do: seen across the room, the desk lies behind and
#: below it steeply enough for the camera's pitch (front-down; the box back-up of the desk), which no other
#: pair gives.
BASE_FURNITURE: tuple[Furniture, ...] = (
    Furniture("bed", 4, (1.20, 3.95, 0.25), (2.00, 1.60, 0.50), (0.75, 0.25, 0.25)),
    Furniture("pillow", 18, (0.55, 3.95, 0.58), (0.45, 0.70, 0.16), (0.92, 0.92, 0.85)),
    Furniture("picture", 11, (1.20, 4.97, 1.75), (0.90, 0.05, 0.60), (0.95, 0.80, 0.20)),
    Furniture("nightstand", 32, (2.55, 4.70, 0.30), (0.45, 0.40, 0.60), (0.50, 0.30, 0.12)),
    Furniture("books", 23, (2.55, 4.70, 0.68), (0.28, 0.22, 0.16), (0.15, 0.30, 0.65)),
    Furniture("sofa", 6, (4.50, 4.45, 0.40), (2.00, 0.90, 0.80), (0.20, 0.35, 0.75)),
    Furniture("window", 9, (4.50, 4.97, 1.75), (1.20, 0.05, 0.90), (0.70, 0.85, 0.95)),
    Furniture("tv", 25, (4.50, 0.06, 1.25), (1.20, 0.10, 0.70), (0.05, 0.05, 0.05)),
    Furniture("cabinet", 3, (4.50, 0.30, 0.30), (1.40, 0.50, 0.60), (0.60, 0.45, 0.30)),
    Furniture("refrigerator", 24, (0.45, 0.45, 0.90), (0.80, 0.80, 1.80), (0.90, 0.90, 0.92)),
    Furniture("desk", 14, (2.50, 0.45, 0.375), (1.40, 0.70, 0.75), (0.55, 0.35, 0.15)),
    Furniture("whiteboard", 30, (2.50, 0.03, 1.65), (1.20, 0.05, 0.80), (0.97, 0.97, 0.97)),
    Furniture("box", 29, (2.45, 0.66, 0.86), (0.35, 0.25, 0.22), (0.80, 0.60, 0.40)),
    Furniture("chair", 5, (2.20, 1.15, 0.45), (0.50, 0.50, 0.90), (0.15, 0.60, 0.25)),
    Furniture("chair", 5, (2.95, 1.25, 0.45), (0.50, 0.50, 0.90), (0.15, 0.60, 0.25)),
    Furniture("table", 7, (3.00, 2.55, 0.225), (1.10, 0.60, 0.45), (0.45, 0.28, 0.12)),
    Furniture("bag", 37, (3.90, 3.05, 0.20), (0.40, 0.25, 0.40), (0.70, 0.15, 0.40)),
    Furniture("lamp", 35, (5.75, 2.50, 0.80), (0.30, 0.30, 1.60), (0.95, 0.95, 0.70)),
    Furniture("bookshelf", 10, (0.20, 2.20, 0.90), (0.40, 1.00, 1.80), (0.45, 0.25, 0.10)),
    Furniture("trash can", 40, (5.70, 0.40, 0.20), (0.30, 0.30, 0.40), (0.30, 0.30, 0.30)),
)
ROOM_SIZE = (6.0, 5.0, 2.8)
#: What the rooms hold beyond their config (part of each scan's marker): 2 adds the pieces at other depths and
#: heights (pillow, nightstand, books, window, cabinet, whiteboard, table, bag); 3 the box on the desk; 4 the
#: procedural surfaces (`SURFACE_OF`: floorboards, plaster, wood, fabric, a daylit window) and the denoiser.
ROOM_VERSION = 4
#: The two synthetic scans: one for the benchmark (val) split, its mirror image for training.
SYNTHETIC_SCENES: dict[str, tuple[str, bool]] = {"val": ("scene0900_00", False), "train": ("scene0901_00", True)}
#: How far (m) a free-standing piece of a varied room moves along each axis, either way.
VARIANT_SHIFT_M = 0.3
#: Furniture taller than this (m) stays where it is in a varied room, out of the camera walk's way.
VARIANT_MAX_TOP_M = 1.2


@dataclass(frozen=True)
class SyntheticScene:
    """One synthetic scan: its id, split and index in the split. Index 0 is the split's room of
    SYNTHETIC_SCENES; a later index is a variant of it (`scene_room`), walked from another start."""

    scene_id: str
    split: str
    index: int


def synthetic_scenes(scans: Mapping[str, int] | None = None) -> list[SyntheticScene]:
    """The synthetic scans of each split of SYNTHETIC_SCENES (val first), `scans[split]` of them (None: one
    each): scene0900_00, scene0902_00, … (val) and scene0901_00, scene0903_00, … (train)."""
    counts = dict.fromkeys(SYNTHETIC_SCENES, 1) if scans is None else scans
    unknown = sorted(set(counts) - set(SYNTHETIC_SCENES))
    if unknown:
        raise ValueError(f"synthetic scans of unknown splits {unknown}: only {sorted(SYNTHETIC_SCENES)}")
    scenes = []
    for split, (first, _) in SYNTHETIC_SCENES.items():
        n = counts.get(split, 0)
        if not 0 <= n <= MAX_SYNTHETIC_SCANS:
            raise ValueError(f"{n} synthetic scans of {split}: at most {MAX_SYNTHETIC_SCANS}")
        base = int(first[len("scene") : len("scene") + 4])
        scenes += [SyntheticScene(f"scene{base + 2 * k:04d}_00", split, k) for k in range(n)]
    return scenes


def _overlaps(lo: np.ndarray, hi: np.ndarray, others: Sequence[Furniture], gap: float = 0.05) -> bool:
    return any(bool(np.all(lo < o.hi + gap) and np.all(o.lo - gap < hi)) for o in others)


def scene_room(scene: SyntheticScene) -> Room:
    """The room of a synthetic scan. Index 0: its split's room of SYNTHETIC_SCENES, as drawn. A later index: that
    room mirrored in x and/or y (the four ways in turn), each free-standing piece no taller than
    VARIANT_MAX_TOP_M moved up to VARIANT_SHIFT_M along the axes on which it touches no wall (a draw that would
    leave the room or meet another piece is drawn again, then given up), drawn from the scan's id alone (a scan
    is data, the same in every build)."""
    mirrored = SYNTHETIC_SCENES[scene.split][1]
    room = synthetic_room(scene.scene_id, mirrored)
    if scene.index == 0:
        return room
    size = np.asarray(room.size)
    k = scene.index + int(mirrored)
    flips = (k % 2 == 1, (k // 2) % 2 == 1)
    placed = []
    for f in room.furniture:
        c = np.asarray(f.center, float)
        for axis, flip in enumerate(flips):
            if flip:
                c[axis] = size[axis] - c[axis]
        placed.append(replace(f, center=(float(c[0]), float(c[1]), float(c[2]))))
    rng = item_rng(0, "viewspatial.synthetic_scan.room", scene.scene_id)
    for i, f in enumerate(placed):
        if f.hi[2] > VARIANT_MAX_TOP_M:
            continue
        free = [a for a in (0, 1) if f.lo[a] > 0.1 and f.hi[a] < size[a] - 0.1]
        others = placed[:i] + placed[i + 1 :]
        for _ in range(8):
            c = np.asarray(f.center, float)
            for a in free:
                c[a] += rng.uniform(-VARIANT_SHIFT_M, VARIANT_SHIFT_M)
            half = np.asarray(f.size) / 2.0
            lo, hi = c - half, c + half
            if np.all(lo[:2] >= 0.1) and np.all(hi[:2] <= size[:2] - 0.1) and not _overlaps(lo, hi, others):
                placed[i] = replace(f, center=(float(c[0]), float(c[1]), float(c[2])))
                break
    return Room(scene.scene_id, room.size, tuple(placed))


def walk_phase(scene: SyntheticScene) -> float:
    """Where a synthetic scan's camera walk starts on its loop (radians): 0 for index 0, else drawn from its id."""
    if scene.index == 0:
        return 0.0
    return float(item_rng(0, "viewspatial.synthetic_scan.walk", scene.scene_id).uniform(0.0, 2.0 * math.pi))


def synthetic_room(scene_id: str, mirrored: bool = False) -> Room:
    """The base room, or its mirror image in x (a different layout with the same objects)."""
    if not mirrored:
        return Room(scene_id, ROOM_SIZE, BASE_FURNITURE)
    width = ROOM_SIZE[0]
    furniture = tuple(
        Furniture(f.label, f.nyu40_id, (width - f.center[0], f.center[1], f.center[2]), f.size, f.color)
        for f in BASE_FURNITURE
    )
    return Room(scene_id, ROOM_SIZE, furniture)


# --- cameras ------------------------------------------------------------------------------------


#: The frames of a synthetic scan's walk whose pose is lost (`-inf`), as some of a ScanNet scan's are.
LOST_FRAMES = (3,)


def camera_walk(
    room: Room, n_frames: int, invalid_frames: Sequence[int] = LOST_FRAMES, phase: float = 0.0
) -> list[np.ndarray]:
    """Poses on a loop near the walls, each looking across the room and slightly down, starting `phase`
    radians along the loop.

    Frames in `invalid_frames` get an all `-inf` pose (tracking lost), as in ScanNet.
    """
    w, d, _ = room.size
    centre = np.array([w / 2.0, d / 2.0])
    poses = []
    for i in range(n_frames):
        t = 2.0 * math.pi * i / n_frames + phase
        eye_xy = centre + np.array([0.36 * w * math.cos(t), 0.34 * d * math.sin(t)])
        height = 1.45 + 0.2 * math.sin(3.0 * t)
        aim = t + math.pi + 0.45 * math.sin(2.0 * t + 0.7)
        target_xy = eye_xy + 2.5 * np.array([math.cos(aim), math.sin(aim)])
        pose = opencv_camera_to_world((*eye_xy, height), (*target_xy, 0.55))
        if i in invalid_frames:
            pose = np.full((4, 4), -np.inf)
        poses.append(pose)
    return poses


def intrinsics_for(width: int, height: int, hfov_deg: float, depth_stride: int) -> ScanIntrinsics:
    """Pinhole intrinsics of a Blender camera (pixel centres at integers) and of depth subsampled by `depth_stride`."""
    if width % depth_stride or height % depth_stride:
        raise ValueError(f"image {width}x{height} is not divisible by depth_stride {depth_stride}")
    fx = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    color = np.array([[fx, 0, width / 2.0 - 0.5, 0], [0, fx, height / 2.0 - 0.5, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    depth = color.copy()
    depth[:2, :3] /= depth_stride
    return ScanIntrinsics(color, depth, (width, height), (width // depth_stride, height // depth_stride), 1000.0)


# --- mesh, segments, aggregation ---------------------------------------------------------------


@dataclass
class RoomMesh:
    """Vertices, triangles, vertex colours, a segment id per vertex and the aggregation's groups."""

    vertices: np.ndarray
    faces: np.ndarray
    colors: np.ndarray
    seg_indices: np.ndarray
    groups: list[dict[str, Any]]
    parts: list[MeshPart]


_BOX_FACES = (  # (axis, side) of each of a box's six faces
    (0, 0),
    (0, 1),
    (1, 0),
    (1, 1),
    (2, 0),
    (2, 1),
)


def _quad(lo: np.ndarray, hi: np.ndarray, axis: int, side: int) -> np.ndarray:
    """The four corners of one face of the box [lo, hi] (counter-clockwise seen from outside)."""
    a, b = (axis + 1) % 3, (axis + 2) % 3
    fixed = hi[axis] if side else lo[axis]
    corners = []
    for ua, ub in ((0, 0), (1, 0), (1, 1), (0, 1)):
        p = np.zeros(3)
        p[axis], p[a], p[b] = fixed, (hi[a] if ua else lo[a]), (hi[b] if ub else lo[b])
        corners.append(p)
    quad = np.array(corners)
    return quad if side else quad[::-1]


#: Label → the procedural surface (render/surfaces.py) it is drawn with; any other is plain.
SURFACE_OF: dict[str, str] = {
    "floor": "planks",
    "ceiling": "plaster",
    "wall": "plaster",
    "bed": "fabric",
    "pillow": "fabric",
    "sofa": "fabric",
    "nightstand": "wood",
    "cabinet": "wood",
    "desk": "wood",
    "table": "wood",
    "bookshelf": "wood",
    "box": "wood",
    "window": "window",
}


def room_mesh(room: Room) -> RoomMesh:
    """The room as ScanNet's mesh would hold it: every face of every box is one segment.

    Structure: floor, ceiling and four walls (inward-facing quads, one object each); furniture:
    closed boxes. `parts` lists each object's triangles and colour for the renderer.
    """
    verts: list[np.ndarray] = []
    faces: list[list[int]] = []
    colors: list[np.ndarray] = []
    segs: list[int] = []
    groups: list[dict[str, Any]] = []
    parts: list[MeshPart] = []
    room_lo, room_hi = np.zeros(3), np.asarray(room.size, float)

    def add_object(label: str, quads: list[np.ndarray], rgb: Sequence[float]) -> None:
        object_id = len(groups)
        first_vertex, first_face = len(verts), len(faces)
        seg_ids = []
        for quad in quads:
            seg = len(segs) // 4
            base = len(verts)
            verts.extend(quad)
            segs.extend([seg] * 4)
            colors.extend([np.round(np.asarray(rgb) * 255)] * 4)
            faces.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]])
            seg_ids.append(seg)
        groups.append({"objectId": object_id, "label": label, "segments": seg_ids})
        parts.append(
            MeshPart(
                name=f"{object_id:02d}_{label.replace(' ', '_')}",
                color=tuple(float(c) for c in rgb),
                vertices=tuple(map(tuple, np.asarray(verts[first_vertex:]).tolist())),
                faces=tuple(map(tuple, (np.asarray(faces[first_face:]) - first_vertex).tolist())),
                surface=SURFACE_OF.get(label, ""),
            )
        )

    add_object("floor", [_quad(room_lo, room_hi, 2, 0)[::-1]], (0.55, 0.45, 0.35))
    add_object("ceiling", [_quad(room_lo, room_hi, 2, 1)[::-1]], (0.92, 0.92, 0.92))
    wall_colors = ((0.80, 0.78, 0.72), (0.72, 0.78, 0.80), (0.80, 0.74, 0.74), (0.76, 0.80, 0.72))
    for (axis, side), rgb in zip(((0, 0), (0, 1), (1, 0), (1, 1)), wall_colors):
        add_object("wall", [_quad(room_lo, room_hi, axis, side)[::-1]], rgb)
    for item in room.furniture:
        add_object(item.label, [_quad(item.lo, item.hi, a, s) for a, s in _BOX_FACES], item.color)
    return RoomMesh(
        vertices=np.asarray(verts, float),
        faces=np.asarray(faces, np.int64),
        colors=np.asarray(colors, np.uint8),
        seg_indices=np.asarray(segs, np.int64),
        groups=groups,
        parts=parts,
    )


def label_map_rows(rooms: Sequence[Room]) -> list[dict[str, Any]]:
    """Rows of the label map TSV (raw_category → nyu40id) for the rooms' labels."""
    nyu40 = dict(STRUCTURE_NYU40)
    for room in rooms:
        nyu40.update({f.label: f.nyu40_id for f in room.furniture})
    return [{"raw_category": label, "nyu40id": nyu40[label]} for label in sorted(nyu40)]


# --- rendering and writing -----------------------------------------------------------------------


@dataclass(frozen=True)
class RenderSettings:
    width: int = 256
    height: int = 192
    hfov_deg: float = 70.0
    depth_stride: int = 2
    samples: int = 4
    frames: int = 20
    seed: int = 0


def render_spec(
    room: Room, mesh: RoomMesh, poses: Sequence[np.ndarray], settings: RenderSettings, render_dir: str | Path
) -> ScanRoomShard:
    """What the Blender worker needs: image size, field of view, objects, lights, one pose per frame, and where the
    frames go (`render_dir`; a relative one is relative to the spec file's folder).

    A frame written with an `-inf` pose (tracking lost) is still rendered, from the next valid pose.
    """
    w, d, h = room.size
    n = len(poses)
    valid = [i for i, p in enumerate(poses) if np.isfinite(p).all()]
    if not valid:
        raise ValueError(f"{room.scene_id}: the camera walk has no valid pose")
    render_poses = [poses[i] if i in valid else poses[min(valid, key=lambda j: (j - i) % n)] for i in range(n)]
    lamps = tuple(
        AreaLamp(location=(w * fx, d * fy, h - 0.05), size=1.2, power=30.0)
        for fx, fy in ((0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7))
    )
    return ScanRoomShard(
        scene_id=room.scene_id,
        out_dir=str(render_dir),
        width=settings.width,
        height=settings.height,
        hfov_deg=settings.hfov_deg,
        depth_stride=settings.depth_stride,
        samples=settings.samples,
        seed=settings.seed,
        parts=tuple(mesh.parts),
        lamps=lamps,
        frames=tuple(
            ScanRoomFrame(frame_id=i, pose_c2w=tuple(map(tuple, p.tolist()))) for i, p in enumerate(render_poses)
        ),
    )


def frame_paths(render_dir: str | Path, frame_id: int) -> tuple[Path, Path]:
    """Where the worker leaves a frame's colour PNG and uint16 depth (mm, `.npy`)."""
    base = Path(render_dir) / f"frame-{frame_id:06d}"
    return base.with_suffix(".color.png"), base.with_suffix(".depth.npy")


def run_render_worker(spec_path: str | Path, timeout_s: float = 1800.0) -> None:
    """Render a `ScanRoomShard` spec on this thread's render worker (pipeline/render_client.py), into the
    spec's `out_dir`; a failed render raises RenderError (retried). Its frames and seconds count towards the
    task's clock."""
    render_client.render_spec(spec_path, timeout_s=timeout_s, shards_per_worker=1)


def _rendered_depth(path: Path) -> np.ndarray:
    """A worker's uint16 depth `.npy`; a missing, truncated or wrong-typed file raises ScanFormatError naming it."""
    try:
        depth = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as exc:
        raise ScanFormatError(f"{path}: rendered depth frame missing or unreadable ({exc})") from None
    if depth.ndim != 2 or depth.dtype != np.uint16:
        raise ScanFormatError(f"{path}: rendered depth is {depth.dtype} {depth.shape}, expected 2-D uint16")
    return depth


def rendered_frames(render_dir: str | Path, poses: Sequence[np.ndarray]) -> Iterator[ScanFrame]:
    """The worker's frames, read one at a time, with the walk's poses (including `-inf` ones).

    A missing, truncated or corrupt frame file raises ScanFormatError naming it.
    """
    for frame_id, pose in enumerate(poses):
        color_path, depth_path = frame_paths(render_dir, frame_id)
        bgr = decode_file(color_path, cv2.IMREAD_COLOR, ScanFormatError)
        yield ScanFrame(frame_id, cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), _rendered_depth(depth_path), np.asarray(pose))


def write_scan_annotations(scan_dir: str | Path, scene_id: str, mesh: RoomMesh) -> None:
    """Mesh, segments and aggregation beside the frames."""
    names = scan_file_names(scene_id)
    d = Path(scan_dir)
    write_ply(d / names["ply"], mesh.vertices, mesh.faces, mesh.colors)
    write_segs_json(d / names["segs"], scene_id, mesh.seg_indices)
    write_aggregation_json(d / names["aggregation"], scene_id, mesh.groups)


def make_synthetic_scan(root: str | Path, scene: SyntheticScene | str, settings: RenderSettings) -> dict[str, Any]:
    """Render one synthetic scan (a split's name: its first) and write it as `scans/<scene>/` (`.sens`) and
    `scans_export/<scene>/`.

    Returns a summary (scene id, frame count, invalid frames, Blender seconds). The render folder is kept in
    `render/<scene>/` so that a rerun after a crash only rewrites the scan files.
    """
    if isinstance(scene, str):
        scene = SyntheticScene(SYNTHETIC_SCENES[scene][0], scene, 0)
    scene_id, split = scene.scene_id, scene.split
    room = scene_room(scene)
    mesh = room_mesh(room)
    poses = camera_walk(room, settings.frames, phase=walk_phase(scene))
    intrinsics = intrinsics_for(settings.width, settings.height, settings.hfov_deg, settings.depth_stride)
    root = Path(root)
    render_dir = root / "render" / scene_id
    # the frames go beside the spec file, which the render folder keeps: it names no absolute path
    spec = render_spec(room, mesh, poses, settings, ".")
    spec_path = write_spec(render_dir / "spec.json", spec)
    # the hash leaves out where the frames go, so that a moved build is not rendered again
    where_free = json.dumps(to_json(replace(spec, out_dir="")), sort_keys=True, separators=(",", ":"))
    spec_hash = hashlib.sha256(where_free.encode()).hexdigest()
    done = render_dir / "rendered.json"
    rendered = json.loads(done.read_text()) if done.exists() else {}
    if rendered.get("spec_hash") != spec_hash:
        started = time.monotonic()
        run_render_worker(spec_path)
        rendered = {"spec_hash": spec_hash, "render_s": round(time.monotonic() - started, 2)}
        write_json_atomic(done, rendered)
    raw_dir, export_dir = root / "scans" / scene_id, root / "scans_export" / scene_id
    write_sens(raw_dir / scan_file_names(scene_id)["sens"], intrinsics, rendered_frames(render_dir, poses))
    write_export_layout(export_dir, intrinsics, rendered_frames(render_dir, poses))
    for d in (raw_dir, export_dir):
        write_scan_annotations(d, scene_id, mesh)
    invalid = [i for i, p in enumerate(poses) if not np.isfinite(p).all()]
    return {
        "scene_id": scene_id,
        "split": split,
        "frames": len(poses),
        "invalid_frames": invalid,
        "render_s": rendered["render_s"],
    }


def write_root_files(root: str | Path, scenes: Sequence[SyntheticScene] | None = None) -> None:
    """Split lists (of `scenes`; None: one scan a split) and the label map TSV of the synthetic ScanNet root.
    A varied room holds its split's first room's pieces, so the first rooms' labels are every scan's."""
    root = Path(root)
    scenes = synthetic_scenes() if scenes is None else scenes
    rooms = [synthetic_room(scene, mirrored) for scene, mirrored in SYNTHETIC_SCENES.values()]
    write_label_map(root / "scannetv2-labels.combined.tsv", label_map_rows(rooms))
    for split in SYNTHETIC_SCENES:
        ids = "".join(f"{s.scene_id}\n" for s in scenes if s.split == split)
        write_bytes_atomic(root / f"scannetv2_{split}.txt", ids.encode())
