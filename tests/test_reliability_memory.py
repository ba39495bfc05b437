"""Reliability: memory is bounded by what is read. A small panorama file that decodes to gigabytes is refused
from its header by `benchfoundry sphere`; a small render manifest claiming millions of frames is refused by
`build --plan --out` before its rows are read."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.benchmarks.odi.stages import sphere_images
from benchfoundry.benchmarks.syndor import build_plan
from benchfoundry.cli.main import main
from benchfoundry.core.image_decode import decode_bytes, decoded_bytes


def _encoded(image: np.ndarray, ext: str) -> bytes:
    ok, data = cv2.imencode(ext, image)
    assert ok
    return data.tobytes()


@pytest.mark.parametrize(
    ("shape", "dtype", "ext"),
    [
        ((40, 80, 3), np.uint8, ".png"),
        ((40, 80), np.uint8, ".png"),
        ((40, 80, 4), np.uint8, ".png"),
        ((40, 80, 3), np.uint16, ".png"),
        ((40, 80, 3), np.uint8, ".jpg"),
        ((40, 80), np.uint8, ".jpg"),
        ((40, 80, 3), np.float32, ".exr"),
        ((40, 80), np.float32, ".exr"),
        ((40, 80, 4), np.float32, ".exr"),
        ((40, 80, 3), np.uint8, ".tif"),
        ((40, 80, 3), np.uint8, ".bmp"),
        ((40, 80, 3), np.uint8, ".webp"),
    ],
)
def test_the_header_tells_at_least_the_bytes_a_decode_allocates(shape: tuple, dtype: type, ext: str) -> None:
    """The estimate from the header alone covers the decoded array, and is not more than four times it."""
    image = (np.arange(np.prod(shape)).reshape(shape) % 200).astype(dtype)
    data = _encoded(image, ext)
    need = decoded_bytes(data)
    decoded = decode_bytes(data, f"x{ext}")
    assert need is not None and decoded.nbytes <= need <= 4 * decoded.nbytes


@pytest.mark.parametrize(("dtype", "ext"), [(np.float32, ".exr"), (np.uint8, ".png")])
def test_a_small_panorama_that_decodes_past_the_cap_is_refused_before_decoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, dtype: type, ext: str
) -> None:
    """A flat 2048×1024 panorama compresses to kilobytes and decodes to 6 or 24 MiB: under a 4 MiB cap the
    cubemap command refuses it in one line naming the file and the cap, and never decodes it."""
    path = tmp_path / f"flat{ext}"
    path.write_bytes(_encoded(np.zeros((1024, 2048, 3), dtype), ext))
    assert path.stat().st_size < 200_000

    def no_decode(*args: object, **kwargs: object) -> None:
        raise AssertionError("decoded")

    monkeypatch.setattr(sphere_images, "decode_bytes", no_decode)
    code = main(["sphere", "cubemap", str(path), str(tmp_path), "--face-width", "8", "--max-decoded-mb", "4"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert str(path) in err[0] and "max_decoded_mb" in err[0] and "4 MiB" in err[0]
    assert not list(tmp_path.glob("front*"))


def test_the_cap_is_read_from_the_config_and_a_panorama_under_it_is_decoded(tmp_path: Path) -> None:
    path = tmp_path / "flat.exr"
    path.write_bytes(_encoded(np.zeros((1024, 2048, 3), np.float32), ".exr"))
    out = tmp_path / "faces"
    out.mkdir()
    assert main(["sphere", "cubemap", str(path), str(out), "--face-width", "8"]) == 0
    assert len(list(out.glob("*.exr"))) == 6
    assert main(["sphere", "cubemap", str(path), str(out), "--set", "odi.sphere.max_decoded_mb=1"]) == 2


def test_an_exr_header_over_the_pixel_limit_is_refused_before_decoding(tmp_path: Path) -> None:
    """An EXR's data window is read like a PNG's IHDR: one claiming 2^31 pixels is refused naming the file,
    where OpenCV would allocate for it first."""
    data = bytearray(_encoded(np.zeros((4, 8, 3), np.float32), ".exr"))
    at = data.index(b"dataWindow\0box2i\0") + len(b"dataWindow\0box2i\0") + 4
    data[at + 8 : at + 16] = (65535).to_bytes(4, "little") + (32767).to_bytes(4, "little")
    with pytest.raises(ValueError, match=r"big\.exr: the EXR header declares 65536x32768"):
        decode_bytes(bytes(data), "big.exr")


def test_read_erp_keeps_its_default_of_no_cap(tmp_path: Path) -> None:
    path = tmp_path / "pano.png"
    path.write_bytes(_encoded(np.zeros((64, 128, 3), np.uint8), ".png"))
    assert sphere_images.read_erp(path).shape == (64, 128, 3)


def _manifest(path: Path, rows: int, scene: str = "desert") -> Path:
    """A render manifest of `rows` identical frames, dictionary-encoded and compressed: a few kilobytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = {name: [scene if name == "scene" else "x"] * rows for name in build_plan.MANIFEST_TEXT}
    numbers = {name: [0] * rows for name in ("texture_id", "pose", "azimuth", "elevation")}
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({**text, **numbers}), path, compression="zstd")
    return path


def test_a_manifest_claiming_more_rows_than_a_build_renders_is_refused_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--plan --out` reads the build's render manifest: one claiming more rows than any build renders is one
    line naming it and the limit, and no row is decoded."""
    import pyarrow.parquet as pq

    monkeypatch.setattr(build_plan, "MAX_MANIFEST_ROWS", 1000)
    manifest = _manifest(tmp_path / "syndor" / "render" / "manifest.parquet", 1001)

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the rows were read")

    monkeypatch.setattr(pq.ParquetFile, "read", no_read)
    assert main(["build", "smoke", "--plan", "--out", str(tmp_path), "--only", "syndor"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(manifest) in err[0] and "1,001 rows" in err[0] and "1,000" in err[0]


def test_a_manifest_with_a_huge_repeated_text_is_refused_without_expanding_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 1 MB scene name repeated over 200 rows compresses to kilobytes and would decode to 200 MB: refused from
    its dictionary, naming the column and the limit."""
    manifest = _manifest(tmp_path / "syndor" / "render" / "manifest.parquet", 200, "s" * 1_000_000)
    assert manifest.stat().st_size < 100_000
    assert main(["build", "smoke", "--plan", "--out", str(tmp_path), "--only", "syndor"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(manifest) in err[0] and "scene" in err[0] and "1,000,000 characters" in err[0]


def test_a_manifest_that_is_not_parquet_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "syndor" / "render" / "manifest.parquet"
    manifest.parent.mkdir(parents=True)
    manifest.write_bytes(b"PAR1 not really")
    assert main(["build", "smoke", "--plan", "--out", str(tmp_path), "--only", "syndor"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(manifest) in err[0]


def _png_header(width: int, height: int, depth: int, colour: int) -> bytes:
    """A PNG that declares `width` × `height` pixels (its IHDR) over one tiny compressed row: a few hundred bytes
    whose full decode would allocate what the header says."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    "reader",
    ["decode_bytes", "decode_file", "odi panorama (read_erp)", "coco image (decode_file, colour)"],
)
def test_an_image_that_decodes_past_the_cap_is_refused_by_every_reader_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    """A 32,766 × 16,383 16-bit RGBA PNG header (4 GiB decoded, under OpenCV's pixel limit) made the build
    allocate 4 GiB for one image: every reader refuses it, naming the file, and nothing is decoded."""
    from benchfoundry.core import image_decode

    path = tmp_path / "huge.png"
    path.write_bytes(_png_header(32_766, 16_383, 16, 6))
    assert decoded_bytes(path.read_bytes()) > image_decode.MAX_DECODED_BYTES

    def no_decode(*args: object, **kwargs: object) -> None:
        raise AssertionError("decoded")

    monkeypatch.setattr(image_decode.cv2, "imdecode", no_decode)
    read = {
        "decode_bytes": lambda: decode_bytes(path.read_bytes(), str(path)),
        "decode_file": lambda: image_decode.decode_file(path),
        "odi panorama (read_erp)": lambda: sphere_images.read_erp(path),
        "coco image (decode_file, colour)": lambda: image_decode.decode_file(path, cv2.IMREAD_COLOR),
    }[reader]
    with pytest.raises(ValueError, match=rf"{path}: decodes to 4\.0 GiB, over the limit of 2 GiB"):
        read()
