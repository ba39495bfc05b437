"""lmms-eval task folders, one per benchmark: run with `lmms-eval --include_path <folder> --tasks <task>`.

    <to>/lmms-eval/benchfoundry_viewspatial/  benchfoundry_viewspatial.yaml, utils.py, data/test.parquet
    <to>/lmms-eval/benchfoundry_odi/          benchfoundry_odi.yaml (closed items), utils.py, data/test.parquet
    <to>/lmms-eval/benchfoundry_syndor/       benchfoundry_syndor_<task>_<split>.yaml (six), utils.py, data/…

Each YAML loads its Parquet (Image features, tasks/export/hf.py) with `dataset_path: parquet` by absolute path
(export again after moving the folder); `utils.py` is a copy of this folder's `lmms_eval_<benchmark>.py`: the
ViewSpatial task reuses the harness's own `viewspatial` functions through `process_docs`, ODI asks its closed
items with lettered options, SynD scores each split as the authors' harness does.
"""

from __future__ import annotations

import json
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.tasks.common.benchmarks import get, resolve
from benchfoundry.tasks.export import rows
from benchfoundry.tasks.export.hf import write_dataset
from benchfoundry.tasks.viewspatial.task_names import RELEASED_TYPES

GENERATION = "generation_kwargs:\n  max_new_tokens: 128\n  temperature: 0\n  do_sample: false\n"


def task_name(benchmark: str) -> str:
    return f"benchfoundry_{benchmark}"


def viewspatial_metric(question_type: str) -> str:
    """The harness's metric key of a released task string: "Camera perspective - Relative Direction" →
    "camera_perspective_relative_direction"."""
    return question_type.lower().replace(" - ", "_").replace(" ", "_")


def _metric(name: str, aggregation: str) -> str:
    return f"  - metric: {name}\n    aggregation: !function utils.{aggregation}\n    higher_is_better: true\n"


def task_yaml(task: str, data_file: Path, source: str, body: str, metrics: str) -> str:
    return (
        f"# {task}: exported by `benchfoundry export lmms-eval` from the build at {source}.\n"
        f"# Run: lmms-eval --include_path {data_file.parent.parent} --tasks {task} …\n"
        "# The data file's path is absolute: export again after moving this folder.\n"
        f"task: {task}\n"
        "dataset_path: parquet\n"
        f"dataset_kwargs:\n  data_files:\n    test: {json.dumps(str(data_file))}\n"
        "test_split: test\n"
        "output_type: generate_until\n"
        f"{body}{GENERATION}metric_list:\n{metrics}"
    )


def _viewspatial_yaml(data: Path, source: str) -> dict[str, str]:
    body = (
        "process_docs: !function utils.process_docs\n"
        "doc_to_visual: !function utils.viewspatial_doc_to_visual\n"
        "doc_to_text: !function utils.viewspatial_doc_to_text\n"
        "doc_to_target: answer\n"
        "process_results: !function utils.viewspatial_process_results\n"
    )
    metrics = _metric("overall_accuracy", "viewspatial_aggregate_results") + "".join(
        _metric(f"{viewspatial_metric(t)}_accuracy", f"viewspatial_aggregate_{viewspatial_metric(t)}")
        for t in RELEASED_TYPES.values()
    )
    task = task_name("viewspatial")
    return {task: task_yaml(task, data / "test.parquet", source, body, metrics)}


def _odi_yaml(data: Path, source: str, tasks: list[str]) -> dict[str, str]:
    body = (
        "process_docs: !function utils.process_docs\n"
        "doc_to_visual: !function utils.doc_to_visual\n"
        "doc_to_text: !function utils.doc_to_text\n"
        "doc_to_target: !function utils.doc_to_target\n"
        "process_results: !function utils.process_results\n"
    )
    metrics = _metric("accuracy", "mean") + "".join(_metric(f"accuracy_{t}", "mean") for t in tasks)
    task = task_name("odi")
    return {task: task_yaml(task, data / "test.parquet", source, body, metrics)}


def _syndor_yaml(data: Path, source: str, split: str, distances: list[str]) -> dict[str, str]:
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
        _metric(f"{name}{suffix}", aggregation)
        for suffix in ["", *(f"_{d}m" for d in distances)]
        for name, aggregation in names
    )
    task = f"{task_name('syndor')}_{split}"
    return {task: task_yaml(task, data / f"{split}.parquet", source, body, metrics)}


TaskFiles = tuple[rows.Splits, dict[str, str]]


def viewspatial_tasks(splits: rows.Splits, data: Path, source: str) -> TaskFiles:
    """ViewSpatial-Bench: every item, one task."""
    return splits, _viewspatial_yaml(data, source)


def odi_tasks(splits: rows.Splits, data: Path, source: str) -> TaskFiles:
    """ODI-Bench: the closed items, one task."""
    closed = {"test": [r for r in splits["test"] if r.get("form") == "closed"]}
    return closed, _odi_yaml(data, source, sorted({r["task"] for r in closed["test"]}))


def syndor_tasks(splits: rows.Splits, data: Path, source: str) -> TaskFiles:
    """SynDORBench: one task per split, with a metric per distance."""
    yamls: dict[str, str] = {}
    for split, split_rows in splits.items():
        distances = sorted({f"{float(r['radius']):.1f}" for r in split_rows}, key=float)
        yamls |= _syndor_yaml(data, source, split, distances)
    return splits, yamls


def export(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """The task folder of one benchmark: its data, utils.py and YAML(s), as its descriptor names them
    (tasks/common/benchmarks.py)."""
    descriptor = get(benchmark)
    if descriptor.lmms_eval is None or descriptor.lmms_eval_utils is None:
        raise ValueError(f"{benchmark}: no lmms-eval task")
    folder = folder / task_name(benchmark)
    data = folder.absolute() / "data"
    splits, yamls = resolve(descriptor.lmms_eval)(rows.splits_of(benchmark, build), data, str(build))
    written = write_dataset(folder, descriptor.title, splits, str(build))
    utils = find_spec(descriptor.lmms_eval_utils)
    if utils is None or utils.origin is None:
        raise ValueError(f"{benchmark}: lmms-eval utils module {descriptor.lmms_eval_utils} not found")
    write_bytes_atomic(folder / "utils.py", Path(utils.origin).read_bytes())
    for task, text in yamls.items():
        write_bytes_atomic(folder / f"{task}.yaml", text.encode())
    return {**written, "tasks": sorted(yamls)}
