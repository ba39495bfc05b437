"""The render contract: what the pipeline asks of the Blender worker, as plain typed values (no bpy).

This module holds what every scene shares: lights, the camera, the engine, the person, primitives, signs, mesh
parts and library objects. Each kind of scene is a frozen shard dataclass that a benchmark declares in its own
`scenes/spec.py` and registers with `spec_kind` (SynDORBench's rig, ODI-Bench's panorama, ViewSpatial-Bench's
COCO photos and scan rooms, a plug-in's). A stage writes a shard as JSON (`write_spec`) and hands the path to a
worker, which reads it back and dispatches on the kinds: on the shard's kind for its renderer
(render/worker.py), on the light's type for how to light it (render/lighting.py). Every value in the JSON carries
its `kind`, so reading needs no schema. Each shard type has a `version`, written into the JSON and so into every
hash of a spec: bump it when its renderer changes what that kind of image looks like.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from benchfoundry.core.atomic_files import write_json_atomic

_KINDS: dict[str, type] = {}


def spec_kind(cls: type) -> type:
    """Register a frozen spec dataclass under its `kind` (a class attribute), so that `from_json` reads it."""
    if cls.kind in _KINDS:
        raise ValueError(f"render spec kind {cls.kind!r} registered twice")
    _KINDS[cls.kind] = cls
    return cls


Vec3 = tuple[float, float, float]
Matrix4 = tuple[tuple[float, ...], ...]


# --- lights ---------------------------------------------------------------------------------------


@spec_kind
@dataclass(frozen=True)
class DayLight:
    """Physical sky and a sun lamp in the sky's sun direction. Bearings: 0 = north = +Y, 90 = east = +X."""

    kind: ClassVar[str] = "day"
    sun_elevation_deg: float
    sun_bearing_deg: float
    sun_strength: float  # sun lamp irradiance, W/m²
    sky_strength: float
    exposure: float  # film exposure, stops


@spec_kind
@dataclass(frozen=True)
class NightLight:
    """A dim moon lamp and a near-black sky."""

    kind: ClassVar[str] = "night"
    moon_strength: float
    moon_elevation_deg: float
    moon_bearing_deg: float
    sky_color: Vec3
    exposure: float


@spec_kind
@dataclass(frozen=True)
class AreaLamp:
    kind: ClassVar[str] = "area_lamp"
    location: Vec3
    size: float  # side, m
    power: float  # W


@spec_kind
@dataclass(frozen=True)
class IndoorLight:
    """Area lamps under a ceiling and a plain ambient world colour."""

    kind: ClassVar[str] = "indoor"
    ambient: Vec3
    lamps: tuple[AreaLamp, ...]


Light = DayLight | NightLight | IndoorLight


# --- what is in a scene ---------------------------------------------------------------------------


@spec_kind
@dataclass(frozen=True)
class PersonSpec:
    """A posed body mesh (.npz, person/body_mesh.py) with its UV texture, placed and turned about +Z."""

    kind: ClassVar[str] = "person"
    mesh: str
    texture: str
    pass_index: int
    mesh_sha: str | None = None
    location: Vec3 = (0.0, 0.0, 0.0)
    yaw_deg: float = 0.0


#: Procedural surfaces a primitive may have (render/surfaces.py builds them from Blender's shader nodes).
SURFACES = ("wood", "planks", "paving", "tile", "plaster", "stone", "fabric", "carpet", "glass", "window")
#: Part of the hash of every scene that uses them: bump it when render/surfaces.py draws a surface differently.
SURFACE_VERSION = 1


@spec_kind
@dataclass(frozen=True)
class Primitive:
    """A unit box, cylinder or sphere scaled to `size` (full extents, m), turned by `yaw_deg` about +Z."""

    kind: ClassVar[str] = "primitive"
    shape: str
    center: Vec3
    size: Vec3
    yaw_deg: float
    rgb: Vec3  # linear
    roughness: float
    metallic: float
    pass_index: int = 0
    name: str = ""
    surface: str = ""  # one of SURFACES (render/surfaces.py), "" plain


@spec_kind
@dataclass(frozen=True)
class Sign:
    """Upright text in Blender's built-in font, facing along its yaw."""

    kind: ClassVar[str] = "sign"
    text: str
    center: Vec3
    char_height: float
    yaw_deg: float
    rgb: Vec3


@spec_kind
@dataclass(frozen=True)
class MeshPart:
    """A coloured triangle mesh (the synthetic ScanNet room's furniture and walls)."""

    kind: ClassVar[str] = "mesh_part"
    name: str
    vertices: tuple[Vec3, ...]
    faces: tuple[tuple[int, ...], ...]
    color: Vec3
    surface: str = ""  # one of SURFACES (render/surfaces.py), "" plain


@spec_kind
@dataclass(frozen=True)
class LibraryObject:
    """An object appended from an asset library's `.blend` (an asset library's manifest): `object_name` in
    `blend` (of SHA-256 `sha256`), its origin at `location`, turned by `yaw_deg` about +Z, scaled uniformly."""

    kind: ClassVar[str] = "library_object"
    blend: str
    object_name: str
    sha256: str
    location: Vec3
    yaw_deg: float
    scale: float
    pass_index: int


# --- camera and engine ----------------------------------------------------------------------------


@spec_kind
@dataclass(frozen=True)
class PinholeCamera:
    """A render's intrinsics as Blender takes them (vertical sensor fit: f_px = resolution_h · focal_mm /
    sensor_height_mm, square pixels, centred); the pose comes per frame. Built from `dori.DoriOptics` plus a
    width; the synthetic COCO set's posed pixel camera is
    `synthetic_geometry.PosedCamera` of the synthetic COCO set."""

    kind: ClassVar[str] = "pinhole"
    focal_mm: float
    sensor_height_mm: float
    resolution_w: int
    resolution_h: int


@spec_kind
@dataclass(frozen=True)
class EngineSettings:
    """Cycles: device, samples, denoising (OpenImageDenoise with albedo and normal passes; `denoise_prefilter`
    ACCURATE denoises those passes too, FAST takes them as they are; `denoise_quality` HIGH, BALANCED or FAST picks
    the network), adaptive sampling (`adaptive_threshold`: the noise level at which a pixel stops sampling; 0: off,
    every pixel gets `samples`), bounces, threads (0: all), output format; `persistent_data` keeps the scene's BVH
    between frames of one file."""

    kind: ClassVar[str] = "engine"
    device: str
    samples: int
    denoise: bool
    max_bounces: int
    adaptive_threshold: float = 0.0
    denoise_prefilter: str = "ACCURATE"
    denoise_quality: str = "HIGH"
    threads: int = 0
    image_format: str = "PNG"
    jpeg_quality: int = 95
    persistent_data: bool = False


class DenoisedRender(Protocol):
    """A render config with the denoiser's settings (the panoramas', the synthetic photos')."""

    device: str
    samples: int
    denoise: bool
    adaptive_threshold: float
    denoise_prefilter: str
    denoise_quality: str


def denoised_engine(render: DenoisedRender, max_bounces: int) -> EngineSettings:
    """The Cycles settings of such a config."""
    return EngineSettings(
        device=render.device,
        samples=render.samples,
        denoise=render.denoise,
        max_bounces=max_bounces,
        adaptive_threshold=render.adaptive_threshold,
        denoise_prefilter=render.denoise_prefilter,
        denoise_quality=render.denoise_quality,
    )


# --- JSON -----------------------------------------------------------------------------------------


def to_json(value: Any) -> Any:
    """A spec value as JSON data: dataclasses as objects with their `kind` (and a shard's `version`)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data: dict[str, Any] = {"kind": value.kind}
        if hasattr(type(value), "version"):
            data["version"] = type(value).version
        data.update({f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)})
        return data
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    return value


def from_json(data: Any) -> Any:
    """The inverse of `to_json`: objects by their `kind`, lists as tuples. A shard written by another version
    of its kind is refused."""
    if isinstance(data, list):
        return tuple(from_json(v) for v in data)
    if not isinstance(data, dict):
        return data
    kind = data.get("kind")
    cls = _KINDS.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"render spec: unknown kind {kind!r}; known: {sorted(_KINDS)}")
    values = {k: from_json(v) for k, v in data.items() if k not in ("kind", "version")}
    if hasattr(cls, "version") and data.get("version") != cls.version:
        raise ValueError(
            f"render spec: a {kind} shard of version {data.get('version')}, this worker renders version {cls.version}"
        )
    return cls(**values)


def write_spec(path: str | Path, shard: Any) -> Path:
    """The shard as JSON at `path` (atomically)."""
    return write_json_atomic(Path(path), to_json(shard))


def read_spec(path: str | Path) -> Any:
    """The shard in a spec file; its kind's spec module must have been imported (the renderer's does)."""
    return from_json(json.loads(Path(path).read_text()))
