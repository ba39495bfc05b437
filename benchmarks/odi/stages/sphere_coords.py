"""Coordinate maps of the viewing sphere: ERP, cube-face and perspective pixels ↔ (θ, φ) (docs/design/odi.md §1).

Conventions (angles in degrees):

- World axes: x right, y up, z forward. Longitude θ = atan2(x, z) ∈ [−180°, 180°), 0° straight
  ahead, +90° to the right (seen from inside the sphere θ grows to the right, so an ERP is
  not mirrored); latitude φ = asin(y) ∈ [−90°, 90°], +90° straight up.
- Pixel coordinates are continuous: pixel (i, j) (column i, row j) covers [i, i+1) × [j, j+1)
  and its centre is (i + ½, j + ½); `floor` of a coordinate is the pixel index. An ERP of W × H
  has θ = −180° + (x/W)·360°, φ = 90° − (y/H)·180° (docs/design/odi.md §1); column 0 starts at θ = −180°.
- A perspective view (`View`) looks at (θ, φ) with a horizontal and a vertical field of view,
  an output size and a roll. Camera axes: right, up, forward; a pixel at plane coordinates
  (a, b) ∈ [−1, 1]² (a to the right, b up) has the camera direction
  (a·tan(hfov/2), b·tan(vfov/2), 1). camera → world = Yaw(θ) · Pitch(φ) · Roll(roll):
  yaw turns forward toward +x (right), pitch toward +y (up), roll > 0 turns the camera's up
  vector toward its right (clockwise seen from behind the camera), so scene content turns
  counter-clockwise in the image.
- The sampling grid: with `align_corners=False` (default) the field of view spans the outer
  edges of the outer pixels, a = 2u/n − 1 (a pinhole camera with f = n / (2·tan(fov/2)));
  with `align_corners=True` it spans the centres of the outer pixels, a = 2(u − ½)/(n − 1) − 1,
  which is py360convert's grid.
- Cube faces are 90° views of one width: front (0°, 0°), right (90°, 0°), back (180°, 0°),
  left (−90°, 0°), up (0°, 90°), down (0°, −90°), no roll. The up face has the front at its
  bottom edge, the down face has the front at its top edge; the side faces share their top
  and bottom edges with up and down. The Omni-CoT views (front, right, back, left, top,
  bottom) look the same way, with a configurable field of view (docs/design/odi.md §3).

Mapping to py360convert 1.0.4 (checked in tests/test_sphere.py): same world axes, same ERP
pixel centres; its face order F R B L U D and dict keys are our front right back left up down,
with the same orientation; `e2c(e, face_w)` = `erp_to_cubemap(e, face_w, align_corners=True)`;
`e2p(e, fov_deg=(h, v), u_deg=θ, v_deg=φ, out_hw=(H, W), in_rot_deg=r)` =
`View(θ, φ, h, v, W, H, roll_deg=r, align_corners=True)`; a default (`align_corners=False`)
view of width n equals py360convert's with tan(fov/2) scaled by (n − 1)/n. Its `c2e` reads a
face at (a + 1)/2·w, not at its own `e2c` grid's (a + 1)/2·(w − 1), so it differs from
`cubemap_to_erp(…, align_corners=True)` by up to one face pixel at the far face edges.

Remap grids (`erp_grid`, `cube_grid`) are float32 index coordinates for `cv2.remap`, whose
pixel centres are integers: grid = continuous coordinate − ½.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

#: Cube faces in py360convert's order (F R B L U D) and their centres (θ, φ).
FACES: tuple[str, ...] = ("front", "right", "back", "left", "up", "down")
FACE_CENTRES: dict[str, tuple[float, float]] = {
    "front": (0.0, 0.0),
    "right": (90.0, 0.0),
    "back": (180.0, 0.0),
    "left": (-90.0, 0.0),
    "up": (0.0, 90.0),
    "down": (0.0, -90.0),
}
#: The six Omni-CoT views (docs/design/odi.md §3), paired with the cube face they look at.
VIEW_FACES: dict[str, str] = {
    "front": "front",
    "right": "right",
    "back": "back",
    "left": "left",
    "top": "up",
    "bottom": "down",
}
#: OpenCV's remap takes images and maps below this size on each side.
REMAP_LIMIT = 32767
#: Pixels per band of rows when a grid is computed: temporaries stay in the CPU cache (4× faster than
#: whole-image arrays) and bounded for 12K panoramas.
BAND_PIXELS = 1 << 17


@dataclass(frozen=True)
class View:
    """A perspective view of the sphere; hashable, so it keys the remap-grid cache."""

    theta_deg: float
    phi_deg: float
    hfov_deg: float
    vfov_deg: float
    width: int
    height: int
    roll_deg: float = 0.0
    align_corners: bool = False

    def __post_init__(self) -> None:
        for name in ("hfov_deg", "vfov_deg"):
            value = getattr(self, name)
            if not 0.0 < value < 180.0:
                raise ValueError(f"View.{name} must be in (0, 180) degrees, got {value!r}")
        smallest = 2 if self.align_corners else 1
        for name in ("width", "height"):
            value = getattr(self, name)
            if not smallest <= value < REMAP_LIMIT:
                raise ValueError(f"View.{name} must be in [{smallest}, {REMAP_LIMIT}), got {value!r}")
        if not -90.0 <= self.phi_deg <= 90.0:
            raise ValueError(f"View.phi_deg must be in [-90, 90], got {self.phi_deg!r}")

    @classmethod
    def square(
        cls,
        theta_deg: float,
        phi_deg: float,
        fov_deg: float,
        size: int,
        roll_deg: float = 0.0,
        align_corners: bool = False,
    ) -> View:
        """A size × size view with the same horizontal and vertical field of view."""
        return cls(
            float(theta_deg),
            float(phi_deg),
            float(fov_deg),
            float(fov_deg),
            int(size),
            int(size),
            float(roll_deg),
            align_corners,
        )


def face_view(face: str, width: int, align_corners: bool = False) -> View:
    """The 90° view of one cube face."""
    if face not in FACE_CENTRES:
        raise ValueError(f"unknown cube face {face!r}; faces are {FACES}")
    theta, phi = FACE_CENTRES[face]
    return View.square(theta, phi, 90.0, width, align_corners=align_corners)


def rotation(view: View) -> np.ndarray:
    """camera → world rotation (3 × 3, float64): columns are the camera's right, up, forward."""
    t, p, r = (math.radians(v) for v in (view.theta_deg, view.phi_deg, view.roll_deg))
    yaw = np.array([[math.cos(t), 0, math.sin(t)], [0, 1, 0], [-math.sin(t), 0, math.cos(t)]])
    pitch = np.array([[1, 0, 0], [0, math.cos(p), math.sin(p)], [0, -math.sin(p), math.cos(p)]])
    roll = np.array([[math.cos(r), math.sin(r), 0], [-math.sin(r), math.cos(r), 0], [0, 0, 1]])
    return yaw @ pitch @ roll


def rotate(vectors: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """`vectors @ matrix.T` for vectors (..., 3), each component summed in one fixed order, not by BLAS: the same bits
    whatever BLAS's threads and kernels (which vary with a runner's threads and the machine)."""
    v = np.asarray(vectors, dtype=np.float64)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([x * matrix[i, 0] + y * matrix[i, 1] + z * matrix[i, 2] for i in range(3)], axis=-1)


def pixel_to_plane(u: np.ndarray | float, n: int, align_corners: bool) -> np.ndarray:
    """Continuous pixel coordinate along a side of n pixels → plane coordinate in [−1, 1]."""
    u = np.asarray(u, dtype=np.float64)
    return (2.0 * (u - 0.5) / (n - 1) - 1.0) if align_corners else (2.0 * u / n - 1.0)


def plane_to_pixel(a: np.ndarray | float, n: int, align_corners: bool) -> np.ndarray:
    """Inverse of `pixel_to_plane` (float32 input stays float32)."""
    a = np.asarray(a)
    a = a if a.dtype == np.float32 else a.astype(np.float64)
    return ((a + 1.0) * (n - 1) / 2.0 + 0.5) if align_corners else ((a + 1.0) * n / 2.0)


def angles_to_vectors(theta_deg: np.ndarray | float, phi_deg: np.ndarray | float) -> np.ndarray:
    """Unit vectors (..., 3) of longitudes and latitudes."""
    t = np.radians(np.asarray(theta_deg, dtype=np.float64))
    p = np.radians(np.asarray(phi_deg, dtype=np.float64))
    t, p = np.broadcast_arrays(t, p)
    return np.stack([np.cos(p) * np.sin(t), np.sin(p), np.cos(p) * np.cos(t)], axis=-1)


def vectors_to_angles(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(θ, φ) in degrees of vectors (..., 3) of any length; θ ∈ [−180, 180)."""
    x, y, z = (np.asarray(vectors, dtype=np.float64)[..., k] for k in range(3))
    theta = np.degrees(np.arctan2(x, z))
    theta = np.where(theta >= 180.0, theta - 360.0, theta)
    return theta, np.degrees(np.arctan2(y, np.hypot(x, z)))


def erp_pixel_to_angles(
    x: np.ndarray | float, y: np.ndarray | float, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """Continuous ERP pixel coordinates → (θ, φ) in degrees."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    return -180.0 + x / width * 360.0, 90.0 - y / height * 180.0


def angles_to_erp_pixel(
    theta_deg: np.ndarray | float, phi_deg: np.ndarray | float, width: int, height: int
) -> tuple[np.ndarray, np.ndarray]:
    """(θ, φ) in degrees → continuous ERP pixel coordinates, x wrapped into [0, width)."""
    theta = np.asarray(theta_deg, dtype=np.float64)
    x = np.mod((theta + 180.0) / 360.0 * width, width)
    return x, (90.0 - np.asarray(phi_deg, dtype=np.float64)) / 180.0 * height


def view_pixel_to_angles(view: View, u: np.ndarray | float, v: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """Continuous pixel coordinates of a view → (θ, φ) in degrees."""
    a = pixel_to_plane(u, view.width, view.align_corners) * math.tan(math.radians(view.hfov_deg) / 2)
    b = -pixel_to_plane(v, view.height, view.align_corners) * math.tan(math.radians(view.vfov_deg) / 2)
    a, b = np.broadcast_arrays(a, b)
    cam = np.stack([a, b, np.ones_like(a)], axis=-1)
    return vectors_to_angles(rotate(cam, rotation(view)))


def angles_to_view_pixel(
    view: View, theta_deg: np.ndarray | float, phi_deg: np.ndarray | float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(θ, φ) → continuous pixel coordinates of a view and whether the point is inside the image.

    Points behind the camera get NaN coordinates and `inside` False.
    """
    cam = rotate(angles_to_vectors(theta_deg, phi_deg), rotation(view).T)
    with np.errstate(divide="ignore", invalid="ignore"):
        front = cam[..., 2] > 1e-12
        z = np.where(front, cam[..., 2], np.nan)
        a = cam[..., 0] / z / math.tan(math.radians(view.hfov_deg) / 2)
        b = cam[..., 1] / z / math.tan(math.radians(view.vfov_deg) / 2)
    u = plane_to_pixel(a, view.width, view.align_corners)
    v = plane_to_pixel(-b, view.height, view.align_corners)
    inside = front & (u >= 0) & (u <= view.width) & (v >= 0) & (v <= view.height)
    return u, v, np.asarray(inside)


def angles_to_cube_pixel(
    theta_deg: np.ndarray | float, phi_deg: np.ndarray | float, face_width: int, align_corners: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(θ, φ) → (face index into `FACES`, u, v): the face the direction crosses and its pixel there."""
    return _vectors_to_cube_pixel(angles_to_vectors(theta_deg, phi_deg), face_width, align_corners)


def cube_pixel_to_angles(
    face: str, u: np.ndarray | float, v: np.ndarray | float, face_width: int, align_corners: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Continuous pixel coordinates on a cube face → (θ, φ) in degrees."""
    return view_pixel_to_angles(face_view(face, face_width, align_corners), u, v)


def erp_grid(view: View, erp_width: int, erp_height: int) -> tuple[np.ndarray, np.ndarray]:
    """Remap grid (map_x, map_y float32, view-sized) sampling an ERP for a view.

    map_x lies in [−½, W − ½] (wrap across the seam), map_y in [−½, H − ½] (the outer half rows
    reach over a pole).
    """
    map_x = np.empty((view.height, view.width), np.float32)
    map_y = np.empty_like(map_x)
    for rows in row_bands(view.height, view.width):
        _erp_grid_band(view, erp_width, erp_height, rows, map_x[rows], map_y[rows])
    return map_x, map_y


def cube_grid(
    face_width: int, erp_width: int, erp_height: int, align_corners: bool = False, rows: slice | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the ERP pixel centres of `rows` (all by default): face index (uint8) and face remap grid (float32)."""
    rows = slice(0, erp_height) if rows is None else rows
    theta = np.radians(-180.0 + (np.arange(erp_width) + 0.5) / erp_width * 360.0)[None, :]
    phi = np.radians(90.0 - (np.arange(rows.start, rows.stop) + 0.5) / erp_height * 180.0)[:, None]
    shape = (rows.stop - rows.start, erp_width)
    cos_phi = np.cos(phi).astype(np.float32)
    x = cos_phi * np.sin(theta).astype(np.float32)
    y = np.broadcast_to(np.sin(phi).astype(np.float32), shape)
    z = cos_phi * np.cos(theta).astype(np.float32)
    face, u, v = _components_to_cube_pixel(x, y, z, face_width, align_corners)
    return face, (u - 0.5).astype(np.float32), (v - 0.5).astype(np.float32)


@lru_cache(maxsize=8)
def cube_neighbours(face_width: int) -> tuple[dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], ...]:
    """Per face, per side (top, bottom, left, right): (face, row, column) of the pixels just across that edge.

    Found geometrically: a point just beyond the edge, level with each edge pixel, lands on the
    neighbour face's edge pixel at the same place along the shared edge.
    """
    beyond = 1.0 + 1e-9
    along = pixel_to_plane(np.arange(face_width) + 0.5, face_width, False)
    probes = {
        "top": (along, np.full(face_width, beyond)),
        "bottom": (along, np.full(face_width, -beyond)),
        "left": (np.full(face_width, -beyond), -along),
        "right": (np.full(face_width, beyond), -along),
    }
    result = []
    for name in FACES:
        rot = rotation(face_view(name, face_width))
        sides = {}
        for side, (a, b) in probes.items():
            vec = rotate(np.stack([a, b, np.ones_like(a)], axis=-1), rot)
            face, u, v = _vectors_to_cube_pixel(vec, face_width, False)
            rows = np.clip(np.floor(v), 0, face_width - 1).astype(np.intp)
            cols = np.clip(np.floor(u), 0, face_width - 1).astype(np.intp)
            sides[side] = (face.astype(np.intp), rows, cols)
        result.append(sides)
    return tuple(result)


def row_bands(height: int, width: int) -> Iterator[slice]:
    """Row slices of about `BAND_PIXELS` pixels each."""
    step = max(1, BAND_PIXELS // max(width, 1))
    for start in range(0, height, step):
        yield slice(start, min(height, start + step))


def _erp_grid_band(
    view: View, erp_width: int, erp_height: int, rows: slice, map_x: np.ndarray, map_y: np.ndarray
) -> None:
    """Fill one band of the grid: float32 on broadcast rows × columns (float32 atan2 is vectorised, ~1e-7 rad)."""
    u = np.arange(view.width, dtype=np.float64) + 0.5
    v = np.arange(rows.start, rows.stop, dtype=np.float64) + 0.5
    a = pixel_to_plane(u, view.width, view.align_corners) * math.tan(math.radians(view.hfov_deg) / 2)
    b = -pixel_to_plane(v, view.height, view.align_corners) * math.tan(math.radians(view.vfov_deg) / 2)
    rot = rotation(view)
    x, y, z = (
        (rot[k, 0] * a + rot[k, 2]).astype(np.float32)[None, :] + (rot[k, 1] * b).astype(np.float32)[:, None]
        for k in range(3)
    )
    np.arctan2(x, z, out=map_x)
    map_x *= np.float32(erp_width / (2 * math.pi))
    map_x += np.float32(erp_width / 2 - 0.5)
    x *= x
    z *= z
    x += z
    np.arctan2(y, np.sqrt(x, out=x), out=map_y)
    map_y *= np.float32(-erp_height / math.pi)
    map_y += np.float32(erp_height / 2 - 0.5)


def _vectors_to_cube_pixel(
    vec: np.ndarray, face_width: int, align_corners: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _components_to_cube_pixel(vec[..., 0], vec[..., 1], vec[..., 2], face_width, align_corners)


def _components_to_cube_pixel(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, face_width: int, align_corners: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The face a direction crosses (the axis of its largest component, x before y before z on ties) and its pixel.

    Per face the camera's right, up and forward are signed world axes (see `FACE_CENTRES`):
    right (−z, y, x), left (z, y, −x), up (x, −z, y), down (x, z, −y), front (x, y, z), back (−x, y, −z).
    """
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    major_x = (ax >= ay) & (ax >= az)
    major_y = ~major_x & (ay >= az)
    face = (z < 0).view(np.uint8) * np.uint8(2)  # front 0, back 2
    np.copyto(face, np.uint8(4) + (y < 0).view(np.uint8), where=major_y)  # up 4, down 5
    np.copyto(face, np.uint8(1) + (x < 0).view(np.uint8) * np.uint8(2), where=major_x)  # right 1, left 3
    forward = np.where(major_x, ax, np.where(major_y, ay, az))
    right = np.where(major_x, np.where(x >= 0, -z, z), np.where(major_y | (z >= 0), x, -x))
    up = np.where(major_y, np.where(y >= 0, -z, z), y)
    u = plane_to_pixel(right / forward, face_width, align_corners)
    v = plane_to_pixel(-up / forward, face_width, align_corners)
    return face, u, v
