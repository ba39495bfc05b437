"""The rooms of the embedded ScanNet default (docs/design/defaults.md §5): labelled furniture boxes in a box-shaped
room, the two splits' rooms and their varied copies, in plain Python
(benchmarks/viewspatial/scannet/scenes/synthetic_scan.py renders and writes them)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from benchfoundry.benchmarks.viewspatial.scannet.config import MAX_SYNTHETIC_SCANS
from benchfoundry.core.seeding import item_rng


@dataclass(frozen=True)
class Furniture:
    """A labelled box standing in the room: raw label, NYU40 id, centre and size in metres, RGB 0–1."""

    label: str
    nyu40_id: int
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    color: tuple[float, float, float]

    @property
    def lo(self) -> np.ndarray:
        return np.asarray(self.center) - np.asarray(self.size) / 2.0

    @property
    def hi(self) -> np.ndarray:
        return np.asarray(self.center) + np.asarray(self.size) / 2.0


@dataclass(frozen=True)
class Room:
    """A box-shaped room with its corner at the origin, z up (ScanNet's axes), and its furniture."""

    scene_id: str
    size: tuple[float, float, float]
    furniture: tuple[Furniture, ...]


#: A 6 × 5 × 2.8 m room; chairs repeat, the other categories occur once; the trash can maps to
#: NYU40 "otherprop" (40) and is excluded from questions. Pieces stand at different depths and heights, as a
#: ScanNet room's do: a table and a bag in the middle (in front of the far walls from the camera walk), things on
#: others or on the wall above them (pillow on the bed, books on the nightstand, television over the cabinet,
#: whiteboard over the desk, window over the sofa), so that Cam-Rel. Dir. finds pairs of every released direction
#: (front, back, above, down and their mixes), not only left and right. A box stands at the desk's front edge, as
#: the release's lamp on a nightstand or clothes on a table do: seen across the room, the desk lies behind and
#: below it steeply enough for the camera's pitch (front-down; the box back-up of the desk), which no other
#: pair gives.
BASE_FURNITURE: tuple[Furniture, ...] = (
    Furniture("bed", 4, (1.20, 3.95, 0.25), (2.00, 1.60, 0.50), (0.75, 0.25, 0.25)),
    Furniture("pillow", 18, (0.55, 3.95, 0.58), (0.45, 0.70, 0.16), (0.92, 0.92, 0.85)),
    Furniture("picture", 11, (1.20, 4.97, 1.75), (0.90, 0.05, 0.60), (0.95, 0.80, 0.20)),
    Furniture("nightstand", 32, (2.55, 4.70, 0.30), (0.45, 0.40, 0.60), (0.50, 0.30, 0.12)),
    Furniture("books", 23, (2.55, 4.70, 0.68), (0.28, 0.22, 0.16), (0.15, 0.30, 0.65)),
    Furniture("sofa", 6, (4.50, 4.45, 0.40), (2.00, 0.90, 0.80), (0.20, 0.35, 0.75)),
    Furniture("window", 9, (4.50, 4.97, 1.75), (1.20, 0.05, 0.90), (0.70, 0.85, 0.95)),
    Furniture("tv", 25, (4.50, 0.06, 1.25), (1.20, 0.10, 0.70), (0.05, 0.05, 0.05)),
    Furniture("cabinet", 3, (4.50, 0.30, 0.30), (1.40, 0.50, 0.60), (0.60, 0.45, 0.30)),
    Furniture("refrigerator", 24, (0.45, 0.45, 0.90), (0.80, 0.80, 1.80), (0.90, 0.90, 0.92)),
    Furniture("desk", 14, (2.50, 0.45, 0.375), (1.40, 0.70, 0.75), (0.55, 0.35, 0.15)),
    Furniture("whiteboard", 30, (2.50, 0.03, 1.65), (1.20, 0.05, 0.80), (0.97, 0.97, 0.97)),
    Furniture("box", 29, (2.45, 0.66, 0.86), (0.35, 0.25, 0.22), (0.80, 0.60, 0.40)),
    Furniture("chair", 5, (2.20, 1.15, 0.45), (0.50, 0.50, 0.90), (0.15, 0.60, 0.25)),
    Furniture("chair", 5, (2.95, 1.25, 0.45), (0.50, 0.50, 0.90), (0.15, 0.60, 0.25)),
    Furniture("table", 7, (3.00, 2.55, 0.225), (1.10, 0.60, 0.45), (0.45, 0.28, 0.12)),
    Furniture("bag", 37, (3.90, 3.05, 0.20), (0.40, 0.25, 0.40), (0.70, 0.15, 0.40)),
    Furniture("lamp", 35, (5.75, 2.50, 0.80), (0.30, 0.30, 1.60), (0.95, 0.95, 0.70)),
    Furniture("bookshelf", 10, (0.20, 2.20, 0.90), (0.40, 1.00, 1.80), (0.45, 0.25, 0.10)),
    Furniture("trash can", 40, (5.70, 0.40, 0.20), (0.30, 0.30, 0.40), (0.30, 0.30, 0.30)),
)
ROOM_SIZE = (6.0, 5.0, 2.8)
#: What the rooms hold beyond their config (part of each scan's marker): 2 adds the pieces at other depths and
#: heights (pillow, nightstand, books, window, cabinet, whiteboard, table, bag); 3 the box on the desk; 4 the
#: procedural surfaces (`SURFACE_OF`: floorboards, plaster, wood, fabric, a daylit window) and the denoiser.
ROOM_VERSION = 4
#: The two synthetic scans: one for the benchmark (val) split, its mirror image for training.
SYNTHETIC_SCENES: dict[str, tuple[str, bool]] = {"val": ("scene0900_00", False), "train": ("scene0901_00", True)}
#: How far (m) a free-standing piece of a varied room moves along each axis, either way.
VARIANT_SHIFT_M = 0.3
#: Furniture taller than this (m) stays where it is in a varied room, out of the camera walk's way.
VARIANT_MAX_TOP_M = 1.2


@dataclass(frozen=True)
class SyntheticScene:
    """One synthetic scan: its id, split and index in the split. Index 0 is the split's room of
    SYNTHETIC_SCENES; a later index is a variant of it (`scene_room`), walked from another start."""

    scene_id: str
    split: str
    index: int


def synthetic_scenes(scans: Mapping[str, int] | None = None) -> list[SyntheticScene]:
    """The synthetic scans of each split of SYNTHETIC_SCENES (val first), `scans[split]` of them (None: one
    each): scene0900_00, scene0902_00, … (val) and scene0901_00, scene0903_00, … (train)."""
    counts = dict.fromkeys(SYNTHETIC_SCENES, 1) if scans is None else scans
    unknown = sorted(set(counts) - set(SYNTHETIC_SCENES))
    if unknown:
        raise ValueError(f"synthetic scans of unknown splits {unknown}: only {sorted(SYNTHETIC_SCENES)}")
    scenes = []
    for split, (first, _) in SYNTHETIC_SCENES.items():
        n = counts.get(split, 0)
        if not 0 <= n <= MAX_SYNTHETIC_SCANS:
            raise ValueError(f"{n} synthetic scans of {split}: at most {MAX_SYNTHETIC_SCANS}")
        base = int(first[len("scene") : len("scene") + 4])
        scenes += [SyntheticScene(f"scene{base + 2 * k:04d}_00", split, k) for k in range(n)]
    return scenes


def _overlaps(lo: np.ndarray, hi: np.ndarray, others: Sequence[Furniture], gap: float = 0.05) -> bool:
    return any(bool(np.all(lo < o.hi + gap) and np.all(o.lo - gap < hi)) for o in others)


def scene_room(scene: SyntheticScene) -> Room:
    """The room of a synthetic scan. Index 0: its split's room of SYNTHETIC_SCENES, as drawn. A later index: that
    room mirrored in x and/or y (the four ways in turn), each free-standing piece no taller than
    VARIANT_MAX_TOP_M moved up to VARIANT_SHIFT_M along the axes on which it touches no wall (a draw that would
    leave the room or meet another piece is drawn again, then given up), drawn from the scan's id alone (a scan
    is data, the same in every build)."""
    mirrored = SYNTHETIC_SCENES[scene.split][1]
    room = synthetic_room(scene.scene_id, mirrored)
    if scene.index == 0:
        return room
    size = np.asarray(room.size)
    k = scene.index + int(mirrored)
    flips = (k % 2 == 1, (k // 2) % 2 == 1)
    placed = []
    for f in room.furniture:
        c = np.asarray(f.center, float)
        for axis, flip in enumerate(flips):
            if flip:
                c[axis] = size[axis] - c[axis]
        placed.append(replace(f, center=(float(c[0]), float(c[1]), float(c[2]))))
    rng = item_rng(0, "viewspatial.synthetic_scan.room", scene.scene_id)
    for i, f in enumerate(placed):
        if f.hi[2] > VARIANT_MAX_TOP_M:
            continue
        free = [a for a in (0, 1) if f.lo[a] > 0.1 and f.hi[a] < size[a] - 0.1]
        others = placed[:i] + placed[i + 1 :]
        for _ in range(8):
            c = np.asarray(f.center, float)
            for a in free:
                c[a] += rng.uniform(-VARIANT_SHIFT_M, VARIANT_SHIFT_M)
            half = np.asarray(f.size) / 2.0
            lo, hi = c - half, c + half
            if np.all(lo[:2] >= 0.1) and np.all(hi[:2] <= size[:2] - 0.1) and not _overlaps(lo, hi, others):
                placed[i] = replace(f, center=(float(c[0]), float(c[1]), float(c[2])))
                break
    return Room(scene.scene_id, room.size, tuple(placed))


def walk_phase(scene: SyntheticScene) -> float:
    """Where a synthetic scan's camera walk starts on its loop (radians): 0 for index 0, else drawn from its id."""
    if scene.index == 0:
        return 0.0
    return float(item_rng(0, "viewspatial.synthetic_scan.walk", scene.scene_id).uniform(0.0, 2.0 * math.pi))


def synthetic_room(scene_id: str, mirrored: bool = False) -> Room:
    """The base room, or its mirror image in x (a different layout with the same objects)."""
    if not mirrored:
        return Room(scene_id, ROOM_SIZE, BASE_FURNITURE)
    width = ROOM_SIZE[0]
    furniture = tuple(
        Furniture(f.label, f.nyu40_id, (width - f.center[0], f.center[1], f.center[2]), f.size, f.color)
        for f in BASE_FURNITURE
    )
    return Room(scene_id, ROOM_SIZE, furniture)
