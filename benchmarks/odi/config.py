"""Config of the ODI-Bench build (docs/design/odi.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from benchfoundry.benchmarks.odi.qa_config import DEFAULT_CLASSES, OdiQaConfig
from benchfoundry.configs.base import MAX_COUNT, DenoisedRenderSection, FovDegrees, Section, Share

#: The config field that names the panoramas' asset library, in every error about reading it.
ASSET_LIBRARY_FIELD = "odi.synthetic.asset_library"


class SphereConfig(Section):
    """Sphere geometry (docs/design/odi.md §1, §3): cube faces, Omni-CoT views and crops."""

    face_width: int = Field(1024, ge=2, le=10920, description="cube face side, px")
    view_size: int = Field(1024, ge=2, lt=32767, description="side of the six Omni-CoT views, px")
    view_fov_deg: FovDegrees = Field(90.0, description="field of view of the six Omni-CoT views")
    crop_size: int = Field(512, ge=2, lt=32767, description="side of an Omni-CoT crop, px")
    crop_margin_deg: float = Field(10.0, ge=0, description="added to the box's angular size")
    crop_min_fov_deg: FovDegrees = 30.0
    crop_max_fov_deg: FovDegrees = 120.0
    interpolation: Literal["bilinear", "nearest"] = "bilinear"
    max_decoded_mb: int = Field(
        256,
        ge=1,
        le=MAX_COUNT,
        description="`benchfoundry sphere` refuses a panorama whose header says it decodes to more MiB (a 12K "
        "8-bit RGB panorama is 216 MiB, an 8K float EXR 384)",
    )

    @model_validator(mode="after")
    def _fov_range(self) -> SphereConfig:
        if self.crop_min_fov_deg > self.crop_max_fov_deg:
            raise ValueError("crop_min_fov_deg must not exceed crop_max_fov_deg")
        return self


class SyntheticPanoramaConfig(DenoisedRenderSection):
    """The embedded default (docs/design/defaults.md §4): synthetic scenes rendered by Blender's equirectangular
    camera."""

    scenes: list[Literal["living_room", "courtyard"]] = Field(
        default_factory=lambda: ["living_room", "courtyard"], min_length=1
    )
    count: int | None = Field(
        None,
        ge=1,
        le=MAX_COUNT,
        description="panoramas to render, the scenes taking turns, each a seeded variant of its scene named "
        "`<scene>-<k>` (turned and mirrored, recoloured, its sign's text, its light, an object or two left out; "
        "synthetic_panoramas.vary); null: each scene once, as drawn",
    )
    width: int = Field(2048, ge=64, le=32766, description="ERP width, px (the height is half)")
    # 1 spp denoised (FAST prefilter, BALANCED network): bench/render_quality.py, docs/performance.md
    samples: int = Field(1, ge=1, description="Cycles samples per pixel")
    asset_library: Path | None = Field(
        None,
        description="folder of an asset library (manifest.json, `make assets-infinigen`): its objects replace "
        "the primitives of their classes; None keeps the primitive shapes",
    )

    @model_validator(mode="after")
    def _even_width(self) -> SyntheticPanoramaConfig:
        if self.width % 2:
            raise ValueError("width must be even (the ERP is 2:1)")
        return self

    @property
    def names(self) -> list[str]:
        """The panoramas to render, by name: the scenes themselves, or `count` variants of them in turn."""
        if self.count is None:
            return list(self.scenes)
        digits = max(4, len(str(self.count - 1)))
        return [f"{self.scenes[k % len(self.scenes)]}-{k:0{digits}d}" for k in range(self.count)]


class GroundedSamConfig(Section):
    """GroundingDINO + SAM on cube faces (docs/design/odi.md §2.1); weights and the BERT folder are read by path
    only."""

    dino_config: Path | None = Field(
        None, description="GroundingDINO model config (.py); None: the SwinT-OGC config shipped in groundingdino-py"
    )
    dino_checkpoint: Path | None = Field(None, description="GroundingDINO weights (.pth)")
    text_encoder: Path | None = Field(None, description="local BERT folder (config, weights, tokenizer files)")
    sam_checkpoint: Path | None = Field(None, description="SAM weights (.pth)")
    sam_model_type: Literal["vit_b", "vit_l", "vit_h"] = "vit_h"
    box_threshold: Share = Field(0.35)
    text_threshold: Share = Field(0.25)
    device: str = Field("cpu", description="torch device: cpu, cuda, cuda:1, …")
    batch_faces: int = Field(6, ge=1, description="faces per GroundingDINO forward pass")
    dino_size: int = Field(
        800,
        ge=256,
        description="GroundingDINO input: shorter side resized to this (max 1333; "
        "below 256 px its encoder has fewer tokens than its 900 queries)",
    )

    @property
    def configured(self) -> bool:
        """Whether any weight file is given (then all must be, and exist)."""
        return any(p is not None for p in (self.dino_checkpoint, self.sam_checkpoint, self.text_encoder))


class OdiConfig(Section):
    """ODI-Bench: panoramas, cubemap faces, instances, QA."""

    enabled: bool = True
    sphere: SphereConfig = SphereConfig()
    panorama_root: Path | None = Field(None, description="folder of ERP panoramas; None renders the synthetic ones")
    synthetic: SyntheticPanoramaConfig = SyntheticPanoramaConfig()
    annotator: Literal["truth", "groundedsam"] | None = Field(
        None, description="None: groundedsam when its checkpoints are configured, else truth"
    )
    classes: list[str] = Field(default_factory=lambda: list(DEFAULT_CLASSES), min_length=1)
    groundedsam: GroundedSamConfig = GroundedSamConfig()
    batch_size: int = Field(8, ge=1, description="panoramas per annotation task")
    crop_quality: int = Field(92, ge=1, le=100, description="JPEG quality of faces and crops")
    qa: OdiQaConfig = OdiQaConfig()

    @model_validator(mode="after")
    def _groundedsam_weights(self) -> OdiConfig:
        if self.chosen_annotator == "groundedsam":
            for name in ("dino_checkpoint", "text_encoder", "sam_checkpoint"):
                if getattr(self.groundedsam, name) is None:
                    raise ValueError(
                        f"groundedsam.{name} is required by the groundedsam annotator (or set odi.annotator: truth)"
                    )
        return self

    @property
    def chosen_annotator(self) -> str:
        """The annotator a build uses: the configured one, or groundedsam only when weights are configured."""
        if self.annotator is not None:
            return self.annotator
        return "groundedsam" if self.groundedsam.configured else "truth"
