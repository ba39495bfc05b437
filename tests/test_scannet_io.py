"""ScanNet readers and writers: `.sens` round trip and byte layout, export layout, mesh, segments, labels."""

from __future__ import annotations

import os
import shutil
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from benchfoundry.benchmarks.viewspatial.scannet.stages import scannet_read as sio
from benchfoundry.benchmarks.viewspatial.scannet.stages import scannet_write as sw

WALL_Y = 2.05  # the wall plane y = 2.05 m (away from 0.1 m voxel boundaries)
SCENE = "scene0000_00"


def _intrinsics() -> sio.ScanIntrinsics:
    k_color = np.array([[70.0, 0, 39.5, 0], [0, 70.0, 29.5, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    k_depth = np.array([[56.0, 0, 31.5, 0], [0, 56.0, 23.5, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    return sio.ScanIntrinsics(k_color, k_depth, (80, 60), (64, 48), 1000.0)


def _pose(x: float, yaw_deg: float) -> np.ndarray:
    """Camera at (x, 0, 1.25) looking along +y turned by `yaw` about world z; OpenCV axes."""
    a = np.radians(yaw_deg)
    forward = np.array([np.sin(a), np.cos(a), 0.0])
    right = np.array([np.cos(a), -np.sin(a), 0.0])
    down = np.array([0.0, 0.0, -1.0])
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2] = right, down, forward
    pose[:3, 3] = [x, 0.0, 1.25]
    return pose


def _wall_depth(pose: np.ndarray, k: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Depth (mm) of the wall y = WALL_Y seen by a pinhole camera, by ray-plane intersection."""
    w, h = size
    u, v = np.meshgrid(np.arange(w), np.arange(h))
    rays = np.stack([(u - k[0, 2]) / k[0, 0], (v - k[1, 2]) / k[1, 1], np.ones_like(u, dtype=float)], -1)
    world_dir_y = rays @ pose[:3, :3].T[:, 1]
    z = (WALL_Y - pose[1, 3]) / world_dir_y
    depth = np.round(z * 1000.0).astype(np.uint16)
    depth[:4, :4] = 0  # a patch without depth
    return depth


def tiny_frames() -> list[sio.ScanFrame]:
    """Five frames of the wall; frame 2 has a -inf pose (as ScanNet's lost-tracking frames)."""
    intr = _intrinsics()
    frames = []
    for i, (x, yaw) in enumerate([(-1.0, -10), (-0.5, 5), (0.0, 0), (0.5, 12), (1.0, 20)]):
        pose = _pose(x, yaw)
        depth = _wall_depth(pose, intr.depth, intr.depth_size)
        w, h = intr.color_size
        color = np.zeros((h, w, 3), dtype=np.uint8)
        color[..., 0] = np.linspace(0, 255, w)[None, :]
        color[..., 1] = np.linspace(0, 255, h)[:, None]
        color[..., 2] = 40 * i
        if i == 2:
            pose = np.full((4, 4), -np.inf)
        frames.append(sio.ScanFrame(i, color, depth, pose))
    return frames


def wall_mesh() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The wall as a vertex grid (5 cm spacing) with two segments (x < 0, x >= 0)."""
    xs, zs = np.arange(-2.0, 2.0001, 0.05), np.arange(0.0, 2.5001, 0.05)
    gx, gz = np.meshgrid(xs, zs)
    verts = np.stack([gx.ravel(), np.full(gx.size, WALL_Y), gz.ravel()], 1)
    nx = len(xs)
    faces = []
    for r in range(len(zs) - 1):
        for c in range(nx - 1):
            a = r * nx + c
            faces += [[a, a + 1, a + nx], [a + 1, a + nx + 1, a + nx]]
    segs = (verts[:, 0] >= 0).astype(np.int64) + 7
    return verts, np.asarray(faces), segs


def make_tiny_scan(root: Path, layout: str) -> Path:
    """A tiny scan folder in the `raw` (.sens) or `export` layout, with mesh, segments and aggregation."""
    root.mkdir(parents=True, exist_ok=True)
    intr = _intrinsics()
    if layout == "raw":
        sw.write_sens(root / f"{SCENE}.sens", intr, tiny_frames())
    else:
        sw.write_export_layout(root, intr, tiny_frames())
    verts, faces, segs = wall_mesh()
    colors = np.full(verts.shape, 200, dtype=np.uint8)
    sw.write_ply(root / f"{SCENE}_vh_clean_2.ply", verts, faces, colors)
    sw.write_segs_json(root / f"{SCENE}_vh_clean_2.0.010000.segs.json", SCENE, segs)
    sw.write_aggregation_json(
        root / f"{SCENE}.aggregation.json",
        SCENE,
        [
            {"objectId": 0, "label": "wall", "segments": [7]},
            {"objectId": 1, "label": "picture", "segments": [8]},
        ],
    )
    return root


def test_sens_round_trip(tmp_path: Path) -> None:
    scan = sio.open_scan(make_tiny_scan(tmp_path / "raw", "raw"))
    intr = _intrinsics()
    assert (scan.scene_id, scan.layout) == (SCENE, "raw")
    assert scan.intrinsics.color_size == intr.color_size and scan.intrinsics.depth_size == intr.depth_size
    np.testing.assert_array_equal(scan.intrinsics.depth, intr.depth.astype(np.float32))
    np.testing.assert_array_equal(scan.intrinsics.color, intr.color.astype(np.float32))
    assert scan.frame_ids() == [0, 1, 3, 4]
    assert [s["frame"] for s in scan.skipped] == [2] and "non-finite" in scan.skipped[0]["reason"]
    assert scan.all_frame_ids() == [0, 1, 2, 3, 4]
    expected = {f.frame_id: f for f in tiny_frames()}
    got = list(scan.iter_frames())
    assert [f.frame_id for f in got] == [0, 1, 3, 4]
    for frame in got:
        want = expected[frame.frame_id]
        np.testing.assert_array_equal(frame.depth_mm, want.depth_mm)
        assert frame.depth_mm.dtype == np.uint16
        np.testing.assert_array_equal(frame.pose, want.pose.astype(np.float32))
        assert frame.color.shape == want.color.shape and frame.color.dtype == np.uint8
        assert np.abs(frame.color.astype(int) - want.color).mean() < 3.0  # JPEG
    frame2 = scan.read_frame(2)
    assert np.isneginf(frame2.pose).all()


def test_sens_byte_layout_matches_scannet(tmp_path: Path) -> None:
    """Parse the header and first frame with the struct sequence of ScanNet's SensorData.py."""
    path = make_tiny_scan(tmp_path / "raw", "raw") / f"{SCENE}.sens"
    data = path.read_bytes()
    o = 0
    (version,) = struct.unpack_from("I", data, o)
    o += 4
    (strlen,) = struct.unpack_from("Q", data, o)
    o += 8
    o += strlen
    mats = [np.array(struct.unpack_from("f" * 16, data, o + 64 * i)).reshape(4, 4) for i in range(4)]
    o += 4 * 64
    c_type, d_type = struct.unpack_from("ii", data, o)
    o += 8
    sizes = struct.unpack_from("IIII", data, o)
    o += 16
    (shift,) = struct.unpack_from("f", data, o)
    o += 4
    (n,) = struct.unpack_from("Q", data, o)
    o += 8
    assert version == 4 and c_type == 2 and d_type == 1 and n == 5 and shift == 1000.0
    assert sizes == (80, 60, 64, 48)
    np.testing.assert_array_equal(mats[1], np.eye(4))
    np.testing.assert_array_equal(mats[2], _intrinsics().depth.astype(np.float32))
    pose = np.array(struct.unpack_from("f" * 16, data, o)).reshape(4, 4)
    o += 64
    _, _, n_color, n_depth = struct.unpack_from("QQQQ", data, o)
    o += 32
    assert data[o : o + 2] == b"\xff\xd8"  # JPEG start of image
    depth = np.frombuffer(zlib.decompress(data[o + n_color : o + n_color + n_depth]), dtype=np.uint16)
    want = tiny_frames()[0]
    np.testing.assert_array_equal(depth.reshape(48, 64), want.depth_mm)
    np.testing.assert_array_equal(pose, want.pose.astype(np.float32))


def test_truncated_sens_names_file_and_frame(tmp_path: Path) -> None:
    path = make_tiny_scan(tmp_path / "raw", "raw") / f"{SCENE}.sens"
    data = path.read_bytes()
    path.write_bytes(data[:-10])
    with pytest.raises(sio.ScanFormatError, match=rf"{SCENE}\.sens: frame 4: truncated"):
        sio.open_scan(path.parent)
    path.write_bytes(data[:400])  # inside frame 0's header
    with pytest.raises(sio.ScanFormatError, match=rf"{SCENE}\.sens: frame 0: truncated"):
        sio.open_scan(path.parent)


def test_export_layout_matches_sens(tmp_path: Path) -> None:
    raw = sio.open_scan(make_tiny_scan(tmp_path / "raw", "raw"))
    exp_dir = make_tiny_scan(tmp_path / "exp", "export")
    assert sorted(p.name for p in (exp_dir / "intrinsic").iterdir()) == [
        "extrinsic_color.txt",
        "extrinsic_depth.txt",
        "intrinsic_color.txt",
        "intrinsic_depth.txt",
    ]
    assert np.loadtxt(exp_dir / "pose" / "2.txt").shape == (4, 4)
    exp = sio.open_scan(exp_dir)
    assert (exp.scene_id, exp.layout) == (SCENE, "export")
    assert exp.frame_ids() == raw.frame_ids() and exp.skipped == raw.skipped
    assert exp.intrinsics.color_size == raw.intrinsics.color_size
    assert exp.intrinsics.depth_size == raw.intrinsics.depth_size
    np.testing.assert_array_equal(exp.intrinsics.depth, raw.intrinsics.depth)
    for a, b in zip(raw.iter_frames(), exp.iter_frames()):
        assert a.frame_id == b.frame_id
        np.testing.assert_array_equal(a.pose, b.pose)
        np.testing.assert_array_equal(a.depth_mm, b.depth_mm)
        assert np.abs(a.color.astype(int) - b.color).mean() < 3.0
    ids = [fid for fid, _, _ in exp.iter_depth()]
    assert ids == exp.frame_ids()


def test_export_missing_file_is_skipped_and_reported(tmp_path: Path) -> None:
    exp_dir = make_tiny_scan(tmp_path / "exp", "export")
    (exp_dir / "depth" / "3.png").unlink()
    scan = sio.open_scan(exp_dir)
    assert scan.frame_ids() == [0, 1, 4]
    reasons = {s["frame"]: s["reason"] for s in scan.skipped}
    assert "depth/3.png" in reasons[3] and "non-finite" in reasons[2]


def truncating_jpeg(frame_id: int) -> Callable[[np.ndarray, int], bytes]:
    """`encode_jpeg` that cuts the JPEG of tiny frame `frame_id` (blue = 40 × id) at half its length."""
    encode = sw.encode_jpeg

    def cut(rgb: np.ndarray, quality: int = 95) -> bytes:
        data = encode(rgb, quality)
        return data[: len(data) // 2] if rgb[0, 0, 2] == 40 * frame_id else data

    return cut


def read_each(scan: sio.Scan) -> tuple[list[int], dict[int, str]]:
    """Frames read one at a time as the readers of a scan do: (ids read, {id: error} of those that fail)."""
    read, failed = [], {}
    for fid in scan.frame_ids():
        try:
            read.append(scan.read_frame(fid).frame_id)
        except sio.ScanFormatError as exc:
            failed[fid] = str(exc)
    return read, failed


@pytest.mark.parametrize("layout, where", [("raw", rf"{SCENE}\.sens: frame 1"), ("export", r"color/1\.jpg")])
def test_truncated_colour_frame_fails_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, where: str
) -> None:
    monkeypatch.setattr(sw, "encode_jpeg", truncating_jpeg(1))
    scan = sio.open_scan(make_tiny_scan(tmp_path / layout, layout))
    monkeypatch.undo()
    assert scan.frame_ids() == [0, 1, 3, 4]
    with pytest.raises(sio.ScanFormatError, match=rf"{where}: .*truncated JPEG"):
        scan.read_frame(1)
    read, failed = read_each(scan)
    assert read == [0, 3, 4] and list(failed) == [1]
    expected = {f.frame_id: f.depth_mm for f in tiny_frames()}
    for fid, depth, _ in scan.iter_depth():  # depth does not need the colour image
        np.testing.assert_array_equal(depth, expected[fid])


def test_export_sizes_survive_a_bad_first_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A truncated first JPEG still has its header: both layouts open alike and fail on that frame only."""
    monkeypatch.setattr(sw, "encode_jpeg", truncating_jpeg(0))
    raw = sio.open_scan(make_tiny_scan(tmp_path / "raw", "raw"))
    exp_dir = make_tiny_scan(tmp_path / "exp", "export")
    monkeypatch.undo()
    exp = sio.open_scan(exp_dir)
    intr = _intrinsics()
    for scan in (raw, exp):
        assert (scan.intrinsics.color_size, scan.intrinsics.depth_size) == (intr.color_size, intr.depth_size)
        assert scan.frame_ids() == [0, 1, 3, 4] and [s["frame"] for s in scan.skipped] == [2]
        assert read_each(scan)[0] == [1, 3, 4]
    (exp_dir / "color" / "0.jpg").write_bytes(b"not an image")  # no header: reported at open, sizes from frame 1
    exp = sio.open_scan(exp_dir)
    assert (exp.intrinsics.color_size, exp.intrinsics.depth_size) == (intr.color_size, intr.depth_size)
    assert exp.frame_ids() == [1, 3, 4]
    reasons = {s["frame"]: s["reason"] for s in exp.skipped}
    assert list(reasons) == [0, 2] and "color/0.jpg" in reasons[0]
    for fid in (1, 3, 4):
        (exp_dir / "depth" / f"{fid}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    exp = sio.open_scan(exp_dir)
    assert exp.frame_ids() == [] and exp.intrinsics.color_size == (0, 0)
    assert [s["frame"] for s in exp.skipped] == [0, 1, 2, 3, 4]


def test_raw_layout_preferred_and_explicit(tmp_path: Path) -> None:
    both = make_tiny_scan(tmp_path / "both", "export")
    shutil.copy(make_tiny_scan(tmp_path / "raw", "raw") / f"{SCENE}.sens", both)
    assert sio.open_scan(both).layout == "raw"
    assert sio.open_scan(both, layout="export").layout == "export"


def test_mesh_segments_aggregation(tmp_path: Path) -> None:
    scan = sio.open_scan(make_tiny_scan(tmp_path / "raw", "raw"))
    verts, faces, colors = scan.mesh()
    want_v, want_f, want_s = wall_mesh()
    np.testing.assert_array_equal(verts, want_v.astype(np.float32))
    np.testing.assert_array_equal(faces, want_f)
    assert colors is not None and (colors == 200).all()
    np.testing.assert_array_equal(scan.segments(), want_s)
    agg = scan.aggregation()
    assert [(g["objectId"], g["label"], g["segments"]) for g in agg] == [(0, "wall", [7]), (1, "picture", [8])]


def test_ply_layout_is_scannet_binary(tmp_path: Path) -> None:
    path = sw.write_ply(
        tmp_path / "m.ply",
        np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.5]]),
        np.array([[0, 1, 2]]),
        np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]),
    )
    data = path.read_bytes()
    head, body = data.split(b"end_header\n")
    assert b"format binary_little_endian 1.0" in head and b"property list uchar int vertex_indices" in head
    rec = struct.unpack_from("<fffBBBB", body, 2 * 16)
    assert rec == (0.0, 1.0, 0.5, 7, 8, 9, 255)
    assert struct.unpack_from("<Biii", body, 3 * 16) == (3, 0, 1, 2)
    v, f, c = sio.read_ply(path)
    assert v.shape == (3, 3) and f.tolist() == [[0, 1, 2]] and c.tolist()[1] == [4, 5, 6]
    v2, f2, c2 = sio.read_ply(sw.write_ply(tmp_path / "n.ply", v, f))
    assert c2 is None and np.array_equal(v2, v)


def test_label_map_and_split(tmp_path: Path) -> None:
    tsv = tmp_path / "scannetv2-labels.combined.tsv"
    tsv.write_text(
        "id\traw_category\tcategory\tcount\tnyu40id\teigen13id\tnyuClass\tnyu40class\n"
        "1\twall\twall\t8277\t1\t12\twall\twall\n"
        "2\tchair\tchair\t4646\t5\t4\tchair\tchair\n"
        "3\tkitchen cabinets\tkitchen cabinet\t310\t3\t6\tcabinet\tcabinet\n"
    )
    assert sio.read_label_map(tsv) == {"wall": 1, "chair": 5, "kitchen cabinets": 3}
    written = sw.write_label_map(tmp_path / "mine.tsv", [{"raw_category": "sofa", "nyu40id": 6}])
    assert sio.read_label_map(written) == {"sofa": 6}
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\tname\n1\twall\n")
    with pytest.raises(sio.ScanFormatError, match="bad.tsv"):
        sio.read_label_map(bad)
    split = tmp_path / "scannetv2_val.txt"
    split.write_text("scene0011_00\nscene0011_01\n\n")
    assert sio.read_split(split) == ["scene0011_00", "scene0011_01"]


def test_write_sens_rejects_non_positional_ids(tmp_path: Path) -> None:
    frames = tiny_frames()[1:]
    with pytest.raises(ValueError, match="positions"):
        sw.write_sens(tmp_path / "x.sens", _intrinsics(), frames)
    assert not (tmp_path / "x.sens").exists()


@pytest.mark.parametrize("keep", [0.3, 0.5, 0.97])
def test_truncated_ply_names_the_file(tmp_path: Path, keep: float) -> None:
    scan = sio.open_scan(make_tiny_scan(tmp_path / "scan", "export"))
    data = scan.ply_path.read_bytes()
    scan.ply_path.write_bytes(data[: int(len(data) * keep)])  # cut anywhere, not only at record boundaries
    with pytest.raises(sio.ScanFormatError, match=rf"{scan.ply_path.name}: truncated in element"):
        scan.mesh()


def test_malformed_segments_and_ply_header_name_the_file(tmp_path: Path) -> None:
    scan = sio.open_scan(make_tiny_scan(tmp_path / "scan", "export"))
    scan.segs_path.write_text('{"segIndices": [1, "x", 3]}')
    with pytest.raises(sio.ScanFormatError, match=rf"{scan.segs_path.name}: 'segIndices'"):
        scan.segments()
    data = scan.ply_path.read_bytes()
    scan.ply_path.write_bytes(data.replace(b"property float x", b"property quad x", 1))
    with pytest.raises(sio.ScanFormatError, match=rf"{scan.ply_path.name}: unknown PLY property type"):
        scan.mesh()


def _export_scan_with_a_smaller_frame(tmp_path: Path, sub: str, ext: str, frame_id: int) -> Path:
    """A tiny export-layout scan whose frame `frame_id` has a colour or depth image smaller than the intrinsics say."""
    scan_dir = make_tiny_scan(tmp_path / "exp", "export")
    frame = tiny_frames()[frame_id]
    small = sw.encode_jpeg(frame.color[:-2, :-4]) if sub == "color" else sw.encode_png16(frame.depth_mm[:, :-1])
    (scan_dir / sub / f"{frame_id}.{ext}").write_bytes(small)
    return scan_dir


@pytest.mark.parametrize("sub, ext", [("color", "jpg"), ("depth", "png")])
def test_export_frame_of_the_wrong_size_fails_alone(tmp_path: Path, sub: str, ext: str) -> None:
    scan_dir = _export_scan_with_a_smaller_frame(tmp_path, sub, ext, 1)
    scan = sio.open_scan(scan_dir)
    read, failed = read_each(scan)
    assert read == [0, 3, 4] and list(failed) == [1]
    assert f"{sub}/1.{ext}" in failed[1] and "the intrinsics say" in failed[1]


def test_export_rewrite_with_fewer_frames_leaves_no_stale_frame(tmp_path: Path) -> None:
    scan_dir = make_tiny_scan(tmp_path / "exp", "export")
    assert sw.write_export_layout(scan_dir, _intrinsics(), tiny_frames()[:2]) == 2
    for sub in ("color", "depth", "pose"):
        assert sorted(p.stem for p in (scan_dir / sub).iterdir()) == ["0", "1"]
    assert sio.open_scan(scan_dir).all_frame_ids() == [0, 1]


@pytest.mark.parametrize("layout", ["raw", "export"])
def test_fingerprint_follows_contents_not_place_or_time(tmp_path: Path, layout: str) -> None:
    scan_dir = make_tiny_scan(tmp_path / "a", layout)
    before = sio.scan_fingerprint(scan_dir, SCENE)
    moved = tmp_path / "b"
    shutil.copytree(scan_dir, moved)  # new path and new mtimes
    assert sio.scan_fingerprint(moved, SCENE) == before
    names = {row[0] for row in before}
    assert f"{SCENE}_vh_clean_2.ply" in names and (f"{SCENE}.sens" in names) == (layout == "raw")
    agg = moved / f"{SCENE}.aggregation.json"
    agg.write_text(agg.read_text().replace('"picture"', '"poster!"'))  # same size, other content
    assert sio.scan_fingerprint(moved, SCENE) != before


def test_export_fingerprint_reads_no_image_and_hashes_poses(tmp_path: Path) -> None:
    scan_dir = make_tiny_scan(tmp_path / "exp", "export")
    before = sio.scan_fingerprint(scan_dir, SCENE)
    rows = {row[0]: row for row in before}
    images = sorted(
        p.relative_to(scan_dir).as_posix() for sub in ("color", "depth") for p in (scan_dir / sub).iterdir()
    )
    assert images and all(rows[name] == [name, (scan_dir / name).stat().st_size, None] for name in images)
    assert not any(name.startswith(("pose/", "intrinsic/")) for name in rows)  # one stream row, not one per file
    # An image is judged by name and size: same-size other bytes go unnoticed, another size does not.
    color = scan_dir / "color" / "1.jpg"
    data = color.read_bytes()
    color.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    assert sio.scan_fingerprint(scan_dir, SCENE) == before
    color.write_bytes(data + b"\0")
    assert sio.scan_fingerprint(scan_dir, SCENE) != before
    color.write_bytes(data)
    # A pose or intrinsic file with other bytes of the same length changes it.
    for name in ("pose/0.txt", "intrinsic/intrinsic_depth.txt"):
        path = scan_dir / name
        text = path.read_bytes()
        path.write_bytes(text.replace(b"0", b"1", 1))
        assert sio.scan_fingerprint(scan_dir, SCENE) != before, name
        path.write_bytes(text)
    assert sio.scan_fingerprint(scan_dir, SCENE) == before
    # Moving bytes from one pose file to the next (same total) changes it too.
    a, b = scan_dir / "pose" / "0.txt", scan_dir / "pose" / "1.txt"
    ta, tb = a.read_bytes(), b.read_bytes()
    a.write_bytes(ta + tb[:1])
    b.write_bytes(tb[1:])
    assert sio.scan_fingerprint(scan_dir, SCENE) != before


def test_export_fingerprint_opens_no_frame_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scan_dir = make_tiny_scan(tmp_path / "exp", "export")
    opened: list[str] = []
    real_open = open

    def spy(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(Path(path).relative_to(scan_dir).as_posix())
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy)
    monkeypatch.setattr("io.open", spy)  # pathlib's read_bytes
    sio.scan_fingerprint(scan_dir, SCENE)
    monkeypatch.undo()
    assert "pose/0.txt" in opened and not [name for name in opened if name.startswith(("color/", "depth/"))]


def test_most_common_size_ties_go_to_the_earliest() -> None:
    a, b, c = ((8, 6), (4, 3)), ((8, 6), (8, 6)), ((2, 2), (4, 3))
    assert sio.most_common_size([a, b, b, a, b]) == b
    assert sio.most_common_size([b, a, a, b]) == b
    assert sio.most_common_size([c, a, b]) == c
    assert sio.most_common_size([a]) == a


@pytest.mark.parametrize("sub, ext", [("color", "jpg"), ("depth", "png")])
def test_an_odd_first_frame_does_not_set_the_export_sizes(tmp_path: Path, sub: str, ext: str) -> None:
    scan_dir = _export_scan_with_a_smaller_frame(tmp_path, sub, ext, 0)
    scan = sio.open_scan(scan_dir)
    intr = _intrinsics()
    assert (scan.intrinsics.color_size, scan.intrinsics.depth_size) == (intr.color_size, intr.depth_size)
    read, failed = read_each(scan)
    assert read == [1, 3, 4] and list(failed) == [0] and f"{sub}/0.{ext}" in failed[0]


@pytest.mark.parametrize("kind, name", [("color", "1.jpg"), ("depth", "1.png"), ("pose", "1.txt")])
def test_an_export_frame_linked_to_a_file_outside_the_scan_fails_alone_and_is_never_read(
    tmp_path: Path, kind: str, name: str
) -> None:
    """A frame file replaced by a link to another file (here: the same frame of a scan elsewhere, valid in
    every way) is refused naming it, so it is neither read nor released; the other frames go on."""
    exp_dir = make_tiny_scan(tmp_path / "exp", "export")
    elsewhere = make_tiny_scan(tmp_path / "elsewhere", "export")
    (exp_dir / kind / name).unlink()
    (exp_dir / kind / name).symlink_to(elsewhere / kind / name)
    scan = sio.open_scan(exp_dir, layout="export")
    with pytest.raises(sio.ScanFormatError, match=rf"{kind}/1\.{name.split('.')[1]}.*outside"):
        scan.read_frame(1)
    read, failed = read_each(scan)
    assert read == [fid for fid in scan.frame_ids() if fid != 1] and list(failed) == [1]


def test_a_split_list_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "scannetv2_val.txt")
    with pytest.raises(ValueError, match=r"scannetv2_val\.txt: split list.*FIFO"):
        sio.read_split(tmp_path / "scannetv2_val.txt")
