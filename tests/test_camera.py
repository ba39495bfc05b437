"""The one camera convention (benchfoundry/core/camera.py), checked on known geometry."""

from __future__ import annotations

import numpy as np
import pytest

from benchfoundry.core.camera import (
    blender_camera_to_world,
    intrinsic_matrix,
    look_at_axes,
    mask_box,
    opencv_camera_to_world,
    opencv_to_blender,
    project,
    world_to_camera,
)


def test_a_camera_looking_north_has_east_on_its_right_and_the_ground_below() -> None:
    right, forward = look_at_axes([0.0, 0.0, 1.5], [0.0, 10.0, 1.5])
    assert forward == pytest.approx([0, 1, 0]) and right == pytest.approx([1, 0, 0])
    assert opencv_camera_to_world([0.0, 0.0, 1.5], [0.0, 10.0, 1.5])[:3, 1] == pytest.approx([0, 0, -1])


@pytest.mark.parametrize("eye", [[3.0, -4.0, 2.0], [-1.0, 7.0, 0.3], [0.5, 0.5, 9.0]])
def test_look_at_is_a_level_right_handed_frame_aimed_at_the_target(eye: list[float]) -> None:
    target = np.array([0.2, -0.1, 1.0])
    m = opencv_camera_to_world(eye, target)
    assert m[:3, :3].T @ m[:3, :3] == pytest.approx(np.eye(3))
    assert np.linalg.det(m[:3, :3]) == pytest.approx(1.0)
    assert m[2, 0] == pytest.approx(0.0)  # the x axis is horizontal: no roll
    assert m[2, 1] < 0  # y points down
    cam = world_to_camera(target[None], m)[0]
    assert cam[:2] == pytest.approx([0, 0], abs=1e-12) and cam[2] == pytest.approx(np.linalg.norm(target - eye))


def test_blender_axes_are_the_opencv_ones_with_y_and_z_turned_round() -> None:
    eye, target = [4.0, -3.0, 2.0], [0.0, 0.0, 1.0]
    cv, blender = opencv_camera_to_world(eye, target), blender_camera_to_world(eye, target)
    forward = (np.array(target) - eye) / np.linalg.norm(np.array(target) - eye)
    assert -blender[:3, 2] == pytest.approx(forward)  # Blender looks along its −Z
    assert blender[2, 1] > 0  # with +Y up
    assert opencv_to_blender(blender) == pytest.approx(cv)
    assert blender[:3, 3] == pytest.approx(eye)


def test_a_vertical_view_has_no_roll() -> None:
    with pytest.raises(ValueError, match="vertical"):
        look_at_axes([0.0, 0.0, 5.0], [0.0, 0.0, 0.0])


def test_projection_is_the_pinhole_on_similar_triangles() -> None:
    k = intrinsic_matrix(500.0, 320.0, 240.0)
    points = np.array([[0.0, 0.0, 2.0], [1.0, 0.0, 4.0], [0.0, -0.5, 1.0]])
    assert project(points, k) == pytest.approx(np.array([[320, 240], [320 + 500 / 4, 240], [320, 240 - 250]]))
    assert project(np.array([[1.0, 2.0, 3.0]]), np.array([[600.0, 0, 10], [0, 300.0, 20], [0, 0, 1]]))[
        0
    ] == pytest.approx([10 + 600 / 3, 20 + 300 * 2 / 3])


def test_mask_box_is_exclusive_at_the_far_edges() -> None:
    mask = np.zeros((6, 8), bool)
    mask[2:4, 3:7] = True
    assert mask_box(mask) == (3.0, 2.0, 7.0, 4.0)
    assert mask_box(np.zeros((3, 3), bool)) is None
