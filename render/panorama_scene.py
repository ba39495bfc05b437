"""Synthetic ERP panoramas (ODI-Bench's embedded default): a scene of labelled primitives, people and
signs seen by Blender's equirectangular camera.

The spec comes from `tasks/odi/synthetic_panoramas.render_spec`: every labelled object carries its
instance id as pass index, so the object-index pass is the ground-truth instance map. The colour image
goes to a PNG and the object-index pass to a 32-bit EXR (exact integers), both through the compositor's
File Output nodes (no render-time metadata); the EXR is handed on as a float32 `.npy`. Runs inside the render worker (render/worker.py).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from benchfoundry.render.lighting import apply_lighting
from benchfoundry.render.passes import move_output
from benchfoundry.render.person import add_person

#: Items of the File Output nodes (the written files are `<item>.png` / `<item>.exr`).
IMAGE_ITEM = "panorama"
INDEX_ITEM = "instances"
_PRIMITIVES = {
    "box": lambda: bpy.ops.mesh.primitive_cube_add(size=1.0),
    "cylinder": lambda: bpy.ops.mesh.primitive_cylinder_add(radius=0.5, depth=1.0, vertices=48),
    "sphere": lambda: bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, segments=48, ring_count=24),
}


def _material(name: str, look: dict[str, Any]) -> Any:
    mat = bpy.data.materials.new(name)
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (*look["rgb"], 1.0)
    bsdf.inputs["Roughness"].default_value = look["roughness"]
    bsdf.inputs["Metallic"].default_value = look["metallic"]
    return mat


def _part(scene: Any, name: str, part: dict[str, Any], pass_index: int) -> Any:
    """One primitive: unit box / cylinder / sphere scaled to `size` (full extents, m), turned by `yaw_deg`."""
    try:
        _PRIMITIVES[part["shape"]]()
    except KeyError:
        raise ValueError(f"{name}: unknown shape {part['shape']!r}; known: {sorted(_PRIMITIVES)}") from None
    obj = bpy.context.active_object
    for coll in obj.users_collection:
        coll.objects.unlink(obj)
    scene.collection.objects.link(obj)
    obj.name = name
    obj.location = part["center"]
    obj.scale = part["size"]
    obj.rotation_euler = (0.0, 0.0, math.radians(part.get("yaw_deg", 0.0)))
    obj.pass_index = pass_index
    obj.data.materials.append(_material(name, part))
    return obj


def _text(scene: Any, name: str, sign: dict[str, Any], pass_index: int) -> Any:
    """Upright text (Blender's built-in font) facing the camera."""
    curve = bpy.data.curves.new(name, "FONT")
    curve.body = sign["text"]
    curve.size = sign["char_height"]
    curve.extrude = 0.005
    curve.align_x, curve.align_y = "CENTER", "CENTER"
    obj = bpy.data.objects.new(name, curve)
    scene.collection.objects.link(obj)
    obj.location = sign["center"]
    obj.rotation_euler = (math.pi / 2, 0.0, math.radians(sign["yaw_deg"]))
    obj.pass_index = pass_index
    curve.materials.append(_material(name, {"rgb": sign["rgb"], "roughness": 0.5, "metallic": 0.0}))
    return obj


def _indoor_lights(scene: Any, lights: list[dict[str, Any]], ambient: list[float]) -> None:
    world = bpy.data.worlds.new("panorama_world")
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (*ambient, 1.0)
    scene.world = world
    for i, light in enumerate(lights):
        data = bpy.data.lights.new(f"panorama_light{i}", "AREA")
        data.size = light["size"]
        data.energy = light["power"]
        obj = bpy.data.objects.new(f"panorama_light{i}", data)
        obj.location = light["location"]
        scene.collection.objects.link(obj)


def _camera(scene: Any, height_m: float) -> Any:
    """Equirectangular camera at (0, 0, height) looking along +Y with +Z up (sphere θ = 0 is +Y, θ = 90° is +X)."""
    data = bpy.data.cameras.new("panorama_camera")
    data.type = "PANO"
    data.panorama_type = "EQUIRECTANGULAR"
    data.clip_start, data.clip_end = 0.05, 500.0
    obj = bpy.data.objects.new("panorama_camera", data)
    obj.location = (0.0, 0.0, height_m)
    obj.rotation_euler = (math.pi / 2, 0.0, 0.0)
    scene.collection.objects.link(obj)
    scene.camera = obj
    return obj


def _outputs(scene: Any, scratch: Path) -> tuple[Path, Path]:
    scene.view_layers[0].use_pass_object_index = True
    tree = bpy.data.node_groups.new("panorama outputs", "CompositorNodeTree")
    scene.compositing_node_group = tree
    layers = tree.nodes.new("CompositorNodeRLayers")
    for item, socket, file_format, depth in ((IMAGE_ITEM, "Image", "PNG", "8"),
                                              (INDEX_ITEM, "Object Index", "OPEN_EXR", "32")):
        node = tree.nodes.new("CompositorNodeOutputFile")
        node.directory = str(scratch) + "/"
        node.file_name = ""
        node.format.media_type = "IMAGE"
        node.format.file_format = file_format
        node.format.color_mode = "RGB" if file_format == "PNG" else "BW"
        node.format.color_depth = depth
        node.file_output_items.new("RGBA" if file_format == "PNG" else "FLOAT", item)
        tree.links.new(layers.outputs[socket], node.inputs[item])
    return scratch / f"{IMAGE_ITEM}.png", scratch / f"{INDEX_ITEM}.exr"


def render_panorama(scene: Any, spec: dict[str, Any], scratch: Path) -> None:
    """Build the spec's scene in the (empty) `scene`, render once, move image and index pass to the spec's paths."""
    scene.render.engine = "CYCLES"
    for name in dir(scene.render):
        if name.startswith("use_stamp"):
            setattr(scene.render, name, False)
    scene.render.resolution_x, scene.render.resolution_y = spec["width"], spec["width"] // 2
    scene.render.resolution_percentage = 100
    scene.display_settings.display_device = "sRGB"
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "None"
    cycles = scene.cycles
    cycles.device = "CPU" if spec["device"] == "CPU" else "GPU"
    cycles.samples = spec["samples"]
    cycles.seed = spec["seed"]
    cycles.use_adaptive_sampling = False
    cycles.use_denoising = False
    cycles.max_bounces = 3
    _camera(scene, spec["camera_height_m"])
    for obj in spec["structure"]:
        _part(scene, obj["name"], obj, 0)
    for inst in spec["instances"]:
        for k, part in enumerate(inst["parts"]):
            _part(scene, f"i{inst['id']:03d}_{k}", part, inst["id"])
        for k, sign in enumerate(inst.get("texts", [])):
            _text(scene, f"i{inst['id']:03d}_text{k}", sign, inst["id"])
        if inst.get("person"):
            person = inst["person"]
            obj = add_person(scene, person["mesh"], person["texture"], inst["id"])
            obj.name = f"i{inst['id']:03d}_person"
            obj.location = person["location"]
            obj.rotation_euler = (0.0, 0.0, math.radians(person["yaw_deg"]))
    lighting = spec["lighting"]
    if lighting["kind"] == "indoor":
        _indoor_lights(scene, lighting["lights"], lighting["ambient"])
    else:
        apply_lighting(scene, lighting)
    render_with_index(scene, scratch, spec["outputs"]["image"], spec["outputs"]["index_npy"])


def render_with_index(scene: Any, scratch: Path, image_path: str, index_npy: str) -> None:
    """Render: the image to `image_path`, the object-index pass as an integer array to `index_npy` (atomically)."""
    image, index = _outputs(scene, scratch)
    bpy.ops.render.render()
    move_output(image, image_path)
    ids = read_index_exr(index)
    index.unlink()
    target = Path(index_npy)
    staged = target.with_name(f".{target.name}.tmp.npy")
    np.save(staged, ids)
    staged.replace(target)


def read_index_exr(path: Path) -> np.ndarray:
    """The object-index EXR, top row first, as float32 (Blender reads the EXR OpenCV cannot)."""
    image = bpy.data.images.load(str(path))
    w, h = image.size
    pixels = np.empty(w * h * image.channels, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return np.ascontiguousarray(pixels.reshape(h, w, -1)[::-1, :, 0])
