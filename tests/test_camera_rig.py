"""Camera rig geometry against independent trigonometry (no Blender)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchfoundry.benchmarks.syndor.scenes import camera_rig, dori
from benchfoundry.core.camera import (
    blender_camera_to_world,
    intrinsic_matrix,
    opencv_to_blender,
    project,
    world_to_camera,
)

SPEC = dori.PRESETS["paper"]
TARGET = np.array([0.1, -0.05, 0.9])


@pytest.mark.parametrize("az,el", [(0, 0), (45, 22.5), (90, 0), (180, 45), (270, 67.5), (315, 22.5)])
def test_position_distance_azimuth_elevation(az: float, el: float) -> None:
    pos = camera_rig.camera_position(TARGET, 10.8, az, el)
    d = pos - TARGET
    assert np.linalg.norm(d) == pytest.approx(10.8)
    assert math.degrees(math.asin(d[2] / 10.8)) == pytest.approx(el)
    # azimuth 0 in front of the person (−Y), 90 on +X: counter-clockwise from above
    assert math.degrees(math.atan2(d[0], -d[1])) % 360 == pytest.approx(az % 360, abs=1e-9)


def test_front_and_left() -> None:
    assert camera_rig.camera_position(np.zeros(3), 5, 0, 0) == pytest.approx([0, -5, 0])
    assert camera_rig.camera_position(np.zeros(3), 5, 90, 0) == pytest.approx([5, 0, 0])


def pixels(points: np.ndarray, blender_matrix: np.ndarray) -> np.ndarray:
    """Where the rig's Blender camera images world points: its pinhole, principal point at the image centre."""
    cam = world_to_camera(np.atleast_2d(points), opencv_to_blender(blender_matrix))
    return project(cam, intrinsic_matrix(camera_rig.focal_px(SPEC), 1920 / 2, SPEC.resolution_h / 2))


@pytest.mark.parametrize("az,el", [(0, 0), (135, 45), (225, 67.5)])
def test_rig_cameras_centre_the_target_and_keep_the_horizon_level(az: float, el: float) -> None:
    (cam,) = camera_rig.rig_cameras(SPEC, {"z": 100.0}, [az], [el], TARGET)
    m = np.array(cam.matrix_world)
    assert m[:3, :3] @ m[:3, :3].T == pytest.approx(np.eye(3))
    assert np.linalg.det(m[:3, :3]) == pytest.approx(1.0)
    assert m[2, 0] == pytest.approx(0.0)  # camera x axis horizontal: no roll
    assert -m[:3, 2] == pytest.approx((TARGET - cam.position) / np.linalg.norm(TARGET - cam.position))  # looks along −Z
    assert pixels(TARGET, m)[0] == pytest.approx([960, 540])


@pytest.mark.parametrize("ppm", list(dori.ZONE_MIDPOINTS_PPM.values()))
def test_projection_gives_dori_ppm(ppm: float) -> None:
    """A 1 m vertical segment on the plane through the target, facing the camera, spans ppm px."""
    d = dori.distance_for_ppm(ppm, SPEC)
    m = blender_camera_to_world(camera_rig.camera_position(TARGET, d, 0, 0), TARGET)
    ends = pixels(np.array([TARGET + [0, 0, 0.5], TARGET - [0, 0, 0.5]]), m)
    # independent: f_px from the vertical field of view
    f_px = (SPEC.resolution_h / 2) / math.tan(
        math.radians(dori.vertical_fov_deg(SPEC.focal_mm, SPEC.sensor_height_mm)) / 2
    )
    assert ends[1, 1] - ends[0, 1] == pytest.approx(f_px / d)
    assert ends[1, 1] - ends[0, 1] == pytest.approx(ppm)


def test_released_camera_numbers() -> None:
    azs = [45.0 * i for i in range(8)]
    els = [22.5 * i for i in range(4)]
    cams = camera_rig.rig_cameras(SPEC, dori.ZONE_MIDPOINTS_PPM, azs, els, TARGET)
    assert len(cams) == 3 * 32
    numbers = {(c.zone, c.cam_index) for c in cams}
    assert len(numbers) == 96
    for c in cams:
        assert c.cam_index == azs.index(c.azimuth_deg) * 4 + els.index(c.elevation_deg)
        assert np.linalg.norm(c.position - TARGET) == pytest.approx(dori.distance_for_ppm(c.target_ppm, SPEC))
    assert {c.cam_index for c in cams} == set(range(32))


def test_angles_off_the_released_grid_have_no_camera_number() -> None:
    """`round()` would give 30° and 45° the same number; off-grid angles are refused instead."""
    for az, el in ((30.0, 0.0), (45.0, 20.0), (0.0, 90.0)):
        with pytest.raises(ValueError, match="off the released"):
            camera_rig.cam_index(az, el)
