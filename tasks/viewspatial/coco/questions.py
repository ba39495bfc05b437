"""Cam-Obj. Ori. and Per-Obj. Ori. question items from COCO orientation labels (DESIGN §4.2, §4.3).

Cam-Obj. Ori. asks which way the person faces as the camera sees it (the facing label, the authors' bins:
facing the camera is "back"); Per-Obj. Ori. asks where the head is turned relative to the body (the
head-turn label). The wording is one of the config's (the release's four per task), drawn by the item's
seed, the person named by their subject phrase ("the woman", tasks/viewspatial/coco/subjects.py). Both take
their options from the eight horizontal labels under DESIGN §4.1's distractor rule (the five head-turn
labels alone leave "front" two distractors), shuffled by the item's seed. A label whose estimate lies
within `margin_deg` of a bin edge, or a head turn left unsure (coco_people), makes no question. Rows have the columns of
tasks/viewspatial/questions.QA_COLUMNS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchfoundry.configs.coco import CocoConfig
from benchfoundry.core.directions import HORIZONTAL_LABELS, boundary_margin
from benchfoundry.tasks.viewspatial.scannet.questions import with_options, worded
from benchfoundry.tasks.viewspatial.task_names import RELEASED_TYPES

CAM_OBJ = RELEASED_TYPES["Cam-Obj. Ori."]
PER_OBJ = RELEASED_TYPES["Per-Obj. Ori."]
#: Edges of the head-turn bins (DESIGN §4.2), degrees of Δ.
HEAD_TURN_EDGES = (-90.0, -60.0, -20.0, 20.0, 60.0, 90.0)


def head_turn_margin(delta: float) -> float:
    return min(abs(delta - edge) for edge in HEAD_TURN_EDGES)


def orientation_items(
    labels: Sequence[dict[str, Any]],
    image_of: Mapping[int, str],
    subject_of: Mapping[int, str],
    split: str,
    cfg: CocoConfig,
    seed: int,
) -> list[dict[str, Any]]:
    """Both questions for every kept person whose image is in `image_of` (image id → path in the benchmark),
    named by `subject_of` (annotation id → "the woman"; "the person" when absent)."""
    items = []
    for row in labels:
        if not row["kept"] or row["image_id"] not in image_of:
            continue
        subject = subject_of.get(row["annotation_id"], "the person")
        base = {
            "scene_id": f"coco:{row['image_id']}",
            "split": split,
            "image_path": [image_of[row["image_id"]]],
            "object_ids": [int(row["annotation_id"])],
            "labels": [subject],
            "frame_ids": [],
        }
        stem = f"coco:{row['image_id']}:{row['annotation_id']}"
        # The facing bins' edges lie at 22.5° + 45° k of the yaw, as of any 8-way angle.
        facing_margin = boundary_margin(row["facing_yaw_deg"])
        if facing_margin >= cfg.margin_deg:
            item_id = f"{stem}:cam_obj"
            items.append(
                {
                    **base,
                    "item_id": item_id,
                    "question_type": CAM_OBJ,
                    "question": worded(cfg.cam_obj_templates, seed, item_id, subject=subject),
                    "answer_label": row["facing"],
                    "margin_deg": facing_margin,
                }
            )
        turn_margin = head_turn_margin(row["head_delta_deg"])
        if row["head_turn"] is not None and turn_margin >= cfg.margin_deg:
            item_id = f"{stem}:per_obj"
            items.append(
                {
                    **base,
                    "item_id": item_id,
                    "question_type": PER_OBJ,
                    "question": worded(cfg.per_obj_templates, seed, item_id, subject=subject),
                    "answer_label": row["head_turn"],
                    "margin_deg": turn_margin,
                }
            )
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]
