"""The parts the embedded panoramas are drawn from: a `Part` (one primitive) and the fixtures set into a wall —
windows (frame, sill and a pane: daylit indoors, glass outdoors), doors and skirting — as unlabelled structure.
Pure geometry, no Blender: a wall is its inner face, and every fixture is placed along it and out from it.

World axes as benchmarks/odi/scenes/synthetic_panoramas.py: +Z up; a box's size is (along its yaw's x, across, up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Vec3 = tuple[float, float, float]
#: How far (m) a fixture stands out of its wall, and a frame's width.
FRAME_PROUD_M = 0.05
PANE_PROUD_M = 0.015
FRAME_M = 0.07


@dataclass(frozen=True)
class Part:
    """A primitive of an object: shape, centre (m), full extents (m), yaw (deg); `look` (colour, material)
    overrides the object's, `surface` the surface its material draws (core/render_spec.SURFACES)."""

    shape: str
    center: Vec3
    size: Vec3
    yaw_deg: float = 0.0
    look: tuple[str, str] | None = None
    surface: str | None = None


@dataclass(frozen=True)
class Wall:
    """A wall's inner face: the point at its middle on the floor, the unit direction along it and the unit
    normal into the room (or the courtyard), both in x/y."""

    origin: tuple[float, float]
    along: tuple[float, float]
    normal: tuple[float, float]

    @property
    def yaw_deg(self) -> float:
        """The yaw that turns a box's x along the wall."""
        return math.degrees(math.atan2(self.along[1], self.along[0]))

    def box(
        self, at: float, z: float, width: float, height: float, proud: float, look: tuple[str, str], surface: str = ""
    ) -> Part:
        """A box `width` × `height` standing `proud` out of the face, centred `at` m along it and `z` m up."""
        return Part("box", self.point(at, proud / 2, z), (width, proud, height), self.yaw_deg, look, surface or None)

    def point(self, at: float, out: float, z: float) -> Vec3:
        """The point `at` m along the face, `out` m out of it, `z` m up."""
        return (
            self.origin[0] + at * self.along[0] + out * self.normal[0],
            self.origin[1] + at * self.along[1] + out * self.normal[1],
            z,
        )


def window(
    wall: Wall, name: str, at: float, sill: float, width: float, height: float, pane: str
) -> tuple[tuple[str, Part], ...]:
    """A window: a pane (`pane`: "window" daylit, "glass" reflecting) in a white frame of four bars, a sill."""
    frame = ("white", "wood")
    top, middle = sill + height, sill + height / 2
    return (
        (f"{name}_pane", wall.box(at, middle, width, height, PANE_PROUD_M, ("white", "glass"), pane)),
        (f"{name}_top", wall.box(at, top - FRAME_M / 2, width, FRAME_M, FRAME_PROUD_M, frame)),
        (f"{name}_bottom", wall.box(at, sill + FRAME_M / 2, width, FRAME_M, FRAME_PROUD_M, frame)),
        (f"{name}_left", wall.box(at - (width - FRAME_M) / 2, middle, FRAME_M, height, FRAME_PROUD_M, frame)),
        (f"{name}_right", wall.box(at + (width - FRAME_M) / 2, middle, FRAME_M, height, FRAME_PROUD_M, frame)),
        (f"{name}_sill", wall.box(at, sill - 0.02, width + 0.1, 0.04, 0.16, frame)),
    )


def pane_window(
    wall: Wall, name: str, at: float, sill: float, width: float, height: float
) -> tuple[tuple[str, Part], ...]:
    """A distant window in two boxes: a frame and the glass standing just out of it."""
    return (
        (f"{name}_frame", wall.box(at, sill + height / 2, width, height, FRAME_PROUD_M, ("white", "wood"))),
        (
            f"{name}_pane",
            wall.box(
                at,
                sill + height / 2,
                width - 2 * FRAME_M,
                height - 2 * FRAME_M,
                FRAME_PROUD_M + 0.01,
                ("grey", "glass"),
                "glass",
            ),
        ),
    )


def door(wall: Wall, name: str, at: float, width: float = 0.9, height: float = 2.05) -> tuple[tuple[str, Part], ...]:
    """A wooden door leaf in a white frame, with a metal handle on the side away from its hinges."""
    handle = wall.point(at + (width / 2 - 0.1), 0.07, 1.0)
    return (
        (f"{name}_frame", wall.box(at, height / 2 + 0.03, width + 0.14, height + 0.06, 0.02, ("white", "wood"))),
        (f"{name}_leaf", wall.box(at, height / 2, width, height, 0.04, ("brown", "wood"), "wood")),
        (f"{name}_handle", Part("sphere", handle, (0.07, 0.07, 0.07), wall.yaw_deg, ("grey", "metal"))),
    )


def skirting(wall: Wall, name: str, length: float) -> tuple[tuple[str, Part], ...]:
    """A white skirting board along the whole wall."""
    return ((name, wall.box(0.0, 0.05, length, 0.1, 0.015, ("white", "wood"))),)
