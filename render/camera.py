"""The Blender pinhole camera of a render spec (`PinholeCamera`, docs/design/syndor.md §1) and the pose of each
frame."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import bpy
from mathutils import Matrix

from benchfoundry.core.render_spec import PinholeCamera


def setup_camera(scene: Any, camera: PinholeCamera) -> Any:
    """One camera whose vertical sensor fit makes f_px = resolution_h · f / h_sensor, square pixels."""
    data = bpy.data.cameras.new("rig_camera")
    data.sensor_fit = "VERTICAL"
    data.sensor_height = camera.sensor_height_mm
    data.lens = camera.focal_mm
    data.shift_x = data.shift_y = 0.0
    data.clip_start = 0.05
    data.clip_end = 20000.0
    obj = bpy.data.objects.new("rig_camera", data)
    scene.collection.objects.link(obj)
    scene.camera = obj
    render = scene.render
    render.resolution_x, render.resolution_y = camera.resolution_w, camera.resolution_h
    render.resolution_percentage = 100
    render.pixel_aspect_x = render.pixel_aspect_y = 1.0
    return obj


def place_camera(obj: Any, matrix_world: Sequence[Sequence[float]]) -> None:
    obj.matrix_world = Matrix([list(row) for row in matrix_world])
