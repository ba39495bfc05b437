"""Procedural environments: desert, field and wharf.

Each is a ground that reaches far past the farthest camera (the horizon is in view) and a few
props. Props stand between the rig's camera lines (at azimuths 22.5° + k·45°), so they never
come between a camera and the person.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import bpy
import numpy as np

from benchfoundry.core.seeding import item_rng

COLLECTION = "environment"
GROUND_SIZE_M = 6000.0


def build_scene(scene: Any, name: str, seed: int) -> None:
    """Replace the environment with scene `name`, its props placed by the build seed."""
    clear_scene()
    collection = bpy.data.collections.new(COLLECTION)
    scene.collection.children.link(collection)
    try:
        builder = BUILDERS[name]
    except KeyError:
        raise ValueError(f"unknown scene {name!r}; known: {sorted(BUILDERS)}") from None
    builder(collection, item_rng(seed, "render.scene", name))


def clear_scene() -> None:
    collection = bpy.data.collections.get(COLLECTION)
    if collection is None:
        return
    for obj in list(collection.objects):
        data = obj.data
        bpy.data.objects.remove(obj)
        if data is not None and data.users == 0:
            bpy.data.meshes.remove(data)
    bpy.data.collections.remove(collection)
    for mat in list(bpy.data.materials):
        if mat.name.startswith("env_") and mat.users == 0:
            bpy.data.materials.remove(mat)


def _material(
    name: str,
    color_a: tuple,
    color_b: tuple,
    *,
    scale: float,
    roughness: float,
    bump: float = 0.0,
    pattern: str = "noise",
) -> Any:
    """A principled material mixing two colours by a noise, wave or plank pattern; `scale` is
    per metre of world position."""
    mat = bpy.data.materials.new(f"env_{name}")
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = roughness
    coords = nodes.new("ShaderNodeNewGeometry")
    if pattern == "wave":
        tex = nodes.new("ShaderNodeTexWave")
        tex.inputs["Distortion"].default_value = 4.0
    elif pattern == "planks":
        tex = nodes.new("ShaderNodeTexBrick")
        tex.offset = 0.37
        tex.inputs["Brick Width"].default_value = 3.0
        tex.inputs["Row Height"].default_value = 0.2
        tex.inputs["Mortar Size"].default_value = 0.006
        tex.inputs["Color1"].default_value = (*color_a, 1.0)
        tex.inputs["Color2"].default_value = (*color_b, 1.0)
        tex.inputs["Mortar"].default_value = (0.05, 0.035, 0.02, 1.0)
    else:
        tex = nodes.new("ShaderNodeTexNoise")
        tex.inputs["Detail"].default_value = 6.0
    tex.inputs["Scale"].default_value = scale
    links.new(coords.outputs["Position"], tex.inputs["Vector"])
    if pattern == "planks":
        links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    else:
        ramp = nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = (*color_a, 1.0)
        ramp.color_ramp.elements[1].color = (*color_b, 1.0)
        links.new(tex.outputs["Fac"], ramp.inputs["Fac"])
        links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    if bump > 0:
        bumper = nodes.new("ShaderNodeBump")
        bumper.inputs["Strength"].default_value = bump
        links.new(tex.outputs["Fac"], bumper.inputs["Height"])
        links.new(bumper.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def _add(
    collection: Any,
    maker: Callable[..., Any],
    material: Any,
    location: tuple,
    scale: tuple,
    rotation_z: float = 0.0,
    **kwargs: Any,
) -> Any:
    maker(location=location, **kwargs)
    obj = bpy.context.active_object
    for coll in obj.users_collection:
        coll.objects.unlink(obj)
    collection.objects.link(obj)
    obj.scale = scale
    obj.rotation_euler = (0.0, 0.0, rotation_z)
    obj.data.materials.append(material)
    return obj


def _ground(collection: Any, material: Any, z: float = 0.0, size: float = GROUND_SIZE_M) -> Any:
    return _add(collection, bpy.ops.mesh.primitive_plane_add, material, (0.0, 0.0, z), (1, 1, 1), size=size)


def _prop_spots(rng: np.random.Generator, count: int, r_min: float, r_max: float) -> list[tuple[float, float, float]]:
    """(x, y, yaw) between the camera lines: azimuth 22.5° + k·45° ± 8°."""
    spots = []
    for _ in range(count):
        az = math.radians(22.5 + 45.0 * int(rng.integers(8)) + rng.uniform(-8, 8))
        r = rng.uniform(r_min, r_max)
        spots.append((r * math.sin(az), -r * math.cos(az), rng.uniform(0, 2 * math.pi)))
    return spots


def _desert(collection: Any, rng: np.random.Generator) -> None:
    _ground(collection, _material("sand", (0.72, 0.52, 0.30), (0.58, 0.40, 0.22), scale=0.15, roughness=0.9, bump=0.2))
    rock = _material("rock", (0.35, 0.28, 0.22), (0.55, 0.45, 0.35), scale=3.0, roughness=0.8, bump=0.5)
    cactus = _material("cactus", (0.15, 0.30, 0.12), (0.25, 0.40, 0.18), scale=8.0, roughness=0.6)
    for x, y, yaw in _prop_spots(rng, 6, 4.0, 40.0):
        s = rng.uniform(0.3, 1.2)
        _add(
            collection,
            bpy.ops.mesh.primitive_ico_sphere_add,
            rock,
            (x, y, 0.2 * s),
            (s, 0.8 * s, 0.5 * s),
            yaw,
            subdivisions=2,
        )
    for x, y, yaw in _prop_spots(rng, 3, 8.0, 60.0):
        h = rng.uniform(1.5, 3.0)
        _add(collection, bpy.ops.mesh.primitive_cylinder_add, cactus, (x, y, h / 2), (0.2, 0.2, h / 2), yaw)
    for x, y, yaw in _prop_spots(rng, 4, 300.0, 900.0):
        s = rng.uniform(40, 120)
        _add(
            collection,
            bpy.ops.mesh.primitive_uv_sphere_add,
            bpy.data.materials["env_sand"],
            (x, y, -0.6 * s),
            (s, 1.5 * s, 0.75 * s),
            yaw,
        )


def _field(collection: Any, rng: np.random.Generator) -> None:
    _ground(collection, _material("grass", (0.14, 0.30, 0.07), (0.30, 0.42, 0.12), scale=0.5, roughness=0.95, bump=0.4))
    bark = _material("bark", (0.22, 0.15, 0.09), (0.30, 0.22, 0.14), scale=10.0, roughness=0.9)
    leaves = _material("leaves", (0.08, 0.22, 0.05), (0.16, 0.32, 0.08), scale=4.0, roughness=0.8, bump=0.5)
    hay = _material("hay", (0.75, 0.62, 0.30), (0.60, 0.48, 0.22), scale=12.0, roughness=0.9, pattern="wave")
    for x, y, yaw in _prop_spots(rng, 5, 25.0, 80.0):
        h = rng.uniform(3.0, 7.0)
        _add(collection, bpy.ops.mesh.primitive_cylinder_add, bark, (x, y, h / 2), (0.25, 0.25, h / 2), yaw)
        _add(
            collection,
            bpy.ops.mesh.primitive_ico_sphere_add,
            leaves,
            (x, y, h),
            (h / 3, h / 3, h / 2.5),
            yaw,
            subdivisions=2,
        )
    for x, y, yaw in _prop_spots(rng, 4, 4.0, 30.0):
        _add(collection, bpy.ops.mesh.primitive_cylinder_add, hay, (x, y, 0.6), (0.6, 0.6, 0.6), yaw)
        bpy.context.active_object.rotation_euler = (math.pi / 2, 0.0, yaw)


def _wharf(collection: Any, rng: np.random.Generator) -> None:
    _ground(
        collection,
        _material(
            "water", (0.02, 0.06, 0.09), (0.04, 0.10, 0.13), scale=0.3, roughness=0.08, bump=0.15, pattern="wave"
        ),
        z=-1.2,
    )
    deck = _material("deck", (0.36, 0.25, 0.16), (0.28, 0.19, 0.12), scale=1.0, roughness=0.8, pattern="planks")
    _add(collection, bpy.ops.mesh.primitive_cube_add, deck, (0.0, 0.0, -0.15), (45.0, 45.0, 0.15))
    iron = _material("iron", (0.08, 0.08, 0.09), (0.18, 0.16, 0.15), scale=6.0, roughness=0.5)
    crate = _material("crate", (0.45, 0.32, 0.18), (0.35, 0.24, 0.13), scale=5.0, roughness=0.85, pattern="wave")
    container = _material(
        "container", (0.45, 0.10, 0.07), (0.35, 0.08, 0.05), scale=20.0, roughness=0.6, pattern="wave"
    )
    for x, y, yaw in _prop_spots(rng, 6, 4.0, 40.0):
        _add(collection, bpy.ops.mesh.primitive_cylinder_add, iron, (x, y, 0.35), (0.2, 0.2, 0.35), yaw)
    for x, y, yaw in _prop_spots(rng, 5, 5.0, 35.0):
        s = rng.uniform(0.4, 0.8)
        _add(collection, bpy.ops.mesh.primitive_cube_add, crate, (x, y, s), (s, s, s), yaw)
    for x, y, yaw in _prop_spots(rng, 2, 25.0, 40.0):
        _add(collection, bpy.ops.mesh.primitive_cube_add, container, (x, y, 1.3), (3.0, 1.2, 1.3), yaw)


BUILDERS: dict[str, Callable[[Any, np.random.Generator], None]] = {
    "desert": _desert,
    "field": _field,
    "wharf": _wharf,
}
