"""The answer of every ODI-Bench question kind, from a question's spec and a `PanoramaFacts` (docs/design/odi.md §2.3).

A candidate question is made from the scene a panorama gives (panorama_facts.py) and keeps its spec: the kind
and the instances and parameters it asks about. `answer(spec, scene, margins)` is the one place each kind's answer
is computed: with the build's margins on the estimated scene (None: too close to call, no question), and with
zero margins on the synthetic truth's scene, where the agreement figures compare the two.

Bearings are clockwise from ahead (θ = 0°, +90° on my right). Direction labels: the four sides
(`SIDES`: front, right, back, left, each a 90° sector centred on 0°, 90°, 180°, 270°) and the four corners
(`CORNERS`: front-right … front-left, the quadrants between those centres). An object seen more than
`POLE_LIMIT_DEG` above or below the horizon has no clear direction around me and takes part in no direction
question.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from benchfoundry.benchmarks.odi.stages.questions.panorama_facts import Fact, PanoramaFacts

SIDES = ("front", "right", "back", "left")
CORNERS = ("front-right", "back-right", "back-left", "front-left")
YES_NO = ("yes", "no")
POLE_LIMIT_DEG = 60.0
#: Two positions closer than this (m) make no direction between them.
MIN_SEPARATION_M = 0.3

Spec = Mapping[str, Any]


@dataclass(frozen=True)
class Margins:
    """How clear an answer must be: degrees from a label boundary, relative distance, relative solid angle, and
    the distance (m) of a path's midpoint from me."""

    deg: float = 0.0
    near: float = 0.0
    size: float = 0.0
    clearance_m: float = 0.0


def signed(angle: float) -> float:
    """An angle in (−180, 180]."""
    wrapped = (angle + 180.0) % 360.0 - 180.0
    return 180.0 if wrapped == -180.0 else wrapped


def bearing(x: float, y: float) -> float:
    """Clockwise bearing (deg, [0, 360)) of a floor vector."""
    return math.degrees(math.atan2(x, y)) % 360.0


def side(angle: float, margin: float) -> str | None:
    """The side holding a bearing, None within `margin` of a boundary (45° + 90°k)."""
    index = round((angle % 360.0) / 90.0) % 4
    return SIDES[index] if abs(signed(angle - 90.0 * index)) <= 45.0 - margin else None


def corner(angle: float, margin: float) -> str | None:
    """The corner quadrant holding a bearing, None within `margin` of a boundary (90°k)."""
    index = int((angle % 360.0) // 90.0)
    offset = (angle % 360.0) - 90.0 * index
    return CORNERS[index] if margin <= offset <= 90.0 - margin else None


def in_sector(angle: float, centre: float, margin: float) -> bool | None:
    """Whether a bearing lies in the 90° sector centred on `centre`; None within `margin` of its edges."""
    offset = abs(signed(angle - centre))
    if offset <= 45.0 - margin:
        return True
    if offset >= 45.0 + margin:
        return False
    return None


def _facts(scene: PanoramaFacts, ids: Any) -> list[Fact] | None:
    found = [scene.fact(int(k)) for k in ids]
    return None if any(f is None for f in found) else found  # type: ignore[return-value]


def _placed(scene: PanoramaFacts, ids: Any) -> list[tuple[float, float]] | None:
    facts = _facts(scene, ids)
    if facts is None or any(f.position_m is None or abs(f.phi_deg) > POLE_LIMIT_DEG for f in facts):
        return None
    return [f.position_m for f in facts]  # type: ignore[misc]


def _relative_bearing(at: tuple[float, float], ahead: tuple[float, float], target: tuple[float, float]) -> float | None:
    """Bearing of `target` seen from `at` facing `ahead`, None when either is too close to `at`."""
    fx, fy = ahead[0] - at[0], ahead[1] - at[1]
    tx, ty = target[0] - at[0], target[1] - at[1]
    if min(math.hypot(fx, fy), math.hypot(tx, ty)) < MIN_SEPARATION_M:
        return None
    return bearing(tx, ty) - bearing(fx, fy)


def _attribute(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    fact = scene.fact(int(spec["id"]))
    return None if fact is None else getattr(fact, spec["attr"])


def _exists(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    if spec["category"] not in scene.searched:
        return None
    return "yes" if scene.census.get(spec["category"], 0) > 0 else "no"


def _count(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    n = scene.census.get(spec["category"], 0)
    return str(n) if n > 0 else None


def _egocentric(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    fact = scene.fact(int(spec["id"]))
    if fact is None or abs(fact.phi_deg) > POLE_LIMIT_DEG:
        return None
    return side(fact.theta_deg, m.deg)


def _viewpoint(
    spec: Spec, scene: PanoramaFacts, m: Margins, labels: Callable[[float, float], str | None]
) -> str | None:
    """Seen from `at` facing `facing` (an instance, or None: me), the label of `target`."""
    ids = [spec["at"], spec["target"]] + ([] if spec["facing"] is None else [spec["facing"]])
    placed = _placed(scene, ids)
    if placed is None:
        return None
    ahead = (0.0, 0.0) if spec["facing"] is None else placed[2]
    angle = _relative_bearing(placed[0], ahead, placed[1])
    return None if angle is None else labels(angle, m.deg)


def _allocentric(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    return _viewpoint(spec, scene, m, side)


def _virtual(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    return _viewpoint(spec, scene, m, corner)


def _relative(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """Where `target` lies from `ref` as I look at `ref` (front: beyond it, back: between it and me)."""
    placed = _placed(scene, [spec["ref"], spec["target"]])
    if placed is None:
        return None
    (rx, ry), (tx, ty) = placed
    if math.hypot(tx - rx, ty - ry) < MIN_SEPARATION_M:
        return None
    return side(bearing(tx - rx, ty - ry) - bearing(rx, ry), m.deg)


def _nearest(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """The option clearly nearest to me (farthest with `spec["far"]`)."""
    placed = _placed(scene, spec["ids"])
    if placed is None:
        return None
    dist = [math.hypot(*p) for p in placed]
    order = sorted(range(len(dist)), key=lambda i: -dist[i] if spec["far"] else dist[i])
    best, second = dist[order[0]], dist[order[1]]
    clear = second >= (1 + m.near) * best if not spec["far"] else best >= (1 + m.near) * second
    return str(spec["options"][order[0]]) if clear and best != second else None


def _turn(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """After a turn (to `heading`, or to face an instance and turn around), the one option in a sector."""
    facts = _facts(scene, spec["ids"])
    if facts is None or any(abs(f.phi_deg) > POLE_LIMIT_DEG for f in facts):
        return None
    if spec.get("face") is not None:
        faced = scene.fact(int(spec["face"]))
        if faced is None or abs(faced.phi_deg) > POLE_LIMIT_DEG:
            return None
        heading = faced.theta_deg + 180.0
    else:
        heading = float(spec["heading"])
    inside = [in_sector(f.theta_deg, heading + float(spec["sector"]), m.deg) for f in facts]
    if None in inside or inside.count(True) != 1:
        return None
    return str(spec["options"][inside.index(True)])


def _sector_count(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """How many of a class lie in a sector around me (every one seen has a direction)."""
    seen = scene.sightings(spec["category"])
    if len(seen) != scene.census.get(spec["category"], 0) or any(abs(s.phi_deg) > POLE_LIMIT_DEG for s in seen):
        return None
    inside = [in_sector(s.theta_deg, float(spec["sector"]), m.deg) for s in seen]
    return None if None in inside else str(inside.count(True))


def _seam(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """Whether two instances lie within a quarter turn of each other around me."""
    facts = _facts(scene, spec["ids"])
    if facts is None or any(abs(f.phi_deg) > POLE_LIMIT_DEG for f in facts):
        return None
    apart = abs(signed(facts[0].theta_deg - facts[1].theta_deg))
    if apart <= 90.0 - m.deg:
        return "yes"
    return "no" if apart >= 90.0 + m.deg else None


def _path(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """The side of me where the straight floor path between two instances has its midpoint."""
    placed = _placed(scene, spec["ids"])
    if placed is None:
        return None
    mx, my = (placed[0][0] + placed[1][0]) / 2, (placed[0][1] + placed[1][1]) / 2
    if math.hypot(mx, my) <= m.clearance_m:
        return None
    return side(bearing(mx, my), m.deg)


def _size(spec: Spec, scene: PanoramaFacts, m: Margins) -> str | None:
    """Whether the first instance covers more of the sphere around me than the second."""
    facts = _facts(scene, spec["ids"])
    if facts is None or facts[0].solid_angle_sr is None or facts[1].solid_angle_sr is None:
        return None
    a, b = facts[0].solid_angle_sr, facts[1].solid_angle_sr
    if a >= (1 + m.size) * b and a != b:
        return "yes"
    return "no" if b >= (1 + m.size) * a and a != b else None


ANSWERS: dict[str, Callable[[Spec, PanoramaFacts, Margins], str | None]] = {
    "attribute": _attribute,
    "exists": _exists,
    "count": _count,
    "egocentric": _egocentric,
    "allocentric": _allocentric,
    "virtual": _virtual,
    "relative": _relative,
    "nearest": _nearest,
    "turn": _turn,
    "sector_count": _sector_count,
    "seam": _seam,
    "path": _path,
    "size": _size,
}


def answer(spec: Spec, scene: PanoramaFacts, margins: Margins) -> str | None:
    """The answer of a question on a scene, or None when the scene does not settle it clearly."""
    try:
        kind = ANSWERS[spec["kind"]]
    except KeyError:
        raise ValueError(f"unknown question kind {spec.get('kind')!r}; known: {sorted(ANSWERS)}") from None
    return kind(spec, scene, margins)
