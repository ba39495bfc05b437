"""Oriented footprints (assets/footprints.py) against a dense sampling of the floor: overlap, a circle met,
inside a room, and reach."""

from __future__ import annotations

import numpy as np
import pytest

from benchfoundry.assets.footprints import Footprint, inside, meets_circle, overlaps

GRID = np.stack(np.meshgrid(np.linspace(-4, 4, 801), np.linspace(-4, 4, 801)), axis=-1).reshape(-1, 2)


def covered(a: Footprint, points: np.ndarray = GRID) -> np.ndarray:
    """Which points lie in the rectangle, tested in its own frame."""
    local = (points - (a.x, a.y)) @ a.axes.T
    return (np.abs(local[:, 0]) <= a.half_x) & (np.abs(local[:, 1]) <= a.half_y)


def random_footprints(count: int, seed: int) -> list[Footprint]:
    rng = np.random.default_rng(seed)
    return [
        Footprint(*rng.uniform(-2, 2, 2), *rng.uniform(0.1, 1.0, 2), float(rng.uniform(-180, 180)))
        for _ in range(count)
    ]


def test_corners_and_reach_agree_with_the_sampled_rectangle() -> None:
    for a in random_footprints(10, 0):
        inner = GRID[covered(a)]
        assert np.isclose(
            np.abs(np.cross(a.corners[1] - a.corners[0], a.corners[3] - a.corners[0])), 4 * a.half_x * a.half_y
        )
        for direction in np.eye(2):
            reach = np.max((inner - (a.x, a.y)) @ direction)
            assert a.reach(direction) == pytest.approx(reach, abs=0.015)


def test_two_rectangles_overlap_exactly_when_they_share_floor() -> None:
    shapes = random_footprints(30, 1)
    masks = [covered(a) for a in shapes]
    disagreements = 0
    for i, a in enumerate(shapes):
        for j in range(i + 1, len(shapes)):
            disagreements += overlaps(a, shapes[j]) != bool(np.any(masks[i] & masks[j]))
    assert disagreements <= 2  # a sliver thinner than the sampling's 1 cm


def test_a_gap_keeps_rectangles_that_far_apart() -> None:
    a = Footprint(0.0, 0.0, 0.5, 0.3, 30.0)
    b = Footprint(a.reach((1.0, 0.0)) + 0.05 + 0.2, 0.0, 0.2, 0.2, 0.0)  # 5 cm right of a's rightmost corner
    assert not overlaps(a, b) and not overlaps(a, b, gap=0.04) and overlaps(a, b, gap=0.06)


def test_a_circle_is_met_when_it_reaches_the_rectangle() -> None:
    rng = np.random.default_rng(2)
    for a in random_footprints(10, 3):
        inner = GRID[covered(a)]
        for x, y in rng.uniform(-3, 3, (10, 2)):
            nearest = np.min(np.hypot(inner[:, 0] - x, inner[:, 1] - y))
            if abs(nearest - 0.5) > 0.02:
                assert meets_circle(a, x, y, 0.5) == (nearest < 0.5)


def test_inside_a_room_means_every_corner_inside() -> None:
    a = Footprint(2.5, 0.0, 0.4, 0.2, 90.0)  # reaches 0.2 along x: to 2.7
    assert inside(a, (3.0, 3.0), gap=0.25) and not inside(a, (3.0, 3.0), gap=0.35)
    assert not inside(Footprint(2.5, 0.0, 0.4, 0.2, 0.0), (3.0, 3.0), gap=0.25)  # reaches to 2.9
