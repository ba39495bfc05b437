"""The synthetic COCO set's kind of scene in the render contract (benchfoundry/core/render_spec.py): photos
of people. Importing this module registers the kind; it imports no bpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from benchfoundry.core.render_spec import EngineSettings, Light, Matrix4, PersonSpec, Primitive, spec_kind


@spec_kind
@dataclass(frozen=True)
class CocoImage:
    """One synthetic COCO image: a Blender camera matrix, the floor and objects, the people, a light."""

    kind: ClassVar[str] = "coco_image"
    seed: int
    camera_matrix: Matrix4
    focal_mm: float
    parts: tuple[Primitive, ...]
    people: tuple[PersonSpec, ...]
    light: Light
    image: str
    index_npy: str


@spec_kind
@dataclass(frozen=True)
class CocoShard:
    kind: ClassVar[str] = "coco"
    version: ClassVar[int] = 5
    width: int
    height: int
    sensor_height_mm: float
    engine: EngineSettings
    images: tuple[CocoImage, ...]
