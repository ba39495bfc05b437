"""SynDORBench's kind of scene in the render contract (benchfoundry/core/render_spec.py): a person seen
by a camera rig, frame after frame. Importing this module registers the kind; it imports no bpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from benchfoundry.core.render_spec import EngineSettings, Light, Matrix4, PersonSpec, PinholeCamera, spec_kind


@spec_kind
@dataclass(frozen=True)
class RigFrame:
    """One rig camera's frame: a Blender camera-to-world matrix, its seed and light, where the files go."""

    kind: ClassVar[str] = "rig_frame"
    matrix_world: Matrix4
    seed: int
    light: Light
    rgb: str
    mask: str


@spec_kind
@dataclass(frozen=True)
class RigShard:
    """A camera rig: one scene (props placed by `scene_seed`) and person (None: an empty scene), many frames;
    each frame's mask holds the pixels of object index `mask_index` (the person's pass index). Version 2: each
    frame rendered with its own seed and its scene in a fresh file (benchmarks/syndor/scenes/renderer.py)."""

    kind: ClassVar[str] = "rig"
    version: ClassVar[int] = 2
    scene: str
    scene_seed: int
    person: PersonSpec | None
    mask_index: int
    camera: PinholeCamera
    engine: EngineSettings
    frames: tuple[RigFrame, ...]
