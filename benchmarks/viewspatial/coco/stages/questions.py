"""Cam-Obj. Ori. and Per-Obj. Ori. question items from COCO orientation labels (docs/design/viewspatial.md §2, §3).

Cam-Obj. Ori. asks which way the person faces as the camera sees it (the facing label, the authors' bins:
facing the camera is "back"); Per-Obj. Ori. asks where the head is turned relative to the body (the
head-turn label). The wording is one of the config's (the release's four per task), drawn by the item's
seed, the person named by their subject phrase ("the woman", benchmarks/viewspatial/coco/stages/subjects.py). Both take
their options from the eight horizontal labels under the distractor rule of docs/design/viewspatial.md §1.6 (the five
head-turn labels alone leave "front" two distractors), shuffled by the item's seed. A label whose estimate lies
within `margin_deg` of a bin edge, or a head turn left unsure (coco_people), makes no question. As the release
pairs them (996 and 996 items on the same images, in the same order), both questions are asked of one subject
an image, or neither: a person with both labels sure, drawn by the image's seed. Rows have the columns of
benchmarks/viewspatial/questions.QA_COLUMNS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.coco.config import CocoConfig
from benchfoundry.benchmarks.viewspatial.release.qa_items import with_options, worded
from benchfoundry.core.directions import HORIZONTAL_LABELS, boundary_margin
from benchfoundry.core.seeding import item_rng

CAM_OBJ = CATEGORIES["Cam-Obj. Ori."]
PER_OBJ = CATEGORIES["Per-Obj. Ori."]
#: Edges of the head-turn bins (docs/design/viewspatial.md §2.3), degrees of Δ.
HEAD_TURN_EDGES = (-90.0, -60.0, -20.0, 20.0, 60.0, 90.0)


def head_turn_margin(delta: float) -> float:
    return min(abs(delta - edge) for edge in HEAD_TURN_EDGES)


def _sure(row: Mapping[str, Any], margin_deg: float) -> bool:
    """Both the facing yaw and the head turn lie `margin_deg` or more from their bins' edges."""
    return min(boundary_margin(row["facing_yaw_deg"]), head_turn_margin(row["head_delta_deg"])) >= margin_deg


def orientation_items(
    labels: Sequence[dict[str, Any]],
    image_of: Mapping[int, str],
    subject_of: Mapping[int, str],
    split: str,
    config: CocoConfig,
    seed: int,
) -> list[dict[str, Any]]:
    """Both questions of one kept person an image in `image_of` (image id → path in the benchmark), named by
    `subject_of` (annotation id → "the woman"; "the person" when absent); a person is a candidate when both of
    its labels lie `margin_deg` or more from a bin edge."""
    candidates: dict[int, list[dict[str, Any]]] = {}
    for row in labels:
        if (
            row["kept"]
            and row["head_turn"] is not None
            and row["image_id"] in image_of
            and _sure(row, config.margin_deg)
        ):
            candidates.setdefault(row["image_id"], []).append(row)
    items = []
    for image_id, rows in sorted(candidates.items()):
        row = rows[int(item_rng(seed, "viewspatial.coco.orientation_subject", str(image_id)).integers(len(rows)))]
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
        asked = (
            ("cam_obj", CAM_OBJ, config.cam_obj_templates, row["facing"], boundary_margin(row["facing_yaw_deg"])),
            ("per_obj", PER_OBJ, config.per_obj_templates, row["head_turn"], head_turn_margin(row["head_delta_deg"])),
        )
        for suffix, question_type, templates, label, margin in asked:
            item_id = f"{stem}:{suffix}"
            items.append(
                {
                    **base,
                    "item_id": item_id,
                    "question_type": question_type,
                    "question": worded(templates, seed, item_id, subject=subject),
                    "answer_label": label,
                    "margin_deg": margin,
                }
            )
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]


def animal_items(
    rows: Sequence[dict[str, Any]], image_of: Mapping[int, str], split: str, config: CocoConfig, seed: int
) -> list[dict[str, Any]]:
    """Cam-Obj. Ori. of each kept animal (benchmarks/viewspatial/coco/stages/animals.py) whose image is in `image_of`,
    named
    "the <category>" (alone of its category in the image), its facing `margin_deg` or more from a bin edge. With
    one crop an animal has no head turn, so no Per-Obj. Ori. (unpaired, unlike the release's)."""
    items = []
    for row in rows:
        if not row["kept"] or row["image_id"] not in image_of:
            continue
        margin = boundary_margin(row["facing_yaw_deg"])
        if margin < config.margin_deg:
            continue
        subject = f"the {row['name']}"
        item_id = f"coco:{row['image_id']}:{row['annotation_id']}:cam_obj"
        items.append(
            {
                "item_id": item_id,
                "scene_id": f"coco:{row['image_id']}",
                "split": split,
                "question_type": CAM_OBJ,
                "image_path": [image_of[row["image_id"]]],
                "question": worded(config.cam_obj_templates, seed, item_id, subject=subject),
                "answer_label": row["facing"],
                "object_ids": [int(row["annotation_id"])],
                "labels": [subject],
                "frame_ids": [],
                "margin_deg": margin,
            }
        )
    return [with_options(item, HORIZONTAL_LABELS, seed) for item in items]
