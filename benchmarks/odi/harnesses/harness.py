"""ODI-Bench in the harnesses' formats (its descriptor's `vlmevalkit` and `lmms_eval` hooks; the generic writers
are export/vlmevalkit.py and export/lmms_tasks.py).

VLMEvalKit: `benchfoundry_ODI.tsv`, the closed items, multiple choice (VLMEvalKit's CustomMCQDataset, asked and
scored by vlmevalkit_dataset.py), and `benchfoundry_ODI_open.tsv`, the open items (CustomVQADataset: they need
the judge, `benchfoundry eval odi`). Columns: `image_path` (the panorama's released path), `question`, the
options `A`…`D` (closed items), `answer` (the option's letter; for an open item the reference), `category` (the
task), `l2-category` (`general` or `spatial`) and `id`.

lmms-eval: the closed items, one task `benchfoundry_odi`, asked with lettered options (lmms_eval_utils.py),
accuracy overall and per task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.odi.identity import BENCHMARK, SPATIAL
from benchfoundry.benchmarks.odi.release.readers import items
from benchfoundry.export.lmms_tasks import TaskFiles, metric, task_name, task_yaml
from benchfoundry.export.rows import Splits, refs
from benchfoundry.export.vlmevalkit import Row, options


def vlmevalkit_rows(build: Path, closed: bool) -> list[Row]:
    """The closed items' rows, or the open items'."""
    rows = []
    for item in items(build):
        if bool(item.options) != closed:
            continue
        names = [item.meta["image_path"]]
        row: dict[str, Any] = {"image_path": names, "question": item.question}
        if closed:
            row |= options(item)
        row |= {
            "answer": item.answer,
            "category": item.task,
            "l2-category": "spatial" if item.task in SPATIAL else "general",
            "id": item.id,
        }
        rows.append((row, refs(item, names)))
    return rows


def vlmevalkit_closed_rows(build: Path) -> list[Row]:
    return vlmevalkit_rows(build, closed=True)


def vlmevalkit_open_rows(build: Path) -> list[Row]:
    return vlmevalkit_rows(build, closed=False)


def lmms_eval_tasks(splits: Splits, data: Path, source: str) -> TaskFiles:
    """The closed items, one task."""
    closed = {"test": [r for r in splits["test"] if r.get("form") == "closed"]}
    tasks = sorted({r["task"] for r in closed["test"]})
    body = (
        "process_docs: !function utils.process_docs\n"
        "doc_to_visual: !function utils.doc_to_visual\n"
        "doc_to_text: !function utils.doc_to_text\n"
        "doc_to_target: !function utils.doc_to_target\n"
        "process_results: !function utils.process_results\n"
    )
    metrics = metric("accuracy", "mean") + "".join(metric(f"accuracy_{t}", "mean") for t in tasks)
    task = task_name(BENCHMARK)
    return closed, {task: task_yaml(task, data / "test.parquet", source, body, metrics)}
