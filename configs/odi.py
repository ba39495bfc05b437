"""Config of the ODI-Bench build (DESIGN §3)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from benchfoundry.configs.base import Section


class SphereConfig(Section):
    """Sphere geometry (DESIGN §3.1, §3.3): cube faces, Omni-CoT views and crops."""

    face_width: int = Field(1024, ge=2, le=10920, description="cube face side, px")
    view_size: int = Field(1024, ge=2, lt=32767, description="side of the six Omni-CoT views, px")
    view_fov_deg: float = Field(90.0, gt=0, lt=180, description="field of view of the six Omni-CoT views")
    crop_size: int = Field(512, ge=2, lt=32767, description="side of an Omni-CoT crop, px")
    crop_margin_deg: float = Field(10.0, ge=0, description="added to the box's angular size")
    crop_min_fov_deg: float = Field(30.0, gt=0, lt=180)
    crop_max_fov_deg: float = Field(120.0, gt=0, lt=180)
    interpolation: Literal["bilinear", "nearest"] = "bilinear"

    @model_validator(mode="after")
    def _fov_range(self) -> "SphereConfig":
        if self.crop_min_fov_deg > self.crop_max_fov_deg:
            raise ValueError("crop_min_fov_deg must not exceed crop_max_fov_deg")
        return self


class OdiConfig(Section):
    """ODI-Bench: panoramas, cubemap faces, instances, QA."""

    enabled: bool = True
    sphere: SphereConfig = SphereConfig()
