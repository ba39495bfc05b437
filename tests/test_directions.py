"""Direction labels against hand-placed vectors, and the distractor rule on every label."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchfoundry.core.directions import (
    CAMERA_LABELS,
    HORIZONTAL_LABELS,
    boundary_margin,
    camera_direction,
    distractor_pool,
    facing_direction,
    horizontal_angle,
    horizontal_direction,
    horizontal_label,
    multiple_choice,
)

# World z up, facing +y: right is +x (a right-handed frame seen from above).
F, U = (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
COMPASS = {  # vector in that frame → the word a person facing +y would use
    (0, 1, 0): "front",
    (1, 1, 0): "front-right",
    (1, 0, 0): "right",
    (1, -1, 0): "back-right",
    (0, -1, 0): "back",
    (-1, -1, 0): "back-left",
    (-1, 0, 0): "left",
    (-1, 1, 0): "front-left",
}


@pytest.mark.parametrize("v,label", list(COMPASS.items()))
def test_horizontal_label_of_compass_points(v: tuple[int, int, int], label: str) -> None:
    assert horizontal_direction(v, F, U).label == label
    # Height does not change a horizontal label.
    assert horizontal_direction((v[0], v[1], 3.0), F, U).label == label


def test_label_is_invariant_under_rotation_of_the_frame() -> None:
    rng = np.random.default_rng(1)
    for _ in range(200):
        yaw = rng.uniform(0, 2 * math.pi)
        rot = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
        v = rng.normal(size=3)
        assert horizontal_direction(rot @ v, rot @ np.array(F), U).label == horizontal_direction(v, F, U).label


def test_bin_edges_follow_the_spec() -> None:
    # [22.5, 67.5) front-right, …, [337.5, 22.5) front: the lower edge belongs to the bin.
    edges = [22.5 + 45 * k for k in range(8)]
    expected_at_edge = ["front-right", "right", "back-right", "back", "back-left", "left", "front-left", "front"]
    for edge, label in zip(edges, expected_at_edge):
        assert horizontal_label(edge) == label
        assert horizontal_label(edge - 1e-9) != label
        assert boundary_margin(edge) == pytest.approx(0.0)
        assert boundary_margin(edge + 22.5) == pytest.approx(22.5)


def test_angle_is_measured_clockwise_towards_the_right() -> None:
    assert horizontal_angle((1, 0, 0), F, U) == pytest.approx(90.0)
    assert horizontal_angle((-1, 0, 0), F, U) == pytest.approx(270.0)


CAM = [  # OpenCV camera axes: x right, y down, z forward
    ((0, 0, 1), "front"),
    ((0, 0, -1), "back"),
    ((1, 0, 0), "right"),
    ((-1, 0, 0), "left"),
    ((1, 0, 1), "front-right"),
    ((-1, 0, -1), "back-left"),
    ((0, -1, 0), "above"),
    ((0, 1, 0), "down"),
    ((0.1, -3, 0.1), "above"),
    ((1, -1, 0), "above-right"),
    ((-1, -1, 0), "above-left"),
    ((1, 1, 0), "down-right"),
    ((-1, 1, 0.2), "down-left"),
    ((0, -1, 1), "front-up"),
    ((0, 1, 1), "front-down"),
    ((0.2, -1, -1), "back-up"),
    ((0, 1, -1), "back-down"),
    ((1, -0.2, 1), "front-right"),  # elevation ~8°: still horizontal
]


@pytest.mark.parametrize("v,label", CAM)
def test_camera_direction_of_hand_placed_vectors(v: tuple[float, float, float], label: str) -> None:
    assert camera_direction(v, 30.0, 67.5).label == label


def test_camera_direction_yields_exactly_the_18_labels() -> None:
    rng = np.random.default_rng(0)
    seen = {camera_direction(v, 30.0, 67.5).label for v in rng.normal(size=(5000, 3))}
    assert seen == set(CAMERA_LABELS)
    assert len(CAMERA_LABELS) == 18


def test_margin_is_distance_to_the_nearest_threshold() -> None:
    elev = math.radians(31.0)  # 1° above vertical_min, straight ahead
    d = camera_direction((0, -math.sin(elev), math.cos(elev)), 30.0, 67.5)
    assert d.label == "front-up"
    assert d.margin_deg == pytest.approx(1.0)


@pytest.mark.parametrize("answer", CAMERA_LABELS)
def test_distractor_rule_for_every_label(answer: str) -> None:
    labels = CAMERA_LABELS if answer not in HORIZONTAL_LABELS else HORIZONTAL_LABELS
    for o in distractor_pool(answer, labels):
        assert o not in answer and answer not in o
    assert "front-left" not in distractor_pool("front", HORIZONTAL_LABELS)
    for seed in range(20):
        mc = multiple_choice(answer, labels, np.random.default_rng(seed))
        assert len(mc.options) == 4 and len(set(mc.options)) == 4
        assert mc.options[mc.answer_index] == answer
        assert mc.answer == f"{'ABCD'[mc.answer_index]}. {answer}"
        lines = mc.choices.split("\n")
        assert [line[:3] for line in lines] == ["A. ", "B. ", "C. ", "D. "]
        for option in mc.options:
            if option != answer:
                assert option not in answer and answer not in option


def test_options_are_shuffled_by_the_generator() -> None:
    positions = {multiple_choice("left", HORIZONTAL_LABELS, np.random.default_rng(s)).answer_index for s in range(40)}
    assert positions == {0, 1, 2, 3}
    a = multiple_choice("left", HORIZONTAL_LABELS, np.random.default_rng(7))
    b = multiple_choice("left", HORIZONTAL_LABELS, np.random.default_rng(7))
    assert a == b


def authors_get_azimuth_direction(azimuth: float) -> str:
    """The authors' function (ZJU-REAL/ViewSpatial-Bench, data_process/coco_process/head2body_orientation_data.py)
    as its if-chain reads, the reference for `facing_direction`."""
    azimuth = azimuth % 360
    if 337.5 <= azimuth or azimuth < 22.5:
        return "back"
    if 22.5 <= azimuth < 67.5:
        return "back-left"
    if 67.5 <= azimuth < 112.5:
        return "left"
    if 112.5 <= azimuth < 157.5:
        return "front-left"
    if 157.5 <= azimuth < 202.5:
        return "front"
    if 202.5 <= azimuth < 247.5:
        return "front-right"
    if 247.5 <= azimuth < 292.5:
        return "right"
    return "back-right"


def test_facing_direction_is_the_authors_function_at_and_between_its_edges() -> None:
    edges = [22.5 + 45 * k for k in range(8)]
    angles = [e + d for e in edges for d in (-1e-9, 0.0, 1e-9)] + list(np.linspace(-720, 720, 5761))
    for azimuth in angles:
        assert facing_direction(azimuth) == authors_get_azimuth_direction(azimuth), azimuth
    # Orient-Anything's sense: 0 faces the camera (back, the camera looking front), 90 the image's left.
    assert [facing_direction(a) for a in (0, 90, 180, 270)] == ["back", "left", "front", "right"]
