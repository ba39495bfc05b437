"""The person of a render spec (`PersonSpec`): a posed body mesh (.npz, person/body_mesh.py) with its UV
texture, as one object whose pass index marks it in the object-index pass, placed and turned about +Z.
`PersonMeshes` keeps people between the images of a shard: a new pose of the same body topology moves the
vertices in place, and each texture's material is made once."""

from __future__ import annotations

import math
from typing import Any

import bpy
import numpy as np

from benchfoundry.core.render_spec import PersonSpec

PERSON_NAME = "person"


def _load(person: PersonSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    with np.load(person.mesh) as data:
        vertices, faces = data["vertices"].astype(np.float64), data["faces"].astype(np.int64)
        uv = data["uv"].astype(np.float32) if "uv" in data.files else None
    return vertices, faces, uv


def _mesh(name: str, vertices: np.ndarray, faces: np.ndarray, uv: np.ndarray | None) -> Any:
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(vertices.tolist(), [], faces.tolist())
    if uv is not None:
        layer = mesh.uv_layers.new(name="uv")
        layer.data.foreach_set("uv", uv.reshape(-1))
    mesh.update()
    mesh.shade_smooth()
    return mesh


def _place(obj: Any, person: PersonSpec) -> Any:
    obj.pass_index = person.pass_index
    obj.location = person.location
    obj.rotation_euler = (0.0, 0.0, math.radians(person.yaw_deg))
    return obj


def add_person(scene: Any, person: PersonSpec) -> Any:
    """Build the mesh (vertices, faces, per-corner uv) with an image-textured material."""
    mesh = _mesh(PERSON_NAME, *_load(person))
    mesh.materials.append(skin_material(person.texture))
    obj = bpy.data.objects.new(PERSON_NAME, mesh)
    _place(obj, person)
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


class PersonMeshes:
    """People kept in a scene between images, by object name."""

    def __init__(self, scene: Any) -> None:
        self.scene = scene
        self.materials: dict[str, Any] = {}
        self.topology: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}

    def place(self, person: PersonSpec, name: str = PERSON_NAME) -> Any:
        """The object `name` posed, textured and placed as `person` says (made the first time, or when the
        body's faces or uv differ from the kept mesh's)."""
        vertices, faces, uv = _load(person)
        obj = bpy.data.objects.get(name)
        kept = self.topology.get(name)
        same = (
            obj is not None
            and kept is not None
            and np.array_equal(kept[0], faces)
            and (uv is None) == (kept[1] is None)
            and (uv is None or np.array_equal(kept[1], uv))
        )
        if same:
            obj.data.vertices.foreach_set("co", vertices.astype(np.float32).reshape(-1))
            obj.data.update()
        else:
            if obj is not None:
                mesh = obj.data
                bpy.data.objects.remove(obj)
                bpy.data.meshes.remove(mesh)
            obj = bpy.data.objects.new(name, _mesh(name, vertices, faces, uv))
            obj.data.materials.append(None)
            self.scene.collection.objects.link(obj)
            self.topology[name] = (faces, uv)
        if person.texture not in self.materials:
            self.materials[person.texture] = skin_material(person.texture)
        obj.data.materials[0] = self.materials[person.texture]
        return _place(obj, person)

    def remove(self, name: str) -> None:
        """Delete the kept person `name` and its mesh (the texture materials stay for the next people)."""
        obj = bpy.data.objects.get(name)
        if obj is not None:
            mesh = obj.data
            bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(mesh)
        self.topology.pop(name, None)


def skin_material(texture_png: str) -> Any:
    """A material of the person's image texture (linear filtering, roughness 0.7)."""
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
