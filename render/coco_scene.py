"""Synthetic COCO images (ViewSpatial-Bench's embedded default): the posed person, a floor and a few
coloured primitives seen by a pinhole camera.

The spec comes from `tasks/viewspatial/synthetic_coco.render_spec`: one entry per image, each built in a
fresh file. The person has pass index 1 and each object its own index, so the object-index pass gives
exact masks; the colour image goes to a PNG and the index pass, as float32 `.npy`, beside it. Runs
inside the render worker (render/worker.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import bpy

from benchfoundry.render.camera import place_camera, setup_camera
from benchfoundry.render.lighting import apply_lighting
from benchfoundry.render.panorama_scene import _part, render_with_index
from benchfoundry.render.person import add_person


def _settings(scene: Any, spec: dict[str, Any], seed: int) -> None:
    scene.render.engine = "CYCLES"
    for name in dir(scene.render):
        if name.startswith("use_stamp"):
            setattr(scene.render, name, False)
    scene.display_settings.display_device = "sRGB"
    scene.view_settings.view_transform = "AgX"
    scene.view_settings.look = "None"
    cycles = scene.cycles
    if spec["device"] != "CPU":  # preferences are reset with the file: enable the devices again
        from benchfoundry.render.worker import _enable_gpu

        _enable_gpu(bpy, spec["device"])
    cycles.device = "CPU" if spec["device"] == "CPU" else "GPU"
    cycles.samples = spec["samples"]
    cycles.seed = seed
    cycles.use_adaptive_sampling = False
    cycles.use_denoising = False
    cycles.max_bounces = 3


def render_image(scene: Any, spec: dict[str, Any], image: dict[str, Any], scratch: Path) -> None:
    """Build one image's scene in the (empty) `scene`, render, move the image and the index pass."""
    _settings(scene, spec, image["seed"])
    camera = setup_camera(scene, image["focal_mm"], spec["sensor_height_mm"], spec["width"], spec["height"])
    place_camera(camera, image["camera_matrix"])
    for k, part in enumerate(image["parts"]):
        _part(scene, f"part{k:02d}", part, part["pass_index"])
    person = image["person"]
    add_person(scene, person["mesh"], person["texture"], person["pass_index"])
    apply_lighting(scene, image["lighting"])
    render_with_index(scene, scratch, image["outputs"]["image"], image["outputs"]["index_npy"])


def render_coco(spec: dict[str, Any], scratch: Path) -> list[float]:
    """Render every image of the spec, each in a fresh file; returns seconds per image."""
    seconds = []
    for image in spec["images"]:
        started = time.perf_counter()
        bpy.ops.wm.read_factory_settings(use_empty=True)
        render_image(bpy.context.scene, spec, image, scratch)
        seconds.append(time.perf_counter() - started)
    return seconds
