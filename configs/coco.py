"""Config of ViewSpatial-Bench's COCO person-orientation labels (DESIGN §4.2)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from benchfoundry.configs.base import Section


class CocoConfig(Section):
    """Which COCO people are kept and how their orientation is estimated."""

    estimator: Literal["keypoints"] = Field("keypoints", description="body yaw from shoulders/hips, head from the face")
    min_area_ratio: float = Field(0.2, ge=0, le=1, description="least person area / image area")
    min_confidence: float = Field(0.5, ge=0, le=1, description="least confidence of both yaw estimates")
    shoulder_ratio: float | None = Field(
        None, gt=0, description="frontal shoulder span / torso length; null: calibrated from the file's people")
    margin_deg: float = Field(5.0, ge=0, description="skip a question whose estimate is this close to a bin edge")
    cam_obj_template: str = "From the camera's perspective, which direction is the person facing?"
    per_obj_template: str = (
        "From the person's perspective, which direction is their head turned relative to their body?")
