"""Sphere image operations: ERP → cubemap, perspective views, Omni-CoT views and crops; cubemap → ERP.

Geometry and conventions live in `sphere_coords` (docs/design/odi.md §1, §3). Every sample is one
`cv2.remap` call on a grid cached by (sizes, view, interpolation): the ERP wraps
across θ = ±180° (`BORDER_WRAP`), and the few bilinear samples whose footprint reaches over a
pole are redone from the ERP's first / last row shifted by 180° (the row across the pole), so
neither the seam nor the poles need a padded copy of the panorama. Images are (H, W) or
(H, W, C) arrays; bilinear takes uint8, uint16, int16, float32 and float64, nearest takes any
dtype and copies values exactly (masks, int32 / int64 instance ids). Arrays read by `read_erp`
keep OpenCV's BGR(A) channel order; geometry does not care.
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
import cv2

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.core.image_decode import container, decode_bytes, decoded_bytes, read_image_bytes

Interpolation = Literal["bilinear", "nearest"]
BILINEAR_DTYPES = (np.uint8, np.uint16, np.int16, np.float32, np.float64)
#: The widest cube face `cubemap_to_erp` takes: three padded faces side by side stay under the remap limit.
MAX_FACE_WIDTH = (sm.REMAP_LIMIT - 1) // 3 - 2
#: Extensions OpenCV writes float images to without rounding them to 8 bits.
FLOAT_FORMATS = (".exr", ".hdr", ".pfm", ".tif", ".tiff")
#: Extensions that hold 8 bits per channel only: OpenCV would saturate other integer images (30000 → 255).
EIGHT_BIT_FORMATS = (".bmp", ".dib", ".jpe", ".jpeg", ".jpg", ".ras", ".sr", ".webp")
#: Extensions OpenCV writes as float only, rescaling integer images (Radiance HDR: uint16 300 reads back as 1.17).
FLOAT_ONLY_FORMATS = (".hdr",)
#: Integer dtypes whose every value float32 holds exactly (written to .exr as float32).
EXACT_IN_FLOAT32 = (np.uint8, np.int8, np.uint16, np.int16)
_CV_INTERP = {"bilinear": cv2.INTER_LINEAR, "nearest": cv2.INTER_NEAREST}
#: OpenCV-native stand-ins, by item size, for copying any dtype exactly with nearest sampling.
_NEAREST_AS = {1: np.uint8, 2: np.uint16, 4: np.int32}


class GridCache:
    """Least-recently-used remap grids, bounded by their total size in bytes; thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], object], nbytes: Callable[[object], int]) -> object:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key][0]
        value = build()
        size = nbytes(value)
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, size)
                self._bytes += size
            while self._bytes > self.max_bytes and len(self._items) > 1:
                _, (_, old) = self._items.popitem(last=False)
                self._bytes -= old
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


#: Grids for all operations (an 8192-wide ERP's six 2048² faces take 200 MB).
GRID_CACHE = GridCache(max_bytes=1 << 30)


@dataclass(frozen=True)
class _Grid:
    """A remap grid (float32 maps, or OpenCV's fixed-point pair) plus, for bilinear ERP sampling, the
    pixels to redo across a pole. Float maps cost nothing to convert and sample the same: remap
    rounds them to the same 1/32-px steps."""

    map1: np.ndarray
    map2: np.ndarray | None
    pole_index: np.ndarray | None = None
    pole_x: np.ndarray | None = None
    pole_y: np.ndarray | None = None

    @property
    def nbytes(self) -> int:
        parts = (self.map1, self.map2, self.pole_index, self.pole_x, self.pole_y)
        return sum(p.nbytes for p in parts if p is not None)


def erp_to_perspective(erp: np.ndarray, view: sm.View, interpolation: Interpolation = "bilinear") -> np.ndarray:
    """Sample a perspective view from an ERP."""
    return sample_views(erp, [view], interpolation)[0]


def sample_views(
    erp: np.ndarray, views: Sequence[sm.View], interpolation: Interpolation = "bilinear"
) -> list[np.ndarray]:
    """Sample several views from one ERP (checked and prepared once)."""
    src, restore = _to_cv(erp, interpolation)
    height, width = _erp_size(erp)
    strip: np.ndarray | None = None
    outputs = []
    for view in views:
        grid = _erp_view_grid(view, width, height, interpolation)
        out = cv2.remap(src, grid.map1, grid.map2, _CV_INTERP[interpolation], borderMode=cv2.BORDER_WRAP)
        if grid.pole_index is not None and grid.pole_index.size:
            if strip is None:
                strip = np.stack(
                    [np.roll(src[0], width // 2, axis=0), src[0], src[-1], np.roll(src[-1], width // 2, axis=0)]
                )
            patch = cv2.remap(strip, grid.pole_x, grid.pole_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
            out.reshape(view.height * view.width, -1)[grid.pole_index] = patch.reshape(grid.pole_index.size, -1)
        outputs.append(restore(out, src))
    return outputs


def erp_to_cubemap(
    erp: np.ndarray, face_width: int, interpolation: Interpolation = "bilinear", align_corners: bool = False
) -> dict[str, np.ndarray]:
    """The six cube faces, keyed front, right, back, left, up, down (py360convert's F R B L U D)."""
    views = [sm.face_view(face, face_width, align_corners) for face in sm.FACES]
    return dict(zip(sm.FACES, sample_views(erp, views, interpolation)))


def omnicot_views(
    erp: np.ndarray, size: int, fov_deg: float = 90.0, interpolation: Interpolation = "bilinear"
) -> dict[str, np.ndarray]:
    """The six Omni-CoT views, keyed front, right, back, left, top, bottom (docs/design/odi.md §3)."""
    views = [sm.View.square(*sm.FACE_CENTRES[face], fov_deg, size) for face in sm.VIEW_FACES.values()]
    return dict(zip(sm.VIEW_FACES, sample_views(erp, views, interpolation)))


def omnicot_crop_view(
    box: tuple[float, float, float, float],
    size: int,
    margin_deg: float = 10.0,
    min_fov_deg: float = 30.0,
    max_fov_deg: float = 120.0,
) -> sm.View:
    """The narrow view of a grounding box normalised to the ERP (docs/design/odi.md §3).

    θ = −180° + c_x·360°, φ = 90° − c_y·180°, fov = clip(max(fov_w, fov_h) + margin, min, max).
    x1 > x2 means the box wraps across θ = ±180° (its width is then x2 + 1 − x1).
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in (x1, y1, x2, y2)):
        raise ValueError(f"box {box!r}: coordinates must be normalised to [0, 1]")
    if y1 > y2:
        raise ValueError(f"box {box!r}: y1 must not exceed y2")
    box_width = x2 - x1 if x2 >= x1 else x2 + 1.0 - x1
    cx = (x1 + box_width / 2) % 1.0
    cy = (y1 + y2) / 2
    fov = max(box_width * 360.0, (y2 - y1) * 180.0) + margin_deg
    fov = min(max(fov, min_fov_deg), max_fov_deg)
    return sm.View.square(-180.0 + cx * 360.0, 90.0 - cy * 180.0, fov, size)


def omnicot_crop(
    erp: np.ndarray,
    box: tuple[float, float, float, float],
    size: int,
    margin_deg: float = 10.0,
    min_fov_deg: float = 30.0,
    max_fov_deg: float = 120.0,
    interpolation: Interpolation = "bilinear",
) -> tuple[np.ndarray, sm.View]:
    """The Omni-CoT crop of a normalised ERP box, and the view it was sampled with."""
    view = omnicot_crop_view(box, size, margin_deg, min_fov_deg, max_fov_deg)
    return erp_to_perspective(erp, view, interpolation), view


def cubemap_to_erp(
    faces: Mapping[str, np.ndarray] | np.ndarray,
    erp_width: int,
    interpolation: Interpolation = "bilinear",
    align_corners: bool = False,
) -> np.ndarray:
    """An ERP of erp_width × erp_width/2 from six faces (a dict as `erp_to_cubemap` makes, or a strip).

    Each face is padded with one row / column of its neighbours, so bilinear samples across a
    cube edge blend the two faces.
    """
    if isinstance(faces, Mapping):
        missing = [f for f in sm.FACES if f not in faces]
        if missing:
            raise ValueError(f"cube faces missing: {missing} (keys are {sm.FACES})")
        parts = [faces[f] for f in sm.FACES]
    else:
        parts = strip_to_faces_list(faces)
    face_width = parts[0].shape[0]
    if any(p.shape != parts[0].shape for p in parts) or parts[0].shape[1] != face_width:
        raise ValueError(f"cube faces must be square and of one size, got {[p.shape for p in parts]}")
    if erp_width < 2 or erp_width % 2:
        raise ValueError(f"ERP width must be a positive even number, got {erp_width}")
    if face_width > MAX_FACE_WIDTH or erp_width >= sm.REMAP_LIMIT:
        raise ValueError(
            f"face width {face_width} / ERP width {erp_width} exceed OpenCV remap's "
            f"{sm.REMAP_LIMIT}-pixel limit (faces up to {MAX_FACE_WIDTH} px)"
        )
    stack = np.stack(parts)
    src, restore = _to_cv(stack.reshape((6 * face_width, face_width) + stack.shape[3:]), interpolation)
    atlas = _atlas(src.reshape((6, face_width, face_width) + src.shape[2:]))
    grid = _cube_erp_grid(face_width, erp_width, align_corners, interpolation)
    out = cv2.remap(atlas, grid.map1, grid.map2, _CV_INTERP[interpolation], borderMode=cv2.BORDER_REPLICATE)
    return restore(out, src)


def faces_to_strip(faces: Mapping[str, np.ndarray]) -> np.ndarray:
    """The six faces side by side in F R B L U D order (py360convert's 'horizon' layout)."""
    return np.concatenate([faces[f] for f in sm.FACES], axis=1)


def strip_to_faces(strip: np.ndarray) -> dict[str, np.ndarray]:
    """Inverse of `faces_to_strip` (views into the strip)."""
    return dict(zip(sm.FACES, strip_to_faces_list(strip)))


def strip_to_faces_list(strip: np.ndarray) -> list[np.ndarray]:
    """The six w × w faces of a w × 6w strip, in F R B L U D order."""
    width = strip.shape[0]
    if strip.ndim not in (2, 3) or strip.shape[1] != 6 * width:
        raise ValueError(f"a cubemap strip must be w × 6w, got {strip.shape}")
    return [strip[:, k * width : (k + 1) * width] for k in range(6)]


def read_erp(path: str | os.PathLike[str], max_decoded_mb: int | None = None) -> np.ndarray:
    """Read an equirectangular panorama (EXR included; truncated JPEG / PNG refused) and check it is 2:1 and
    narrower than OpenCV's remap limit (from a PNG / JPEG / EXR header, before decoding). With `max_decoded_mb`,
    a file whose header says it decodes to more MiB than that (or cannot tell) is refused before decoding."""
    path = Path(path)

    def check(width: int, height: int) -> None:
        if width != 2 * height:
            raise ValueError(
                f"{path}: {width}×{height} is not an equirectangular panorama (width must be twice the height)"
            )
        if width >= sm.REMAP_LIMIT:
            raise ValueError(f"{path}: ERP width {width} exceeds OpenCV remap's {sm.REMAP_LIMIT}-pixel limit")

    data = read_image_bytes(path)
    if max_decoded_mb is not None:
        check_decoded_size(path, data, max_decoded_mb)
    image = decode_bytes(data, str(path), check_size=check)  # a header is checked before its pixels are decoded
    check(image.shape[1], image.shape[0])
    return image


def check_decoded_size(path: Path, data: bytes, max_decoded_mb: int) -> None:
    """Refuse image data whose header says it decodes to over `max_decoded_mb` MiB, or cannot say though OpenCV
    has a decoder for it: ValueError naming the file and the limit (`odi.sphere.max_decoded_mb`)."""
    need = decoded_bytes(data)
    limit = f"the limit of {max_decoded_mb:,} MiB (odi.sphere.max_decoded_mb, --max-decoded-mb)"
    if need is None and (container(data) is not None or not cv2.haveImageReader(str(path))):
        return  # a JPEG / PNG without its size, or data no decoder takes: decoding refuses it, allocating nothing
    if need is None:
        raise ValueError(f"{path}: its header does not tell how large it decodes; refused under {limit}")
    if need > max_decoded_mb << 20:
        raise ValueError(f"{path}: decodes to {math.ceil(need / (1 << 20)):,} MiB, over {limit}")


def exr_ready(path: Path, image: np.ndarray) -> np.ndarray:
    """The image as OpenEXR stores it: float32 of the same values (EXR is linear float, nothing is rescaled).

    uint8, int8, uint16, int16 and float16 become float32 exactly (a uint8 200 reads back from `read_erp`
    as 200.0); float64 is rounded to float32; float32 is kept. Wider integers (int32 / int64 instance ids)
    would lose precision in float32 and are a ValueError naming the path.
    """
    if image.dtype == np.float32:
        return image
    if image.dtype in (np.float16, np.float64) or image.dtype in EXACT_IN_FLOAT32:
        return image.astype(np.float32)
    raise ValueError(
        f"{path}: a {image.dtype} image does not fit OpenEXR's float32 exactly; "
        "write .tif instead (it keeps 32-bit integers)"
    )


def write_image(path: str | os.PathLike[str], image: np.ndarray) -> Path:
    """Encode by the file extension and write atomically; an image the format cannot hold is a ValueError naming `path`.

    16-bit integers go to .png or .tif, floats to .tif or .exr; `.exr` stores integer images as
    float32 of the same values (`exr_ready`).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if image.dtype.kind == "f" and suffix not in FLOAT_FORMATS:
        raise ValueError(f"{path}: a {image.dtype} image needs .tif or .exr (or .hdr / .pfm), not {path.suffix!r}")
    if image.dtype.kind != "f" and suffix in FLOAT_ONLY_FORMATS:
        raise ValueError(
            f"{path}: {path.suffix!r} stores floats only; a {image.dtype} image would be rescaled, "
            "write .png or .tif (integers) instead"
        )
    if image.dtype != np.uint8 and suffix in EIGHT_BIT_FORMATS:
        raise ValueError(
            f"{path}: {path.suffix!r} holds 8 bits per channel, a {image.dtype} image would be "
            "clipped; write .png or .tif (16-bit integers) or .tif / .exr (float) instead"
        )
    if suffix == ".exr":
        image = exr_ready(path, image)
    try:
        ok, data = cv2.imencode(path.suffix, image)
    except cv2.error as exc:
        raise ValueError(
            f"{path}: OpenCV cannot encode a {image.dtype} image with {image.shape[2:] or (1,)} "
            f"channel(s) as {path.suffix!r} ({exc.err})"
        ) from None
    if not ok:
        raise ValueError(f"{path}: OpenCV cannot encode a {image.dtype} image as {path.suffix!r}")
    return write_bytes_atomic(path, data.tobytes())


def _erp_size(erp: np.ndarray) -> tuple[int, int]:
    if erp.ndim not in (2, 3):
        raise ValueError(f"an ERP must be (H, W) or (H, W, C), got shape {erp.shape}")
    height, width = erp.shape[:2]
    if width != 2 * height:
        raise ValueError(f"an ERP must be 2:1, got {width}×{height}")
    if width >= sm.REMAP_LIMIT:
        raise ValueError(f"ERP width {width} exceeds OpenCV remap's {sm.REMAP_LIMIT}-pixel limit")
    return height, width


def _to_cv(
    image: np.ndarray, interpolation: Interpolation
) -> tuple[np.ndarray, Callable[[np.ndarray, np.ndarray], np.ndarray]]:
    """An OpenCV-ready view of the image, and a function turning a remap result back into its dtype and shape."""
    if interpolation not in _CV_INTERP:
        raise ValueError(f"interpolation must be one of {sorted(_CV_INTERP)}, got {interpolation!r}")
    dtype, channels = image.dtype, (image.shape[2:] if image.ndim == 3 else ())
    if interpolation == "bilinear":
        if dtype.type not in BILINEAR_DTYPES:
            raise TypeError(
                f"bilinear sampling takes {[d.__name__ for d in BILINEAR_DTYPES]}, got {dtype}; "
                "use interpolation='nearest' for masks and instance ids"
            )
        src = np.ascontiguousarray(image)
    else:
        base = _NEAREST_AS.get(dtype.itemsize, np.int32)
        if dtype.itemsize % np.dtype(base).itemsize:
            raise TypeError(f"cannot sample {dtype} images")
        src = np.ascontiguousarray(image).view(base)
        if src.shape[:2] != image.shape[:2]:
            src = src.reshape(image.shape[:2] + (-1,))

    def restore(out: np.ndarray, used: np.ndarray) -> np.ndarray:
        out = out.reshape(out.shape[:2] + used.shape[2:])
        if interpolation == "nearest":
            out = np.ascontiguousarray(out).view(dtype)
        return out.reshape(out.shape[:2] + channels)

    return src, restore


def _erp_view_grid(view: sm.View, width: int, height: int, interpolation: Interpolation) -> _Grid:
    def build() -> _Grid:
        map_x, map_y = sm.erp_grid(view, width, height)
        if interpolation == "nearest":
            np.clip(map_y, 0, height - 1, out=map_y)
            return _Grid(map_x, map_y)
        over = np.flatnonzero((map_y < 0) | (map_y > height - 1))
        pole_x = map_x.reshape(-1)[over][None, :]
        pole_y = map_y.reshape(-1)[over]
        # strip rows: [row 0 across the pole, row 0, row H−1, row H−1 across the pole]
        pole_y = np.where(pole_y < 0, pole_y + 1, pole_y - (height - 1) + 2).astype(np.float32)[None, :]
        return _Grid(map_x, map_y, over, np.ascontiguousarray(pole_x), pole_y)

    key = ("erp-view", view, width, height, interpolation)
    return GRID_CACHE.get(key, build, lambda g: g.nbytes)  # type: ignore[return-value]


def _cube_erp_grid(face_width: int, erp_width: int, align_corners: bool, interpolation: Interpolation) -> _Grid:
    height = erp_width // 2
    step = face_width + 2

    def build() -> _Grid:
        map1 = np.empty((height, erp_width, 2), np.int16)
        map2 = np.empty((height, erp_width), np.uint16) if interpolation == "bilinear" else None
        for rows in sm.row_bands(height, erp_width):
            face, map_x, map_y = sm.cube_grid(face_width, erp_width, height, align_corners, rows)
            map_x += _ATLAS_X[face] * step + 1
            map_y += _ATLAS_Y[face] * step + 1
            converted = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2, nninterpolation=interpolation == "nearest")
            map1[rows] = converted[0]
            if map2 is not None:
                map2[rows] = converted[1]
        return _Grid(map1, map2)

    key = ("cube-erp", face_width, erp_width, align_corners, interpolation)
    return GRID_CACHE.get(key, build, lambda g: g.nbytes)  # type: ignore[return-value]


#: Block column and row of each face (`FACES` order) in the 3 × 2 atlas of padded faces.
_ATLAS_X = np.array([k % 3 for k in range(6)], np.float32)
_ATLAS_Y = np.array([k // 3 for k in range(6)], np.float32)


def _atlas(stack: np.ndarray) -> np.ndarray:
    """Faces padded with one pixel of their neighbours, laid out 3 across × 2 down."""
    width = stack.shape[1]
    step = width + 2
    atlas = np.empty((2 * step, 3 * step) + stack.shape[3:], stack.dtype)
    sides = sm.cube_neighbours(width)
    for k in range(6):
        row, col = int(_ATLAS_Y[k]) * step, int(_ATLAS_X[k]) * step
        block = atlas[row : row + step, col : col + step]
        block[1:-1, 1:-1] = stack[k]
        for side, (faces, rows, cols) in sides[k].items():
            values = stack[faces, rows, cols]
            if side == "top":
                block[0, 1:-1] = values
            elif side == "bottom":
                block[-1, 1:-1] = values
            elif side == "left":
                block[1:-1, 0] = values
            else:
                block[1:-1, -1] = values
        block[0, 0], block[0, -1] = stack[k, 0, 0], stack[k, 0, -1]
        block[-1, 0], block[-1, -1] = stack[k, -1, 0], stack[k, -1, -1]
    return atlas
