"""The synthetic ScanNet room, rendered by the render worker (render/worker.py) from a `ScanRoomShard`
(a benchmark's synthetic scan).

Builds the room from the spec once, in a fresh file, then renders each frame (only the camera moves) with
Cycles into the spec's `out_dir` (a relative one is relative to the spec file's folder): colour to
`frame-<id>.color.png`, and the Z pass (planar depth along the view axis, which is what ScanNet's depth holds)
through the compositor to EXR, converted to uint16 millimetres, subsampled by `depth_stride`, as
`frame-<id>.depth.npy`. Frames go to disk as they are rendered. Library objects are appended from their `.blend`
files, and their placed triangles written to `LIBRARY_MESHES` before the first frame.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np
from mathutils import Matrix

from benchfoundry.benchmarks.viewspatial.scannet.scenes.spec import LIBRARY_MESHES, ScanRoomShard
from benchfoundry.core.atomic_files import atomic_path
from benchfoundry.core.camera import opencv_to_blender
from benchfoundry.render.engine import set_denoiser
from benchfoundry.render.lighting import add_area_lamps
from benchfoundry.render.objects import add_library_object
from benchfoundry.render.surfaces import surface_material

if TYPE_CHECKING:
    from benchfoundry.render.session import Worker

NO_HIT_M = 1.0e4


def build_scene(spec: ScanRoomShard) -> bpy.types.Object:
    """Objects, lights, camera and render settings; returns the camera."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = spec.samples
    scene.cycles.seed = spec.seed
    set_denoiser(scene.cycles, True, "FAST", "BALANCED")  # denoised as the other renders are
    scene.cycles.use_adaptive_sampling = False
    scene.cycles.max_bounces = 1
    scene.render.use_persistent_data = True
    scene.render.resolution_x, scene.render.resolution_y = spec.width, spec.height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.view_settings.view_transform = "Standard"
    for part in spec.parts:
        mesh = bpy.data.meshes.new(part.name)
        mesh.from_pydata(list(part.vertices), [], list(part.faces))
        mesh.update()
        mesh.materials.append(surface_material(part.name, part.color, 0.8, 0.0, part.surface))
        obj = bpy.data.objects.new(part.name, mesh)
        scene.collection.objects.link(obj)
    for k, placed in enumerate(spec.library):
        add_library_object(scene, f"library{k}", placed)
    add_area_lamps(scene, spec.lamps, "light")
    world = bpy.data.worlds.new("world")
    world.color = (0.05, 0.05, 0.05)
    scene.world = world
    cam_data = bpy.data.cameras.new("camera")
    cam_data.sensor_fit = "HORIZONTAL"
    cam_data.angle = math.radians(spec.hfov_deg)
    cam_data.clip_start, cam_data.clip_end = 0.05, 100.0
    camera = bpy.data.objects.new("camera", cam_data)
    scene.collection.objects.link(camera)
    scene.camera = camera
    return camera


def placed_triangles(obj: bpy.types.Object, max_faces: int) -> tuple[np.ndarray, np.ndarray]:
    """The object's triangles in world metres: (vertices n × 3, faces m × 3). Above `max_faces` triangles, Blender's
    collapse decimation cuts them down to about that many, in the viewport's evaluation only: the render keeps all."""
    obj.data.calc_loop_triangles()
    count = len(obj.data.loop_triangles)
    if count > max_faces:
        decimate = obj.modifiers.new("export decimation", "DECIMATE")
        decimate.ratio = max_faces / count
        decimate.show_render = False
    evaluated = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    mesh.calc_loop_triangles()
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    faces = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", faces)
    evaluated.to_mesh_clear()
    world = np.asarray(evaluated.matrix_world, dtype=np.float64)
    vertices = co.reshape(-1, 3).astype(np.float64) @ world[:3, :3].T + world[:3, 3]
    return vertices, faces.reshape(-1, 3).astype(np.int64)


def write_library_meshes(objects: list[bpy.types.Object], max_faces: int, path: Path) -> None:
    """`vertices_<k>` and `faces_<k>` of each placed library object, as one `.npz`, atomically."""
    arrays: dict[str, np.ndarray] = {}
    for k, obj in enumerate(objects):
        arrays[f"vertices_{k}"], arrays[f"faces_{k}"] = placed_triangles(obj, max_faces)
    with atomic_path(path) as tmp, tmp.open("wb") as sink:
        np.savez(sink, **arrays)


def _file_output(tree: bpy.types.NodeTree, out_dir: Path, file_format: str, item: str, socket: str) -> bpy.types.Node:
    node = tree.nodes.new("CompositorNodeOutputFile")
    node.directory = str(out_dir) + "/"
    node.format.media_type = "IMAGE"
    node.format.file_format = file_format
    node.file_output_items.new(socket, item)
    return node


def frame_outputs(out_dir: Path) -> tuple[bpy.types.Node, bpy.types.Node]:
    """Compositor: Render Layers' Image → 8-bit PNG and Depth → 32-bit EXR.

    File Output nodes and no stamps: no date or render-time metadata, so the same frame gives the same bytes.
    """
    scene = bpy.context.scene
    for name in dir(scene.render):
        if name.startswith("use_stamp"):
            setattr(scene.render, name, False)
    scene.view_layers[0].use_pass_z = True
    tree = bpy.data.node_groups.new("frame outputs", "CompositorNodeTree")
    scene.compositing_node_group = tree
    layers = tree.nodes.new("CompositorNodeRLayers")
    depth = _file_output(tree, out_dir, "OPEN_EXR", "depth", "FLOAT")
    depth.format.color_depth = "32"
    tree.links.new(layers.outputs["Depth"], depth.inputs[0])
    color = _file_output(tree, out_dir, "PNG", "color", "RGBA")
    color.format.color_mode = "RGB"
    color.format.color_depth = "8"
    tree.links.new(layers.outputs["Image"], color.inputs[0])
    return color, depth


def read_depth_exr(path: Path, stride: int) -> np.ndarray:
    """The EXR's first channel, top row first, subsampled, as uint16 millimetres (0 = no surface)."""
    image = bpy.data.images.load(str(path))
    w, h = image.size
    pixels = np.empty(w * h * image.channels, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    depth = pixels.reshape(h, w, -1)[::-1, :, 0][::stride, ::stride].astype(np.float64)
    depth[~np.isfinite(depth) | (depth <= 0) | (depth >= NO_HIT_M)] = 0.0
    return np.clip(np.rint(depth * 1000.0), 0, 65535).astype(np.uint16)


def render_scan_room(spec: ScanRoomShard) -> list[float]:
    """Render every frame of the spec into its `out_dir`; returns each frame's seconds."""
    out_dir = Path(spec.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    camera = build_scene(spec)
    if spec.library:
        library = [bpy.data.objects[f"library{k}"] for k in range(len(spec.library))]
        write_library_meshes(library, spec.library_faces, out_dir / LIBRARY_MESHES)
    nodes = frame_outputs(out_dir)
    seconds = []
    for frame in spec.frames:
        started = time.perf_counter()
        fid = frame.frame_id
        base = out_dir / f"frame-{fid:06d}"
        camera.matrix_world = Matrix(opencv_to_blender(np.asarray(frame.pose_c2w)).tolist())
        for node in nodes:
            node.file_name = f".tmp-{fid:06d}-"
        bpy.ops.render.render(write_still=False)
        exr = out_dir / f".tmp-{fid:06d}-depth.exr"
        depth = read_depth_exr(exr, spec.depth_stride)
        exr.unlink()
        np.save(str(base) + ".depth.tmp.npy", depth)
        Path(str(base) + ".depth.tmp.npy").replace(str(base) + ".depth.npy")
        (out_dir / f".tmp-{fid:06d}-color.png").replace(str(base) + ".color.png")
        seconds.append(time.perf_counter() - started)
    return seconds


def render_scan_room_shard(worker: Worker, spec: ScanRoomShard) -> dict[str, Any]:
    """The renderer of a `ScanRoomShard`: the room built once in a fresh file, the camera moved per frame."""
    started = time.perf_counter()
    worker.built = {"scan_room": spec.scene_id}
    seconds = render_scan_room(dataclasses.replace(spec, out_dir=str(worker.spec_path(spec.out_dir))))
    worker.scene = worker.bpy.context.scene
    return {"ok": True, "frames": len(seconds), "seconds": time.perf_counter() - started, "frame_seconds": seconds}
