"""Cam-Obj. Ori. and Per-Obj. Ori. question items from COCO orientation labels (DESIGN §4.2, §4.3).

Cam-Obj. Ori. asks which way the person faces as the camera sees it (the facing label); Per-Obj. Ori.
asks where the head is turned relative to the body (the head-turn label). Both take their options from
the eight horizontal labels under DESIGN §4.1's distractor rule (the five head-turn labels alone leave
"front" two distractors), shuffled by the item's seed. A label whose estimate lies within `margin_deg`
of a bin edge makes no question. Rows have the columns of tasks/viewspatial/questions.QA_COLUMNS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchfoundry.configs.coco import CocoConfig
from benchfoundry.core.directions import HORIZONTAL_LABELS, boundary_margin
from benchfoundry.tasks.viewspatial.questions import with_options

CAM_OBJ = "Cam-Obj. Ori."
PER_OBJ = "Per-Obj. Ori."
#: Edges of the head-turn bins (DESIGN §4.2), degrees of Δ.
HEAD_TURN_EDGES = (-90.0, -60.0, -20.0, 20.0, 60.0, 90.0)


def head_turn_margin(delta: float) -> float:
    return min(abs(delta - edge) for edge in HEAD_TURN_EDGES)


def orientation_items(
    labels: Sequence[dict[str, Any]], image_of: Mapping[int, str], split: str, cfg: CocoConfig, seed: int
) -> list[dict[str, Any]]:
    """Both questions for every kept person whose image is in `image_of` (image id → path in the benchmark)."""
    items = []
    for row in labels:
        if not row["kept"] or row["image_id"] not in image_of:
            continue
        base = {
            "scene_id": f"coco:{row['image_id']}",
            "split": split,
            "image_path": [image_of[row["image_id"]]],
            "object_ids": [int(row["annotation_id"])],
            "labels": ["person"],
            "frame_ids": [],
        }
        stem = f"coco:{row['image_id']}:{row['annotation_id']}"
        facing_margin = boundary_margin((-row["facing_yaw_deg"]) % 360.0)
        if facing_margin >= cfg.margin_deg:
            items.append(
                {
                    **base,
                    "item_id": f"{stem}:cam_obj",
                    "question_type": CAM_OBJ,
                    "question": cfg.cam_obj_template,
                    "answer_label": row["facing"],
                    "margin_deg": facing_margin,
                }
            )
        turn_margin = head_turn_margin(row["head_delta_deg"])
        if turn_margin >= cfg.margin_deg:
            items.append(
                {
                    **base,
                    "item_id": f"{stem}:per_obj",
                    "question_type": PER_OBJ,
                    "question": cfg.per_obj_template,
                    "answer_label": row["head_turn"],
                    "margin_deg": turn_margin,
                }
            )
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]
