"""ODI-Bench's kind of scene in the render contract (benchfoundry/core/render_spec.py): a panorama of a room
or courtyard with labelled instances. Importing this module registers the kind; it imports no bpy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from benchfoundry.core.render_spec import EngineSettings, LibraryObject, Light, PersonSpec, Primitive, Sign, spec_kind


@spec_kind
@dataclass(frozen=True)
class PanoramaInstance:
    """A labelled object: its parts, signs and person all carry its id as pass index."""

    kind: ClassVar[str] = "panorama_instance"
    id: int
    parts: tuple[Primitive | LibraryObject, ...] = ()
    signs: tuple[Sign, ...] = ()
    person: PersonSpec | None = None


@spec_kind
@dataclass(frozen=True)
class PanoramaShard:
    """A panorama: one equirectangular render (width × width/2) from (0, 0, camera height) along +Y."""

    kind: ClassVar[str] = "panorama"
    version: ClassVar[int] = 1
    scene: str
    width: int
    engine: EngineSettings
    seed: int
    camera_height_m: float
    structure: tuple[Primitive, ...]
    instances: tuple[PanoramaInstance, ...]
    light: Light
    image: str
    index_npy: str
