"""The documented interface of lmms-eval's `viewspatial` task functions (lmms_eval/tasks/viewspatial/utils.py),
written for the tests from its documentation: the prompt "Question: …\\nChoices: …\\nReply only to the
corresponding option.\\nAnswer:", the images of `doc["images"]`, the first standalone A–D letter of the reply's
last line against the answer's, the overall mean and one mean per released `question_type`."""

from __future__ import annotations

import re
from typing import Any

TYPES = {
    "Camera perspective - Relative Direction": "camera_perspective_relative_direction",
    "Camera perspective - Object View Orientation": "camera_perspective_object_view_orientation",
    "Person perspective - Relative Direction": "person_perspective_relative_direction",
    "Person perspective - Object View Orientation": "person_perspective_object_view_orientation",
    "Person perspective - Scene Simulation Relative Direction": (
        "person_perspective_scene_simulation_relative_direction"
    ),
}


def viewspatial_doc_to_text(doc: dict[str, Any], lmms_eval_specific_kwargs: Any = None) -> str:
    return f"Question: {doc['question']}\nChoices: {doc['choices']}\nReply only to the corresponding option.\nAnswer:"


def viewspatial_doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    return [image.convert("RGB") for image in doc["images"]]


def _letter(text: str) -> str | None:
    found = re.search(r"\b([A-D])\b", text, re.IGNORECASE)
    return found.group(1).upper() if found else None


def viewspatial_process_results(doc: dict[str, Any], results: list[str]) -> dict[str, Any]:
    score = 1.0 if _letter(results[0].split("\n")[-1]) == _letter(doc["answer"]) else 0.0
    out: dict[str, Any] = {"overall_accuracy": {"score": score}}
    for released, key in TYPES.items():
        out[f"{key}_accuracy"] = {"score": score, "question_type": doc.get("question_type"), "target_type": released}
    return out


def viewspatial_aggregate_results(results: list[dict[str, Any]]) -> float:
    return sum(r["score"] for r in results) / len(results) if results else 0.0


def _by_type(results: list[dict[str, Any]], released: str) -> float:
    scores = [r["score"] for r in results if r.get("question_type") == released]
    return sum(scores) / len(scores) if scores else 0.0


def viewspatial_aggregate_camera_perspective_relative_direction(results: list[dict[str, Any]]) -> float:
    return _by_type(results, "Camera perspective - Relative Direction")


def viewspatial_aggregate_camera_perspective_object_view_orientation(results: list[dict[str, Any]]) -> float:
    return _by_type(results, "Camera perspective - Object View Orientation")


def viewspatial_aggregate_person_perspective_relative_direction(results: list[dict[str, Any]]) -> float:
    return _by_type(results, "Person perspective - Relative Direction")


def viewspatial_aggregate_person_perspective_object_view_orientation(results: list[dict[str, Any]]) -> float:
    return _by_type(results, "Person perspective - Object View Orientation")


def viewspatial_aggregate_person_perspective_scene_simulation_relative_direction(
    results: list[dict[str, Any]],
) -> float:
    return _by_type(results, "Person perspective - Scene Simulation Relative Direction")
