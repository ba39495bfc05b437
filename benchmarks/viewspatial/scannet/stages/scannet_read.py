"""Reading ScanNet scans: the `.sens` binary, the SensReader export layout, mesh, segments, aggregation.

A scan folder holds either the raw layout (`<scene>.sens`) or the export layout (`color/<i>.jpg`,
`depth/<i>.png` 16-bit mm, `pose/<i>.txt` 4×4 camera-to-world, `intrinsic/`), beside
`<scene>_vh_clean_2.ply`, `<scene>_vh_clean_2.0.010000.segs.json` and `<scene>.aggregation.json`
(docs/design/viewspatial.md §1.1). Frames are read lazily, one at a time. ScanNet stores poses and intrinsics as
float32 in the `.sens`; both readers return them at that precision (as float64 arrays) (the writers:
benchmarks/viewspatial/scannet/stages/scannet_write.py).
A frame whose colour or depth image is truncated, corrupt or not of the intrinsics' size raises
ScanFormatError naming the file (and frame) when it is read; readers report and skip it. The export
layout takes the image sizes from the headers of its first few readable frames (the most common size,
so one odd frame fails alone). A truncated or malformed mesh, segments or aggregation file raises
ScanFormatError naming it. `scan_fingerprint` sums up a scan folder's contents (relative names,
sizes, hashes) for the stage spec hashes without opening the frame images.
"""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import cv2
import numpy as np

from benchfoundry.core.bounded_read import csv_records, read_json, read_text
from benchfoundry.core.image_decode import decode_bytes, decode_file
from benchfoundry.core.image_decode import image_size as header_image_size
from benchfoundry.core.safe_paths import UnsafePathError, inside_file, regular_file

SENS_VERSION = 4
COLOR_COMPRESSION = {-1: "unknown", 0: "raw", 1: "png", 2: "jpeg"}
DEPTH_COMPRESSION = {-1: "unknown", 0: "raw_ushort", 1: "zlib_ushort", 2: "occi_ushort"}
FRAME_HEADER = struct.Struct("<16f4Q")  # camera_to_world, timestamp color/depth, color/depth byte counts
SEGS_PARAMS = {
    "kThresh": "0.0001",
    "segMinVerts": "20",
    "minPoints": "750",
    "maxPoints": "30000",
    "thinThresh": "0.05",
    "flatThresh": "0.001",
    "minLength": "0.02",
    "maxLength": "1",
}


_NO_COLOR = np.zeros((0, 0, 3), dtype=np.uint8)
#: (folder, extension) of an export frame's files; the first two are its images.
EXPORT_FRAME_FILES = (("color", "jpg"), ("depth", "png"), ("pose", "txt"))
_EXPORT_IMAGE_FILES = EXPORT_FRAME_FILES[:2]
#: Readable frames whose header sizes `_export_sizes` compares.
_SIZE_SAMPLE = 5
#: Files hashed whole by `scan_fingerprint`; the `.sens` by its size and its first and last block.
_HASHED_WHOLE = {".ply", ".json"}
_FINGERPRINT_BLOCK = 4096
#: Export folders of small text files that `scan_fingerprint` hashes as one stream.
_FINGERPRINT_TEXT_DIRS = ("pose", "intrinsic")


class ScanFormatError(ValueError):
    """A scan file that cannot be read; the message names the file (and the frame)."""


@dataclass
class ScanFrame:
    """One RGB-D frame: colour, depth in millimetres (0 = none) and the camera-to-world pose.

    The pose uses OpenCV camera axes (x right, y down, z forward) and may hold -inf/nan.
    """

    frame_id: int
    color: np.ndarray
    depth_mm: np.ndarray
    pose: np.ndarray


@dataclass
class ScanIntrinsics:
    """4×4 colour and depth intrinsics, image sizes (w, h) and the depth scale (units per metre)."""

    color: np.ndarray
    depth: np.ndarray
    color_size: tuple[int, int]
    depth_size: tuple[int, int]
    depth_shift: float = 1000.0


def _f32(a: np.ndarray) -> np.ndarray:
    """Values at the float32 precision ScanNet stores, as float64."""
    return np.asarray(a, dtype=np.float64).astype(np.float32).astype(np.float64)


def pose_problem(pose: np.ndarray) -> str | None:
    """Why a pose is unusable (non-finite entries), or None."""
    pose = np.asarray(pose, dtype=np.float64)
    if pose.shape != (4, 4):
        return f"pose is not 4x4 (shape {pose.shape})"
    if not np.isfinite(pose).all():
        bad = sorted({str(v) for v in pose[~np.isfinite(pose)]})
        return f"non-finite pose ({', '.join(bad)})"
    return None


# --- images ------------------------------------------------------------------------------------


def _decode_color(data: bytes, where: str) -> np.ndarray:
    """RGB of an encoded colour image; truncated or corrupt data raise ScanFormatError naming `where`."""
    return cv2.cvtColor(decode_bytes(data, where, cv2.IMREAD_COLOR, ScanFormatError), cv2.COLOR_BGR2RGB)


def _read_color_file(path: Path) -> np.ndarray:
    return cv2.cvtColor(decode_file(path, cv2.IMREAD_COLOR, ScanFormatError), cv2.COLOR_BGR2RGB)


def _read_depth_file(path: Path) -> np.ndarray:
    img = decode_file(path, cv2.IMREAD_UNCHANGED, ScanFormatError)
    if img.ndim != 2 or img.dtype != np.uint16:
        raise ScanFormatError(f"{path}: not a 16-bit single-channel depth PNG")
    return img


def check_image_size(image: np.ndarray, size: tuple[int, int], where: str) -> np.ndarray:
    """`image` when its (w, h) is `size`, else ScanFormatError naming `where`."""
    h, w = image.shape[:2]
    if (w, h) != tuple(size):
        raise ScanFormatError(f"{where}: image is {w}x{h}, the intrinsics say {size[0]}x{size[1]}")
    return image


def image_size(path: Path) -> tuple[int, int]:
    """(w, h) from an image file's header, without decoding the pixels (the guarded decoder's limits apply)."""
    return header_image_size(path, ScanFormatError)


# --- matrices as text --------------------------------------------------------------------------


def read_matrix(path: str | Path) -> np.ndarray:
    """A 4×4 matrix text file (pose or intrinsics), at float32 precision."""
    path = Path(path)
    try:
        m = np.loadtxt(path, dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise ScanFormatError(f"{path}: not a matrix of numbers ({exc})") from exc
    if m.shape != (4, 4):
        raise ScanFormatError(f"{path}: expected a 4x4 matrix, got shape {m.shape}")
    return _f32(m)


# --- mesh, segments, aggregation ---------------------------------------------------------------

_PLY_TYPES = {
    "char": "i1",
    "int8": "i1",
    "uchar": "u1",
    "uint8": "u1",
    "short": "i2",
    "int16": "i2",
    "ushort": "u2",
    "uint16": "u2",
    "int": "i4",
    "int32": "i4",
    "uint": "u4",
    "uint32": "u4",
    "float": "f4",
    "float32": "f4",
    "double": "f8",
    "float64": "f8",
}


def _read_records(fh: BinaryIO, dtype: np.dtype, count: int, path: Path, name: str) -> np.ndarray:
    """`count` records of `dtype`; a count the rest of the file cannot hold (a truncated file, or a forged
    header claiming 4e9 vertices) raises ScanFormatError naming the file before anything is allocated."""
    left = os.fstat(fh.fileno()).st_size - fh.tell()
    if count < 0 or dtype.itemsize * count > left:
        raise ScanFormatError(
            f"{path}: truncated in element {name!r}: the header declares {count} records "
            f"({dtype.itemsize * count} bytes), only {left} bytes follow"
        )
    return np.frombuffer(fh.read(dtype.itemsize * count), dtype=dtype)


def _ply_dtype(path: Path, end: str, fields: list[tuple[Any, ...]]) -> np.dtype:
    """The numpy record type of PLY properties; an unknown property type raises ScanFormatError."""
    try:
        return np.dtype([(name, end + _PLY_TYPES[t], *shape) for name, t, *shape in fields])
    except KeyError as exc:
        raise ScanFormatError(f"{path}: unknown PLY property type {exc}") from None


def read_ply(path: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(vertices (N,3) float64, faces (M,3) int64, colours (N,3) uint8 or None) of a binary PLY
    with triangle faces; a truncated or malformed file raises ScanFormatError naming it."""
    path = Path(path)
    try:
        return _read_ply(path)
    except ScanFormatError:
        raise
    except (ValueError, IndexError) as exc:
        raise ScanFormatError(f"{path}: malformed PLY ({exc})") from exc


def _read_ply(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    with open(path, "rb") as fh:
        if fh.readline().strip() != b"ply":
            raise ScanFormatError(f"{path}: not a PLY file")
        fmt = None
        elements: list[tuple[str, int, list[tuple[str, ...]]]] = []
        while True:
            line = fh.readline()
            if not line:
                raise ScanFormatError(f"{path}: PLY header has no end_header")
            words = line.decode("ascii", "replace").split()
            if not words or words[0] in ("comment", "obj_info"):
                continue
            if words[0] == "end_header":
                break
            if words[0] == "format":
                fmt = words[1]
            elif words[0] == "element":
                elements.append((words[1], int(words[2]), []))
            elif words[0] == "property" and elements:
                elements[-1][2].append(tuple(words[1:]))
        if fmt not in ("binary_little_endian", "binary_big_endian"):
            raise ScanFormatError(f"{path}: PLY format {fmt!r} not supported (binary only)")
        end = "<" if fmt == "binary_little_endian" else ">"
        vertex = face = None
        for name, count, props in elements:
            lists = [p for p in props if p[0] == "list"]
            if not lists:
                arr = _read_records(fh, _ply_dtype(path, end, [(p[1], p[0]) for p in props]), count, path, name)
            elif len(props) == 1:
                _, count_t, item_t, pname = props[0]
                dtype = _ply_dtype(path, end, [("n", count_t), (pname, item_t, (3,))])
                arr = _read_records(fh, dtype, count, path, name)
                if count and not (arr["n"] == 3).all():
                    raise ScanFormatError(f"{path}: element {name!r} has non-triangle faces")
            else:
                raise ScanFormatError(f"{path}: element {name!r} mixes list and scalar properties")
            if name == "vertex":
                vertex = arr
            elif name == "face":
                face = arr
    if vertex is None:
        raise ScanFormatError(f"{path}: no vertex element")
    verts = np.stack([vertex[a].astype(np.float64) for a in "xyz"], axis=1)
    names = vertex.dtype.names or ()
    colors = None
    if all(c in names for c in ("red", "green", "blue")):
        colors = np.stack([vertex[c].astype(np.uint8) for c in ("red", "green", "blue")], axis=1)
    if face is None:
        faces = np.zeros((0, 3), dtype=np.int64)
    else:
        faces = np.asarray(face[face.dtype.names[1]], dtype=np.int64).reshape(-1, 3)
    if len(faces) and (faces.min() < 0 or faces.max() >= len(verts)):
        bad = faces.min() if faces.min() < 0 else faces.max()
        raise ScanFormatError(f"{path}: a face refers to vertex {bad}, the file has {len(verts)} vertices")
    if not np.isfinite(verts).all():
        raise ScanFormatError(f"{path}: a vertex coordinate is not a finite number")
    return verts, faces, colors


def _load_json(path: Path) -> Any:
    try:
        return read_json(path, error=ScanFormatError)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ScanFormatError(f"{path}: not valid JSON ({exc})") from exc


def read_segs_json(path: str | Path) -> np.ndarray:
    """Per-vertex segment ids (int64)."""
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict) or "segIndices" not in data:
        raise ScanFormatError(f"{path}: no 'segIndices'")
    try:
        segs = np.asarray(data["segIndices"], dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ScanFormatError(f"{path}: 'segIndices' is not a list of integers ({exc})") from None
    if segs.ndim != 1:
        raise ScanFormatError(f"{path}: 'segIndices' is not a flat list (shape {segs.shape})")
    return segs


def read_aggregation_json(path: str | Path) -> list[dict[str, Any]]:
    """Objects as {objectId, label, segments} from `segGroups`."""
    path = Path(path)
    data = _load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("segGroups"), list):
        raise ScanFormatError(f"{path}: no 'segGroups' list")
    out = []
    for i, g in enumerate(data["segGroups"]):
        try:
            out.append(
                {
                    "objectId": int(g.get("objectId", g.get("id"))),
                    "label": str(g["label"]),
                    "segments": [int(s) for s in g["segments"]],
                }
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ScanFormatError(f"{path}: segGroups[{i}] lacks objectId/label/segments ({exc})") from exc
    return out


# --- label map and splits ----------------------------------------------------------------------


def read_label_map(path: str | Path, to: str = "nyu40id") -> dict[str, int]:
    """`scannetv2-labels.combined.tsv`: raw_category → `to` column (NYU40 id by default)."""
    path = Path(path)
    header, rows = csv_records(read_text(path, error=ScanFormatError), str(path), "\t", error=ScanFormatError)
    missing = {"raw_category", to} - set(header)
    if missing:
        raise ScanFormatError(f"{path}: missing column(s) {sorted(missing)}")
    out: dict[str, int] = {}
    for line, row in rows:
        value = row[to].strip()
        if not value:
            continue
        try:
            out[row["raw_category"]] = int(value)
        except ValueError as exc:
            raise ScanFormatError(f"{path}: line {line}: {to} {value!r} is not an integer") from exc
    return out


def read_split(path: str | Path) -> list[str]:
    """Scene ids of a split list (`scannetv2_train.txt`, `scannetv2_val.txt`), one per line; a FIFO or a device
    there is refused by type (a read would hang), a file over the bounded reader's size in one line."""
    return [s.strip() for s in read_text(regular_file(path, f"{path}: split list")).splitlines() if s.strip()]


# --- scans -------------------------------------------------------------------------------------


def scan_file_names(scene_id: str) -> dict[str, str]:
    """ScanNet's file names of a scan: mesh, segments, aggregation and `.sens`."""
    return {
        "ply": f"{scene_id}_vh_clean_2.ply",
        "segs": f"{scene_id}_vh_clean_2.0.010000.segs.json",
        "aggregation": f"{scene_id}.aggregation.json",
        "sens": f"{scene_id}.sens",
    }


@dataclass
class _SensEntry:
    offset: int
    pose: np.ndarray
    color_bytes: int
    depth_bytes: int


@dataclass
class Scan(ABC):
    """One scan folder, either layout. Frames are indexed at open time (poses only) and read lazily."""

    scan_dir: Path
    scene_id: str
    layout: str
    intrinsics: ScanIntrinsics
    skipped: list[dict[str, Any]] = field(default_factory=list)
    _valid: list[int] = field(default_factory=list, repr=False)

    @property
    def ply_path(self) -> Path:
        return self.scan_dir / scan_file_names(self.scene_id)["ply"]

    @property
    def segs_path(self) -> Path:
        return self.scan_dir / scan_file_names(self.scene_id)["segs"]

    @property
    def aggregation_path(self) -> Path:
        return self.scan_dir / scan_file_names(self.scene_id)["aggregation"]

    def frame_ids(self) -> list[int]:
        """Ids of the frames `iter_frames` yields (finite poses), ascending."""
        return list(self._valid)

    def iter_frames(self, frame_ids: Iterable[int] | None = None) -> Iterator[ScanFrame]:
        """Frames one at a time (default: every frame with a finite pose), in the order asked."""
        return self._frames(self._valid if frame_ids is None else frame_ids, True)

    def iter_depth(self, frame_ids: Iterable[int] | None = None) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """(frame id, depth in mm, pose) one frame at a time, without decoding colour."""
        for frame in self._frames(self._valid if frame_ids is None else frame_ids, False):
            yield frame.frame_id, frame.depth_mm, frame.pose

    @abstractmethod
    def all_frame_ids(self) -> list[int]:
        """Every frame, including those with non-finite poses."""

    @abstractmethod
    def _frames(self, frame_ids: Iterable[int], with_color: bool) -> Iterator[ScanFrame]:
        """Read frames lazily; without colour, `color` is an empty (0, 0, 3) array."""

    def read_frame(self, frame_id: int) -> ScanFrame:
        return next(self.iter_frames([frame_id]))

    def mesh(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        return read_ply(self._need(self.ply_path))

    def segments(self) -> np.ndarray:
        return read_segs_json(self._need(self.segs_path))

    def aggregation(self) -> list[dict[str, Any]]:
        return read_aggregation_json(self._need(self.aggregation_path))

    @staticmethod
    def _need(path: Path) -> Path:
        if not path.exists():
            raise FileNotFoundError(f"{path}: missing scan file")
        return path


@dataclass
class SensScan(Scan):
    """A scan read from `<scene>.sens`, seeking to each frame on demand."""

    sens_path: Path = Path()
    color_compression: str = "jpeg"
    depth_compression: str = "zlib_ushort"
    _entries: list[_SensEntry] = field(default_factory=list, repr=False)

    def all_frame_ids(self) -> list[int]:
        return list(range(len(self._entries)))

    def _frames(self, frame_ids: Iterable[int], with_color: bool) -> Iterator[ScanFrame]:
        with open(self.sens_path, "rb") as fh:
            for fid in frame_ids:
                if not 0 <= int(fid) < len(self._entries):
                    raise KeyError(f"{self.sens_path}: no frame {fid}")
                yield self._read(fh, int(fid), with_color)

    def _read(self, fh: BinaryIO, fid: int, with_color: bool) -> ScanFrame:
        e = self._entries[fid]
        fh.seek(e.offset + FRAME_HEADER.size)
        color = fh.read(e.color_bytes)
        depth = fh.read(e.depth_bytes)
        where = f"{self.sens_path}: frame {fid}"
        if len(color) != e.color_bytes or len(depth) != e.depth_bytes:
            raise ScanFormatError(f"{where}: truncated")
        if not with_color:
            rgb = _NO_COLOR
        elif self.color_compression == "raw":
            w, h = self.intrinsics.color_size
            rgb = np.frombuffer(color, dtype=np.uint8).reshape(h, w, 3).copy()
        else:
            rgb = check_image_size(_decode_color(color, where), self.intrinsics.color_size, f"{where}: colour")
        try:
            raw = zlib.decompress(depth) if self.depth_compression == "zlib_ushort" else depth
        except zlib.error as exc:
            raise ScanFormatError(f"{where}: depth cannot be decompressed ({exc})") from exc
        dw, dh = self.intrinsics.depth_size
        if len(raw) != 2 * dw * dh:
            raise ScanFormatError(f"{where}: depth has {len(raw)} bytes, expected {2 * dw * dh}")
        depth_mm = np.frombuffer(raw, dtype="<u2").reshape(dh, dw).astype(np.uint16)
        return ScanFrame(fid, rgb, depth_mm, e.pose.copy())


@dataclass
class ExportScan(Scan):
    """A scan read from SensReader's export folders."""

    _ids: list[int] = field(default_factory=list, repr=False)

    def all_frame_ids(self) -> list[int]:
        return list(self._ids)

    def _frame_file(self, kind: str, frame_id: int, suffix: str) -> Path:
        """A frame's file, a regular file inside the scan's folder once links are followed: a link to a file
        elsewhere or a FIFO is a ScanFormatError naming it (never read, never released)."""
        try:
            return inside_file(self.scan_dir, f"{kind}/{frame_id}.{suffix}", f"{self.scan_dir} frame {frame_id}")
        except UnsafePathError as exc:
            raise ScanFormatError(str(exc)) from None

    def _frames(self, frame_ids: Iterable[int], with_color: bool) -> Iterator[ScanFrame]:
        for fid in frame_ids:
            fid = int(fid)
            pose = read_matrix(self._frame_file("pose", fid, "txt"))
            color_path, depth_path = self._frame_file("color", fid, "jpg"), self._frame_file("depth", fid, "png")
            color = (
                check_image_size(_read_color_file(color_path), self.intrinsics.color_size, str(color_path))
                if with_color
                else _NO_COLOR
            )
            depth = check_image_size(_read_depth_file(depth_path), self.intrinsics.depth_size, str(depth_path))
            yield ScanFrame(fid, color, depth, pose)


def _read_exact(fh: BinaryIO, n: int, where: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise ScanFormatError(f"{where}: truncated ({len(data)} of {n} bytes)")
    return data


def _mat(data: bytes) -> np.ndarray:
    return np.asarray(struct.unpack("<16f", data), dtype=np.float64).reshape(4, 4)


def open_sens(sens_path: str | Path, scan_dir: str | Path | None = None) -> SensScan:
    """Index a `.sens`: header, then each frame's pose and byte counts (frame data are skipped)."""
    sens_path = Path(sens_path)
    size = sens_path.stat().st_size
    with open(sens_path, "rb") as fh:
        where = f"{sens_path}: header"
        (version,) = struct.unpack("<I", _read_exact(fh, 4, where))
        if version != SENS_VERSION:
            raise ScanFormatError(f"{sens_path}: .sens version {version}, expected {SENS_VERSION}")
        (strlen,) = struct.unpack("<Q", _read_exact(fh, 8, where))
        _read_exact(fh, strlen, where)
        k_color, _, k_depth, _ = (_mat(_read_exact(fh, 64, where)) for _ in range(4))
        c_type, d_type = struct.unpack("<ii", _read_exact(fh, 8, where))
        cw, ch, dw, dh = struct.unpack("<4I", _read_exact(fh, 16, where))
        (shift,) = struct.unpack("<f", _read_exact(fh, 4, where))
        (n_frames,) = struct.unpack("<Q", _read_exact(fh, 8, where))
        color_c, depth_c = COLOR_COMPRESSION.get(c_type, "unknown"), DEPTH_COMPRESSION.get(d_type, "unknown")
        if color_c not in ("jpeg", "png", "raw") or depth_c not in ("zlib_ushort", "raw_ushort"):
            raise ScanFormatError(f"{sens_path}: unsupported compression colour={color_c} depth={depth_c}")
        entries: list[_SensEntry] = []
        for i in range(n_frames):
            offset = fh.tell()
            values = FRAME_HEADER.unpack(_read_exact(fh, FRAME_HEADER.size, f"{sens_path}: frame {i}"))
            color_bytes, depth_bytes = values[18], values[19]
            end = offset + FRAME_HEADER.size + color_bytes + depth_bytes
            if end > size:
                raise ScanFormatError(f"{sens_path}: frame {i}: truncated (needs bytes up to {end}, file has {size})")
            entries.append(
                _SensEntry(offset, np.asarray(values[:16], dtype=np.float64).reshape(4, 4), color_bytes, depth_bytes)
            )
            fh.seek(end)
    intr = ScanIntrinsics(k_color, k_depth, (cw, ch), (dw, dh), float(shift))
    skipped, valid = [], []
    for i, e in enumerate(entries):
        reason = pose_problem(e.pose)
        if reason:
            skipped.append({"frame": i, "reason": reason})
        else:
            valid.append(i)
    return SensScan(
        scan_dir=Path(scan_dir) if scan_dir is not None else sens_path.parent,
        scene_id=sens_path.stem,
        layout="raw",
        intrinsics=intr,
        skipped=skipped,
        _valid=valid,
        sens_path=sens_path,
        color_compression=color_c,
        depth_compression=depth_c,
        _entries=entries,
    )


def most_common_size(
    sizes: Sequence[tuple[tuple[int, int], tuple[int, int]]],
) -> tuple[tuple[int, int], tuple[int, int]]:
    """The most common (colour, depth) size pair; a tie goes to the pair seen first."""
    return Counter(sizes).most_common(1)[0][0]  # equal counts keep the order first met


def _export_sizes(
    scan_dir: Path, frame_ids: list[int]
) -> tuple[tuple[int, int], tuple[int, int], list[dict[str, Any]]]:
    """Colour and depth (w, h): the most common pair among the first `_SIZE_SAMPLE` frames whose headers
    read, and the unreadable frames before the first readable one as skipped entries; (0, 0) sizes when
    no frame has readable headers. (Unreadable frames among the sample fail when they are read.)"""
    unreadable: list[dict[str, Any]] = []
    sizes: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for fid in frame_ids:
        try:
            color, depth = (image_size(scan_dir / sub / f"{fid}.{ext}") for sub, ext in _EXPORT_IMAGE_FILES)
        except ScanFormatError as exc:
            if not sizes:
                unreadable.append({"frame": fid, "reason": str(exc)})
            continue
        sizes.append((color, depth))
        if len(sizes) == _SIZE_SAMPLE:
            break
    if not sizes:
        return (0, 0), (0, 0), unreadable
    return (*most_common_size(sizes), unreadable)


def _open_export(scan_dir: Path, scene_id: str) -> ExportScan:
    for sub in ("color", "depth", "pose", "intrinsic"):
        if not (scan_dir / sub).is_dir():
            raise ScanFormatError(f"{scan_dir}: export layout lacks {sub}/")
    ids = sorted(int(p.stem) for p in (scan_dir / "pose").glob("*.txt") if p.stem.isdigit())
    skipped, valid = [], []
    for fid in ids:
        missing = [
            f"{sub}/{fid}.{ext}" for sub, ext in _EXPORT_IMAGE_FILES if not (scan_dir / sub / f"{fid}.{ext}").exists()
        ]
        try:
            reason = (
                f"missing {', '.join(missing)}"
                if missing
                else pose_problem(read_matrix(scan_dir / "pose" / f"{fid}.txt"))
            )
        except ScanFormatError as exc:
            reason = str(exc)
        if reason:
            skipped.append({"frame": fid, "reason": reason})
        else:
            valid.append(fid)
    k_color = read_matrix(scan_dir / "intrinsic" / "intrinsic_color.txt")
    k_depth = read_matrix(scan_dir / "intrinsic" / "intrinsic_depth.txt")
    color_size, depth_size, unreadable = _export_sizes(scan_dir, valid)
    valid = valid[len(unreadable) :]
    skipped = sorted(skipped + unreadable, key=lambda s: s["frame"])
    intr = ScanIntrinsics(k_color, k_depth, color_size, depth_size, 1000.0)
    return ExportScan(
        scan_dir=scan_dir, scene_id=scene_id, layout="export", intrinsics=intr, skipped=skipped, _valid=valid, _ids=ids
    )


def _scene_id_from_files(scan_dir: Path) -> str:
    plys = sorted(scan_dir.glob("*_vh_clean_2.ply"))
    if len(plys) == 1:
        return plys[0].name[: -len("_vh_clean_2.ply")]
    return scan_dir.name


def open_scan(scan_dir: str | Path, layout: str | None = None) -> Scan:
    """Open a scan folder: the raw layout when a `.sens` is present (or `layout="raw"`), else the export."""
    scan_dir = Path(scan_dir)
    if not scan_dir.is_dir():
        raise FileNotFoundError(f"{scan_dir}: not a scan folder")
    if layout not in (None, "raw", "export"):
        raise ValueError(f"layout must be 'raw' or 'export', got {layout!r}")
    sens = sorted(scan_dir.glob("*.sens"))
    if layout == "raw" or (layout is None and sens):
        if len(sens) != 1:
            raise ScanFormatError(f"{scan_dir}: expected one .sens file, found {len(sens)}")
        return open_sens(sens[0], scan_dir)
    return _open_export(scan_dir, _scene_id_from_files(scan_dir))


def _file_digest(path: Path, size: int) -> str:
    """sha256 of a whole annotation file, or of a large file's (the `.sens`) first and last block."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        if path.suffix in _HASHED_WHOLE or size <= 2 * _FINGERPRINT_BLOCK:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        else:
            digest.update(fh.read(_FINGERPRINT_BLOCK))
            fh.seek(size - _FINGERPRINT_BLOCK)
            digest.update(fh.read(_FINGERPRINT_BLOCK))
    return digest.hexdigest()


def _relative_files(root: Path, subs: Iterable[str]) -> list[tuple[str, Path, int]]:
    """(path relative to `root`, path, size) of the files in the folders `subs` of `root`, sorted by
    relative path; one directory listing per folder and one stat per file."""
    found: list[tuple[str, Path, int]] = []
    for sub in subs:
        if (root / sub).is_dir():
            with os.scandir(root / sub) as entries:
                found += [(f"{sub}/{e.name}", Path(e.path), e.stat().st_size) for e in entries if e.is_file()]
    return sorted(found)


def _text_stream_row(root: Path) -> list[Any] | None:
    """One [folders, total size, sha256] row over the pose and intrinsic files (name, length and bytes
    of each, in path order); None when there are none (the raw layout)."""
    digest, total, files = hashlib.sha256(), 0, _relative_files(root, _FINGERPRINT_TEXT_DIRS)
    for name, path, _ in files:
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
        total += len(data)
    return ["+".join(_FINGERPRINT_TEXT_DIRS), total, digest.hexdigest()] if files else None


def scan_fingerprint(scan_dir: str | Path, scene_id: str) -> list[list[Any]]:
    """[relative path, size, digest] rows summing up a scan's input files (either layout), sorted by path.

    A content summary that ignores where the folder is and its timestamps, cheap enough to compute on
    every run of a large ScanNet on a network filesystem: mesh, segments and aggregation are hashed
    whole, the `.sens` by its size and its first and last 4 KiB (its header holds the intrinsics);
    the export layout's colour and depth images by name and size only ([path, size, None], not opened),
    its poses and intrinsics as one hashed stream (one row). Missing files are left out.
    """
    root = Path(scan_dir)
    rows: list[list[Any]] = []
    for name in scan_file_names(scene_id).values():
        path = root / name
        if path.is_file():
            size = path.stat().st_size
            rows.append([name, size, _file_digest(path, size)])
    rows += [[name, size, None] for name, _, size in _relative_files(root, (sub for sub, _ in _EXPORT_IMAGE_FILES))]
    text = _text_stream_row(root)
    return sorted(rows + ([text] if text else []), key=lambda row: row[0])
