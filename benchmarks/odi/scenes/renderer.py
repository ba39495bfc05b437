"""Synthetic ERP panoramas (an embedded default): a scene of labelled primitives, people and
signs seen by Blender's equirectangular camera.

The spec (a `PanoramaShard`) comes from a benchmark's synthetic panoramas: every labelled object
carries its instance id as pass index, so the object-index pass is the ground-truth instance map
(render/passes.py). Runs inside the render worker (render/worker.py).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy

from benchfoundry.benchmarks.odi.scenes.spec import PanoramaShard
from benchfoundry.core.render_spec import LibraryObject
from benchfoundry.render.engine import apply_engine
from benchfoundry.render.lighting import apply_lighting
from benchfoundry.render.objects import add_library_object, add_primitive, add_sign
from benchfoundry.render.passes import index_outputs, render_indexed
from benchfoundry.render.person import add_person

if TYPE_CHECKING:
    from benchfoundry.render.session import Worker


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


def render_panorama(scene: Any, spec: PanoramaShard, scratch: Path) -> None:
    """Build the spec's scene in the (empty) `scene`, render once, move image and index pass to the spec's paths."""
    apply_engine(scene, spec.engine, spec.seed)
    scene.render.resolution_x, scene.render.resolution_y = spec.width, spec.width // 2
    scene.render.resolution_percentage = 100
    _camera(scene, spec.camera_height_m)
    for part in spec.structure:
        add_primitive(scene, part.name, part)
    for inst in spec.instances:
        for k, part in enumerate(inst.parts):
            if isinstance(part, LibraryObject):
                add_library_object(scene, f"i{inst.id:03d}_{k}", part)
            else:
                add_primitive(scene, f"i{inst.id:03d}_{k}", part)
        for k, sign in enumerate(inst.signs):
            add_sign(scene, f"i{inst.id:03d}_text{k}", sign, inst.id)
        if inst.person is not None:
            add_person(scene, inst.person).name = f"i{inst.id:03d}_person"
    apply_lighting(spec.light, scene)
    render_indexed(index_outputs(scene, scratch), spec.image, spec.index_npy)


def render_panorama_shard(worker: Worker, spec: PanoramaShard) -> dict[str, Any]:
    """The renderer of a `PanoramaShard`: the panorama built in a fresh file."""
    started = time.perf_counter()
    worker.fresh({"panorama": spec.image})
    render_panorama(worker.scene, spec, worker.scratch)
    return {"ok": True, "frames": 1, "seconds": time.perf_counter() - started}
