"""Our layout of library objects on a panorama scene's floor (issue 37): pure functions, no Blender.

Each request asks for an object of a class near an anchor (azimuth θ and distance from the camera, as the
scene's primitive stood). The layout picks one of the class's assets (seeded), scales it so its height lies in
the class's range (`CLASS_HEIGHTS_M`; the manifest's bounding box gives the height), turns its front (the
manifest's `front_deg`) to the camera and moves it the least from its anchor so that its footprint stays inside
the room, clear of the camera and of every other footprint (placed objects and the scene's fixed obstacles).
Footprints are checked through their enclosing circles, which is conservative: no two circles overlap, so no two
rectangles do.

World axes as benchmarks/odi/synthetic_panoramas.py: +Z up, the camera on the z axis, θ = atan2(x, y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchfoundry.benchmarks.odi.asset_library import AssetLibrary, LibraryAsset

#: The camera's height over the floor in a library scene: a standing adult's eyes (m).
EYE_HEIGHT_M = 1.6
#: Class → the (least, largest) height (m) a placed object of the class may have.
CLASS_HEIGHTS_M: dict[str, tuple[float, float]] = {
    "chair": (0.75, 1.1),
    "sofa": (0.65, 1.05),
    "bed": (0.45, 1.3),
    "table": (0.4, 0.85),
    "lamp": (1.2, 1.9),
    "bookshelf": (1.1, 2.2),
    "potted plant": (0.4, 1.8),
    "television": (0.4, 1.3),
    "bench": (0.4, 1.0),
    "trash can": (0.5, 1.2),
    "box": (0.2, 1.0),
}
#: Least gap (m) between a footprint's circle and the walls, and between the camera and any footprint.
WALL_GAP_M = 0.05
CAMERA_CLEARANCE_M = 0.6
#: How far a request may move from its anchor: distance steps (m) and azimuth steps (deg), nearest first.
_RADIAL_STEPS = tuple(s * 0.15 for s in range(-8, 13))
_AZIMUTH_STEPS = tuple(float(a) for a in range(-90, 91, 5))


@dataclass(frozen=True)
class Request:
    """An object of `category` wanted near azimuth `theta_deg`, `distance_m` from the camera."""

    category: str
    theta_deg: float
    distance_m: float


@dataclass(frozen=True)
class Obstacle:
    """A fixed footprint on the floor (a primitive or a person the layout keeps): centre and radius (m)."""

    x: float
    y: float
    radius: float


@dataclass(frozen=True)
class Placement:
    """A library asset placed on the floor: its origin at `location` (z = 0), turned by `yaw_deg`, scaled."""

    category: str
    asset: LibraryAsset
    location: tuple[float, float, float]
    yaw_deg: float
    scale: float

    @property
    def size(self) -> tuple[float, float, float]:
        """Full extents (m) in the object's own frame, scaled."""
        return tuple(v * self.scale for v in self.asset.size)  # type: ignore[return-value]

    @property
    def footprint_center(self) -> tuple[float, float]:
        """The footprint rectangle's centre on the floor (world x, y)."""
        lo, hi = self.asset.bbox_min, self.asset.bbox_max
        cx, cy = (lo[0] + hi[0]) / 2 * self.scale, (lo[1] + hi[1]) / 2 * self.scale
        c, s = math.cos(math.radians(self.yaw_deg)), math.sin(math.radians(self.yaw_deg))
        return self.location[0] + c * cx - s * cy, self.location[1] + s * cx + c * cy

    @property
    def center(self) -> tuple[float, float, float]:
        """The centre of the placed bounding box (world)."""
        x, y = self.footprint_center
        lo, hi = self.asset.bbox_min[2], self.asset.bbox_max[2]
        return x, y, self.location[2] + (lo + hi) / 2 * self.scale

    @property
    def radius(self) -> float:
        """The radius of the circle around the footprint rectangle."""
        sx, sy, _ = self.size
        return math.hypot(sx, sy) / 2


def class_scale(asset: LibraryAsset) -> float:
    """The uniform scale that brings the asset's height into its class's range (1 when inside, or no range)."""
    height = asset.size[2]
    lo, hi = CLASS_HEIGHTS_M.get(asset.category, (height, height))
    return min(max(height, lo), hi) / height


def _facing_yaw(x: float, y: float, front_deg: float | None = None) -> float:
    """Yaw (deg) that turns an object at (x, y) whose front is −Y turned by `front_deg` towards the camera on the z
    axis, in [-180, 180)."""
    yaw = math.degrees(math.atan2(-x, y)) - (front_deg or 0.0)
    return (yaw + 180.0) % 360.0 - 180.0


def _candidates(request: Request) -> list[tuple[float, float]]:
    """Footprint centres to try, the nearest to the anchor first (a 0.15 m step weighs as 10° of azimuth)."""
    steps = sorted(
        ((dr, da) for dr in _RADIAL_STEPS for da in _AZIMUTH_STEPS),
        key=lambda s: (abs(s[0]) / 0.15 + abs(s[1]) / 10.0, abs(s[1]), s),
    )
    out = []
    for dr, da in steps:
        d = request.distance_m + dr
        if d > 0:
            t = math.radians(request.theta_deg + da)
            out.append((d * math.sin(t), d * math.cos(t)))
    return out


def _fits(x: float, y: float, r: float, room_half: tuple[float, float], taken: list[Obstacle]) -> bool:
    if abs(x) + r > room_half[0] - WALL_GAP_M or abs(y) + r > room_half[1] - WALL_GAP_M:
        return False
    if math.hypot(x, y) < r + CAMERA_CLEARANCE_M:
        return False
    return all(math.hypot(x - o.x, y - o.y) >= r + o.radius for o in taken)


def place(
    requests: list[Request],
    library: AssetLibrary,
    room_half: tuple[float, float],
    obstacles: list[Obstacle],
    rng: np.random.Generator,
) -> tuple[Placement, ...]:
    """One placement per request, in order (module docstring); a class the library lacks, or a request that
    fits nowhere near its anchor, is a ValueError naming it."""
    taken = list(obstacles)
    placements = []
    for request in requests:
        assets = library.of_class(request.category)
        if not assets:
            raise ValueError(f"the asset library at {library.root} has no {request.category!r}")
        asset = assets[int(rng.integers(len(assets)))]
        scale = class_scale(asset)
        lo, hi = asset.bbox_min, asset.bbox_max
        cx, cy = (lo[0] + hi[0]) / 2 * scale, (lo[1] + hi[1]) / 2 * scale
        radius = math.hypot(*(v * scale for v in asset.size[:2])) / 2
        for x, y in _candidates(request):
            if _fits(x, y, radius, room_half, taken):
                break
        else:
            raise ValueError(
                f"no room for a {request.category!r} ({asset.path}) near θ={request.theta_deg}°, "
                f"{request.distance_m} m in a {2 * room_half[0]} × {2 * room_half[1]} m floor"
            )
        yaw = _facing_yaw(x, y, asset.front_deg)
        c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
        location = (x - (c * cx - s * cy), y - (s * cx + c * cy), -lo[2] * scale)
        placements.append(Placement(request.category, asset, location, yaw, scale))
        taken.append(Obstacle(x, y, radius))
    return tuple(placements)
