"""The `template` describer: the offline stand-in for the vision-language model, on the synthetic panoramas.

Like the model it is shown the instance, not the detector's class: it looks up what the ERP instance map holds
under the instance's mask (the most frequent id at its pixels) and describes that object from the synthetic
truth's record (category, colour, material, text; a person's clothing and pose). A detection given a wrong class
is therefore described as what it really is, and the consistency filter drops it; a mask over unlabelled
structure (id 0) is "a part of the scene". Without a truth beside the panorama there is nothing to see: real
panoramas need the `openai` backend for descriptions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchfoundry.benchmarks.odi.stages import sphere_coords as sm
from benchfoundry.benchmarks.odi.stages.annotation.instances import decode_rle
from benchfoundry.benchmarks.odi.stages.annotation.mask_measures import mask_angles
from benchfoundry.benchmarks.odi.stages.questions.descriptions import Description, template_description

#: How the synthetic truth's pose names are said.
POSE_WORDS = {"upright": "standing"}


def row_mask(row: dict[str, Any]) -> np.ndarray:
    """The boolean face mask of an instance manifest row."""
    return decode_rle({"size": [int(row["rle_height"]), int(row["rle_width"])], "counts": str(row["rle_counts"])})


def id_under_mask(row: dict[str, Any], ids: np.ndarray) -> int:
    """The most frequent id of the ERP instance map at the instance's mask pixels (0: unlabelled)."""
    theta, phi = mask_angles(str(row["face"]), row_mask(row))
    h, w = ids.shape
    x, y = sm.angles_to_erp_pixel(theta, phi, w, h)
    values = ids[np.clip(y.astype(np.intp), 0, h - 1), np.clip(x.astype(np.intp), 0, w - 1)]
    return int(np.bincount(values.astype(np.intp)).argmax())


def describe_record(record: dict[str, Any] | None) -> Description:
    """A description of a truth record, as a model would write it of the object's crop."""
    if record is None:
        return Description(object="part of the scene", sentence="a plain surface of the scene")
    category = str(record["category"])
    if record.get("pose") is not None:
        action = POSE_WORDS.get(record["pose"], str(record["pose"]))
        clothing = record.get("clothing")
        return Description(
            object=category,
            sentence=f"a {category} {action}" + (f", wearing {clothing}" if clothing else ""),
            clothing=clothing,
            action=action,
        )
    return Description(
        object=category,
        sentence=template_description(category, record.get("colour"), record.get("material"), record.get("text")),
        colour=record.get("colour"),
        material=record.get("material"),
        text=record.get("text"),
    )


def describe_instances(
    rows: list[dict[str, Any]], ids: np.ndarray, records: dict[int, dict[str, Any]]
) -> list[Description]:
    """The description of each instance row from what the truth holds under its mask."""
    return [describe_record(records.get(id_under_mask(row, ids))) for row in rows]
