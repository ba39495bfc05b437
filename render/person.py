"""The person of a render spec (`PersonSpec`): a posed body mesh (.npz, person/body_mesh.py) with its UV
texture, as one object whose pass index marks it in the object-index pass, placed and turned about +Z."""

from __future__ import annotations

import math
from typing import Any

import bpy
import numpy as np

from benchfoundry.core.render_spec import PersonSpec

PERSON_NAME = "person"


def add_person(scene: Any, person: PersonSpec) -> Any:
    """Build the mesh (vertices, faces, per-corner uv) with an image-textured material."""
    with np.load(person.mesh) as data:
        vertices, faces = data["vertices"].astype(np.float64), data["faces"].astype(np.int64)
        uv = data["uv"].astype(np.float32) if "uv" in data.files else None
    mesh = bpy.data.meshes.new(PERSON_NAME)
    mesh.from_pydata(vertices.tolist(), [], faces.tolist())
    if uv is not None:
        layer = mesh.uv_layers.new(name="uv")
        layer.data.foreach_set("uv", uv.reshape(-1))
    mesh.update()
    mesh.shade_smooth()
    mesh.materials.append(_skin_material(person.texture))
    obj = bpy.data.objects.new(PERSON_NAME, mesh)
    obj.pass_index = person.pass_index
    obj.location = person.location
    obj.rotation_euler = (0.0, 0.0, math.radians(person.yaw_deg))
    scene.collection.objects.link(obj)
    return obj


def remove_person() -> None:
    obj = bpy.data.objects.get(PERSON_NAME)
    if obj is not None:
        mesh = obj.data
        bpy.data.objects.remove(obj)
        for mat in mesh.materials:
            if mat is not None:
                image = mat.node_tree.nodes["texture"].image
                bpy.data.materials.remove(mat)
                if image is not None:
                    bpy.data.images.remove(image)
        bpy.data.meshes.remove(mesh)


def _skin_material(texture_png: str) -> Any:
    mat = bpy.data.materials.new("person_texture")
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = 0.7
    tex = nodes.new("ShaderNodeTexImage")
    tex.name = "texture"
    tex.image = bpy.data.images.load(texture_png)
    tex.interpolation = "Linear"
    links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return mat
