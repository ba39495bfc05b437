"""Library objects in a synthetic scan (issue 50): the room's pieces of the asset library's classes drawn from the
library and arranged by the room layout ODI's panoramas use (assets/room_layout.py), around the room's other
pieces, which stay where they stand (no camera stands at a scan's centre: the layout keeps no clearance there). Pure
functions, no Blender: the render worker appends the objects and writes their triangles
(benchmarks/viewspatial/scannet/scenes/renderer.py),
from which the scan's mesh takes their exact boxes.

What stands on a piece drawn from the library moves with it (the pillow on the bed, the books on the nightstand, the
box at the desk's front edge): it keeps its place on the piece's top, as far to the front, back or side as it stood on
the box the piece replaces (the box's front faced away from its nearest wall), its bottom where things rest on the
library object (its manifest's `rest_m`, a bed's mattress under the headboard's top; else the top of its box). What
hangs on the wall above such a piece (`HUNG_ABOVE`: the television over the cabinet, the whiteboard over the desk, the
picture over the bed) moves onto the wall the library object backs onto, above it, at its height or just clear of the
piece's top; where that would meet another piece it stays where it hung, raised clear of the piece if need be."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchfoundry.assets.asset_library import AssetLibrary
from benchfoundry.assets.footprints import Footprint
from benchfoundry.assets.room_layout import Placement, Request, facing_of, lamp_bulb, library_object, place
from benchfoundry.benchmarks.viewspatial.scannet.scenes.synthetic_room import Furniture, Room
from benchfoundry.core.render_spec import AreaLamp, LibraryObject
from benchfoundry.core.seeding import item_rng

#: The config field that names the scans' asset library, in every error about reading it.
ASSET_LIBRARY_FIELD = "viewspatial.synthetic.asset_library"
#: A scan's raw label → the library class that draws it.
LIBRARY_CLASS: dict[str, str] = {
    "chair": "chair",
    "sofa": "sofa",
    "table": "table",
    "lamp": "lamp",
    "bookshelf": "bookshelf",
    "desk": "desk",
    "cabinet": "cabinet",
    "nightstand": "nightstand",
    "bed": "bed",
}
#: Part of a furnished scan's hash (synthetic_stage): bump it when `furnish` places or moves pieces differently, so a
#: build with the library renders its scans anew. 2: desks, cabinets, nightstands and what stands on them; a lamp's
#: bulb.
FURNISH_VERSION = 2
#: Pieces whose bottom is lower than this (m) stand on the floor, and the layout keeps clear of them.
ON_FLOOR_M = 0.05
#: How many draws of the room's assets (seeded by the scan's id, then by it and the draw) may fit nowhere (a 2.5 m
#: dining table in a furnished 6 × 5 m room) before a scan is given up.
DRAWS = 8
#: A piece rests on another when its bottom lies this close (m) to the other's top and its centre over the other.
RESTS_M = 0.02
#: Wall pieces hung above a piece of the library's classes (raw label → the label of the piece below), which move
#: with it; a window stays in its wall.
HUNG_ABOVE: dict[str, str] = {"tv": "cabinet", "whiteboard": "desk", "picture": "bed"}
#: A piece lies on a wall when its side is this close (m) to it; what a hung piece keeps clear of a piece's top (m).
ON_WALL_M = 0.15
HUNG_CLEAR_M = 0.1


@dataclass(frozen=True)
class LibraryPiece:
    """A piece of the room drawn from the library: its raw label, NYU40 id, mesh colour (RGB 0–1), placement and, for
    a lamp, the bulb that lights the room from it (as in ODI's rooms)."""

    label: str
    nyu40_id: int
    color: tuple[float, float, float]
    placed: LibraryObject
    light: AreaLamp | None = None


def _footprint(piece: Furniture, centre: tuple[float, float]) -> Footprint:
    (sx, sy, _), (cx, cy, _) = piece.size, piece.center
    return Footprint(cx - centre[0], cy - centre[1], sx / 2, sy / 2, 0.0)


def _request(piece: Furniture, centre: tuple[float, float]) -> Request:
    """The piece's class wanted where it stood: azimuth and distance from the room's centre (θ = atan2(x, y))."""
    x, y = piece.center[0] - centre[0], piece.center[1] - centre[1]
    return Request(LIBRARY_CLASS[piece.label], math.degrees(math.atan2(x, y)), math.hypot(x, y))


def _moved(placement: Placement, by: tuple[float, float]) -> Placement:
    """The placement moved by `by` (x, y): from the layout's frame, centred on the room, to the room's."""
    x, y, z = placement.location
    return replace(placement, location=(x + by[0], y + by[1], z))


def placed_box(placement: Placement) -> tuple[np.ndarray, np.ndarray]:
    """The axis-aligned box (least and largest corner, world) of a placed asset's bounding box, scaled and turned."""
    lo, hi = np.asarray(placement.asset.bbox_min), np.asarray(placement.asset.bbox_max)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    t = math.radians(placement.yaw_deg)
    turn = np.array([[math.cos(t), -math.sin(t), 0.0], [math.sin(t), math.cos(t), 0.0], [0.0, 0.0, 1.0]])
    world = corners * placement.scale @ turn.T + np.asarray(placement.location)
    return world.min(axis=0), world.max(axis=0)


def _nearest_wall(lo: np.ndarray, hi: np.ndarray, size: Sequence[float]) -> tuple[float, np.ndarray]:
    """How far the box `lo`–`hi` stands from the wall nearest to it, and the direction (x, y) from that wall into
    the room: where a box's front faces."""
    gaps = [(lo[0], (1.0, 0.0)), (size[0] - hi[0], (-1.0, 0.0)), (lo[1], (0.0, 1.0)), (size[1] - hi[1], (0.0, -1.0))]
    gap, into_room = min(gaps, key=lambda g: g[0])
    return float(gap), np.array(into_room)


def _frame(front: Sequence[float]) -> np.ndarray:
    """Rows: the front and the direction a quarter turn counter-clockwise from it."""
    return np.array([[front[0], front[1]], [-front[1], front[0]]])


def _turned_size(size: Sequence[float], old: np.ndarray, new: np.ndarray) -> tuple[float, float, float]:
    """An axis-aligned box's size after the turn from the front `old` to `new`: x and y swapped on a quarter turn."""
    quarter = abs(old[0] * new[1] - old[1] * new[0]) > abs(old @ new)
    return (size[1], size[0], size[2]) if quarter else (size[0], size[1], size[2])


def _resting(piece: Furniture, box: Furniture, placement: Placement, size: Sequence[float]) -> Furniture:
    """`piece`, resting on `box`, moved onto the placed library object that replaces the box: as far along the
    object's front and side, as a share of the room the top leaves it, as it stood on the box; its bottom where things
    rest on the object (its asset's `rest_height`: a bed's mattress, a desk's top)."""
    old, new = _nearest_wall(box.lo, box.hi, size)[1], np.asarray(facing_of(placement))
    new_size = _turned_size(piece.size, old, new)
    offset = _frame(old) @ (np.asarray(piece.center[:2]) - np.asarray(box.center[:2]))
    room_old = np.abs(_frame(old)) @ (np.asarray(box.size[:2]) - np.asarray(piece.size[:2])) / 2
    footprint = placement.footprint
    reach = np.array([footprint.reach(tuple(axis)) for axis in _frame(new)])
    room_new = np.maximum(reach - np.abs(_frame(new)) @ np.asarray(new_size[:2]) / 2, 0.0)
    share = np.clip(np.divide(offset, room_old, out=np.zeros(2), where=room_old > 1e-9), -1.0, 1.0)
    x, y = np.array([footprint.x, footprint.y]) + (share * room_new) @ _frame(new)
    top = placement.location[2] + placement.asset.rest_height * placement.scale
    return replace(piece, center=(float(x), float(y), float(top + piece.size[2] / 2)), size=new_size)


def _meets(lo: np.ndarray, hi: np.ndarray, boxes: Sequence[tuple[np.ndarray, np.ndarray]]) -> bool:
    return any(bool(np.all(lo < b_hi) and np.all(b_lo < hi)) for b_lo, b_hi in boxes)


def _wall_depth(piece: Furniture, size: Sequence[float]) -> tuple[np.ndarray, float]:
    """The direction from the wall nearest the piece into the room, and how far the piece's centre lies from it."""
    facing = _nearest_wall(piece.lo, piece.hi, size)[1]
    axis = int(np.argmax(np.abs(facing)))
    centre = piece.center[axis]
    return facing, float(centre if facing[axis] > 0 else size[axis] - centre)


def _hung(
    piece: Furniture, placement: Placement, size: Sequence[float], others: list[tuple[np.ndarray, np.ndarray]]
) -> Furniture:
    """`piece`, hung on a wall above a box that `placement` replaces, moved onto the wall the placed object backs
    onto (if it backs onto one), centred over the object, at its height or with its bottom `HUNG_CLEAR_M` over the
    object's top; where that meets one of the `others` (boxes), left on its wall, raised clear of the object if it
    meets it."""
    lo, hi = placed_box(placement)
    z = max(piece.center[2], hi[2] + HUNG_CLEAR_M + piece.size[2] / 2)
    gap, into_room = _nearest_wall(lo, hi, size)
    axis = int(np.argmax(np.abs(into_room)))
    if gap < ON_WALL_M and abs(facing_of(placement)[axis]) > 0.99:  # the object backs onto that wall
        facing, depth = _wall_depth(piece, size)
        centre = (lo[:2] + hi[:2]) / 2
        centre[axis] = depth if into_room[axis] > 0 else size[axis] - depth
        new_size = _turned_size(piece.size, facing, into_room)
        moved = replace(piece, center=(float(centre[0]), float(centre[1]), float(z)), size=new_size)
        if not _meets(moved.lo, moved.hi, others):
            return moved
    if _meets(piece.lo, piece.hi, [(lo, hi)]):
        return replace(piece, center=(piece.center[0], piece.center[1], float(z)))
    return piece


def _rests_on(piece: Furniture, box: Furniture) -> bool:
    return abs(piece.lo[2] - box.hi[2]) < RESTS_M and bool(
        np.all(box.lo[:2] < piece.center[:2]) and np.all(np.asarray(piece.center[:2]) < box.hi[:2])
    )


def furnish(room: Room, library: AssetLibrary) -> tuple[Room, tuple[LibraryPiece, ...]]:
    """The room without its pieces of the library's classes, and those pieces placed from the library (seeded by the
    scan's id; drawn again, `DRAWS` times at most, where they fit nowhere), clear of the floor-standing pieces that
    stay; what rests on a drawn piece or hangs above it moved with it (module docstring); a room that fits no draw
    is a ValueError naming the scan."""
    drawn = [f for f in room.furniture if LIBRARY_CLASS.get(f.label) in library.categories]
    kept = tuple(f for f in room.furniture if LIBRARY_CLASS.get(f.label) not in library.categories)
    centre = (room.size[0] / 2.0, room.size[1] / 2.0)
    fixed = tuple(_footprint(f, centre) for f in kept if f.lo[2] < ON_FLOOR_M)
    requests = [_request(f, centre) for f in drawn]
    for attempt in range(DRAWS):
        rng = item_rng(0, "viewspatial.synthetic_scan.library", room.scene_id + (f"/{attempt}" if attempt else ""))
        try:
            placements = place(requests, library, centre, [], rng, walls=True, fixed=fixed, camera_clearance=0.0)
            break
        except ValueError as exc:
            if attempt == DRAWS - 1:
                raise ValueError(f"{room.scene_id}: {exc} (after {DRAWS} draws of the assets)") from None
    placements = tuple(_moved(p, centre) for p in placements)
    pieces = tuple(
        LibraryPiece(
            f.label, f.nyu40_id, f.color, library_object(p, library), lamp_bulb(p) if p.category == "lamp" else None
        )
        for f, p in zip(drawn, placements, strict=True)
    )
    return Room(room.scene_id, room.size, _moved_with(kept, drawn, placements, room.size)), pieces


def _moved_with(
    kept: tuple[Furniture, ...], drawn: list[Furniture], placements: tuple[Placement, ...], size: Sequence[float]
) -> tuple[Furniture, ...]:
    """The kept pieces, those resting on a drawn piece or hung above one moved with it (module docstring)."""
    moved = list(kept)
    for i, piece in enumerate(kept):
        below = [k for k, box in enumerate(drawn) if _rests_on(piece, box)]
        if below:
            moved[i] = _resting(piece, drawn[below[0]], placements[below[0]], size)
    library_boxes = [placed_box(p) for p in placements]
    for i, piece in enumerate(kept):
        of_label = [k for k, box in enumerate(drawn) if box.label == HUNG_ABOVE.get(piece.label)]
        if not of_label:
            continue
        k = min(of_label, key=lambda k: float(np.hypot(*(np.asarray(drawn[k].center[:2]) - piece.center[:2]))))
        others = [(f.lo, f.hi) for j, f in enumerate(moved) if j != i] + library_boxes
        moved[i] = _hung(piece, placements[k], size, others)
    return tuple(moved)
