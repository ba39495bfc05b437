"""ViewSpatial-Bench in the harnesses' formats (its descriptor's `vlmevalkit` and `lmms_eval` hooks; the generic
writers are export/vlmevalkit.py and export/lmms_tasks.py).

VLMEvalKit: `benchfoundry_ViewSpatial.tsv`, multiple choice (VLMEvalKit's CustomMCQDataset): `image_path` (the
released relative paths), `question`, the options `A`…`D`, `answer` (the option's letter), `choices` (the
released string, for the authors' prompt), `category` (the authors' `question_type` string) and `l2-category`
(its perspective); asked and scored by vlmevalkit_dataset.py. VLMEvalKit's built-in `ViewSpatialBench` reads the
same file by its own column names: `candidates` (the released string again) and `question_type`.

lmms-eval: every item, one task `benchfoundry_viewspatial`, which reuses the harness's own `viewspatial`
functions through `process_docs` (lmms_eval_utils.py), with its overall metric and one per released task.
"""

from __future__ import annotations

from pathlib import Path

from benchfoundry.benchmarks.viewspatial.categories import CATEGORIES
from benchfoundry.benchmarks.viewspatial.identity import BENCHMARK
from benchfoundry.benchmarks.viewspatial.release.readers import items
from benchfoundry.export.lmms_tasks import TaskFiles, metric, task_name, task_yaml
from benchfoundry.export.rows import Splits, refs
from benchfoundry.export.vlmevalkit import Row, options


def vlmevalkit_rows(build: Path) -> list[Row]:
    rows = []
    for item in items(build):
        names = item.meta["image_path"]
        row = {
            "image_path": names,
            "question": item.question,
            **options(item),
            "answer": item.answer,
            "choices": item.meta.get("choices", "\n".join(item.options)),
            "candidates": item.meta.get("choices", "\n".join(item.options)),
            "category": item.meta["question_type"],
            "question_type": item.meta["question_type"],
            "l2-category": item.meta["question_type"].split(" - ")[0],
        }
        rows.append((row, refs(item, names)))
    return rows


def lmms_metric(question_type: str) -> str:
    """The harness's metric key of a released task string: "Camera perspective - Relative Direction" →
    "camera_perspective_relative_direction"."""
    return question_type.lower().replace(" - ", "_").replace(" ", "_")


def lmms_eval_tasks(splits: Splits, data: Path, source: str) -> TaskFiles:
    """Every item, one task."""
    body = (
        "process_docs: !function utils.process_docs\n"
        "doc_to_visual: !function utils.viewspatial_doc_to_visual\n"
        "doc_to_text: !function utils.viewspatial_doc_to_text\n"
        "doc_to_target: answer\n"
        "process_results: !function utils.viewspatial_process_results\n"
    )
    metrics = metric("overall_accuracy", "viewspatial_aggregate_results") + "".join(
        metric(f"{lmms_metric(t)}_accuracy", f"viewspatial_aggregate_{lmms_metric(t)}") for t in CATEGORIES.values()
    )
    task = task_name(BENCHMARK)
    return splits, {task: task_yaml(task, data / "test.parquet", source, body, metrics)}
