"""The renderer of a `RigShard`: a person in an environment seen from a camera rig, frame after frame.

A frame's pixels are its own, whatever the worker rendered before it: a shard of another scene, camera or engine
starts from a fresh file (a scene rebuilt in place after another one left Cycles' kept data in another state: a few
grey levels apart), the person is replaced where it differs from the previous shard's, and each frame's seed is
its own (with persistent data Cycles reads a changed seed only with a scene update: without one, the frames after the
first of a lighting took that first frame's seed)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from benchfoundry.benchmarks.syndor.scenes.outdoor_scene import build_scene
from benchfoundry.benchmarks.syndor.scenes.spec import RigShard
from benchfoundry.render.camera import place_camera, setup_camera
from benchfoundry.render.engine import apply_engine
from benchfoundry.render.lighting import apply_lighting
from benchfoundry.render.passes import move_output, setup_outputs
from benchfoundry.render.person import add_person, remove_person

if TYPE_CHECKING:
    from benchfoundry.render.session import Worker


def render_rig(worker: Worker, spec: RigShard) -> dict[str, Any]:
    """The shard's frames: the file with its scene and camera, and the person, kept from the previous shard where
    they are the same."""
    started = time.perf_counter()
    setup_key = (spec.camera, spec.engine, spec.mask_index, spec.scene, spec.scene_seed)
    if worker.built.get("setup") != setup_key:
        worker.reset()
        apply_engine(worker.scene, spec.engine)
        worker.camera = setup_camera(worker.scene, spec.camera)
        worker.outputs = setup_outputs(
            worker.scene, str(worker.scratch), spec.mask_index, spec.engine.image_format, spec.engine.jpeg_quality
        )
        build_scene(worker.scene, spec.scene, spec.scene_seed)
        worker.built = {"setup": setup_key}
    if worker.built.get("person", False) != spec.person:
        remove_person()
        if spec.person is not None:
            add_person(worker.scene, spec.person)
        worker.built["person"] = spec.person
    image_file, mask_file = worker.outputs  # type: ignore[misc]
    frame_seconds = []
    for frame in spec.frames:
        frame_start = time.perf_counter()
        if worker.built.get("lighting") != frame.light:
            apply_lighting(frame.light, worker.scene)
            worker.built["lighting"] = frame.light
        place_camera(worker.camera, frame.matrix_world)
        worker.scene.cycles.seed = frame.seed
        worker.scene.update_tag()  # the seed is read with the scene's update (persistent data)
        worker.bpy.ops.render.render()
        move_output(image_file, frame.rgb)
        move_output(mask_file, frame.mask)
        frame_seconds.append(time.perf_counter() - frame_start)
    return {
        "ok": True,
        "frames": len(spec.frames),
        "seconds": time.perf_counter() - started,
        "frame_seconds": frame_seconds,
    }
