"""Writing scans in ScanNet's layouts: the `.sens` binary, the SensReader export layout, the mesh
`.ply`, segments, aggregation and the label map TSV (the synthetic scans are written with these).

Poses and intrinsics are printed with 9 significant digits of their float32 values, so the export is
lossless against the `.sens` (benchmarks/viewspatial/scannet/stages/scannet_read.py reads both at that precision).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import (
    EXPORT_FRAME_FILES,
    FRAME_HEADER,
    SEGS_PARAMS,
    SENS_VERSION,
    ScanFrame,
    ScanIntrinsics,
)
from benchfoundry.core.atomic_files import atomic_path, write_bytes_atomic, write_json_atomic


def encode_jpeg(rgb: np.ndarray, quality: int = 95) -> bytes:
    ok, buf = cv2.imencode(
        ".jpg",
        cv2.cvtColor(np.ascontiguousarray(rgb, dtype=np.uint8), cv2.COLOR_RGB2BGR),
        [cv2.IMWRITE_JPEG_QUALITY, int(quality)],
    )
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def encode_png16(depth_mm: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", np.ascontiguousarray(depth_mm, dtype=np.uint16))
    if not ok:
        raise ValueError("PNG encoding failed")
    return buf.tobytes()


def _format_matrix(matrix: np.ndarray) -> str:
    """4 lines of 4 space-separated numbers (ScanNet's layout), float32 values in 9 significant digits."""
    m = np.asarray(matrix, dtype=np.float64).astype(np.float32)
    return "".join(" ".join(f"{float(v):.9g}" for v in row) + "\n" for row in m)


def _check_frame(frame: ScanFrame, intrinsics: ScanIntrinsics) -> None:
    w, h = intrinsics.color_size
    if frame.color.shape != (h, w, 3):
        raise ValueError(f"frame {frame.frame_id}: colour shape {frame.color.shape}, expected {(h, w, 3)}")
    dw, dh = intrinsics.depth_size
    if frame.depth_mm.shape != (dh, dw):
        raise ValueError(f"frame {frame.frame_id}: depth shape {frame.depth_mm.shape}, expected {(dh, dw)}")
    if np.asarray(frame.pose).shape != (4, 4):
        raise ValueError(f"frame {frame.frame_id}: pose shape {np.asarray(frame.pose).shape}, expected (4, 4)")


def write_intrinsics(intrinsic_dir: str | Path, intrinsics: ScanIntrinsics) -> None:
    """`intrinsic_{color,depth}.txt` and identity `extrinsic_{color,depth}.txt`, as SensReader exports."""
    d = Path(intrinsic_dir)
    eye = np.eye(4)
    write_bytes_atomic(d / "intrinsic_color.txt", _format_matrix(intrinsics.color).encode())
    write_bytes_atomic(d / "extrinsic_color.txt", _format_matrix(eye).encode())
    write_bytes_atomic(d / "intrinsic_depth.txt", _format_matrix(intrinsics.depth).encode())
    write_bytes_atomic(d / "extrinsic_depth.txt", _format_matrix(eye).encode())


def write_export_layout(
    scan_dir: str | Path, intrinsics: ScanIntrinsics, frames: Iterable[ScanFrame], *, jpeg_quality: int = 95
) -> int:
    """Write frames as `color/<i>.jpg`, `depth/<i>.png` (16-bit mm), `pose/<i>.txt`, and `intrinsic/`.

    Returns the number of frames written. Frames with non-finite poses are written as they are
    (ScanNet's export keeps their `-inf` pose files). Frame files of an earlier export that are not
    in this one are removed, so a rewrite with fewer frames leaves no stale frame.
    """
    root = Path(scan_dir)
    write_intrinsics(root / "intrinsic", intrinsics)
    written: set[int] = set()
    for frame in frames:
        _check_frame(frame, intrinsics)
        i = int(frame.frame_id)
        write_bytes_atomic(root / "color" / f"{i}.jpg", encode_jpeg(frame.color, jpeg_quality))
        write_bytes_atomic(root / "depth" / f"{i}.png", encode_png16(frame.depth_mm))
        write_bytes_atomic(root / "pose" / f"{i}.txt", _format_matrix(frame.pose).encode())
        written.add(i)
    for sub, ext in EXPORT_FRAME_FILES:
        for path in (root / sub).glob(f"*.{ext}"):
            if path.stem.isdigit() and int(path.stem) not in written:
                path.unlink()
    return len(written)


def _pack_mat(m: np.ndarray) -> bytes:
    return struct.pack("<16f", *np.asarray(m, dtype=np.float64).astype(np.float32).reshape(-1).tolist())


def write_sens(
    path: str | Path,
    intrinsics: ScanIntrinsics,
    frames: Iterable[ScanFrame],
    *,
    sensor_name: str = "benchfoundry-synthetic",
    jpeg_quality: int = 95,
) -> int:
    """Write a ScanNet `.sens` (version 4, colour 'jpeg', depth 'zlib_ushort'); returns the frame count.

    A `.sens` frame's id is its position, so frame ids must run 0, 1, 2, ... Timestamps are 0
    (ScanFrame carries none). Frames stream to disk; the frame count is patched in at the end.
    """
    name = sensor_name.encode("utf-8")
    eye = np.eye(4)
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(struct.pack("<IQ", SENS_VERSION, len(name)) + name)
        f.write(_pack_mat(intrinsics.color) + _pack_mat(eye) + _pack_mat(intrinsics.depth) + _pack_mat(eye))
        f.write(struct.pack("<ii", 2, 1))
        f.write(struct.pack("<4I", *intrinsics.color_size, *intrinsics.depth_size))
        f.write(struct.pack("<f", float(intrinsics.depth_shift)))
        count_at = f.tell()
        f.write(struct.pack("<Q", 0))
        count = 0
        for frame in frames:
            if int(frame.frame_id) != count:
                raise ValueError(f"{path}: .sens frame ids are positions; got frame {frame.frame_id} at {count}")
            _check_frame(frame, intrinsics)
            color = encode_jpeg(frame.color, jpeg_quality)
            depth = zlib.compress(np.ascontiguousarray(frame.depth_mm, dtype="<u2").tobytes())
            pose = np.asarray(frame.pose, dtype=np.float64).astype(np.float32).reshape(-1).tolist()
            f.write(FRAME_HEADER.pack(*pose, 0, 0, len(color), len(depth)))
            f.write(color)
            f.write(depth)
            count += 1
        f.seek(count_at)
        f.write(struct.pack("<Q", count))
    return count


def write_ply(path: str | Path, vertices: np.ndarray, faces: np.ndarray, colors: np.ndarray | None = None) -> Path:
    """Binary little-endian PLY as ScanNet's `_vh_clean_2.ply`: x y z float, red green blue alpha uchar,
    faces as `list uchar int vertex_indices`."""
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces, dtype=np.int64)
    if v.ndim != 2 or v.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"{path}: vertices must be (N,3) and faces (M,3); got {v.shape}, {f.shape}")
    if len(f) and (f.min() < 0 or f.max() >= len(v)):
        raise ValueError(f"{path}: face indices out of range 0..{len(v) - 1}")
    fields = [("x", "<f4"), ("y", "<f4"), ("z", "<f4")]
    header = [
        "ply",
        "format binary_little_endian 1.0",
        f"element vertex {len(v)}",
        "property float x",
        "property float y",
        "property float z",
    ]
    if colors is not None:
        c = np.asarray(colors)
        if c.shape != v.shape:
            raise ValueError(f"{path}: colors must be (N,3) like the vertices; got {c.shape}")
        fields += [("red", "u1"), ("green", "u1"), ("blue", "u1"), ("alpha", "u1")]
        header += ["property uchar red", "property uchar green", "property uchar blue", "property uchar alpha"]
    header += [f"element face {len(f)}", "property list uchar int vertex_indices", "end_header"]
    vert = np.zeros(len(v), dtype=fields)
    for i, axis in enumerate("xyz"):
        vert[axis] = v[:, i]
    if colors is not None:
        for i, ch in enumerate(("red", "green", "blue")):
            vert[ch] = np.asarray(colors)[:, i]
        vert["alpha"] = 255
    face = np.zeros(len(f), dtype=[("n", "u1"), ("idx", "<i4", (3,))])
    face["n"] = 3
    face["idx"] = f
    data = ("\n".join(header) + "\n").encode("ascii") + vert.tobytes() + face.tobytes()
    return write_bytes_atomic(path, data)


def write_segs_json(path: str | Path, scene_id: str, seg_indices: Sequence[int] | np.ndarray) -> Path:
    """`<scene>_vh_clean_2.0.010000.segs.json`: a segment id per mesh vertex."""
    return write_json_atomic(
        path,
        {
            "params": dict(SEGS_PARAMS),
            "sceneId": scene_id,
            "segIndices": [int(s) for s in np.asarray(seg_indices).reshape(-1)],
        },
    )


def write_aggregation_json(path: str | Path, scene_id: str, groups: Sequence[dict[str, Any]]) -> Path:
    """`<scene>.aggregation.json`: `segGroups` of {objectId, label, segments}."""
    seg_groups = []
    for i, g in enumerate(groups):
        object_id = int(g.get("objectId", g.get("id", i)))
        seg_groups.append(
            {
                "id": object_id,
                "objectId": object_id,
                "label": str(g["label"]),
                "segments": [int(s) for s in g["segments"]],
            }
        )
    return write_json_atomic(
        path,
        {
            "sceneId": f"scannet.{scene_id}",
            "appId": "benchfoundry.v1",
            "segGroups": seg_groups,
            "segmentsFile": f"scannet.{scene_id}_vh_clean_2.0.010000.segs.json",
        },
    )


def write_label_map(path: str | Path, rows: Sequence[dict[str, Any]]) -> Path:
    """A label map TSV with ScanNet's leading columns: id, raw_category, category, count, nyu40id, nyu40class."""
    cols = ["id", "raw_category", "category", "count", "nyu40id", "nyu40class"]
    lines = ["\t".join(cols)]
    for i, r in enumerate(rows, start=1):
        values = {"id": i, "category": r["raw_category"], "count": 1, "nyu40class": "", **r}
        lines.append("\t".join(str(values[c]) for c in cols))
    return write_bytes_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))
