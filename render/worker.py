"""The render worker process: `python -m benchfoundry.render.worker`.

Protocol: one JSON request per line on stdin — `{"op": "render", "spec": PATH}` or
`{"op": "quit"}` — and one JSON reply per line on the process's original stdout
(`{"ok": true, "frames": N, "seconds": …, "cpu_seconds": …}` or `{"ok": false, "error": …}`; `cpu_seconds`:
the process's CPU time, every Blender thread, since its previous reply, start-up included). Blender's own output
goes to stderr. A spec file holds one shard of benchfoundry/core/render_spec.py, and the worker dispatches
on its type through one table, `RENDERERS`: a `RigShard` (SynDORBench) keeps its camera, scene and person
between shards and rebuilds only what differs from the previous shard's; a `PanoramaShard`
(render/panorama_scene.py), a `CocoShard` (render/coco_scene.py) and a `ScanRoomShard` (render/scannet_room.py)
are built from an empty file, a `CocoShard`'s and a `ScanRoomShard`'s scene once for all its images.

The worker quits after `BENCHFOUNDRY_RENDER_IDLE_S` idle seconds (render/worker_env.py), so a worker left
behind on a long-lived process (a Dask worker) does not hold Blender and its GPU memory (the client,
tasks/common/render_client.py, stops sending to a worker shortly before that).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from benchfoundry.core.render_spec import CocoShard, PanoramaShard, RigShard, ScanRoomShard, Shard, read_spec
from benchfoundry.render.worker_env import idle_seconds


def _protocol_stream() -> TextIO:
    """Keep the real stdout for replies; send everything else written to fd 1 to stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


class Worker:
    """One Blender session; remembers what is built so consecutive shards can reuse it."""

    def __init__(self) -> None:
        import bpy

        self.bpy = bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = bpy.context.scene
        self.built: dict[str, Any] = {}
        self.camera: Any = None
        self.outputs: tuple[Path, Path] | None = None
        self.scratch = Path(tempfile.mkdtemp(prefix="benchfoundry-render-"))

    def render_shard(self, spec: Shard) -> dict[str, Any]:
        """The reply to one shard, rendered by its type's function in `RENDERERS`."""
        render = RENDERERS.get(type(spec))
        if render is None:
            raise TypeError(f"the render worker renders no {type(spec).__name__}")
        return render(self, spec)

    def render_rig(self, spec: RigShard) -> dict[str, Any]:
        """SynDORBench frames: the scene, the person and the rig camera, rebuilt only where they changed."""
        from benchfoundry.render.camera import place_camera, setup_camera
        from benchfoundry.render.engine import apply_engine
        from benchfoundry.render.lighting import apply_lighting
        from benchfoundry.render.passes import move_output, setup_outputs
        from benchfoundry.render.person import add_person, remove_person
        from benchfoundry.render.syndor_scene import build_scene

        started = time.perf_counter()
        setup_key = (spec.camera, spec.engine, spec.mask_index)
        if self.built.get("setup") != setup_key:
            self._reset()
            apply_engine(self.scene, spec.engine)
            self.camera = setup_camera(self.scene, spec.camera)
            self.outputs = setup_outputs(
                self.scene, str(self.scratch), spec.mask_index, spec.engine.image_format, spec.engine.jpeg_quality
            )
            self.built = {"setup": setup_key}
        scene_key = (spec.scene, spec.scene_seed)
        if self.built.get("scene") != scene_key:
            build_scene(self.scene, spec.scene, spec.scene_seed)
            self.built["scene"] = scene_key
        if self.built.get("person", False) != spec.person:
            remove_person()
            if spec.person is not None:
                add_person(self.scene, spec.person)
            self.built["person"] = spec.person
        image_file, mask_file = self.outputs  # type: ignore[misc]
        frame_seconds = []
        for frame in spec.frames:
            frame_start = time.perf_counter()
            if self.built.get("lighting") != frame.light:
                apply_lighting(frame.light, self.scene)
                self.built["lighting"] = frame.light
            place_camera(self.camera, frame.matrix_world)
            self.scene.cycles.seed = frame.seed
            self.bpy.ops.render.render()
            move_output(image_file, frame.rgb)
            move_output(mask_file, frame.mask)
            frame_seconds.append(time.perf_counter() - frame_start)
        return {
            "ok": True,
            "frames": len(spec.frames),
            "seconds": time.perf_counter() - started,
            "frame_seconds": frame_seconds,
        }

    def render_panorama(self, spec: PanoramaShard) -> dict[str, Any]:
        """An ODI-Bench synthetic panorama (render/panorama_scene.py), built in a fresh file."""
        from benchfoundry.render.panorama_scene import render_panorama

        started = time.perf_counter()
        self.bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = self.bpy.context.scene
        self.built = {"panorama": spec.image}
        render_panorama(self.scene, spec, self.scratch)
        return {"ok": True, "frames": 1, "seconds": time.perf_counter() - started}

    def render_coco(self, spec: CocoShard) -> dict[str, Any]:
        """Synthetic COCO images (render/coco_scene.py): the scene built once in a fresh file, changed per image."""
        from benchfoundry.render.coco_scene import render_coco

        started = time.perf_counter()
        self.bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = self.bpy.context.scene
        self.built = {"coco": spec.images[-1].image if spec.images else None}
        seconds = render_coco(self.scene, spec, self.scratch)
        return {"ok": True, "frames": len(seconds), "seconds": time.perf_counter() - started, "frame_seconds": seconds}

    def render_scan_room(self, spec: ScanRoomShard) -> dict[str, Any]:
        """A synthetic ScanNet room (render/scannet_room.py): built once in a fresh file, the camera moved per frame."""
        from benchfoundry.render.scannet_room import render_scan_room

        started = time.perf_counter()
        self.built = {"scan_room": spec.scene_id}
        seconds = render_scan_room(spec)
        self.scene = self.bpy.context.scene
        return {"ok": True, "frames": len(seconds), "seconds": time.perf_counter() - started, "frame_seconds": seconds}

    def _reset(self) -> None:
        """Back to an empty file, unless nothing has been built since the last reset."""
        if self.built:
            self.bpy.ops.wm.read_factory_settings(use_empty=True)
            self.scene = self.bpy.context.scene
            self.built = {}


#: The render function of every shard type: the one place a new shard type is added.
RENDERERS: dict[type, Callable[[Worker, Any], dict[str, Any]]] = {
    RigShard: Worker.render_rig,
    PanoramaShard: Worker.render_panorama,
    CocoShard: Worker.render_coco,
    ScanRoomShard: Worker.render_scan_room,
}


def main() -> int:
    proto = _protocol_stream()
    worker = Worker()
    proto.write(json.dumps({"ok": True, "ready": True, "pid": os.getpid()}) + "\n")
    try:
        _serve(worker, proto)
    finally:
        shutil.rmtree(worker.scratch, ignore_errors=True)
    return 0


def requests(fd: int, idle_s: float | None) -> Iterator[str]:
    """Request lines read from `fd`, until end of file or `idle_s` seconds without input."""
    pending = b""
    while True:
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            yield line.decode()
        ready, _, _ = select.select([fd], [], [], idle_s)
        chunk = os.read(fd, 65536) if ready else b""
        if not chunk:
            return
        pending += chunk


def _serve(worker: Worker, proto: TextIO) -> None:
    cpu_mark = 0.0
    for line in requests(sys.stdin.fileno(), idle_seconds(os.environ)):
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "quit":
            break
        try:
            reply = worker.render_shard(read_spec(Path(request["spec"])))
        except Exception as exc:
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        cpu = time.process_time()
        reply["cpu_seconds"], cpu_mark = round(cpu - cpu_mark, 3), cpu
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    sys.exit(main())
