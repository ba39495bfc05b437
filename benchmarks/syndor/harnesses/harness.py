"""SynDORBench in the harnesses' formats (its descriptor's `vlmevalkit` and `lmms_eval` hooks; the generic writers
are export/vlmevalkit.py and export/lmms_tasks.py).

VLMEvalKit: `benchfoundry_SynDOR.tsv`, both tasks, every split, free-form (VLMEvalKit's CustomVQADataset, scored
by vlmevalkit_dataset.py): `image_path` (the shown image's released path), `question` (the prompt verbatim),
`answer` (the reference), `category` (the authors' dataset name `<task>_<split>`), `l2-category` (the task),
`split`, `radius`, `lighting` and `action` (the authors' E5 reference).

lmms-eval: one task per split, `benchfoundry_syndor_<task>_<split>`, scored as the authors' harness scores a task
file (lmms_eval_utils.py), with each metric overall and per distance.
"""

from __future__ import annotations

from pathlib import Path

from benchfoundry.benchmarks.syndor.identity import BENCHMARK
from benchfoundry.benchmarks.syndor.release.readers import items
from benchfoundry.export.lmms_tasks import TaskFiles, metric, task_name, task_yaml
from benchfoundry.export.rows import Splits, refs
from benchfoundry.export.vlmevalkit import Row


def vlmevalkit_rows(build: Path) -> list[Row]:
    rows = []
    for item in items(build):
        names = [item.meta["img_path"]]
        row = {
            "image_path": names,
            "question": item.question,
            "answer": item.answer,
            "category": f"{item.task}_{item.meta['split']}",
            "l2-category": item.task,
            "split": item.meta["split"],
            "radius": item.meta["radius"],
            "lighting": item.meta["row"].get("lighting", ""),
            "action": item.meta["row"].get("action", ""),
        }
        rows.append((row, refs(item, names)))
    return rows


def _task_yaml(data: Path, source: str, split: str, distances: list[str]) -> dict[str, str]:
    body = (
        "doc_to_visual: !function utils.doc_to_visual\n"
        "doc_to_text: !function utils.doc_to_text\n"
        "doc_to_target: !function utils.doc_to_target\n"
        "process_results: !function utils.process_results\n"
    )
    if split.startswith("human_detection"):
        names = [("accuracy", "accuracy"), ("macro_f1", "macro_f1")]
    else:
        names = [("e5_score", "e5_score")]
    metrics = "".join(
        metric(f"{name}{suffix}", aggregation)
        for suffix in ["", *(f"_{d}m" for d in distances)]
        for name, aggregation in names
    )
    task = f"{task_name(BENCHMARK)}_{split}"
    return {task: task_yaml(task, data / f"{split}.parquet", source, body, metrics)}


def lmms_eval_tasks(splits: Splits, data: Path, source: str) -> TaskFiles:
    """One task per split, with a metric per distance."""
    yamls: dict[str, str] = {}
    for split, split_rows in splits.items():
        distances = sorted({f"{float(r['radius']):.1f}" for r in split_rows}, key=float)
        yamls |= _task_yaml(data, source, split, distances)
    return splits, yamls
