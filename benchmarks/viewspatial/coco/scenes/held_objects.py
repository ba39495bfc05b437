"""Objects a synthetic COCO person holds in one hand (the release's "Which hand is this woman using to hold the
phone?"), built of primitives at the hand joint of the posed mesh.

The grip is the palm's centre: `PALM_M` past the wrist keypoint along the forearm (elbow → wrist). A part's
offset is in the holder's own frame about the grip: outward (away from the body on the holding side), forward
(where the person faces) and up; its yaw turns with the person. An object is held "in hand" (phone, cup, bottle,
book: centred on the grip, any pose) or "hanging" (bag, suitcase, racket, a closed umbrella: below the
grip, only from a forearm pointing down); none reaches below the floor. `HOLDABLE` names the COCO categories a
real photograph's hand may hold (person_relative's candidates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchfoundry.benchmarks.viewspatial.coco.scenes.synthetic_geometry import (
    box_triangles,
    cylinder_triangles,
    ellipsoid_triangles,
)

#: COCO keypoints of the (left, right) wrist and elbow: the person's own sides.
WRIST = {"left": 9, "right": 10}
ELBOW = {"left": 7, "right": 8}
SIDES = ("left", "right")
#: How far past the wrist (m, along the forearm) the palm's centre lies.
PALM_M = 0.07
#: A hanging object needs the forearm to point down at least this much (cosine to −Z).
HANGING_MIN_DOWN = 0.6
#: Lowest point (m above the floor) a held object may reach.
FLOOR_CLEARANCE_M = 0.02


@dataclass(frozen=True)
class Part:
    shape: str  # box, cylinder, sphere (an ellipsoid of `size`)
    offset: tuple[float, float, float]  # outward, forward, up of its centre from the grip (m)
    size: tuple[float, float, float]  # full extents (m): across the body, front to back, up
    yaw_deg: float = 0.0  # about +Z, relative to the person


@dataclass(frozen=True)
class Kind:
    """A held object's COCO category, how it is held, its parts and colours (linear RGB)."""

    category_id: int
    hanging: bool
    parts: tuple[Part, ...]
    colours: tuple[tuple[float, float, float], ...]


DARK = ((0.02, 0.02, 0.025), (0.15, 0.15, 0.17))
BRIGHT = ((0.6, 0.05, 0.04), (0.05, 0.12, 0.55), (0.75, 0.6, 0.05), (0.8, 0.8, 0.8), (0.08, 0.35, 0.07))
#: COCO name → how it is built (sizes of the real thing: a phone 7.5 × 15 × 0.9 cm, a cabin suitcase 40 × 20 × 55).
KINDS: dict[str, Kind] = {
    "cell phone": Kind(77, False, (Part("box", (0.0, 0.0, 0.0), (0.075, 0.009, 0.15)),), DARK),
    "cup": Kind(47, False, (Part("cylinder", (0.0, 0.0, 0.0), (0.085, 0.085, 0.10)),), BRIGHT),
    "bottle": Kind(44, False, (Part("cylinder", (0.0, 0.0, 0.0), (0.07, 0.07, 0.25)),), BRIGHT),
    "book": Kind(84, False, (Part("box", (0.0, 0.0, 0.0), (0.16, 0.03, 0.23)),), BRIGHT),
    "handbag": Kind(
        31,
        True,
        (Part("box", (0.0, 0.0, -0.06), (0.02, 0.01, 0.12)), Part("box", (0.04, 0.0, -0.23), (0.12, 0.30, 0.22))),
        BRIGHT + DARK,
    ),
    "suitcase": Kind(
        33,
        True,
        (Part("box", (0.0, 0.0, -0.03), (0.03, 0.10, 0.06)), Part("box", (0.10, 0.0, -0.33), (0.20, 0.40, 0.55))),
        BRIGHT + DARK,
    ),
    "tennis racket": Kind(
        43,
        True,
        (Part("cylinder", (0.0, 0.0, -0.06), (0.035, 0.035, 0.22)),
         Part("sphere", (0.04, 0.0, -0.33), (0.025, 0.26, 0.32))),
        BRIGHT,
    ),
    "umbrella": Kind(
        28,
        True,
        (Part("sphere", (0.0, 0.0, 0.0), (0.05, 0.05, 0.05)), Part("cylinder", (0.0, 0.0, -0.35), (0.02, 0.02, 0.70)),
         Part("cylinder", (0.0, 0.0, -0.40), (0.09, 0.09, 0.42))),
        DARK + BRIGHT[:2],
    ),
}  # fmt: skip
#: COCO categories a hand may hold in a photograph (the synthetic ones and their kin).
HOLDABLE = frozenset(KINDS) | {
    "frisbee", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard", "skis",
    "snowboard", "wine glass", "fork", "knife", "spoon", "bowl", "banana", "apple", "orange", "sandwich", "hot dog",
    "pizza", "donut", "cake", "remote", "mouse", "keyboard", "laptop", "scissors", "teddy bear", "hair drier",
    "toothbrush", "backpack", "tie", "clock", "vase",
}  # fmt: skip


@dataclass(frozen=True)
class HeldObject:
    """A held object placed in the world: its parts as primitives (centre, size, yaw), the grip and the hand."""

    name: str
    category_id: int
    hand: str  # the holder's own left or right
    grip: tuple[float, float, float]
    parts: tuple[tuple[str, tuple[float, float, float], tuple[float, float, float], float], ...]
    rgb: tuple[float, float, float]

    @property
    def center(self) -> tuple[float, float, float]:
        """The centre of its largest part (the bag, not its strap)."""
        return max(self.parts, key=lambda p: float(np.prod(p[2])))[1]

    def triangles(self) -> np.ndarray:
        tris = []
        for shape, centre, size, yaw in self.parts:
            if shape == "box":
                tris.append(box_triangles(np.array(centre), np.array(size), yaw))
            elif shape == "sphere":
                tris.append(ellipsoid_triangles(np.array(centre), np.array(size), yaw))
            else:
                tris.append(cylinder_triangles(np.array(centre), np.array(size)))
        return np.concatenate(tris)


def grip_point(keypoints: np.ndarray, hand: str) -> np.ndarray:
    """The palm's centre of a person's `hand` from their (17, 3) world keypoints."""
    wrist, elbow = np.asarray(keypoints[WRIST[hand]], float), np.asarray(keypoints[ELBOW[hand]], float)
    forearm = wrist - elbow
    return wrist + PALM_M * forearm / max(float(np.linalg.norm(forearm)), 1e-9)


def _axes(turn_deg: float, hand: str) -> tuple[np.ndarray, np.ndarray]:
    """World unit vectors of the person's outward (on `hand`'s side) and forward directions."""
    a = math.radians(turn_deg)
    left = np.array([math.cos(a), math.sin(a), 0.0])  # unturned: the own left is +X
    forward = np.array([math.sin(a), -math.cos(a), 0.0])  # unturned: facing −Y
    return (left if hand == "left" else -left), forward


def fits(name: str, keypoints: np.ndarray, hand: str) -> bool:
    """Whether `hand` of a person with these world keypoints can hold `name` plausibly: a hanging object from a
    forearm pointing down, nothing below the floor."""
    kind = KINDS[name]
    forearm = np.asarray(keypoints[WRIST[hand]], float) - np.asarray(keypoints[ELBOW[hand]], float)
    down = -forearm[2] / max(float(np.linalg.norm(forearm)), 1e-9)
    if kind.hanging and down < HANGING_MIN_DOWN:
        return False
    grip_z = float(grip_point(keypoints, hand)[2])
    return all(grip_z + p.offset[2] - p.size[2] / 2 >= FLOOR_CLEARANCE_M for p in kind.parts)


def hold(name: str, keypoints: np.ndarray, hand: str, turn_deg: float, colour: int) -> HeldObject:
    """`name` held in `hand` of a person with these world keypoints turned by `turn_deg` about +Z; `colour` picks
    one of its colours (modulo their number)."""
    kind = KINDS[name]
    grip = grip_point(keypoints, hand)
    outward, forward = _axes(turn_deg, hand)
    parts = tuple(
        (
            p.shape,
            tuple(float(v) for v in grip + p.offset[0] * outward + p.offset[1] * forward + [0.0, 0.0, p.offset[2]]),
            p.size,
            float(turn_deg + p.yaw_deg),
        )
        for p in kind.parts
    )
    rgb = kind.colours[colour % len(kind.colours)]
    return HeldObject(name, kind.category_id, hand, tuple(float(v) for v in grip), parts, rgb)


def first_fitting(name: str, keypoints: np.ndarray, hand: str) -> str | None:
    """`name` when it fits the hand, else the first kind after it (in `KINDS`' order, round) that does."""
    names = list(KINDS)
    start = names.index(name)
    return next((n for n in names[start:] + names[:start] if fits(n, keypoints, hand)), None)
