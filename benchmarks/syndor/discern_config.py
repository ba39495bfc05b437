"""Config of SynDORBench's night-vision ISP and discernibility labelling (docs/design/syndor.md §3–4)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.benchmarks.syndor.scenes.lighting import FAMILIES, NIGHT_FAMILIES
from benchfoundry.configs.base import Section, Share


def _families(values: list[str]) -> list[str]:
    """Lighting families of the lighting table (benchmarks/syndor/scenes/lighting.py), each once."""
    unknown = [v for v in values if v not in FAMILIES]
    if unknown:
        raise ValueError(f"unknown lighting families {unknown}; use {list(FAMILIES)}")
    if len(set(values)) != len(values):
        raise ValueError(f"a lighting family listed twice: {values}")
    return values


class IspConfig(Section):
    """The neutral night-vision ISP chain (benchmarks/syndor/stages/isp.py), in the order it runs."""

    apply_to: list[str] = Field(
        default_factory=lambda: list(NIGHT_FAMILIES),
        description="lighting families (the part of `lighting` before '_') that get a night-vision image; "
        "the authors' night group (evening and night) by default",
    )
    noise: bool = Field(True, description="add sensor noise (off gives the noise-free reference)")
    exposure: float = Field(1.0, gt=0, description="scale of the linear render before the sensor")
    full_well_e: float = Field(4000.0, gt=0, description="photo-electrons at linear 1.0 (shot noise)")
    read_noise_e: float = Field(4.0, ge=0, description="read noise, electrons rms")
    agc_target_mean: float = Field(0.18, gt=0, lt=1, description="AGC: target mean of linear luminance")
    agc_max_gain: float = Field(16.0, ge=1, description="AGC: largest gain")
    denoiser: Literal["bm4d-luma", "bm4d", "nlmeans", "none"] = Field(
        "bm4d-luma",
        description="bm4d-luma: bm4d on luminance + edge-aware chroma filter; bm4d: bm4d on all three "
        "opponent channels; nlmeans: OpenCV non-local means on 16-bit linear RGB; none: no denoising",
    )
    denoise_strength: float = Field(1.0, gt=0, description="multiplies the noise sigma the denoiser is given")
    bm4d_fft_size: int = Field(16, ge=4, description="bm4d FFT domain for noise variances (2-D: n×n×1)")
    bm4d_step: int = Field(
        4, ge=1, description="bm4d reference-block step, px (3 is bm4d's own; 4: same PSNR, ~2× faster)"
    )
    bm4d_search: int = Field(7, ge=1, description="bm4d half search window, px")
    bm4d_threads: int = Field(
        1,
        ge=0,
        description="bm4d threads per frame: 1 gives the same bytes on every run (frames run in parallel across "
        "the task runner); 0 uses every core on one frame, faster alone but not bit-reproducible",
    )
    chroma_radius: int = Field(4, ge=1, description="bm4d-luma: guided-filter radius on chroma, px")

    _known_families = field_validator("apply_to")(_families)
    chroma_eps: float = Field(1e-3, gt=0, description="bm4d-luma: guided-filter regularisation")
    nlmeans_h: float = Field(1.0, gt=0, description="nlmeans: filter strength per 8-bit noise sigma")
    nlmeans_template: int = Field(7, ge=1, description="nlmeans: patch size, px (odd)")
    nlmeans_search: int = Field(21, ge=1, description="nlmeans: search window, px (odd)")
    clahe_clip: float = Field(2.0, gt=0, description="CLAHE clip limit on Lab L")
    clahe_tiles: int = Field(8, ge=1, description="CLAHE tile grid (n × n)")
    tone_white: float = Field(4.0, gt=0, description="tone map: linear value mapped to display white (Reinhard)")
    jpeg_quality: int = Field(95, ge=1, le=100)

    @field_validator("nlmeans_template", "nlmeans_search")
    @classmethod
    def _odd(cls, value: int) -> int:
        if value % 2 == 0:
            raise ValueError(f"must be odd (a window centred on the pixel), got {value}")
        return value


class FeatureConfig(Section):
    """The four discernibility features (benchmarks/syndor/stages/discern_features.py)."""

    ring_width: int = Field(15, ge=1, description="background ring around the mask, px")
    sw_projections: int = Field(64, ge=1, description="sliced Wasserstein: random directions")
    sw_max_samples: int = Field(2048, ge=16, description="sliced Wasserstein: pixels per side (seeded subsample)")
    edge_threshold: float = Field(8.0, gt=0, description="strong edge: Sobel magnitude of Lab L, L units/px")
    edge_band: int = Field(2, ge=1, description="half width of the mask's contour band and of the dilation, px")


class LabelConfig(Section):
    """The human-label sample (Cochran, stratified over distance × lighting group × raw/NV, part held out) and
    the simulated observer (benchmarks/syndor/stages/labels.py, benchmarks/syndor/stages/observer.py)."""

    source: Literal["simulated", "human"] = Field(
        "simulated", description="human: export the sample and stop until labels are imported"
    )
    sample_size: int | None = Field(
        None, ge=2, description="images to label (the paper: 2,000); None: Cochran's minimum for the population"
    )
    holdout_size: int | None = Field(
        None,
        ge=1,
        description="of the sample, images held out to test the classifier once (the paper: 400); "
        "None: a fifth of the sample, the paper's share",
    )
    z: float = Field(1.96, gt=0, description="Cochran: z of the confidence level")
    p: float = Field(0.5, gt=0, lt=1, description="Cochran: expected proportion")
    margin: float = Field(0.05, gt=0, lt=1, description="Cochran: margin of error")
    finite_population: bool = Field(True, description="apply the finite-population correction")
    image_url_prefix: str = Field("/data/local-files/?d=", description="Label Studio: prefix of task image URLs")
    observer: Literal["detector", "threshold"] = Field(
        "detector",
        description="simulated observer: detector = OpenCV's HOG + linear SVM people detector sees the person "
        "(a detection overlapping the mask); threshold = person height and Michelson contrast thresholds",
    )
    detector_upscale: float = Field(
        2.0, gt=0, le=4, description="detector: the frame is resized by this before the detector's own pyramid"
    )
    detector_pad: Share = Field(
        0.25,
        description="detector: border added on every side, as a share of the frame height, in the frame's mean "
        "colour (a person as tall as the frame then fits the window, where a person is 3/4 of its height)",
    )
    detector_scale_step: float = Field(1.05, gt=1, le=2, description="detector: pyramid scale step")
    detector_hit_threshold: float = Field(
        -0.5,
        description="detector: least SVM score of a detection window (OpenCV's default is 0; -0.5 sees more of the "
        "people a person would see by day)",
    )
    detector_min_iou: float = Field(
        0.3, gt=0, le=1, description="detector: least IoU of a detection box with the mask's bounding box"
    )
    observer_min_height_px: float = Field(20.0, ge=0, description="threshold observer: least person height, px")
    observer_min_contrast: float = Field(
        0.08, ge=0, description="threshold observer: least Michelson luminance contrast"
    )
    observer_lapse: Share = Field(0.04, description="observer: chance of a random answer")

    @model_validator(mode="after")
    def _holdout_leaves_training(self) -> LabelConfig:
        if self.sample_size is not None and self.holdout_size is not None and self.holdout_size >= self.sample_size:
            raise ValueError(
                f"holdout_size {self.holdout_size} leaves nothing to train on in a sample of {self.sample_size}"
            )
        return self


class ClassifierConfig(Section):
    """RF + XGBoost soft-vote ensemble and its cross-validation (benchmarks/syndor/stages/discern_model.py)."""

    folds: int = Field(5, ge=2)
    rf_trees: int = Field(200, ge=1)
    rf_max_depth: int | None = Field(None, ge=1)
    xgb_trees: int = Field(200, ge=1)
    xgb_max_depth: int = Field(4, ge=1)
    xgb_learning_rate: float = Field(0.1, gt=0)
    tree_max_depth: int | None = Field(None, ge=1, description="the single decision tree baseline")
    n_jobs: int = Field(1, ge=1)


class DiscernConfig(Section):
    """Night-vision ISP, features, human-label sample and classifier."""

    frames_per_shard: int = Field(64, ge=1, description="frames per ISP/feature task")
    model_lighting: list[str] = Field(
        default_factory=lambda: list(NIGHT_FAMILIES),
        description="lighting families whose raw frames the classifier labels (night-vision images always); "
        "other frames are discernible where the mask is non-empty. The authors' night group by default",
    )
    isp: IspConfig = IspConfig()
    features: FeatureConfig = FeatureConfig()
    labels: LabelConfig = LabelConfig()
    classifier: ClassifierConfig = ClassifierConfig()

    _known_families = field_validator("model_lighting")(_families)
