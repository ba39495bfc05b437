"""Config of ViewSpatial-Bench's COCO person-orientation half (DESIGN §4.2): labels, estimators, the synthetic set."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from benchfoundry.configs.base import Count, Section, refuse_renamed


class CocoSplit(Section):
    """One split of real COCO: the person-keypoints file, its images, and optionally the instances file."""

    annotations: Path = Field(description="person_keypoints_*.json")
    images: Path = Field(description="folder of the split's images (file_name is relative to it)")
    instances: Path | None = Field(
        None, description="instances_*.json: other objects' boxes for Per-Rel. Dir. candidates; None: none asked"
    )


class SyntheticCocoConfig(Section):
    """The embedded default (DESIGN §5): the Anny person rendered with known body and head yaw."""

    images: dict[str, Count] = Field(
        default_factory=lambda: {"val": 24, "train": 12}, description="split → number of rendered images"
    )
    width: int = Field(240, ge=32)
    height: int = Field(320, ge=32)
    samples: int = Field(8, ge=1, description="Cycles samples per pixel")
    object_share: float = Field(0.5, ge=0, le=1, description="share of images with objects around the person")
    max_head_deg: float = Field(80.0, ge=0, le=120, description="largest head turn drawn, degrees either way")
    device: Literal["CPU", "CUDA", "OPTIX", "HIP", "METAL", "ONEAPI"] = "CPU"
    render_timeout_s: float = Field(1800.0, gt=0)


class OrientAnythingConfig(Section):
    """Orient-Anything (DINOv2 backbone + MLP head), read by path only: nothing is downloaded."""

    dinov2_dir: Path | None = Field(None, description="local DINOv2 folder (config.json + weights, transformers)")
    checkpoint: Path | None = Field(None, description="the orientation head's (or whole model's) weights, .pt/.pth")
    device: str = Field("cpu", description="torch device, e.g. cpu, cuda, cuda:1")
    image_size: int = Field(224, ge=14, description="crop side fed to the backbone, px (a multiple of the patch)")
    max_polar_deg: float = Field(
        60.0, ge=0, le=90, description="a crop seen from further above or below is rejected as an implausible angle"
    )
    max_rotation_deg: float = Field(
        45.0, ge=0, le=180, description="a crop rolled further in the image plane is rejected as an implausible angle"
    )


class PersonRelConfig(Section):
    """Per-Rel. Dir.: "from this person's viewpoint, where is X?" (DESIGN §4.2)."""

    template: str = "From the person's perspective, in which direction is the {object} relative to them?"
    margin_deg: float = Field(10.0, ge=0, description="skip an object this close to a label boundary")
    min_object_area_ratio: float = Field(0.005, ge=0, le=1, description="least object area / image area asked about")
    release_unreviewed: bool = Field(
        False, description="real COCO candidates not yet reviewed are released too, as verified: false"
    )

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        return refuse_renamed(
            "viewspatial.coco.per_rel", data, {"release_unverified": "viewspatial.coco.per_rel.release_unreviewed"}
        )


class CocoConfig(Section):
    """Which COCO people are kept, how their orientation is estimated, and where the images come from."""

    splits: dict[str, CocoSplit] = Field(
        default_factory=dict, description="split (val, train) → real COCO files; empty: the synthetic set"
    )
    synthetic: SyntheticCocoConfig = SyntheticCocoConfig()
    estimator: Literal["keypoints", "orient-anything"] = Field(
        "keypoints",
        description="keypoints: body yaw from shoulders/hips, head from the face; orient-anything: "
        "DINOv2 + MLP on the head and body crops",
    )
    orient_anything: OrientAnythingConfig = OrientAnythingConfig()
    min_area_ratio: float = Field(0.2, ge=0, le=1, description="least person area / image area")
    min_confidence: float = Field(0.5, ge=0, le=1, description="least confidence of both yaw estimates")
    shoulder_ratio: float | None = Field(
        None, gt=0, description="frontal shoulder span / torso length; null: calibrated from the file's people"
    )
    margin_deg: float = Field(5.0, ge=0, description="skip a question whose estimate is this close to a bin edge")
    cam_obj_template: str = "From the camera's perspective, which direction is the person facing?"
    per_obj_template: str = (
        "From the person's perspective, which direction is their head turned relative to their body?"
    )
    per_rel: PersonRelConfig = PersonRelConfig()
