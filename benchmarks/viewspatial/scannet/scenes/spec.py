"""The synthetic scans' kind of scene in the render contract (benchfoundry/core/render_spec.py): a room along
a camera walk. Importing this module registers the kind; it imports no bpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from benchfoundry.core.render_spec import AreaLamp, LibraryObject, Matrix4, MeshPart, spec_kind


@spec_kind
@dataclass(frozen=True)
class ScanRoomFrame:
    """One frame of the walk: an OpenCV camera-to-world pose."""

    kind: ClassVar[str] = "scan_frame"
    frame_id: int
    pose_c2w: Matrix4


@spec_kind
@dataclass(frozen=True)
class ScanRoomShard:
    """A synthetic ScanNet room: colour and planar depth (subsampled by `depth_stride`) per frame, into `out_dir`
    (a relative one is relative to the spec file's folder, so that a spec kept in a build names no absolute path).

    Its `library` objects (an asset library's) are appended from their `.blend` files; their triangles as placed,
    each above `library_faces` cut down to about that many, go to `out_dir/LIBRARY_MESHES` before the first frame, so
    that the scan's mesh holds what was rendered."""

    kind: ClassVar[str] = "scan_room"
    version: ClassVar[int] = 3
    scene_id: str
    out_dir: str
    width: int
    height: int
    hfov_deg: float
    depth_stride: int
    samples: int
    seed: int
    parts: tuple[MeshPart, ...]
    lamps: tuple[AreaLamp, ...]
    frames: tuple[ScanRoomFrame, ...]
    library: tuple[LibraryObject, ...] = ()
    library_faces: int = 20_000


#: The file in a `ScanRoomShard`'s `out_dir` with its library objects' placed triangles: `vertices_<k>` (float64,
#: n × 3, world metres) and `faces_<k>` (int64, m × 3) of its k-th library object.
LIBRARY_MESHES = "library_meshes.npz"
