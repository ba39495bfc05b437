"""Toy-Bench's kind of scene in the render contract (benchfoundry/core/render_spec.py): a cube of one colour
seen by a pinhole camera. Importing this module registers the kind; it imports no bpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from benchfoundry.core.render_spec import EngineSettings, PinholeCamera, spec_kind


@spec_kind
@dataclass(frozen=True)
class CubeShard:
    """One image: an emissive cube of colour `rgb` (linear) turned by `yaw_deg` about +Z at the origin, the camera
    4 m away along -Y looking at it, a plain `background` world; the PNG goes to `image`."""

    kind: ClassVar[str] = "toy_scene"
    version: ClassVar[int] = 1
    image: str
    rgb: tuple[float, float, float]
    yaw_deg: float
    background: tuple[float, float, float]
    camera: PinholeCamera
    engine: EngineSettings
