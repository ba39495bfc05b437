"""Our layout of library objects on a room's floor (issues 37, 50), shared by every benchmark that draws rooms from
an asset library: pure functions, no Blender.

Each request asks for an object of a class near an anchor (azimuth θ and distance from the camera, or from the
room's centre, as the scene's stand-in stood). The layout picks one of the class's assets (seeded), scales it so its
height lies in the class's range (`CLASS_HEIGHTS_M`; the manifest's bounding box gives the height), and arranges it
as people arrange a room: in a room with walls a sofa, a bookcase, a bed, a television, a desk, a cabinet or a
nightstand stands with its back to the nearest wall, its front into the room; a nightstand stands beside the head of
the bed, backed onto the bed's wall; a chair stands at a side of a table and faces it, or without a table faces the
sofa; a lamp stands beside the end of the sofa; a rug lies where it was drawn, square to the room; anything else
(and everything in a courtyard) turns its front (the manifest's `front_deg`) to the camera. Each is moved the least
from where its rule wants it so that its footprint (an oriented rectangle, assets/footprints.py) stays inside the
floor, clear of the camera, the scene's fixed obstacles and pieces and the footprints placed before it (a rug, lying
flat, needs only the floor, and the others stand on it). Tables, sofas and beds are placed first.

World axes: +Z up, the floor's centre (where a panorama's camera stands) on the z axis, θ = atan2(x, y).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from benchfoundry.assets.asset_library import AssetLibrary, LibraryAsset
from benchfoundry.assets.footprints import Footprint, inside, meets_circle, overlaps
from benchfoundry.core.render_spec import AreaLamp, LibraryObject

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
    "rug": (0.005, 0.05),
    "desk": (0.65, 0.85),
    "cabinet": (0.5, 1.0),
    "nightstand": (0.4, 0.75),
    "tree": (3.0, 8.0),
}
#: Least gap (m) between a footprint and the walls, between the camera and any footprint, between two footprints.
WALL_GAP_M = 0.05
CAMERA_CLEARANCE_M = 0.6
GAP_M = 0.1
#: What a spot keeps beyond the gaps (m), so that rounding or a turn settling never makes a spot at the limit overlap.
_SLACK_M = 1e-3
#: Classes that stand with their back to a wall in a room.
AGAINST_WALL = frozenset({"sofa", "bookshelf", "bed", "television", "desk", "cabinet", "nightstand"})
#: What a chair faces, the first of these placed; what a lamp stands beside; at whose head a nightstand stands.
CHAIR_FACES = ("table", "sofa")
LAMP_BESIDE = "sofa"
NIGHTSTAND_BESIDE = "bed"
#: Flat classes: laid at their anchor, square to the room, under the camera or the others if need be, and at most
#: this share of the room's shorter side long.
FLAT = frozenset({"rug"})
FLAT_SHARE = 0.6
#: Classes placed before the others, as the others are arranged around them.
FIRST = ("table", "sofa", "bed")
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
    def footprint(self) -> Footprint:
        """The footprint rectangle on the floor."""
        sx, sy, _ = self.size
        return Footprint(*self.footprint_center, sx / 2, sy / 2, self.yaw_deg)


def library_object(placement: Placement, library: AssetLibrary, pass_index: int = 0) -> LibraryObject:
    """The placement as a render spec's object appended from the library's file."""
    return LibraryObject(
        blend=str(library.file_of(placement.asset)),
        object_name=placement.asset.object_name,
        sha256=placement.asset.sha256,
        location=placement.location,
        yaw_deg=placement.yaw_deg,
        scale=placement.scale,
        pass_index=pass_index,
    )


#: A library lamp's bulb: an area lamp facing down, this far up its height, of this side (m) and power (W).
BULB_HEIGHT_SHARE = 0.85
BULB_SIZE_M = 0.15
BULB_POWER_W = 40.0


def lamp_bulb(placement: Placement) -> AreaLamp:
    """The bulb that lights a room from a placed lamp's shade: over its footprint's centre, near its top."""
    top = placement.location[2] + placement.asset.bbox_max[2] * placement.scale
    return AreaLamp((*placement.footprint_center, BULB_HEIGHT_SHARE * top), size=BULB_SIZE_M, power=BULB_POWER_W)


def class_scale(asset: LibraryAsset) -> float:
    """The uniform scale that brings the asset's height into its class's range (1 when inside, or no range)."""
    height = asset.size[2]
    lo, hi = CLASS_HEIGHTS_M.get(asset.category, (height, height))
    return min(max(height, lo), hi) / height


def _yaw(facing: tuple[float, float], front_deg: float | None) -> float:
    """Yaw (deg, in [-180, 180)) that turns an object whose front is −Y turned by `front_deg` to the direction
    `facing` (x, y)."""
    yaw = math.degrees(math.atan2(facing[0], -facing[1])) - (front_deg or 0.0)
    return (yaw + 180.0) % 360.0 - 180.0


def _unit(x: float, y: float) -> tuple[float, float]:
    norm = math.hypot(x, y) or 1.0
    return x / norm, y / norm


def _near_anchor(request: Request) -> list[tuple[float, float]]:
    """Footprint centres to try, the nearest to the anchor first (a 0.15 m step weighs as 10° of azimuth)."""
    steps = sorted(
        ((dr, da) for dr in _RADIAL_STEPS for da in _AZIMUTH_STEPS),
        key=lambda s: (abs(s[0]) / 0.15 + abs(s[1]) / 10.0, abs(s[1]), s),
    )
    return [_polar(request.theta_deg + da, request.distance_m + dr) for dr, da in steps if request.distance_m + dr > 0]


def _polar(theta_deg: float, distance_m: float) -> tuple[float, float]:
    t = math.radians(theta_deg)
    return distance_m * math.sin(t), distance_m * math.cos(t)


def _anchor(request: Request) -> tuple[float, float]:
    return _polar(request.theta_deg, request.distance_m)


Spot = tuple[tuple[float, float], tuple[float, float]]  # (footprint centre, the direction its front faces)


def _turned(shape: Footprint, facing: tuple[float, float]) -> Footprint:
    """`shape` (the footprint at the origin with its front at −Y) turned so that its front faces `facing`."""
    return Footprint(0.0, 0.0, shape.half_x, shape.half_y, _yaw(facing, None) + shape.yaw_deg)


def _against_walls(request: Request, shape: Footprint, room_half: tuple[float, float]) -> list[Spot]:
    """Along each wall, the wall nearest the anchor first: the footprint's back at the wall, its front facing into
    the room, slid along the wall from the anchor's foot in 0.15 m steps."""
    ax, ay = _anchor(request)
    walls = [(0, 1.0, room_half[0] - ax), (0, -1.0, room_half[0] + ax)]
    walls += [(1, 1.0, room_half[1] - ay), (1, -1.0, room_half[1] + ay)]
    spots = []
    for axis, sign, _ in sorted(walls, key=lambda w: w[2]):
        out = (sign, 0.0) if axis == 0 else (0.0, sign)
        inward = (-out[0], -out[1])
        depth = sign * (room_half[axis] - WALL_GAP_M - _SLACK_M - _turned(shape, inward).reach(out))
        foot = ay if axis == 0 else ax
        for step in sorted(range(-40, 41), key=lambda k: (abs(k), k)):
            slide = foot + 0.15 * step
            spots.append(((depth, slide) if axis == 0 else (slide, depth), inward))
    return spots


def facing_of(placement: Placement) -> tuple[float, float]:
    """Where a placement's front faces (world x, y): −Y turned by its asset's `front_deg` (none: 0), then its yaw."""
    t = math.radians((placement.asset.front_deg or 0.0) + placement.yaw_deg)
    return math.sin(t), -math.cos(t)


def _beside_head(bed: Placement, shape: Footprint, request: Request) -> list[Spot]:
    """Either side of the bed's head (its back, the headboard), just clear of it: the spot's back in line with the
    bed's, its front the way the bed's faces (the side nearer the anchor first)."""
    ax, ay = _anchor(request)
    front = facing_of(bed)
    across = (-front[1], front[0])
    bed_shape, own = bed.footprint, _turned(shape, front)
    back = bed_shape.reach(front) - own.reach(front)  # how far behind the bed's centre the spot's centre lies
    spots = []
    for side in (1.0, -1.0):
        out = side * (bed_shape.reach(across) + own.reach(across) + GAP_M + _SLACK_M)
        x = bed_shape.x - front[0] * back + across[0] * out
        y = bed_shape.y - front[1] * back + across[1] * out
        spots.append(((x, y), front))
    return sorted(spots, key=lambda s: math.hypot(s[0][0] - ax, s[0][1] - ay))


def _around(
    target: Footprint, shape: Footprint, request: Request, sides: np.ndarray, facing_target: bool
) -> list[Spot]:
    """Beside each of `target`'s `sides` (unit directions from its centre; the spot nearest the anchor first), just
    clear of it; facing `target`'s centre when `facing_target`, else the camera."""
    ax, ay = _anchor(request)
    spots = []
    for direction in sides:
        across = np.array([-direction[1], direction[0]])
        for shift in (0.0, -0.4, 0.4):
            facing = (-float(direction[0]), -float(direction[1]))
            for _ in range(3):  # its reach depends on where it faces, which depends on where it stands
                reach = target.reach(direction) + _turned(shape, facing).reach(direction) + GAP_M + _SLACK_M
                x, y = np.array([target.x, target.y]) + direction * reach + across * shift
                facing = _unit(target.x - x, target.y - y) if facing_target else _unit(-x, -y)
            spots.append(((float(x), float(y)), facing))
    return sorted(spots, key=lambda s: math.hypot(s[0][0] - ax, s[0][1] - ay))


def _spots(
    request: Request, shape: Footprint, room_half: tuple[float, float], walls: bool, placed: list[Placement]
) -> list[Spot]:
    """Where the request's object may stand, its rule's spots first, then near its anchor facing the camera."""
    first = {p.category: p.footprint for p in reversed(placed)}
    spots: list[Spot] = []
    if request.category in FLAT:
        # turned a quarter when its long side and the room's lie along different axes
        turn = (shape.reach((1.0, 0.0)) > shape.reach((0.0, 1.0))) == (room_half[1] > room_half[0])
        return [(xy, (1.0, 0.0) if turn else (0.0, -1.0)) for xy in _near_anchor(request)]
    beds = [p for p in placed if p.category == NIGHTSTAND_BESIDE]
    if walls and request.category == "nightstand" and beds:
        spots = _beside_head(beds[0], shape, request) + _against_walls(request, shape, room_half)
    elif walls and request.category in AGAINST_WALL:
        spots = _against_walls(request, shape, room_half)
    elif request.category == "chair" and CHAIR_FACES[0] in first:
        table = first[CHAIR_FACES[0]]
        spots = _around(table, shape, request, np.vstack([table.axes, -table.axes]), facing_target=True)
    elif request.category == "chair" and CHAIR_FACES[1] in first:
        sofa = first[CHAIR_FACES[1]]
        spots = [(xy, _unit(sofa.x - xy[0], sofa.y - xy[1])) for xy in _near_anchor(request)]
    elif request.category == "lamp" and LAMP_BESIDE in first:
        sofa = first[LAMP_BESIDE]
        long_axis = sofa.axes[0] if sofa.half_x >= sofa.half_y else sofa.axes[1]
        spots = _around(sofa, shape, request, np.vstack([long_axis, -long_axis]), facing_target=False)
    return spots + [(xy, _unit(-xy[0], -xy[1])) for xy in _near_anchor(request)]


def _free(
    placement: Placement,
    room_half: tuple[float, float],
    obstacles: list[Obstacle],
    standing: list[Footprint],
    camera_clearance: float,
) -> bool:
    """Inside the floor; unless flat, `camera_clearance` clear of the camera, clear of the obstacles and the
    `standing` footprints."""
    footprint = placement.footprint
    if placement.category in FLAT:
        return inside(footprint, room_half, WALL_GAP_M)
    return (
        inside(footprint, room_half, WALL_GAP_M)
        and not (camera_clearance > 0 and meets_circle(footprint, 0.0, 0.0, camera_clearance))
        and not any(meets_circle(footprint, o.x, o.y, o.radius) for o in obstacles)
        and not any(overlaps(footprint, other, GAP_M) for other in standing)
    )


def _placement(category: str, asset: LibraryAsset, scale: float, spot: Spot) -> Placement:
    """The asset placed with its footprint's centre at the spot's point, its front towards the spot's direction."""
    (x, y), facing = spot
    at_origin = Placement(category, asset, (0.0, 0.0, -asset.bbox_min[2] * scale), _yaw(facing, asset.front_deg), scale)
    ox, oy = at_origin.footprint_center
    return replace(at_origin, location=(x - ox, y - oy, at_origin.location[2]))


def place(
    requests: list[Request],
    library: AssetLibrary,
    room_half: tuple[float, float],
    obstacles: list[Obstacle],
    rng: np.random.Generator,
    walls: bool = False,
    fixed: tuple[Footprint, ...] = (),
    camera_clearance: float = CAMERA_CLEARANCE_M,
) -> tuple[Placement, ...]:
    """One placement per request, in order (module docstring; `walls`: the floor is a room's, bounded by walls;
    `fixed`: footprints of pieces that stay where they are, kept clear of as placed ones are; `camera_clearance`:
    how far from the floor's centre, where a panorama's camera stands, everything keeps, 0 where no camera stands
    there); a class the library lacks, or a request that fits nowhere, is a ValueError naming it."""
    assets = []
    for request in requests:
        of_class = library.of_class(request.category)
        if not of_class:
            raise ValueError(f"the asset library at {library.root} has no {request.category!r}")
        assets.append(of_class[int(rng.integers(len(of_class)))])
    placed: dict[int, Placement] = {}
    for k in sorted(range(len(requests)), key=lambda k: (requests[k].category not in FIRST, k)):
        request, asset = requests[k], assets[k]
        scale = class_scale(asset)
        if request.category in FLAT:
            scale *= min(1.0, FLAT_SHARE * 2 * min(room_half) / (max(asset.size[:2]) * scale))
        sx, sy, _ = (v * scale for v in asset.size)
        shape = Footprint(0.0, 0.0, sx / 2, sy / 2, -(asset.front_deg or 0.0))
        standing = [*fixed, *(p.footprint for p in placed.values() if p.category not in FLAT)]
        for spot in _spots(request, shape, room_half, walls, list(placed.values())):
            placement = _placement(request.category, asset, scale, spot)
            if _free(placement, room_half, obstacles, standing, camera_clearance):
                placed[k] = placement
                break
        else:
            raise ValueError(
                f"no room for a {request.category!r} ({asset.path}) near θ={request.theta_deg}°, "
                f"{request.distance_m} m in a {2 * room_half[0]} × {2 * room_half[1]} m floor"
            )
    return tuple(placed[k] for k in range(len(requests)))
