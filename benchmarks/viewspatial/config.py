"""Config of the ViewSpatial-Bench build (DESIGN §4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.benchmarks.viewspatial.coco.config import (
    RELEASE_FACINGS,
    RELEASE_PER_REL,
    CocoConfig,
    check_templates,
    label_weights,
)
from benchfoundry.benchmarks.viewspatial.scannet.config import EXCLUDED_LABELS, EXCLUDED_NYU40, CoverageConfig
from benchfoundry.configs.base import MAX_SIDE_PX, Section, refuse_renamed
from benchfoundry.core.directions import CAMERA_LABELS, HORIZONTAL_LABELS

#: Most synthetic scans of a split (their ids, scene0900_00 + 2·k and scene0901_00 + 2·k, stay four-digit).
MAX_SYNTHETIC_SCANS = 4500


class SyntheticScanConfig(Section):
    """The embedded default: two synthetic rooms (val, train) rendered by Blender (DESIGN §5), or more of them."""

    scans: dict[Literal["val", "train"], int] = Field(
        default_factory=lambda: {"val": 1, "train": 1},
        description="split → synthetic scans: the split's room, then variants of it (mirrored, its low furniture "
        "moved, walked from another start; scannet/synthetic_scan.scene_room), scene0900_00, scene0902_00, … "
        "(val) and scene0901_00, scene0903_00, … (train)",
    )
    frames: int = Field(20, ge=4, description="frames of each scan's camera walk (one has an -inf pose)")
    frame_step: int = Field(
        1, ge=1, description="frames drawn from every n-th walk frame (1: the walk stands for a scan's every 10th)"
    )
    width: int = Field(256, ge=32, le=MAX_SIDE_PX)
    height: int = Field(192, ge=24, le=MAX_SIDE_PX)
    hfov_deg: float = Field(70.0, gt=10, lt=150)
    depth_stride: int = Field(2, ge=1, description="depth is the colour grid subsampled by this factor")
    samples: int = Field(4, ge=1, description="Cycles samples per pixel")
    layout: str = Field("raw", pattern="^(raw|export)$", description="which written layout the build reads")
    asset_library: Path | None = Field(
        None,
        description="folder of an asset library (manifest.json, `make assets-infinigen`): the rooms' pieces of its "
        "classes are drawn from it and arranged by the room layout ODI's panoramas use; None keeps the boxes",
    )

    @field_validator("scans")
    @classmethod
    def _both_splits(cls, scans: dict[str, int]) -> dict[str, int]:
        if set(scans) != {"val", "train"} or any(not 1 <= n <= MAX_SYNTHETIC_SCANS for n in scans.values()):
            raise ValueError(f"scans: 1 to {MAX_SYNTHETIC_SCANS} of each of val and train, got {scans}")
        return scans


#: Cam-Rel. Dir. wordings of the release: {target} is asked about, {reference} is the object it is placed from.
CAM_REL_TEMPLATES = [
    "How is the {target} positioned with respect to the {reference}?",
    "Could you tell me the location of the {target} in comparison to the {reference}?",
    "Where is the {target} in relation to the {reference}?",
    "Where is the {target} located compared to the {reference} from the camera's perspective?",
    "Can you describe the position of the {target} relative to the {reference}?",
    "If you're looking at the {reference}, where would you find the {target}?",
]
#: Per-Sce. Sim. wordings of the release (the authors' Sce_Sim_make.py): stand at {a}, face {b}, where is {c}
#: (bare category names, as released).
SCENE_SIM_TEMPLATES = [
    "Standing at {a}, gazing at {b}, where should {c} be?",
    "If you stand at {a} facing {b}, where is {c}?",
    "Imagine standing at {a} looking towards {b}, where is {c}?",
    "When positioned at {a} facing {b}, where can you find {c}?",
]


class DirectionQAConfig(Section):
    """Cam-Rel.Dir and Per-Sce.Sim question construction (DESIGN §4.1)."""

    min_visibility: float = Field(0.5, ge=0, le=1, description="least visible-corner ratio of an asked object")
    occlusion_m: float = Field(0.1, gt=0, description="a corner is occluded when z − depth exceeds this")
    vertical_min_deg: float = Field(30.0, gt=0, lt=90, description="elevation from which a vertical word joins")
    vertical_only_deg: float = Field(67.5, gt=0, lt=90, description="elevation from which only above/down is said")
    margin_deg: float = Field(5.0, ge=0, description="skip items this close to a label boundary")
    min_distance_m: float = Field(0.3, ge=0, description="least distance between the objects of an item")
    cam_rel_per_scene: int = Field(60, ge=0, description="most Cam-Rel.Dir items per scan")
    cam_rel_per_frame: int | None = Field(
        1, ge=1, description="most Cam-Rel.Dir items per frame (the release has one); null: all"
    )
    scene_sim_per_scene: int = Field(40, ge=0, description="most Per-Sce.Sim items per scan (the authors' 40)")
    run_min_visibility: float = Field(
        0.25, ge=0, le=1, description="least visible-corner ratio for a frame of a Per-Sce.Sim run to see an object"
    )
    run_max_frames: int = Field(32, ge=2, description="most frames of a Per-Sce.Sim run")
    cam_rel_templates: list[str] = Field(
        default_factory=lambda: list(CAM_REL_TEMPLATES), description="Cam-Rel. Dir. wordings, one drawn per item"
    )
    scene_sim_templates: list[str] = Field(
        default_factory=lambda: list(SCENE_SIM_TEMPLATES), description="Per-Sce. Sim. wordings, one drawn per item"
    )
    mc_instruction: str = "Answer with the option's letter from the given choices directly."
    direct_instruction: str = "Answer with one direction, e.g. front-left."

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        return refuse_renamed(
            "viewspatial.qa",
            data,
            {
                "cam_rel_template": "viewspatial.qa.cam_rel_templates",
                "scene_sim_template": "viewspatial.qa.scene_sim_templates",
            },
        )

    @model_validator(mode="after")
    def _ordered_thresholds(self) -> DirectionQAConfig:
        if self.vertical_min_deg >= self.vertical_only_deg:
            raise ValueError("vertical_min_deg must be below vertical_only_deg")
        check_templates("viewspatial.qa.cam_rel_templates", self.cam_rel_templates, ("target", "reference"))
        check_templates("viewspatial.qa.scene_sim_templates", self.scene_sim_templates, ("a", "b", "c"))
        return self


class TaskBudgets(Section):
    """Most items of each task in ViewSpatial-Bench.json (drawn by the seed); the defaults are the release's
    counts (camera perspective 2,769 = 48.4 %, person perspective 2,943 = 51.6 %); null: every item."""

    cam_rel: int | None = Field(1773, ge=0, description="Cam-Rel. Dir.")
    cam_obj: int | None = Field(996, ge=0, description="Cam-Obj. Ori.")
    per_obj: int | None = Field(996, ge=0, description="Per-Obj. Ori.")
    per_rel: int | None = Field(842, ge=0, description="Per-Rel. Dir.")
    scene_sim: int | None = Field(1105, ge=0, description="Per-Sce. Sim.")


#: The release's answers per budgeted task, by label (Cam-Rel. Dir.'s 1,773 items; Cam-Obj. Ori.'s 996, whose
#: images Per-Obj. Ori. follows; Per-Sce. Sim.'s 1,105; Per-Rel. Dir.'s 669 direction items, its "which hand" and
#: "which foot" items apart).
RELEASE_ANSWERS: dict[str, dict[str, float]] = {
    "cam_obj": RELEASE_FACINGS,
    "cam_rel": {"right": 283, "down": 260, "left": 235, "above": 116, "back-down": 108, "front-left": 92,
                "front-right": 87, "front": 81, "back": 72, "down-left": 72, "down-right": 68, "back-left": 64,
                "back-right": 61, "front-up": 57, "above-right": 41, "above-left": 35, "front-down": 26,
                "back-up": 15},
    "scene_sim": {"front": 292, "front-right": 216, "front-left": 200, "right": 118, "left": 113, "back-left": 64,
                  "back-right": 63, "back": 39},
    "per_rel": RELEASE_PER_REL,
}  # fmt: skip


class ReleaseConfig(Section):
    """How ViewSpatial-Bench.json and its images are written (DESIGN §4.3)."""

    per_rel_hand_share: float = Field(
        182 / 842,
        ge=0,
        le=1,
        description="share of the Per-Rel. Dir. budget drawn first from two-option 'which hand' items (the release: "
        "182 of 842); the rest of the budget from every item",
    )

    layout: Literal["build", "authors"] = Field(
        "build",
        description="build: images under images/; authors: as the release, ViewSpatial-Bench/scannetv2_<split>/"
        "<scene>/original_images/<frame>.jpg and ViewSpatial-Bench/<split>2017/<file>, relative to the release root",
    )
    budgets: TaskBudgets = TaskBudgets()
    answer_shares: dict[str, dict[str, float]] = Field(
        default_factory=lambda: {task: dict(shares) for task, shares in RELEASE_ANSWERS.items()},
        description="budgeted task (cam_rel, cam_obj, scene_sim, per_rel) → answer label → weight: a budget is filled "
        "label by label in these shares as far as the candidates allow (then from any label; Per-Obj. Ori. follows "
        "Cam-Obj. Ori.'s images); a task not named is drawn regardless of its answers. Defaults: the release's "
        "answers (Per-Rel. Dir.'s direction items)",
    )

    @field_validator("answer_shares")
    @classmethod
    def _answer_shares(cls, shares: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        labels = {
            "cam_rel": CAMERA_LABELS,
            "cam_obj": HORIZONTAL_LABELS,
            "scene_sim": HORIZONTAL_LABELS,
            "per_rel": HORIZONTAL_LABELS,
        }
        for task, weights in shares.items():
            if task not in labels:
                raise ValueError(f"answer_shares: {task!r} is not one of {list(labels)}")
            label_weights(f"viewspatial.release.answer_shares.{task}", weights, labels[task])
        return shares

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        renamed = {"per_rel_limb_share": "viewspatial.release.per_rel_hand_share"}
        return refuse_renamed("viewspatial.release", data, renamed)


class ViewSpatialConfig(Section):
    """ViewSpatial-Bench: ScanNet frames and direction QA, COCO person orientation QA."""

    enabled: bool = True
    scannet_root: Path | None = Field(None, description="ScanNet root; None builds the synthetic scans")
    scans_dir: str = Field("scans", description="folder of scan folders under the root")
    split_lists: dict[str, str] = Field(
        default_factory=lambda: {"val": "scannetv2_val.txt", "train": "scannetv2_train.txt"},
        description="split → scene list (relative to the root); val is the benchmark, train the SFT data",
    )
    label_map: str | None = Field(
        "scannetv2-labels.combined.tsv",
        description="raw_category → nyu40id TSV under the root; None or a missing file: exclude by raw name",
    )
    excluded_nyu40: list[int] = Field(
        default_factory=lambda: sorted(EXCLUDED_NYU40),
        description="NYU40 ids never asked about (used with the label map)",
    )
    excluded_labels: list[str] = Field(
        default_factory=lambda: sorted(EXCLUDED_LABELS),
        description="raw category names never asked about when there is no label map (case-insensitive)",
    )
    max_scans: int | None = Field(None, ge=1, description="first N scans of each split list")
    synthetic: SyntheticScanConfig = SyntheticScanConfig()
    coverage: CoverageConfig = CoverageConfig()
    qa: DirectionQAConfig = DirectionQAConfig()
    coco: CocoConfig = CocoConfig()
    release: ReleaseConfig = ReleaseConfig()
