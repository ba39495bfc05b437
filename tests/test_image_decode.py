"""Shared image decoding: truncated JPEG / PNG refused with the file named, padded and complete files accepted."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from benchfoundry.core import image_decode


def gradient(height: int = 96, width: int = 192) -> np.ndarray:
    """A smooth BGR image: JPEG keeps it within a few grey levels."""
    y, x = np.mgrid[0:height, 0:width]
    return np.stack([x * 255 // width, y * 255 // height, (x + y) % 200], axis=-1).astype(np.uint8)


def encoded(ext: str, image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(ext, image)
    assert ok
    return data.tobytes()


@pytest.mark.parametrize("ext, kind", [(".jpg", "JPEG"), (".png", "PNG")])
def test_half_file_is_refused_naming_the_file(tmp_path: Path, ext: str, kind: str) -> None:
    data = encoded(ext, gradient())
    path = tmp_path / f"cut{ext}"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=rf"cut\{ext}: cannot decode the image: truncated {kind}"):
        image_decode.decode_file(path)
    with pytest.raises(ValueError, match=rf"frame 7: .*truncated {kind}"):
        image_decode.decode_bytes(data[: len(data) // 2], "frame 7")


def test_error_type_is_the_callers() -> None:
    class FrameError(ValueError):
        pass

    data = encoded(".jpg", gradient())
    with pytest.raises(FrameError, match="x.jpg"):
        image_decode.decode_bytes(data[:-100], "x.jpg", error=FrameError)


def test_padding_after_the_end_marker_still_reads(tmp_path: Path) -> None:
    image = gradient()
    data = encoded(".jpg", image)
    expected = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    for tail in (b"\x00" * 37, b"\r\n  \n", b"\x00\x00\n\x00"):
        path = tmp_path / "padded.jpg"
        path.write_bytes(data + tail)
        np.testing.assert_array_equal(image_decode.decode_file(path), expected)
    assert np.abs(expected.astype(int) - image).mean() < 3.0


def test_complete_files_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """JPEG ending with EOI and PNG ending with IEND are not decoded a second time by PIL."""

    def no_pil(*args: object, **kwargs: object) -> None:
        raise AssertionError("PIL was asked about a complete file")

    monkeypatch.setattr(image_decode.Image, "open", no_pil)
    image = gradient()
    np.testing.assert_array_equal(image_decode.decode_bytes(encoded(".png", image), "p.png"), image)
    assert image_decode.decode_bytes(encoded(".jpg", image), "p.jpg").shape == image.shape


def test_trailing_data_that_is_not_padding_is_checked_by_pil() -> None:
    """Bytes after EOI (as some cameras append) do not make a complete JPEG truncated."""
    data = encoded(".jpg", gradient())
    assert not image_decode.has_end_marker(data + b"APPENDED")
    np.testing.assert_array_equal(
        image_decode.decode_bytes(data + b"APPENDED", "a.jpg"), image_decode.decode_bytes(data, "a.jpg")
    )


def test_other_formats_and_bad_files(tmp_path: Path) -> None:
    depth = (np.arange(48 * 64).reshape(48, 64) * 13).astype(np.uint16)
    tif = tmp_path / "depth.tif"
    tif.write_bytes(encoded(".tif", depth))
    np.testing.assert_array_equal(image_decode.decode_file(tif), depth)
    with pytest.raises(ValueError, match="missing.png: no such file"):
        image_decode.decode_file(tmp_path / "missing.png")
    (tmp_path / "junk.jpg").write_bytes(b"\xff\xd8\xff not really a jpeg")
    with pytest.raises(ValueError, match="junk.jpg: cannot decode the image"):
        image_decode.decode_file(tmp_path / "junk.jpg")


def test_an_image_too_large_for_pils_check_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an end marker the data must be checked; when PIL refuses its size, say so instead of raising
    PIL's error."""
    from PIL import Image

    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)  # the 96×192 test image is then over twice the limit
    data = encoded(".jpg", gradient())
    with pytest.raises(ValueError, match=r"big\.jpg: JPEG data without an end marker .*too large"):
        image_decode.decode_bytes(data[: len(data) // 2], "big.jpg")
    assert image_decode.decode_bytes(data, "big.jpg").shape == (96, 192, 3)  # complete data: fast path, no PIL
