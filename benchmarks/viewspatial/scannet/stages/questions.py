"""Cam-Rel.Dir and Per-Sce.Sim question items of one scan (docs/design/viewspatial.md §1.5, §3), and their exports.

Inputs are the scan's per-frame visibility table, its selected frames and its object boxes;
output rows follow the released schema (`question_type` as released, `image_path`, `question`, `answer`
"A. right", `choices`) plus the geometry each answer came from. Each item's wording is one of the config's
(the release's), drawn by the item's seed (qa_items.py, shared with the COCO half, also writes the released
records from these rows).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.release.qa_items import with_options, worded
from benchfoundry.benchmarks.viewspatial.scannet.stages.visibility import ObjectBox
from benchfoundry.core.camera import WORLD_UP
from benchfoundry.core.directions import (
    CAMERA_LABELS,
    HORIZONTAL_LABELS,
    Direction,
    boundary_margin,
    camera_direction,
    horizontal_label,
)
from benchfoundry.core.seeding import item_rng

CAM_REL = CATEGORIES["Cam-Rel. Dir."]
SCENE_SIM = CATEGORIES["Per-Sce. Sim."]


@dataclass(frozen=True)
class QASettings:
    """The subset of the QA config the item builders use."""

    min_visibility: float
    vertical_min_deg: float
    vertical_only_deg: float
    margin_deg: float
    min_distance_m: float
    cam_rel_per_scene: int
    cam_rel_per_frame: int | None
    scene_sim_per_scene: int
    run_min_visibility: float
    run_max_frames: int
    cam_rel_templates: tuple[str, ...]
    scene_sim_templates: tuple[str, ...]


def image_path(scene_id: str, frame_id: int) -> str:
    """Where a selected frame's colour image lies, relative to the benchmark's folder."""
    return f"images/{scene_id}/{int(frame_id)}.jpg"


def unique_categories(boxes: Sequence[ObjectBox]) -> set[str]:
    """Labels that occur once among the scene's (non-excluded) objects."""
    counts: dict[str, int] = {}
    for box in boxes:
        counts[box.label] = counts.get(box.label, 0) + 1
    return {label for label, n in counts.items() if n == 1}


def _frame_candidates(frame: pd.DataFrame, min_visibility: float) -> pd.DataFrame:
    """Objects visible enough whose label no other object seen in the frame shares."""
    seen = frame[(frame["visibility"] > 0) | frame["center_in_image"]]
    counts = seen["label"].value_counts()
    keep = (frame["visibility"] >= min_visibility) & frame["label"].map(lambda x: counts.get(x, 0) == 1)
    return frame[keep].sort_values("object_id")


def _sample(items: list[dict[str, Any]], cap: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    if len(items) <= cap:
        return items
    keep = np.sort(rng.choice(len(items), size=cap, replace=False))
    return [items[i] for i in keep]


def cam_rel_items(
    scene_id: str,
    split: str,
    visibility: pd.DataFrame,
    selected: Sequence[int],
    s: QASettings,
    seed: int,
) -> list[dict[str, Any]]:
    """Relative direction of object pairs in one selected frame, from the camera's axes (at most
    `cam_rel_per_frame` a frame, drawn by the seed).

    v = centre(B) − centre(A) in camera coordinates; the label is `camera_direction(v)`: where B (the target)
    is relative to A (the reference).
    """
    items = []
    for fid in selected:
        frame = visibility[visibility["frame_id"] == fid]
        cands = _frame_candidates(frame, s.min_visibility)
        of_frame = []
        for (_, a), (_, b) in itertools.combinations(cands.iterrows(), 2):
            item_id = f"{scene_id}:cam:{fid}:{a['object_id']}:{b['object_id']}"
            if item_rng(seed, "viewspatial.qa.order", item_id).random() < 0.5:
                a, b = b, a
            v = np.array([b["x_cam"] - a["x_cam"], b["y_cam"] - a["y_cam"], b["z_cam"] - a["z_cam"]])
            if np.linalg.norm(v) < s.min_distance_m:
                continue
            direction = camera_direction(v, s.vertical_min_deg, s.vertical_only_deg)
            if direction.margin_deg < s.margin_deg:
                continue
            of_frame.append(
                {
                    "item_id": item_id,
                    "scene_id": scene_id,
                    "split": split,
                    "question_type": CAM_REL,
                    "image_path": [image_path(scene_id, fid)],
                    "question": worded(s.cam_rel_templates, seed, item_id, target=b["label"], reference=a["label"]),
                    "answer_label": direction.label,
                    "object_ids": [int(a["object_id"]), int(b["object_id"])],
                    "labels": [a["label"], b["label"]],
                    "frame_ids": [int(fid)],
                    "margin_deg": direction.margin_deg,
                }
            )
        cap = len(of_frame) if s.cam_rel_per_frame is None else s.cam_rel_per_frame
        items += _sample(of_frame, cap, item_rng(seed, "viewspatial.qa.cam_rel_frame", f"{scene_id}:{fid}"))
    items = _sample(items, s.cam_rel_per_scene, item_rng(seed, "viewspatial.qa.cam_rel", scene_id))
    return [with_options(item, CAMERA_LABELS, seed) for item in items]


def scene_direction(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> Direction | None:
    """Stand at A facing B: where C is, in 3-D as the authors compute it (Sce_Sim_make.py).

    Forward f is the unit 3-D vector A→B, right r = f × world up normalised (world y when f is vertical),
    and the label bins atan2((C − A)·r, (C − A)·f); None when A and B coincide.
    """
    ab = np.asarray(b, float) - np.asarray(a, float)
    if np.linalg.norm(ab) < 1e-6:
        return None
    forward = ab / np.linalg.norm(ab)
    right = np.cross(forward, WORLD_UP)
    if np.linalg.norm(right) < 1e-6:
        right = np.cross(forward, np.array([0.0, 1.0, 0.0]))
    right /= np.linalg.norm(right)
    ac = np.asarray(c, float) - np.asarray(a, float)
    angle = float(np.degrees(np.arctan2(ac @ right, ac @ forward))) % 360.0
    return Direction(horizontal_label(angle), boundary_margin(angle))


def frame_run(seen: Sequence[frozenset[int]], targets: frozenset[int]) -> tuple[int, int] | None:
    """[start, stop) of the authors' frame run (frame_sampling.find_continuous_frames): from the first frame that
    sees a target, consecutive frames until their union has seen every target, and one frame more when there is
    one; None when the frames never see them all."""
    start = next((i for i, s in enumerate(seen) if s & targets), None)
    if start is None:
        return None
    found: set[int] = set()
    stop = start
    while stop < len(seen) and not targets <= found:
        found |= seen[stop] & targets
        stop += 1
    if not targets <= found:
        return None
    return start, min(stop + 1, len(seen))


def scene_sim_items(
    scene_id: str,
    split: str,
    visibility: pd.DataFrame,
    selected: Sequence[int],
    boxes: Sequence[ObjectBox],
    s: QASettings,
    seed: int,
) -> list[dict[str, Any]]:
    """Stand at A facing B: the direction of C in 3-D (`scene_direction`), for ordered triples of objects of
    categories unique in the scene, over a run of the scan's frames (`frame_run` over `selected` in frame order)
    whose union sees all three: 2 to `run_max_frames` frames; the three need not share a frame. B lies at least
    `min_distance_m` from A on the floor plan (not on it or hung above it), C at least that far in 3-D."""
    unique = unique_categories(boxes)
    by_id = {box.object_id: box for box in boxes if box.label in unique}
    frames = sorted(int(f) for f in selected)
    visible = visibility[visibility["visibility"] >= s.run_min_visibility]
    seen_of = {int(f): frozenset(int(o) for o in g["object_id"]) for f, g in visible.groupby("frame_id")}
    seen = [seen_of.get(f, frozenset()) for f in frames]
    items = []
    for ia, ib, ic in itertools.permutations(sorted(by_id), 3):
        run = frame_run(seen, frozenset((ia, ib, ic)))
        if run is None or not 2 <= run[1] - run[0] <= s.run_max_frames:
            continue
        a, b, c = by_id[ia].center, by_id[ib].center, by_id[ic].center
        # facing B from A is a way to look across the floor: B not (nearly) above or below A
        if min(np.linalg.norm((b - a)[:2]), np.linalg.norm(c - a)) < s.min_distance_m:
            continue
        direction = scene_direction(a, b, c)
        if direction is None or direction.margin_deg < s.margin_deg:
            continue
        fids = frames[run[0] : run[1]]
        labels = [by_id[i].label for i in (ia, ib, ic)]
        item_id = f"{scene_id}:sim:{ia}:{ib}:{ic}"
        items.append(
            {
                "item_id": item_id,
                "scene_id": scene_id,
                "split": split,
                "question_type": SCENE_SIM,
                "image_path": [image_path(scene_id, f) for f in fids],
                "question": worded(s.scene_sim_templates, seed, item_id, a=labels[0], b=labels[1], c=labels[2]),
                "answer_label": direction.label,
                "object_ids": [ia, ib, ic],
                "labels": labels,
                "frame_ids": fids,
                "margin_deg": direction.margin_deg,
            }
        )
    items = _sample(items, s.scene_sim_per_scene, item_rng(seed, "viewspatial.qa.scene_sim", scene_id))
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]
