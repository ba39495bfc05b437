"""Synthetic COCO images (ViewSpatial-Bench's embedded default): the posed people, a floor and a few
coloured primitives seen by a pinhole camera.

The spec (a `CocoShard`) comes from `tasks/viewspatial/synthetic_coco.make_split`: one image after another,
each built in a fresh file. Each person and each object has its own pass index, so the object-index pass
gives exact masks; the colour image goes to a PNG and the index pass, as float32 `.npy`, beside it.
Runs inside the render worker (render/worker.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import bpy

from benchfoundry.core.render_spec import CocoImage, CocoShard, PinholeCamera
from benchfoundry.render.camera import place_camera, setup_camera
from benchfoundry.render.engine import apply_engine
from benchfoundry.render.lighting import apply_lighting
from benchfoundry.render.objects import add_primitive
from benchfoundry.render.passes import render_with_index
from benchfoundry.render.person import add_person


def render_image(scene: Any, spec: CocoShard, image: CocoImage, scratch: Path) -> None:
    """Build one image's scene in the (empty) `scene`, render, move the image and the index pass."""
    apply_engine(scene, spec.engine, image.seed)
    camera = setup_camera(
        scene,
        PinholeCamera(
            focal_mm=image.focal_mm,
            sensor_height_mm=spec.sensor_height_mm,
            resolution_w=spec.width,
            resolution_h=spec.height,
        ),
    )
    place_camera(camera, image.camera_matrix)
    for k, part in enumerate(image.parts):
        add_primitive(scene, f"part{k:02d}", part)
    for person in image.people:
        add_person(scene, person)
    apply_lighting(image.light, scene)
    render_with_index(scene, scratch, image.image, image.index_npy)


def render_coco(spec: CocoShard, scratch: Path) -> list[float]:
    """Render every image of the spec, each in a fresh file; returns seconds per image."""
    seconds = []
    for image in spec.images:
        started = time.perf_counter()
        bpy.ops.wm.read_factory_settings(use_empty=True)
        render_image(bpy.context.scene, spec, image, scratch)
        seconds.append(time.perf_counter() - started)
    return seconds
