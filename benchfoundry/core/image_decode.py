"""Decoding image files with OpenCV: the one guarded path for every image and depth read.

Before anything is decoded, a file is refused when it is empty, larger than `MAX_FILE_BYTES`, or when
its PNG / JPEG / OpenEXR header declares no pixels or more than `MAX_PIXELS` (OpenCV's own limit, which it
reports only as an assertion naming no file). `decoded_bytes` tells from a header how much memory the decode
allocates, for callers that bound it below that. An OpenCV error while decoding is raised as `error`
naming the file too.

OpenCV's `imread` turns a JPEG cut short into a full-size image with grey bottom rows (libjpeg only
warns, on stderr, naming no file). `check_complete` catches that cheaply: JPEG data ending (after zero /
whitespace padding) with the end-of-image marker FFD9, and PNG data ending with the IEND chunk, are
complete; anything else is decoded once more by PIL (with `ImageFile.LOAD_TRUNCATED_IMAGES` left False),
which raises on truncated data. Other formats (EXR, TIFF, …) go to OpenCV unchecked. A JPEG cut short with
an end marker appended passes that check: libjpeg's warnings are collected while a JPEG is decoded
(`libjpeg_messages`), a "premature end" one refuses the file, and the others are logged naming it.

Callers may refuse a size of their own from the header, before any pixel is decoded (`check_size`); a file
is read only when it is a regular file (a FIFO or a device is refused by type, before it is opened).
"""

from __future__ import annotations

import logging
import os
import re
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path

import numpy as np

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
import cv2
from PIL import Image, UnidentifiedImageError

JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"
PNG_START, PNG_END = b"\x89PNG\r\n\x1a\n", b"IEND\xaeB`\x82"
_PADDING = b"\x00 \t\r\n"

ErrorType = Callable[[str], Exception]
#: A caller's own size rule, given the header's (width, height) before any pixel is decoded: raises to refuse.
SizeCheck = Callable[[int, int], None]

#: OpenCV's default CV_IO_MAX_IMAGE_PIXELS (2^30): a 32,766 × 16,383 panorama fits, a forged header does not.
MAX_PIXELS = 1 << 30
#: No image or depth file the pipeline reads comes near this; a larger one is refused before reading.
MAX_FILE_BYTES = 4 << 30
#: What one decoded image may take: an 8-bit RGB panorama at OpenCV's remap limit (32,766 × 16,383, 1.5 GiB)
#: fits; the same size in 16-bit RGBA (4 GiB, from a 4 MB file) does not. A caller may ask for less.
MAX_DECODED_BYTES = 2 << 30
#: JPEG start-of-frame markers (baseline, progressive, lossless, …), whose segment holds the size.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def container(data: bytes) -> str | None:
    """ "JPEG" or "PNG" from the leading signature, else None."""
    if data.startswith(JPEG_START):
        return "JPEG"
    if data.startswith(PNG_START):
        return "PNG"
    return None


def has_end_marker(data: bytes) -> bool:
    """Whether JPEG / PNG data ends, padding stripped, with its end marker (EOI / IEND)."""
    end = {"JPEG": JPEG_END, "PNG": PNG_END}.get(container(data) or "")
    return end is not None and data.rstrip(_PADDING).endswith(end)


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) declared by a PNG's IHDR, a JPEG's start-of-frame segment or an OpenEXR header's data
    window; None for other formats or when the header is cut short."""
    kind = container(data)
    if data.startswith(EXR_START):
        return _exr_size(data)
    if kind == "PNG":
        if len(data) < 24 or data[12:16] != b"IHDR":
            return None
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if kind != "JPEG":
        return None
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            i += 2
            continue
        if marker in _JPEG_SOF:
            if i + 9 > len(data):
                return None
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    return None


EXR_START = b"v/1\x01"


def _exr_attributes(data: bytes) -> dict[str, bytes] | None:
    """An OpenEXR header's attributes (name → value bytes); None when the data is not EXR or its header is cut
    short or malformed."""
    if not data.startswith(EXR_START) or len(data) < 8:
        return None
    found: dict[str, bytes] = {}
    i = 8
    while i < len(data) and data[i] != 0:
        name_end = data.find(b"\0", i, i + 256)
        type_end = data.find(b"\0", name_end + 1, name_end + 257) if name_end >= 0 else -1
        if type_end < 0 or type_end + 5 > len(data):
            return None
        size = int.from_bytes(data[type_end + 1 : type_end + 5], "little", signed=True)
        start = type_end + 5
        if size < 0 or start + size > len(data):
            return None
        found[data[i:name_end].decode("latin-1")] = data[start : start + size]
        i = start + size
    return found


def _exr_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of an OpenEXR header's data window."""
    window = (_exr_attributes(data) or {}).get("dataWindow")
    if window is None or len(window) != 16:
        return None
    x0, y0, x1, y1 = (int.from_bytes(window[k : k + 4], "little", signed=True) for k in range(0, 16, 4))
    return max(x1 - x0 + 1, 0), max(y1 - y0 + 1, 0)


def _exr_channels(data: bytes) -> int | None:
    """How many channels an OpenEXR header's channel list names."""
    channels = (_exr_attributes(data) or {}).get("channels")
    if channels is None:
        return None
    count, i = 0, 0
    while i < len(channels) and channels[i] != 0:
        end = channels.find(b"\0", i)
        if end < 0:
            return None
        count, i = count + 1, end + 17  # name, then pixel type, pLinear, reserved, x and y sampling
    return count


def decoded_bytes(data: bytes) -> int | None:
    """The bytes OpenCV's IMREAD_UNCHANGED decode of the data allocates, told from its header alone (PNG, JPEG,
    EXR; TIFF, WebP and BMP through PIL's header reading) and rounded up; None when the header cannot tell."""
    size = header_size(data)
    if size is None:
        return _pil_decoded_bytes(data)
    width, height = size
    if container(data) == "PNG":
        depth = 2 if len(data) > 24 and data[24] == 16 else 1
        channels = {0: 1, 2: 3}.get(data[25], 4) if len(data) > 25 else 4
        return width * height * channels * depth
    if container(data) == "JPEG":
        return width * height * 3
    channels = _exr_channels(data)
    return None if channels is None else width * height * 4 * (1 if channels == 1 else 3 if channels <= 3 else 4)


def _pil_decoded_bytes(data: bytes) -> int | None:
    """`decoded_bytes` of a format PIL reads the header of without decoding pixels (TIFF, WebP, BMP)."""
    if data.startswith(EXR_START):
        return None
    try:
        with Image.open(BytesIO(data)) as image:
            width, height = image.size
            bands = len(image.getbands())
            depth = 4 if image.mode in ("I", "F") else 2 if image.mode.startswith("I;16") else 1
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError):
        return None
    return width * height * max(bands, 3 if bands > 1 else 1) * depth


def check_header(data: bytes, where: str, error: ErrorType = ValueError) -> None:
    """Raise `error` naming `where` for empty data, or a PNG / JPEG header declaring no pixels or more than
    `MAX_PIXELS`."""
    if not data:
        raise error(f"{where}: empty file (0 bytes)")
    size = header_size(data)
    if size is None:
        return
    width, height = size
    kind = container(data) or "EXR"
    if width == 0 or height == 0:
        raise error(f"{where}: the {kind} header declares {width}x{height} pixels")
    if width * height > MAX_PIXELS:
        raise error(
            f"{where}: the {kind} header declares {width}x{height} = {width * height} pixels, "
            f"over the limit of {MAX_PIXELS}"
        )


#: Leading bytes of the image types a build writes or reads besides JPEG and PNG (EXR, TIFF, WebP, BMP, HDR).
_OTHER_SIGNATURES = (b"v/1\x01", b"II*\x00", b"MM\x00*", b"BM", b"#?RADIANCE", b"#?RGBE")


def check_image_type(data: bytes, where: str, error: ErrorType = ValueError) -> None:
    """Raise `error` naming `where` unless the data starts like an image (JPEG, PNG, EXR, TIFF, WebP, BMP, HDR):
    a text file named like an image is not embedded anywhere."""
    if container(data) or data.startswith(_OTHER_SIGNATURES) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        return
    raise error(f"{where}: not an image (no JPEG, PNG, EXR, TIFF, WebP, BMP or HDR signature)")


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
        raise error(
            f"{where}: {kind} data without an end marker (truncated?) and too large for PIL to check "
            f"(over {Image.MAX_IMAGE_PIXELS * 2} pixels)"
        ) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise error(f"{where}: cannot decode the image: truncated {kind} (no end marker; {exc})") from None


def decode_bytes(
    data: bytes,
    where: str,
    flags: int = cv2.IMREAD_UNCHANGED,
    error: ErrorType = ValueError,
    check_size: SizeCheck | None = None,
) -> np.ndarray:
    """Decode image bytes with OpenCV after `check_header`, the caller's `check_size` on the header's size
    (so a too-large image is refused before its pixels exist), the bytes the decode would allocate (at most
    `MAX_DECODED_BYTES`, told from the header) and `check_complete`; errors name `where`."""
    check_header(data, where, error)
    need = decoded_bytes(data)
    if need is not None and need > MAX_DECODED_BYTES:
        raise error(
            f"{where}: decodes to {need / (1 << 30):.1f} GiB, over the limit of {MAX_DECODED_BYTES >> 30} GiB "
            "for one image"
        )
    size = header_size(data)
    if check_size is not None and size is not None:
        check_size(*size)
    check_complete(data, where, error)
    if flags != cv2.IMREAD_UNCHANGED:  # the header's pixel frame, as `image_size` reports it and COCO boxes are
        flags |= cv2.IMREAD_IGNORE_ORIENTATION
    try:
        if container(data) == "JPEG":
            with libjpeg_messages() as messages:
                image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), flags)
            _judge_libjpeg(messages, where, error)
        else:
            image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), flags)
    except cv2.error as exc:
        reason = next((line for line in str(exc).splitlines() if "error:" in line), str(exc)).strip()
        raise error(f"{where}: cannot decode the image (OpenCV: {reason})") from None
    if image is None:
        raise error(f"{where}: cannot decode the image (corrupt or unsupported format)")
    return image


#: What libjpeg writes to stderr (its warnings, OpenCV passes them on unnamed).
_LIBJPEG_LINE = re.compile(r"^(Corrupt JPEG data|Premature end of JPEG file|Invalid SOS parameters|Warning:)")
#: The warnings of a JPEG whose pixels are not all there (libjpeg fills the rest with grey): refused.
_LIBJPEG_MISSING = ("premature end", "Premature end")
_STDERR_LOCK = threading.Lock()
_log = logging.getLogger(__name__)


@contextmanager
def libjpeg_messages() -> Iterator[list[str]]:
    """The lines libjpeg writes to the process's stderr (fd 2) meanwhile, collected rather than printed without
    a file name; anything else written there meanwhile is passed on. One decode at a time holds stderr."""
    found: list[str] = []
    with _STDERR_LOCK, tempfile.TemporaryFile() as sink:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield found
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines = sink.read().decode("utf-8", "replace").splitlines()
            found += [line for line in lines if _LIBJPEG_LINE.match(line)]
            other = [line for line in lines if not _LIBJPEG_LINE.match(line)]
            if other:
                os.write(2, ("\n".join(other) + "\n").encode())


def _judge_libjpeg(messages: list[str], where: str, error: ErrorType) -> None:
    """A JPEG cut short (an end marker appended after the cut included) raises `error` naming `where`; other
    libjpeg warnings are logged naming it."""
    missing = [m for m in messages if any(k in m for k in _LIBJPEG_MISSING)]
    if missing:
        raise error(f"{where}: cannot decode the image: truncated JPEG (libjpeg: {missing[0]})")
    for message in messages:
        _log.warning("%s: libjpeg: %s", where, message)


def read_image_bytes(path: str | os.PathLike[str], error: ErrorType = ValueError) -> bytes:
    """An image file's bytes; a missing, unreadable, over-large (`MAX_FILE_BYTES`) or special file (a FIFO, a
    device: refused by type before it is opened) raises `error`."""
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: not a regular file (a FIFO, a device or a folder); refused before reading")
        size = info.st_size
        if size > MAX_FILE_BYTES:
            raise error(f"{path}: {size} bytes, over the limit of {MAX_FILE_BYTES} for an image")
        return path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read the image ({exc.strerror})") from None


def decode_file(
    path: str | os.PathLike[str],
    flags: int = cv2.IMREAD_UNCHANGED,
    error: ErrorType = ValueError,
    check_size: SizeCheck | None = None,
) -> np.ndarray:
    """Read and decode an image file; a missing, unreadable, truncated or corrupt file raises `error` naming it
    (`check_size`: see `decode_bytes`)."""
    return decode_bytes(read_image_bytes(path, error), str(Path(path)), flags, error, check_size)


def image_size(path: str | os.PathLike[str], error: ErrorType = ValueError) -> tuple[int, int]:
    """(width, height) of an image file: from a PNG / JPEG header after `check_header` (the pixels are not
    decoded, so a truncated body passes), else from the decoded image; errors name the file."""
    data = read_image_bytes(path, error)
    check_header(data, str(path), error)
    size = header_size(data)
    if size is not None:
        return size
    image = decode_bytes(data, str(path), cv2.IMREAD_UNCHANGED, error)
    return image.shape[1], image.shape[0]
