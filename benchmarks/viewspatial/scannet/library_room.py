"""Library objects in a synthetic scan (issue 50): the room's pieces of the asset library's classes drawn from the
library and arranged by the room layout ODI's panoramas use (assets/room_layout.py), around the room's other
pieces, which stay where they stand. Pure functions, no Blender: the render worker appends the objects and writes
their triangles (render/scannet_room.py), from which the scan's mesh takes their exact boxes."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from benchfoundry.assets.asset_library import AssetLibrary
from benchfoundry.assets.footprints import Footprint
from benchfoundry.assets.room_layout import Placement, Request, library_object, place
from benchfoundry.benchmarks.viewspatial.scannet.synthetic_room import Furniture, Room
from benchfoundry.core.render_spec import LibraryObject
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
}
#: Pieces whose bottom is lower than this (m) stand on the floor, and the layout keeps clear of them.
ON_FLOOR_M = 0.05


@dataclass(frozen=True)
class LibraryPiece:
    """A piece of the room drawn from the library: its raw label, NYU40 id, mesh colour (RGB 0–1) and placement."""

    label: str
    nyu40_id: int
    color: tuple[float, float, float]
    placed: LibraryObject


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


def furnish(room: Room, library: AssetLibrary) -> tuple[Room, tuple[LibraryPiece, ...]]:
    """The room without its pieces of the library's classes, and those pieces placed from the library (seeded by the
    scan's id), clear of the floor-standing pieces that stay; a piece that fits nowhere is a ValueError naming the
    scan."""
    drawn = [f for f in room.furniture if LIBRARY_CLASS.get(f.label) in library.categories]
    kept = tuple(f for f in room.furniture if LIBRARY_CLASS.get(f.label) not in library.categories)
    centre = (room.size[0] / 2.0, room.size[1] / 2.0)
    fixed = tuple(_footprint(f, centre) for f in kept if f.lo[2] < ON_FLOOR_M)
    rng = item_rng(0, "viewspatial.synthetic_scan.library", room.scene_id)
    try:
        placements = place([_request(f, centre) for f in drawn], library, centre, [], rng, walls=True, fixed=fixed)
    except ValueError as exc:
        raise ValueError(f"{room.scene_id}: {exc}") from None
    pieces = tuple(
        LibraryPiece(f.label, f.nyu40_id, f.color, library_object(_moved(p, centre), library))
        for f, p in zip(drawn, placements, strict=True)
    )
    return Room(room.scene_id, room.size, kept), pieces
