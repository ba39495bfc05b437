"""The day sky's bright side agrees with the sun lamp's compass bearing (0 north = +Y, 90 east = +X)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, math, os, sys, tempfile
import bpy
import numpy as np
from mathutils import Euler, Vector
from benchfoundry.core.render_spec import DayLight
from benchfoundry.render.lighting import apply_lighting

scene = bpy.context.scene
for obj in list(bpy.data.objects):
    bpy.data.objects.remove(obj)
scene.render.engine = "CYCLES"
scene.render.use_persistent_data = True  # as the render worker: the sky is computed once, not per camera
scene.cycles.samples = 4
scene.cycles.device = "CPU"
scene.render.resolution_x = scene.render.resolution_y = 16
scene.render.image_settings.file_format = "OPEN_EXR"
camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
scene.collection.objects.link(camera)
scene.camera = camera
bearing = float(sys.argv[1])
apply_lighting(DayLight(sun_elevation_deg=5.0, sun_bearing_deg=bearing, sky_strength=1.0, sun_strength=3.0,
                        exposure=0.0), scene)
lamp = bpy.data.objects["light_lamp"]
toward_lamp = lamp.rotation_quaternion @ Vector((0.0, 0.0, 1.0))  # a sun lamp shines along its local -Z
means = {}
for compass in (0, 90, 180, 270):
    # a level camera looking along compass bearing `compass`: (sin b, cos b, 0)
    camera.rotation_euler = Euler((math.radians(90), 0.0, -math.radians(compass)))
    path = os.path.join(tempfile.mkdtemp(), "sky.exr")
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(path)
    means[compass] = float(np.asarray(image.pixels[:]).reshape(-1, 4)[:, :3].mean())
print(json.dumps({"means": means, "lamp": list(toward_lamp)}))
"""


@pytest.mark.blender
@pytest.mark.parametrize("bearing", [90.0, 180.0])  # 90 catches an east-west mirror, 180 a quarter-turn offset
def test_the_sky_is_brightest_toward_the_sun_lamp(bearing: float) -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(bearing)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    reply = json.loads(result.stdout.strip().splitlines()[-1])
    means = {int(k): v for k, v in reply["means"].items()}
    brightest = max(means, key=means.get)
    assert brightest == int(bearing) % 360
    assert means[brightest] > 2 * means[(brightest + 180) % 360]
    x, y, _ = reply["lamp"]
    assert math.degrees(math.atan2(x, y)) % 360 == pytest.approx(bearing, abs=1e-3)
