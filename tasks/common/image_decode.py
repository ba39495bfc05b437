"""Decoding image files with OpenCV, refusing truncated JPEG and PNG data that OpenCV would half-decode.

OpenCV's `imread` turns a JPEG cut short into a full-size image with grey bottom rows (libjpeg only
warns). `check_complete` catches that cheaply: JPEG data ending (after zero / whitespace padding)
with the end-of-image marker FFD9, and PNG data ending with the IEND chunk, are complete; anything
else is decoded once more by PIL (with `ImageFile.LOAD_TRUNCATED_IMAGES` left False), which raises
on truncated data. Other formats (EXR, TIFF, …) go to OpenCV unchecked.
"""

from __future__ import annotations

import os
from io import BytesIO
from pathlib import Path
from typing import Callable

import numpy as np

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
import cv2  # noqa: E402  (the EXR switch must be set before OpenCV loads)
from PIL import Image, UnidentifiedImageError  # noqa: E402

JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"
PNG_START, PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82"
_PADDING = b"\x00 \t\r\n"

ErrorType = Callable[[str], Exception]


def container(data: bytes) -> str | None:
    """"JPEG" or "PNG" from the leading signature, else None."""
    if data.startswith(JPEG_START):
        return "JPEG"
    if data.startswith(PNG_START):
        return "PNG"
    return None


def has_end_marker(data: bytes) -> bool:
    """Whether JPEG / PNG data ends, padding stripped, with its end marker (EOI / IEND)."""
    end = {"JPEG": JPEG_END, "PNG": PNG_END}.get(container(data) or "")
    return end is not None and data.rstrip(_PADDING).endswith(end)


def check_complete(data: bytes, where: str, error: ErrorType = ValueError) -> None:
    """Raise `error` naming `where` when JPEG or PNG data is truncated; other data passes."""
    kind = container(data)
    if kind is None or has_end_marker(data):
        return
    try:
        with Image.open(BytesIO(data)) as image:
            image.load()
    except UnidentifiedImageError:
        raise error(f"{where}: cannot decode the image (corrupt or unsupported format)") from None
    except Image.DecompressionBombError:
        raise error(f"{where}: {kind} data without an end marker (truncated?) and too large for PIL to check "
                    f"(over {Image.MAX_IMAGE_PIXELS * 2} pixels)") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise error(f"{where}: cannot decode the image: truncated {kind} (no end marker; {exc})") from None


def decode_bytes(data: bytes, where: str, flags: int = cv2.IMREAD_UNCHANGED,
                 error: ErrorType = ValueError) -> np.ndarray:
    """Decode image bytes with OpenCV after `check_complete`; errors name `where`."""
    check_complete(data, where, error)
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), flags)
    if image is None:
        raise error(f"{where}: cannot decode the image (corrupt or unsupported format)")
    return image


def decode_file(path: str | os.PathLike[str], flags: int = cv2.IMREAD_UNCHANGED,
                error: ErrorType = ValueError) -> np.ndarray:
    """Read and decode an image file; a missing, unreadable, truncated or corrupt file raises `error` naming it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the image ({exc.strerror})") from None
    return decode_bytes(data, str(path), flags, error)
