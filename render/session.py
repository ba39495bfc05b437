"""One Blender session of the render worker: what a renderer is handed (`Worker`: the scene, the camera, what
it built between shards) and the shape of a renderer (`Renderer`). Renderers import this module, never
render/worker.py, which loads them."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


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
        self.spec_dir = Path.cwd()

    def spec_path(self, name: str) -> Path:
        """A path the spec being rendered names: a relative one is relative to the spec file's folder."""
        return self.spec_dir / name

    def fresh(self, built: dict[str, Any]) -> None:
        """An empty file to build a shard's scene in; `built` records what the shard will build there."""
        self.bpy.ops.wm.read_factory_settings(use_empty=True)
        self.scene = self.bpy.context.scene
        self.built = built

    def reset(self) -> None:
        """Back to an empty file, unless nothing has been built since the last reset."""
        if self.built:
            self.fresh({})


#: A renderer: (the worker, a shard) -> the reply `{"ok": True, "frames": N, "seconds": …}`.
Renderer = Callable[[Worker, Any], dict[str, Any]]
