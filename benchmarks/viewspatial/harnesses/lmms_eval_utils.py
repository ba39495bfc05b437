"""`utils.py` of the lmms-eval task `benchfoundry_viewspatial`, copied there by `benchfoundry export lmms-eval`.

It runs inside lmms-eval and imports nothing of benchfoundry. The prompt, the images, the scoring and the
aggregations are the harness's own `viewspatial` task functions (lmms_eval/tasks/viewspatial/utils.py), named
by the task's YAML from this module; `process_docs` gives every item the released `question_type` string those
functions key their per-task scores on (a build may name its tasks by the paper's short names).
"""

from __future__ import annotations

from typing import Any

from lmms_eval.tasks.viewspatial.utils import (  # noqa: F401  (named by the task's YAML)
    viewspatial_aggregate_camera_perspective_object_view_orientation,
    viewspatial_aggregate_camera_perspective_relative_direction,
    viewspatial_aggregate_person_perspective_object_view_orientation,
    viewspatial_aggregate_person_perspective_relative_direction,
    viewspatial_aggregate_person_perspective_scene_simulation_relative_direction,
    viewspatial_aggregate_results,
    viewspatial_doc_to_text,
    viewspatial_doc_to_visual,
    viewspatial_process_results,
)

#: The paper's short task names → the released `question_type` strings (benchfoundry's
#: benchmarks/viewspatial/categories.py).
CATEGORIES = {
    "Cam-Rel. Dir.": "Camera perspective - Relative Direction",
    "Cam-Obj. Ori.": "Camera perspective - Object View Orientation",
    "Per-Obj. Ori.": "Person perspective - Object View Orientation",
    "Per-Rel. Dir.": "Person perspective - Relative Direction",
    "Per-Sce. Sim.": "Person perspective - Scene Simulation Relative Direction",
}


def process_docs(dataset: Any) -> Any:
    """The items with `question_type` the released string."""
    return dataset.map(
        lambda question_type: {"question_type": CATEGORIES.get(question_type, question_type)},
        input_columns=["question_type"],
    )
