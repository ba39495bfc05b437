"""Synthetic COCO images (an embedded default): the posed people, a floor and a few
coloured primitives seen by a pinhole camera.

The spec (a `CocoShard`) comes from a benchmark's synthetic COCO set. The scene is built once per
shard (`CocoScene`: engine, outputs, camera, world and sun, the people's meshes and one material per texture);
between images only the people (their vertices, in place, when the topology is the same; a person more or
fewer), the camera, the objects, the light and the seed change. Objects are linked in the order a fresh file
would have them (camera, parts, people, lamp), so an image has the same bytes whatever was rendered before it
in the shard.
Each image has its own sun, so Cycles rebuilds the sky's importance map for each: `light` makes it the
resolution render/lighting.py sets (manual sampling) instead of Cycles' automatic one, which took half of an
image's time (0.6 of 1.3 s at 240×320, 8 samples; the images differ only in noise, 47–52 dB apart, and the
index pass not at all).
Each person and each object has its own pass index, so the object-index pass gives exact masks; the
colour image goes to a PNG and the index pass, as float32 `.npy`, beside it. Runs inside the render worker
(render/worker.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bpy

from benchfoundry.benchmarks.viewspatial.coco.scenes.spec import CocoImage, CocoShard
from benchfoundry.core.render_spec import Light, PersonSpec, PinholeCamera, Primitive
from benchfoundry.render.camera import place_camera, setup_camera
from benchfoundry.render.engine import apply_engine
from benchfoundry.render.lighting import apply_lighting
from benchfoundry.render.objects import add_primitive, remove_object
from benchfoundry.render.passes import IndexOutputs, index_outputs, render_indexed
from benchfoundry.render.person import PERSON_NAME, PersonMeshes

if TYPE_CHECKING:
    from benchfoundry.render.session import Worker


def light(light_spec: Light, scene: Any) -> None:
    """Light the scene (render/lighting.py) with the world's importance map at the resolution set there."""
    apply_lighting(light_spec, scene)
    scene.world.cycles.sampling_method = "MANUAL"


class CocoScene:
    """One shard's scene in the (empty) `scene`: built at the first image, changed in place for the next."""

    def __init__(self, scene: Any, spec: CocoShard, scratch: Path) -> None:
        self.scene, self.spec = scene, spec
        apply_engine(scene, spec.engine)
        self.camera = setup_camera(scene, self._pinhole(spec.images[0].focal_mm if spec.images else 50.0))
        self.outputs: IndexOutputs = index_outputs(scene, scratch)
        self.people = PersonMeshes(scene)
        self.parts: list[tuple[Primitive, Any]] = []
        self.placed: list[str] = []

    def _pinhole(self, focal_mm: float) -> PinholeCamera:
        s = self.spec
        return PinholeCamera(
            focal_mm=focal_mm, sensor_height_mm=s.sensor_height_mm, resolution_w=s.width, resolution_h=s.height
        )

    def _set_parts(self, parts: tuple[Primitive, ...]) -> None:
        """Keep the longest run of leading parts that did not change; rebuild the rest in order."""
        keep = 0
        while keep < min(len(parts), len(self.parts)) and self.parts[keep][0] == parts[keep]:
            keep += 1
        for _, obj in self.parts[keep:]:
            remove_object(obj)
        self.parts = self.parts[:keep] + [
            (part, add_primitive(self.scene, f"part{k:02d}", part)) for k, part in enumerate(parts) if k >= keep
        ]

    def _set_people(self, people: tuple[PersonSpec, ...]) -> list[Any]:
        """The image's people as `person`, `person.001`, … (a fresh file's names); people of the last image
        beyond this one's count are removed."""
        names = [PERSON_NAME if k == 0 else f"{PERSON_NAME}.{k:03d}" for k in range(len(people))]
        for name in self.placed[len(names) :]:
            self.people.remove(name)
        self.placed = names
        return [self.people.place(person, name) for person, name in zip(people, names)]

    def render(self, image: CocoImage) -> None:
        """Change the scene to `image`, render, move the image and the index pass to the spec's paths."""
        self.scene.cycles.seed = image.seed
        self.camera.data.lens = image.focal_mm
        place_camera(self.camera, image.camera_matrix)
        self._set_parts(image.parts)
        people = self._set_people(image.people)
        light(image.light, self.scene)
        # A fresh file links the people and the lamp after the parts: relink them last, in that order.
        for obj in (*people, bpy.data.objects["light_lamp"]):
            self.scene.collection.objects.unlink(obj)
            self.scene.collection.objects.link(obj)
        render_indexed(self.outputs, image.image, image.index_npy)


def render_coco(scene: Any, spec: CocoShard, scratch: Path) -> list[float]:
    """Render every image of the spec in the (empty) `scene`; returns seconds per image (the first one includes
    building the scene)."""
    seconds = []
    started = time.perf_counter()
    coco = CocoScene(scene, spec, scratch)
    for image in spec.images:
        coco.render(image)
        now = time.perf_counter()
        seconds.append(now - started)
        started = now
    return seconds


def render_coco_shard(worker: Worker, spec: CocoShard) -> dict[str, Any]:
    """The renderer of a `CocoShard`: the scene built once in a fresh file, changed per image."""
    started = time.perf_counter()
    worker.fresh({"coco": spec.images[-1].image if spec.images else None})
    seconds = render_coco(worker.scene, spec, worker.scratch)
    return {"ok": True, "frames": len(seconds), "seconds": time.perf_counter() - started, "frame_seconds": seconds}
