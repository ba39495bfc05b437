"""Config of the ViewSpatial-Bench build (docs/design/viewspatial.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from benchfoundry.benchmarks.viewspatial.coco.config import RELEASE_FACINGS, RELEASE_PER_REL, CocoConfig, label_weights
from benchfoundry.benchmarks.viewspatial.scannet.config import ScanNetConfig
from benchfoundry.configs.base import Section, Share
from benchfoundry.core.directions import CAMERA_LABELS, HORIZONTAL_LABELS


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
    """How ViewSpatial-Bench.json and its images are written (docs/design/viewspatial.md §3)."""

    renamed_keys = ("viewspatial.release", {"per_rel_limb_share": "viewspatial.release.per_rel_hand_share"})

    per_rel_hand_share: Share = Field(
        182 / 842,
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


class ViewSpatialConfig(ScanNetConfig):
    """ViewSpatial-Bench: ScanNet frames and direction QA (the ScanNet half's keys, scannet/config.ScanNetConfig),
    COCO person orientation QA."""

    enabled: bool = True
    coco: CocoConfig = CocoConfig()
    release: ReleaseConfig = ReleaseConfig()
