"""Config of the SynDORBench build (DESIGN §2)."""

from __future__ import annotations

from pydantic import Field, model_validator

from benchfoundry.flows.params_base import Section
from benchfoundry.flows.params_body import BodyConfig, PoseConfig, TextureConfig
from benchfoundry.flows.params_discern import DiscernConfig
from benchfoundry.flows.params_qa import QaConfig
from benchfoundry.tasks import dori


class CameraConfig(Section):
    """The pinhole camera (DESIGN §2.1): a preset, or explicit values that override it."""

    preset: str | None = "paper"
    resolution_w: int = Field(1920, gt=0)
    resolution_h: int | None = Field(None, gt=0)
    focal_mm: float | None = Field(None, gt=0)
    sensor_height_mm: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _known_preset(self) -> "CameraConfig":
        if self.preset is not None and self.preset not in dori.PRESETS:
            raise ValueError(f"unknown camera preset {self.preset!r}; known: {sorted(dori.PRESETS)}")
        if self.preset is None and None in (self.resolution_h, self.focal_mm, self.sensor_height_mm):
            raise ValueError("without a preset, resolution_h, focal_mm and sensor_height_mm are required")
        return self

    def spec(self) -> dori.CameraSpec:
        """The resolved pinhole spec: the preset's values, overridden by explicit ones."""
        base = dori.PRESETS[self.preset] if self.preset else None
        return dori.CameraSpec(
            resolution_h=self.resolution_h or base.resolution_h,  # type: ignore[union-attr]
            focal_mm=self.focal_mm or base.focal_mm,  # type: ignore[union-attr]
            sensor_height_mm=self.sensor_height_mm or base.sensor_height_mm,  # type: ignore[union-attr]
        )


class SyndorConfig(Section):
    """SynDORBench: renders, night vision, discernibility labels, QA."""

    enabled: bool = True
    camera: CameraConfig = CameraConfig()
    zones_ppm: dict[str, float] = Field(default_factory=lambda: dict(dori.ZONE_MIDPOINTS_PPM))
    body: BodyConfig = BodyConfig()
    poses: PoseConfig = PoseConfig()
    textures: TextureConfig = TextureConfig()
    discern: DiscernConfig = DiscernConfig()
    qa: QaConfig = QaConfig()
