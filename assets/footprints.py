"""Footprints on the floor as oriented rectangles: whether two overlap, whether one meets a circle or stays inside
a room. Pure geometry (x, y in metres, yaw in degrees counter-clockwise about +Z), no Blender."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Footprint:
    """A rectangle centred at (x, y), `half_x` × `half_y` along its own axes, turned by `yaw_deg`."""

    x: float
    y: float
    half_x: float
    half_y: float
    yaw_deg: float

    @property
    def axes(self) -> np.ndarray:
        """Its own x and y axes in the world, as rows."""
        t = math.radians(self.yaw_deg)
        return np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])

    @property
    def corners(self) -> np.ndarray:
        """The four corners (4 × 2), counter-clockwise."""
        signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * (self.half_x, self.half_y)
        return np.array([self.x, self.y]) + signs @ self.axes

    def reach(self, direction: tuple[float, float]) -> float:
        """How far the rectangle reaches from its centre along the unit `direction`."""
        along = self.axes @ np.asarray(direction, float)
        return float(abs(along[0]) * self.half_x + abs(along[1]) * self.half_y)


def overlaps(a: Footprint, b: Footprint, gap: float = 0.0) -> bool:
    """Whether the rectangles come closer than `gap` on every separating axis of theirs (the separating-axis test,
    each rectangle grown by `gap` / 2)."""
    for axis in (*a.axes, *b.axes):
        centre = float(np.dot(np.array([b.x - a.x, b.y - a.y]), axis))
        if abs(centre) >= a.reach(axis) + b.reach(axis) + gap:
            return False
    return True


def meets_circle(a: Footprint, x: float, y: float, radius: float) -> bool:
    """Whether the rectangle comes within `radius` of the point (x, y)."""
    local = a.axes @ np.array([x - a.x, y - a.y])
    nearest = np.clip(local, [-a.half_x, -a.half_y], [a.half_x, a.half_y])
    return bool(np.hypot(*(local - nearest)) < radius)


def inside(a: Footprint, room_half: tuple[float, float], gap: float = 0.0) -> bool:
    """Whether the rectangle stays `gap` inside the floor ±room_half[0] × ±room_half[1]."""
    return bool(np.all(np.abs(a.corners) <= np.asarray(room_half) - gap))
