"""Labelled objects of a render spec: primitives (`Primitive`, plain or with a procedural surface), signs and
objects appended from an asset library (`LibraryObject`)."""

from __future__ import annotations

import math
from typing import Any

import bpy

from benchfoundry.core.render_spec import LibraryObject, Primitive, Sign
from benchfoundry.render.surfaces import surface_material

_PRIMITIVES = {
    "box": lambda: bpy.ops.mesh.primitive_cube_add(size=1.0),
    "cylinder": lambda: bpy.ops.mesh.primitive_cylinder_add(radius=0.5, depth=1.0, vertices=48),
    "sphere": lambda: bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, segments=48, ring_count=24),
}


def add_primitive(scene: Any, name: str, part: Primitive) -> Any:
    """One primitive: unit box / cylinder / sphere scaled to `size` (full extents, m), turned by `yaw_deg`."""
    try:
        _PRIMITIVES[part.shape]()
    except KeyError:
        raise ValueError(f"{name}: unknown shape {part.shape!r}; known: {sorted(_PRIMITIVES)}") from None
    obj = bpy.context.active_object
    for coll in obj.users_collection:
        coll.objects.unlink(obj)
    scene.collection.objects.link(obj)
    obj.name = name
    obj.location = part.center
    obj.scale = part.size
    obj.rotation_euler = (0.0, 0.0, math.radians(part.yaw_deg))
    obj.pass_index = part.pass_index
    obj.data.materials.append(surface_material(name, part.rgb, part.roughness, part.metallic, part.surface))
    return obj


def add_sign(scene: Any, name: str, sign: Sign, pass_index: int) -> Any:
    """Upright text (Blender's built-in font) facing the camera."""
    curve = bpy.data.curves.new(name, "FONT")
    curve.body = sign.text
    curve.size = sign.char_height
    curve.extrude = 0.005
    curve.align_x, curve.align_y = "CENTER", "CENTER"
    obj = bpy.data.objects.new(name, curve)
    scene.collection.objects.link(obj)
    obj.location = sign.center
    obj.rotation_euler = (math.pi / 2, 0.0, math.radians(sign.yaw_deg))
    obj.pass_index = pass_index
    curve.materials.append(surface_material(name, sign.rgb, 0.5, 0.0))
    return obj


def remove_object(obj: Any) -> None:
    """Delete an object made here, with its mesh or curve and their materials once nothing else uses them."""
    data = obj.data
    materials = [m for m in getattr(data, "materials", ()) if m is not None]
    bpy.data.objects.remove(obj)
    if data is not None and data.users == 0:
        bpy.data.batch_remove([data])
    unused = [m for m in materials if m.users == 0]
    if unused:
        bpy.data.batch_remove(unused)


def add_library_object(scene: Any, name: str, spec: LibraryObject) -> Any:
    """Append `spec.object_name` (one mesh object, an asset library's) from its `.blend` as a copy, place
    it and give it the instance's pass index."""
    with bpy.data.libraries.load(spec.blend, link=False) as (source, target):
        if spec.object_name not in source.objects:
            raise ValueError(f"{spec.blend}: no object {spec.object_name!r} (the asset library's manifest is stale)")
        target.objects = [spec.object_name]
    obj = target.objects[0]
    obj.name = name
    obj.parent = None
    obj.location = spec.location
    obj.rotation_euler = (0.0, 0.0, math.radians(spec.yaw_deg))
    obj.scale = (spec.scale, spec.scale, spec.scale)
    obj.pass_index = spec.pass_index
    scene.collection.objects.link(obj)
    return obj
