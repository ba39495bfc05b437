"""Toy-Bench in the harnesses' formats: VLMEvalKit's multiple-choice TSV rows and the lmms-eval task YAML."""

from __future__ import annotations

from pathlib import Path

from benchfoundry.export.lmms_tasks import TaskFiles, metric, task_name, task_yaml
from benchfoundry.export.rows import Splits, refs
from benchfoundry.export.vlmevalkit import Row, options
from toybench.identity import BENCHMARK
from toybench.release.readers import items

#: The TSV file's stem (`--data` of VLMEvalKit).
TSV_STEM = "benchfoundry_Toy"


def vlmevalkit_rows(build: Path) -> list[Row]:
    rows = []
    for item in items(build):
        names = [item.meta["image_path"]]
        row = {
            "image_path": names,
            "question": item.question,
            **options(item),
            "answer": item.answer,
            "category": item.task,
        }
        rows.append((row, refs(item, names)))
    return rows


def lmms_eval_tasks(splits: Splits, data: Path, source: str) -> TaskFiles:
    body = (
        "doc_to_visual: !function utils.toy_doc_to_visual\n"
        "doc_to_text: !function utils.toy_doc_to_text\n"
        "doc_to_target: answer\n"
        "process_results: !function utils.toy_process_results\n"
    )
    task = task_name(BENCHMARK)
    return splits, {task: task_yaml(task, data / "test.parquet", source, body, metric("accuracy", "toy_aggregate"))}
