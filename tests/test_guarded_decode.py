"""The guarded decode path: empty files, forged PNG / JPEG headers and forged PLY element counts are refused
naming the file before anything is decoded or allocated, in the library, the CLIs and a ScanNet scan."""

from __future__ import annotations

import struct
import zlib
from io import BytesIO
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image
from test_image_decode import encoded, gradient
from test_scannet_io import make_tiny_scan

from benchfoundry.benchmarks.viewspatial.scannet.stages import scannet_read as sio
from benchfoundry.benchmarks.viewspatial.scannet.stages.coverage import select_frames
from benchfoundry.cli.main import main
from benchfoundry.core import image_decode


def forged_png(width: int, height: int) -> bytes:
    """A real small PNG whose IHDR (with a valid CRC) declares `width` × `height`."""
    data = bytearray(encoded(".png", gradient(8, 16)))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


def forged_jpeg(width: int, height: int) -> bytes:
    """A real small JPEG whose start-of-frame segment declares `width` × `height`."""
    data = bytearray(encoded(".jpg", gradient(8, 16)))
    sof = data.index(b"\xff\xc0")
    data[sof + 5 : sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize("progressive", [False, True])
def test_header_size_agrees_with_the_decoded_shape(progressive: bool) -> None:
    image = gradient(37, 70)
    buf = BytesIO()
    Image.fromarray(image).save(buf, "JPEG", progressive=progressive)
    for data in (buf.getvalue(), encoded(".png", image)):
        height, width = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED).shape[:2]
        assert image_decode.header_size(data) == (width, height)


@pytest.mark.parametrize("forge", [forged_png, forged_jpeg])
def test_an_over_limit_header_is_refused_before_opencv_sees_it(tmp_path: Path, forge) -> None:
    data = forge(60000, 30000)
    with pytest.raises(cv2.error):  # what OpenCV itself does with it: an assertion naming no file
        cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    path = tmp_path / "huge.img"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=rf"{path}: .*declares 60000x30000 .*over the limit"):
        image_decode.decode_file(path)
    assert image_decode.decode_bytes(forge(16, 8), "small").shape[:2] == (8, 16)  # the forgery itself decodes


def test_an_empty_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "zero.jpg"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=rf"{path}: empty file"):
        image_decode.decode_file(path)


def test_undecodable_data_is_an_error_naming_the_file_not_an_opencv_traceback() -> None:
    with pytest.raises(ValueError, match="where.png: cannot decode"):
        image_decode.decode_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64 + image_decode.PNG_END, "where.png")


@pytest.mark.parametrize("command", ["cubemap", "crop"])
@pytest.mark.parametrize("content", [b"", forged_png(60000, 30000)])
def test_sphere_commands_refuse_bad_panoramas_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, content: bytes
) -> None:
    pano = tmp_path / "pano.jpg"
    pano.write_bytes(content)
    args = ["sphere", command, str(pano), str(tmp_path / "o")]
    if command == "crop":
        args = ["sphere", "crop", str(pano), "--box", "0.1,0.1,0.2,0.2", str(tmp_path / "o.png")]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {pano}: ")


def test_a_zero_byte_depth_frame_is_skipped_not_the_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scan_dir = make_tiny_scan(tmp_path / "scan", "export")
    scan = sio.open_scan(scan_dir)
    bad = scan.frame_ids()[-1]
    depth = scan_dir / "depth" / f"{bad}.png"
    depth.write_bytes(b"")
    selection = select_frames(scan_dir, budget=32, min_gain=0.0)
    assert bad not in selection.selected and selection.selected
    assert [s["frame"] for s in selection.skipped if str(depth) in s["reason"]] == [bad]
    assert main(["scannet", "select", str(scan_dir), "--json"]) == 0
    assert str(depth) in capsys.readouterr().out


def test_a_ply_header_claiming_4e9_vertices_is_refused_before_allocating(tmp_path: Path) -> None:
    scan = sio.open_scan(make_tiny_scan(tmp_path / "scan", "export"))
    data = scan.ply_path.read_bytes()
    head, sep, body = data.partition(b"end_header\n")
    count = next(line for line in head.split(b"\n") if line.startswith(b"element vertex")).split()[2]
    scan.ply_path.write_bytes(head.replace(b"element vertex " + count, b"element vertex 4000000000") + sep + body)
    with pytest.raises(sio.ScanFormatError, match=rf"{scan.ply_path}: .*declares 4000000000 records"):
        scan.mesh()
