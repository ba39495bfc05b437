"""The embedded ScanNet default (docs/design/defaults.md §5): a synthetic room described in plain Python.

A room of a few metres (walls, floor, ceiling) with labelled furniture boxes, a camera walk
(one frame with an `-inf` pose, as ScanNet has), the mesh with per-face segments and the
aggregation, and the render spec that `benchmarks/viewspatial/scannet/scenes/renderer.py` turns into colour and depth.
`write_synthetic_scan` writes the rendered frames with the ScanNet writers in both layouts.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchfoundry.assets.asset_library import AssetLibrary
from benchfoundry.benchmarks.viewspatial.scannet.scenes.library_room import LibraryPiece, furnish
from benchfoundry.benchmarks.viewspatial.scannet.scenes.spec import LIBRARY_MESHES, ScanRoomFrame, ScanRoomShard
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_room import (
    SYNTHETIC_SCENES,
    Room,
    SyntheticScene,
    scene_room,
    synthetic_room,
    synthetic_scenes,
    walk_phase,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import (
    ScanFormatError,
    ScanFrame,
    ScanIntrinsics,
    scan_file_names,
)
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_write import (
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
from benchfoundry.core.render_spec import AreaLamp, MeshPart, to_json, write_spec
from benchfoundry.core.seeding import item_rng
from benchfoundry.pipeline import render_client

#: NYU40 ids of the room's structure.
STRUCTURE_NYU40 = {"wall": 1, "floor": 2, "ceiling": 22}


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


#: Label → the procedural surface (render/surfaces.py) it is drawn with; any other is plain; the floor's is
#: `floor_finish`'s.
SURFACE_OF: dict[str, str] = {
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


#: The floors a varied room is laid with: procedural surface → the mesh's colour (RGB 0–1). A split's first room
#: (SYNTHETIC_SCENES) keeps its floorboards; a later one's is drawn from its id (`floor_finish`).
FLOOR_FINISHES: dict[str, tuple[float, float, float]] = {
    "planks": (0.55, 0.45, 0.35),
    "tile": (0.80, 0.78, 0.74),
    "carpet": (0.40, 0.38, 0.44),
}


def floor_finish(scene_id: str) -> str:
    """The floor (a key of FLOOR_FINISHES) of a synthetic scan: floorboards in a split's first room, else drawn from
    the scan's id (a scan is data, the same in every build)."""
    if scene_id in {first for first, _ in SYNTHETIC_SCENES.values()}:
        return "planks"
    rng = item_rng(0, "viewspatial.synthetic_scan.floor", scene_id)
    return sorted(FLOOR_FINISHES)[int(rng.integers(len(FLOOR_FINISHES)))]


#: Edge (m) of the cells that cut a library object's surface into segments, as ScanNet's over-segmentation cuts a
#: scanned surface into patches.
LIBRARY_SEGMENT_M = 0.25


def room_mesh(
    room: Room, pieces: Sequence[LibraryPiece] = (), meshes: Sequence[tuple[np.ndarray, np.ndarray]] = ()
) -> RoomMesh:
    """The room as ScanNet's mesh would hold it: every face of every box is one segment.

    Structure: floor, ceiling and four walls (inward-facing quads, one object each); furniture: closed boxes; then each
    library piece with its placed triangles (`meshes`, the render worker's, in the pieces' order), cut into segments
    by LIBRARY_SEGMENT_M cells. `parts` lists each box object's triangles and colour for the renderer (the library
    pieces are appended from their files).
    """
    if len(meshes) != len(pieces):
        raise ValueError(f"{room.scene_id}: {len(meshes)} library meshes for {len(pieces)} library pieces")
    verts: list[np.ndarray] = []
    faces: list[np.ndarray] = []
    colors: list[np.ndarray] = []
    segs: list[np.ndarray] = []
    groups: list[dict[str, Any]] = []
    parts: list[MeshPart] = []
    room_lo, room_hi = np.zeros(3), np.asarray(room.size, float)

    def add_object(
        label: str, vertices: np.ndarray, triangles: np.ndarray, seg: np.ndarray, rgb: Sequence[float]
    ) -> int:
        """Append one object, its segment ids 0, 1, … (all used) renumbered after the objects before it; returns
        its object id."""
        object_id = len(groups)
        first_vertex = sum(len(v) for v in verts)
        first_segment = int(segs[-1].max()) + 1 if segs else 0
        verts.append(vertices)
        faces.append(triangles + first_vertex)
        colors.append(np.tile(np.round(np.asarray(rgb) * 255), (len(vertices), 1)))
        segs.append(seg + first_segment)
        segments = list(range(first_segment, first_segment + int(seg.max()) + 1))
        groups.append({"objectId": object_id, "label": label, "segments": segments})
        return object_id

    def add_box_object(label: str, quads: list[np.ndarray], rgb: Sequence[float], surface: str | None = None) -> None:
        vertices = np.concatenate(quads)
        triangles = np.concatenate(
            [[[4 * q, 4 * q + 1, 4 * q + 2], [4 * q, 4 * q + 2, 4 * q + 3]] for q in range(len(quads))]
        )
        object_id = add_object(label, vertices, triangles, np.repeat(np.arange(len(quads)), 4), rgb)
        parts.append(
            MeshPart(
                name=f"{object_id:02d}_{label.replace(' ', '_')}",
                color=tuple(float(c) for c in rgb),
                vertices=tuple(map(tuple, vertices.tolist())),
                faces=tuple(map(tuple, triangles.tolist())),
                surface=SURFACE_OF.get(label, "") if surface is None else surface,
            )
        )

    floor = floor_finish(room.scene_id)
    add_box_object("floor", [_quad(room_lo, room_hi, 2, 0)[::-1]], FLOOR_FINISHES[floor], floor)
    add_box_object("ceiling", [_quad(room_lo, room_hi, 2, 1)[::-1]], (0.92, 0.92, 0.92))
    wall_colors = ((0.80, 0.78, 0.72), (0.72, 0.78, 0.80), (0.80, 0.74, 0.74), (0.76, 0.80, 0.72))
    for (axis, side), rgb in zip(((0, 0), (0, 1), (1, 0), (1, 1)), wall_colors):
        add_box_object("wall", [_quad(room_lo, room_hi, axis, side)[::-1]], rgb)
    for item in room.furniture:
        add_box_object(item.label, [_quad(item.lo, item.hi, a, s) for a, s in _BOX_FACES], item.color)
    for piece, (vertices, triangles) in zip(pieces, meshes, strict=True):
        cells = np.floor((vertices - vertices.min(axis=0)) / LIBRARY_SEGMENT_M).astype(np.int64)
        _, seg = np.unique(cells, axis=0, return_inverse=True)
        add_object(piece.label, vertices, triangles, seg.reshape(-1), piece.color)
    return RoomMesh(
        vertices=np.concatenate(verts).astype(float),
        faces=np.concatenate(faces).astype(np.int64),
        colors=np.concatenate(colors).astype(np.uint8),
        seg_indices=np.concatenate(segs).astype(np.int64),
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
    room: Room,
    mesh: RoomMesh,
    poses: Sequence[np.ndarray],
    settings: RenderSettings,
    render_dir: str | Path,
    pieces: Sequence[LibraryPiece] = (),
) -> ScanRoomShard:
    """What the Blender worker needs: image size, field of view, objects (the library `pieces` by their files),
    lights (the ceiling's, and a library lamp's bulb), one pose per frame, and where the frames go (`render_dir`; a
    relative one is relative to the spec file's folder).

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
    ) + tuple(piece.light for piece in pieces if piece.light is not None)
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
        library=tuple(piece.placed for piece in pieces),
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


def rendered_library_meshes(render_dir: str | Path, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The worker's placed triangles of `count` library objects; a missing or malformed file raises ScanFormatError
    naming it."""
    path = Path(render_dir) / LIBRARY_MESHES
    try:
        with np.load(path, allow_pickle=False) as data:
            meshes = [(data[f"vertices_{k}"], data[f"faces_{k}"]) for k in range(count)]
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise ScanFormatError(f"{path}: library meshes missing or unreadable ({exc})") from None
    for k, (vertices, faces) in enumerate(meshes):
        if vertices.ndim != 2 or vertices.shape[1:] != (3,) or faces.ndim != 2 or faces.shape[1:] != (3,):
            raise ScanFormatError(f"{path}: library object {k}: vertices {vertices.shape}, faces {faces.shape}")
        if len(vertices) == 0 or faces.size and (faces.min() < 0 or faces.max() >= len(vertices)):
            raise ScanFormatError(f"{path}: library object {k}: no vertices, or faces out of its {len(vertices)}")
    return meshes


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


def make_synthetic_scan(
    root: str | Path, scene: SyntheticScene | str, settings: RenderSettings, library: AssetLibrary | None = None
) -> dict[str, Any]:
    """Render one synthetic scan (a split's name: its first) and write it as `scans/<scene>/` (`.sens`) and
    `scans_export/<scene>/`; with a `library`, its pieces of the library's classes drawn from it (library_room).

    Returns a summary (scene id, frame count, invalid frames, Blender seconds). The render folder is kept in
    `render/<scene>/` so that a rerun after a crash only rewrites the scan files.
    """
    if isinstance(scene, str):
        scene = SyntheticScene(SYNTHETIC_SCENES[scene][0], scene, 0)
    scene_id, split = scene.scene_id, scene.split
    room = scene_room(scene)
    poses = camera_walk(room, settings.frames, phase=walk_phase(scene))
    pieces: tuple[LibraryPiece, ...] = ()
    if library is not None:
        room, pieces = furnish(room, library)
    intrinsics = intrinsics_for(settings.width, settings.height, settings.hfov_deg, settings.depth_stride)
    root = Path(root)
    render_dir = root / "render" / scene_id
    # the frames go beside the spec file, which the render folder keeps: it names no absolute path
    spec = render_spec(room, room_mesh(room), poses, settings, ".", pieces)
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
    meshes = rendered_library_meshes(render_dir, len(pieces)) if pieces else []
    mesh = room_mesh(room, pieces, meshes)
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
