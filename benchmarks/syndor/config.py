"""Config of the SynDORBench build (docs/design/syndor.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.benchmarks.syndor.discern_config import DiscernConfig
from benchfoundry.benchmarks.syndor.pose_config import PoseConfig
from benchfoundry.benchmarks.syndor.qa_config import TASK_PROMPTS, QaConfig
from benchfoundry.benchmarks.syndor.scenes import dori
from benchfoundry.benchmarks.syndor.scenes.lighting import LIGHTINGS, TIMES_OF_DAY, lighting
from benchfoundry.configs.base import (
    MAX_SECONDS,
    MAX_SIDE_PX,
    DenoisePrefilter,
    DenoiseQuality,
    NonEmptyList,
    RenderDevice,
    Section,
)
from benchfoundry.configs.person import MOVED_TO_PERSON

#: The released rig: 8 azimuths 45° apart × 4 elevations 22.5° apart; `cam = az_idx·4 + el_idx`.
AZIMUTH_STEP_DEG = 45.0
ELEVATION_STEP_DEG = 22.5
N_ELEVATIONS = 4
SCENES = ("desert", "field", "wharf")
#: A zone's pixel density: finite and above 0 (0 would put the camera infinitely far away).
PixelsPerMetre = Annotated[float, Field(gt=0, allow_inf_nan=False)]


class CameraConfig(Section):
    """The pinhole camera (docs/design/syndor.md §1): a preset, or explicit values that override it."""

    preset: str | None = "paper"
    resolution_w: int = Field(1920, gt=0, le=MAX_SIDE_PX)
    resolution_h: int | None = Field(None, gt=0, le=MAX_SIDE_PX)
    focal_mm: float | None = Field(None, gt=0)
    sensor_height_mm: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _known_preset(self) -> CameraConfig:
        if self.preset is not None and self.preset not in dori.PRESETS:
            raise ValueError(f"unknown camera preset {self.preset!r}; known: {sorted(dori.PRESETS)}")
        if self.preset is None and None in (self.resolution_h, self.focal_mm, self.sensor_height_mm):
            raise ValueError("without a preset, resolution_h, focal_mm and sensor_height_mm are required")
        return self

    def spec(self) -> dori.DoriOptics:
        """The resolved pinhole spec: the preset's values, overridden by explicit ones."""
        base = dori.PRESETS[self.preset] if self.preset else None
        return dori.DoriOptics(
            resolution_h=self.resolution_h or base.resolution_h,  # type: ignore[union-attr]
            focal_mm=self.focal_mm or base.focal_mm,  # type: ignore[union-attr]
            sensor_height_mm=self.sensor_height_mm or base.sensor_height_mm,  # type: ignore[union-attr]
        )


class RigConfig(Section):
    """Which cameras of the hemisphere rig render. Azimuth 0 is in front of the person (at −Y),
    increasing counter-clockwise seen from above (90° = the person's left side, at +X)."""

    zones: list[str] | None = Field(None, description="subset of zones_ppm; None = all")
    azimuths_deg: NonEmptyList[float] = Field(default_factory=lambda: [AZIMUTH_STEP_DEG * i for i in range(8)])
    elevations_deg: NonEmptyList[float] = Field(
        default_factory=lambda: [ELEVATION_STEP_DEG * i for i in range(N_ELEVATIONS)]
    )

    @field_validator("azimuths_deg")
    @classmethod
    def _on_azimuth_grid(cls, values: list[float]) -> list[float]:
        for v in values:
            if not (0 <= v < 360 and float(v / AZIMUTH_STEP_DEG).is_integer()):
                raise ValueError(f"azimuth {v} is not one of 0, 45, …, 315")
        return _unique(values, "azimuths_deg")

    @field_validator("elevations_deg")
    @classmethod
    def _on_elevation_grid(cls, values: list[float]) -> list[float]:
        for v in values:
            if not (0 <= v < N_ELEVATIONS * ELEVATION_STEP_DEG and float(v / ELEVATION_STEP_DEG).is_integer()):
                raise ValueError(f"elevation {v} is not one of 0, 22.5, 45, 67.5")
        return _unique(values, "elevations_deg")


class DaylightConfig(Section):
    """Physical sky (Cycles multiple-scattering sky) plus a sun lamp in the sky's sun direction."""

    sun_elevation_deg: dict[str, float] = Field(default_factory=lambda: {"morning": 12.0, "noon": 60.0, "evening": 6.0})
    sun_strength: float = Field(3.0, ge=0, description="sun lamp irradiance, W/m²")
    sky_strength: float = Field(0.03, ge=0, description="background strength of the sky texture")
    exposure: dict[str, float] = Field(
        default_factory=lambda: {"morning": 0.0, "noon": -1.5, "evening": 0.5},
        description="film exposure per time of day, stops (a camera's auto exposure)",
    )

    @field_validator("sun_elevation_deg", "exposure")
    @classmethod
    def _every_time(cls, values: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(values) - set(TIMES_OF_DAY))
        if unknown:
            raise ValueError(f"unknown time of day {unknown}; use {list(TIMES_OF_DAY)}")
        missing = sorted(set(TIMES_OF_DAY) - set(values))
        if missing:
            raise ValueError(f"missing value for {missing}")
        return values


class NightConfig(Section):
    """Moon/starlight: a dim moon lamp and a near-black sky at the day's exposure. The default
    moon is 1/300 of the sun (real moonlight is ~1e-5–1e-6), so an 8-bit frame is dark but still
    carries the signal that the night-vision stage amplifies."""

    moon_strength: float = Field(0.01, ge=0, description="moon lamp irradiance, W/m²")
    moon_elevation_deg: float = Field(35.0, ge=0, le=90)
    moon_azimuth_deg: float = Field(200.0, description="compass bearing: 0 north (+Y), 90 east (+X)")
    sky_color: tuple[float, float, float] = (0.004, 0.005, 0.01)
    exposure: float = Field(0.0, description="film exposure, stops")


class LightingConfig(Section):
    day: DaylightConfig = DaylightConfig()
    night: NightConfig = NightConfig()


class RenderConfig(Section):
    """Cycles settings and the render worker's life cycle."""

    device: RenderDevice = "CPU"
    samples: int = Field(32, ge=1)
    denoise: bool = Field(True, description="OpenImageDenoise (albedo and normal passes) on every frame")
    denoise_prefilter: DenoisePrefilter = "ACCURATE"
    denoise_quality: DenoiseQuality = "HIGH"
    max_bounces: int = Field(4, ge=0)
    threads: int = Field(0, ge=0, description="CPU render threads; 0 = all cores")
    image_format: Literal["JPEG", "PNG"] = "JPEG"
    jpeg_quality: int = Field(95, ge=1, le=100)
    shards_per_worker: int = Field(8, ge=1, description="a worker process is replaced after this many shards")
    shard_timeout_s: float = Field(
        3600.0, gt=0, le=MAX_SECONDS, description="a shard that takes longer fails (and is retried)"
    )

    def engine_settings(self) -> dict[str, object]:
        """What changes pixels (the worker life cycle does not): the render hash's part. The denoiser's prefilter
        and quality count only away from their defaults (the settings of builds made before they could be set),
        so that those builds keep their hash and are not rendered again."""
        defaults = {
            k
            for k in ("denoise_prefilter", "denoise_quality")
            if getattr(self, k) == type(self).model_fields[k].default
        }
        return self.model_dump(mode="json", exclude={"shards_per_worker", "shard_timeout_s", "threads", *defaults})


class SampleConfig(Section):
    """Full-factorial stratified sampling (docs/design/syndor.md §2, benchmarks/syndor/stages/sampling.py): only sampled
    frames render."""

    items: int | None = Field(
        None,
        ge=1,
        description="QA items to draw (task-file rows of both tasks, night-vision rows included; the paper: "
        "54,864), every level of every factor balanced; None: every frame of the full factorial",
    )


class SyndorConfig(Section):
    """SynDORBench: renders, night vision, discernibility labels, QA."""

    renamed_keys = ("syndor", MOVED_TO_PERSON)

    enabled: bool = True
    camera: CameraConfig = CameraConfig()
    zones_ppm: dict[str, PixelsPerMetre] = Field(default_factory=lambda: dict(dori.ZONE_MIDPOINTS_PPM))
    rig: RigConfig = RigConfig()
    sample: SampleConfig = SampleConfig()
    scenes: NonEmptyList[Literal["desert", "field", "wharf"]] = Field(default_factory=lambda: list(SCENES))
    lightings: NonEmptyList[str] = Field(default_factory=lambda: list(LIGHTINGS))
    lighting: LightingConfig = LightingConfig()
    render: RenderConfig = RenderConfig()
    poses: PoseConfig = PoseConfig()
    discern: DiscernConfig = DiscernConfig()
    qa: QaConfig = QaConfig()
    empty_scenes: bool = Field(
        False,
        description="also render, per (scene, lighting), the rig's cameras with no person: presence "
        "negatives labelled 0 by construction (benchmarks/syndor/render_plan.plan_empty_shards)",
    )
    empty_scene_share: float | None = Field(
        None,
        gt=0,
        lt=1,
        description="with empty_scenes: the least share of empty-scene frames among each "
        "(scene, lighting)'s frames; repeats of the empty shard (props placed by another seed) are added until it "
        "is reached. None: one empty shard per (scene, lighting)",
    )

    @field_validator("lightings")
    @classmethod
    def _known_lightings(cls, values: list[str]) -> list[str]:
        for v in values:
            lighting(v)
        return _unique(values, "lightings")

    @field_validator("scenes")
    @classmethod
    def _unique_scenes(cls, values: list[str]) -> list[str]:
        return _unique(values, "scenes")

    @model_validator(mode="after")
    def _known_zones(self) -> SyndorConfig:
        unknown = sorted(set(self.rig.zones or []) - set(self.zones_ppm))
        if unknown:
            raise ValueError(f"rig.zones {unknown} not in zones_ppm {sorted(self.zones_ppm)}")
        return self

    @model_validator(mode="after")
    def _share_needs_empty_scenes(self) -> SyndorConfig:
        if self.empty_scene_share is not None and not self.empty_scenes:
            raise ValueError("empty_scene_share is set but empty_scenes is false; set syndor.empty_scenes: true")
        return self

    @model_validator(mode="after")
    def _negatives_follow_empty_scenes(self) -> SyndorConfig:
        """`qa.empty_scene_negatives` unset (None) follows `empty_scenes`."""
        if self.qa.empty_scene_negatives is None:
            self.qa.empty_scene_negatives = self.empty_scenes
        return self

    def items_per_frame(self, lighting_name: str) -> int:
        """QA items of one person frame: a row per task, and one more per task when the frame gets a night-vision
        image."""
        night_vision = lighting(lighting_name).family in self.discern.isp.apply_to
        return len(TASK_PROMPTS) * (2 if night_vision else 1)


def _unique(values: list, field: str) -> list:
    if len(set(values)) != len(values):
        raise ValueError(f"{field} lists a value twice: {values}")
    return values
