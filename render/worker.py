"""The render worker process: `python -m benchfoundry.render.worker`.

Protocol: one JSON request per line on stdin — `{"op": "render", "spec": PATH}` or
`{"op": "quit"}` — and one JSON reply per line on the process's original stdout
(`{"ok": true, "frames": N, "seconds": …}` or `{"ok": false, "error": …}`). Blender's own output
goes to stderr. A shard spec (written by tasks/syndor/render_shards.py) names the scene, the person
mesh and texture (a null mesh: an empty scene, no person), the camera intrinsics, the render
settings and the frames; the scene and the person are rebuilt only when they differ from the
previous shard's. A spec with `"kind": "panorama"` is an ODI-Bench synthetic panorama
(render/panorama_scene.py), built from an empty file; one with `"kind": "coco"` holds synthetic COCO
images (render/coco_scene.py), each built from an empty file.

The worker also quits after `BENCHFOUNDRY_RENDER_IDLE_S` seconds (default 600; 0: never) without a
request, so a worker left behind on a long-lived process (a Dask worker) does not hold Blender and its
GPU memory (the client, tasks/common/render_client.py, stops sending to a worker shortly before that). With `BENCHFOUNDRY_GPU_INDEX=i` set, a GPU render enables only the i-th device of the
configured type (modulo their count) instead of all of them.
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
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence, TextIO

GPU_INDEX_ENV = "BENCHFOUNDRY_GPU_INDEX"
IDLE_ENV = "BENCHFOUNDRY_RENDER_IDLE_S"
DEFAULT_IDLE_S = 600.0


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

    def render_shard(self, spec: dict[str, Any]) -> dict[str, Any]:
        if spec.get("kind") == "panorama":
            return self.render_panorama(spec)
        if spec.get("kind") == "coco":
            return self.render_coco(spec)
        from benchfoundry.render.camera import place_camera, setup_camera
        from benchfoundry.render.lighting import apply_lighting
        from benchfoundry.render.passes import move_output, setup_outputs
        from benchfoundry.render.person import add_person, remove_person
        from benchfoundry.render.scene import build_scene

        started = time.perf_counter()
        setup_key = json.dumps([spec["camera"], spec["render"]], sort_keys=True)
        if self.built.get("setup") != setup_key:
            self._reset()
            self._apply_settings(spec["render"])
            self.camera = setup_camera(self.scene, **spec["camera"])
            self.outputs = setup_outputs(self.scene, str(self.scratch), spec["person"]["pass_index"],
                                         spec["render"]["image_format"], spec["render"]["jpeg_quality"])
            self.built = {"setup": setup_key}
        scene_key = [spec["scene"]["name"], spec["scene"]["seed"]]
        if self.built.get("scene") != scene_key:
            build_scene(self.scene, spec["scene"]["name"], spec["scene"]["seed"])
            self.built["scene"] = scene_key
        person_key = [spec["person"]["mesh"], spec["person"]["texture"], spec["person"]["mesh_sha"]]
        if self.built.get("person") != person_key:
            remove_person()
            if spec["person"]["mesh"] is not None:
                add_person(self.scene, spec["person"]["mesh"], spec["person"]["texture"], spec["person"]["pass_index"])
            self.built["person"] = person_key
        image_file, mask_file = self.outputs  # type: ignore[misc]
        frame_seconds = []
        for frame in spec["frames"]:
            frame_start = time.perf_counter()
            if self.built.get("lighting") != frame["lighting"]:
                apply_lighting(self.scene, frame["lighting"])
                self.built["lighting"] = frame["lighting"]
            place_camera(self.camera, frame["matrix_world"])
            self.scene.cycles.seed = frame["seed"]
            self.bpy.ops.render.render()
            move_output(image_file, frame["rgb"])
            move_output(mask_file, frame["mask"])
            frame_seconds.append(time.perf_counter() - frame_start)
        return {"ok": True, "frames": len(spec["frames"]), "seconds": time.perf_counter() - started,
                "frame_seconds": frame_seconds}

    def render_panorama(self, spec: dict[str, Any]) -> dict[str, Any]:
        """An ODI-Bench synthetic panorama (render/panorama_scene.py), built in a fresh file."""
        from benchfoundry.render.panorama_scene import render_panorama

        started = time.perf_counter()
        self.bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = self.bpy.context.scene
        self.built = {"panorama": spec["outputs"]["image"]}
        render_panorama(self.scene, spec, self.scratch)
        return {"ok": True, "frames": 1, "seconds": time.perf_counter() - started}

    def render_coco(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Synthetic COCO images (render/coco_scene.py), each built in a fresh file."""
        from benchfoundry.render.coco_scene import render_coco

        started = time.perf_counter()
        seconds = render_coco(spec, self.scratch)
        self.scene = self.bpy.context.scene
        self.built = {"coco": spec["images"][-1]["outputs"]["image"] if spec["images"] else None}
        return {"ok": True, "frames": len(seconds), "seconds": time.perf_counter() - started,
                "frame_seconds": seconds}

    def _reset(self) -> None:
        """Back to an empty file, unless nothing has been built since the last reset."""
        if self.built:
            self.bpy.ops.wm.read_factory_settings(use_empty=True)
            self.scene = self.bpy.context.scene
            self.built = {}

    def _apply_settings(self, settings: dict[str, Any]) -> None:
        """Cycles on the configured device, samples, denoiser, bounces."""
        scene = self.scene
        scene.render.engine = "CYCLES"
        scene.render.use_persistent_data = True  # keep BVH, shaders and world map between frames
        for name in dir(scene.render):
            if name.startswith("use_stamp"):
                setattr(scene.render, name, False)  # no date or timing metadata: same input, same bytes
        # Pinned, not left to Blender's factory default: the frames are the camera's display-referred
        # output (AgX tone curve, sRGB display), which the night-vision chain linearises with inverse sRGB.
        scene.display_settings.display_device = "sRGB"
        scene.view_settings.view_transform = "AgX"
        scene.view_settings.look = "None"
        scene.view_settings.gamma = 1.0
        cycles = scene.cycles
        if settings["device"] == "CPU":
            cycles.device = "CPU"
        else:
            _enable_gpu(self.bpy, settings["device"])
            cycles.device = "GPU"
        cycles.samples = settings["samples"]
        cycles.use_adaptive_sampling = False
        cycles.use_denoising = settings["denoise"]
        cycles.denoiser = "OPENIMAGEDENOISE"
        cycles.max_bounces = settings["max_bounces"]
        cycles.use_animated_seed = False
        if settings.get("threads"):
            scene.render.threads_mode = "FIXED"
            scene.render.threads = settings["threads"]


def devices_to_use(types: Sequence[str], device_type: str, index: int | None) -> list[bool]:
    """Which of Blender's devices (by type) to enable: all of `device_type`, or only the `index`-th of them."""
    matching = [i for i, t in enumerate(types) if t == device_type]
    if not matching:
        raise RuntimeError(f"render.device {device_type}: Blender finds no such device")
    chosen = set(matching) if index is None else {matching[index % len(matching)]}
    return [i in chosen for i in range(len(types))]


def gpu_index(environ: Mapping[str, str]) -> int | None:
    """The device slot this worker is pinned to (`BENCHFOUNDRY_GPU_INDEX`), or None for every device."""
    value = environ.get(GPU_INDEX_ENV, "").strip()
    return int(value) if value else None


def idle_seconds(environ: Mapping[str, str]) -> float | None:
    """Seconds without a request after which the worker quits (`BENCHFOUNDRY_RENDER_IDLE_S`); None: never."""
    value = environ.get(IDLE_ENV, "").strip()
    seconds = float(value) if value else DEFAULT_IDLE_S
    return seconds if seconds > 0 else None


def _enable_gpu(bpy: Any, device_type: str) -> None:
    prefs = bpy.context.preferences.addons["cycles"].preferences
    prefs.compute_device_type = device_type
    prefs.get_devices()
    devices = list(prefs.devices)
    use = devices_to_use([d.type for d in devices], device_type, gpu_index(os.environ))
    for device, on in zip(devices, use):
        device.use = on


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
    for line in requests(sys.stdin.fileno(), idle_seconds(os.environ)):
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("op") == "quit":
            break
        try:
            spec = json.loads(Path(request["spec"]).read_text())
            reply = worker.render_shard(spec)
        except Exception as exc:  # noqa: BLE001 - reported to the client, which fails the shard
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        proto.write(json.dumps(reply) + "\n")


if __name__ == "__main__":
    sys.exit(main())
