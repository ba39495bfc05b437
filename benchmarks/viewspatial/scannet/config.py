"""Config of ViewSpatial-Bench's ScanNet half (docs/design/viewspatial.md §1): its keys (`ScanNetConfig`, at the
top of the benchmark's section: the scans or the synthetic ones, frame selection, the direction questions) and the
object classes ViewSpatial never asks about."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from benchfoundry.benchmarks.viewspatial.wordings import check_templates
from benchfoundry.configs.base import MAX_SIDE_PX, Section, Share

#: NYU40 ids never asked about: unlabelled, wall, floor, ceiling, other structure/furniture/prop.
EXCLUDED_NYU40: frozenset[int] = frozenset({0, 1, 2, 22, 38, 39, 40})
#: NYU40 class names by id (the authors' Sce_Sim_make.py); the 34 not excluded are the names the release asks about.
NYU40_NAMES: dict[int, str] = {
    0: "unlabeled", 1: "wall", 2: "floor", 3: "cabinet", 4: "bed", 5: "chair", 6: "sofa", 7: "table", 8: "door",
    9: "window", 10: "bookshelf", 11: "picture", 12: "counter", 13: "blinds", 14: "desk", 15: "shelves",
    16: "curtain", 17: "dresser", 18: "pillow", 19: "mirror", 20: "floor mat", 21: "clothes", 22: "ceiling",
    23: "books", 24: "refrigerator", 25: "television", 26: "paper", 27: "towel", 28: "shower curtain", 29: "box",
    30: "whiteboard", 31: "person", 32: "nightstand", 33: "toilet", 34: "sink", 35: "lamp", 36: "bathtub",
    37: "bag", 38: "other structure", 39: "other furniture", 40: "other prop",
}  # fmt: skip
#: Raw category names excluded when no label map is given: the names of the NYU40 classes above.
EXCLUDED_LABELS: frozenset[str] = frozenset(
    {
        "unlabeled",
        "unlabelled",
        "wall",
        "floor",
        "ceiling",
        "otherstructure",
        "otherfurniture",
        "otherprop",
    }
)


class CoverageConfig(Section):
    """Max-coverage frame selection: voxel size, frame budget, minimum gain, depth subsampling."""

    voxel_m: float = Field(0.1, ge=0.01, le=10, description="voxel edge, metres (1 cm to 10 m)")
    budget: int = Field(32, ge=1, description="most frames selected per scan")
    min_gain: Share = Field(
        0.001, description="stop when the best frame adds fewer than this fraction of the scene's voxels"
    )
    depth_stride: int = Field(4, ge=1, description="back-project every n-th depth row and column")
    frame_step: int = Field(
        10, ge=1, description="frames are drawn from every n-th frame of a real scan (the authors' every 10th)"
    )
    method: str = Field("lazy", pattern="^(lazy|plain)$", description="lazy greedy or the plain reference")


#: Most synthetic scans of a split (their ids, scene0900_00 + 2·k and scene0901_00 + 2·k, stay four-digit).
MAX_SYNTHETIC_SCANS = 4500


class SyntheticScanConfig(Section):
    """The embedded default: two synthetic rooms (val, train) rendered by Blender (docs/design/defaults.md §5), or more
    of them."""

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
    """Cam-Rel.Dir and Per-Sce.Sim question construction (docs/design/viewspatial.md §1.5)."""

    renamed_keys = (
        "viewspatial.qa",
        {
            "cam_rel_template": "viewspatial.qa.cam_rel_templates",
            "scene_sim_template": "viewspatial.qa.scene_sim_templates",
        },
    )

    min_visibility: Share = Field(0.5, description="least visible-corner ratio of an asked object")
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
    run_min_visibility: Share = Field(
        0.25, description="least visible-corner ratio for a frame of a Per-Sce.Sim run to see an object"
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

    @model_validator(mode="after")
    def _ordered_thresholds(self) -> DirectionQAConfig:
        if self.vertical_min_deg >= self.vertical_only_deg:
            raise ValueError("vertical_min_deg must be below vertical_only_deg")
        check_templates("viewspatial.qa.cam_rel_templates", self.cam_rel_templates, ("target", "reference"))
        check_templates("viewspatial.qa.scene_sim_templates", self.scene_sim_templates, ("a", "b", "c"))
        return self


class ScanNetConfig(Section):
    """The ScanNet half's keys, held at the top of ViewSpatial-Bench's section (ViewSpatialConfig adds the rest):
    where the scans are or how the synthetic ones are made, frame selection and the direction questions. The half's
    stages take this, not the parent's model, which imports the half."""

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
