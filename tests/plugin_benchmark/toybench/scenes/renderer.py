"""The renderer of Toy-Bench's `toy_scene` shards, declared in the `benchfoundry.renderers` entry point group and
run inside benchfoundry's render worker (render/worker.py), where bpy is."""

from __future__ import annotations

import math
import time
from typing import Any

from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.render.camera import setup_camera
from benchfoundry.render.engine import apply_engine
from toybench.scenes.spec import CubeShard

#: The cube's side, m, and the camera's distance from its centre.
SIDE_M = 1.4
DISTANCE_M = 4.0


def _emission(bpy: Any, name: str, rgb: tuple[float, float, float]) -> Any:
    material = bpy.data.materials.new(name)
    nodes, links = material.node_tree.nodes, material.node_tree.links
    for node in [n for n in nodes if n.type != "OUTPUT_MATERIAL"]:
        nodes.remove(node)
    emission = nodes.new("ShaderNodeEmission")
    emission.inputs["Color"].default_value = (*rgb, 1.0)
    emission.inputs["Strength"].default_value = 1.0
    output = next(n for n in nodes if n.type == "OUTPUT_MATERIAL")
    links.new(emission.outputs["Emission"], output.inputs["Surface"])
    return material


def render_toy(worker: Any, spec: CubeShard) -> dict[str, Any]:
    """A fresh file holding the cube and the camera, rendered to `spec.image`."""
    started = time.perf_counter()
    worker.reset()
    bpy, scene = worker.bpy, worker.scene
    apply_engine(scene, spec.engine, seed=0)
    world = bpy.data.worlds.new("toy_world")
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (*spec.background, 1.0)
    scene.world = world
    mesh = bpy.data.meshes.new("toy_cube")
    h = SIDE_M / 2
    corners = [(x, y, z) for x in (-h, h) for y in (-h, h) for z in (-h, h)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh.from_pydata(corners, [], faces)
    mesh.materials.append(_emission(bpy, "toy_cube", spec.rgb))
    cube = bpy.data.objects.new("toy_cube", mesh)
    cube.rotation_euler = (0.0, 0.0, math.radians(spec.yaw_deg))
    scene.collection.objects.link(cube)
    camera = setup_camera(scene, spec.camera)
    camera.location = (0.0, -DISTANCE_M, 0.0)
    camera.rotation_euler = (math.pi / 2, 0.0, 0.0)
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scratch = worker.scratch / "toy_cube.png"
    scene.render.filepath = str(scratch)
    bpy.ops.render.render(write_still=True)
    write_bytes_atomic(spec.image, scratch.read_bytes())
    worker.built = {"toy_scene": spec.image}
    return {"ok": True, "frames": 1, "seconds": time.perf_counter() - started}
