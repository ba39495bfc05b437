"""lmms-eval task folders, one per benchmark: run with `lmms-eval --include_path <folder> --tasks <task>`.

    <to>/lmms-eval/benchfoundry_<benchmark>/  <task>.yaml (one or more), utils.py, README.md, croissant.json,
                                              data/<split>.parquet

A benchmark's descriptor names the function that picks the splits to write and makes the YAML of each task
(`lmms_eval`, from the helpers here) and the module copied as `utils.py` (`lmms_eval_utils`, which runs inside
lmms-eval and imports nothing of the project). Each YAML loads its Parquet (Image features, export/hf.py) with
`dataset_path: parquet` by absolute path (export again after moving the folder).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from benchfoundry.core.atomic_files import write_bytes_atomic
from benchfoundry.core.plugins import resolve
from benchfoundry.export import rows
from benchfoundry.export.copied import module_source
from benchfoundry.export.hf import write_dataset
from benchfoundry.pipeline.benchmarks import get

GENERATION = "generation_kwargs:\n  max_new_tokens: 128\n  temperature: 0\n  do_sample: false\n"

#: What JSON writes as itself but YAML reads as a line break or refuses in a double-quoted scalar.
YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff]")
#: What a benchmark's `lmms_eval` function returns: the splits to write, and {task name: its YAML}.
TaskFiles = tuple[rows.Splits, dict[str, str]]


def task_name(benchmark: str) -> str:
    """The benchmark's task folder, and its task's name (a benchmark with several tasks adds a suffix)."""
    return f"benchfoundry_{benchmark}"


def scalar(value: str) -> str:
    """A YAML scalar holding `value` and nothing else: a JSON string (a double-quoted YAML scalar), so that a
    released value with a newline, a `!tag` or a `key:` stays one string and never becomes YAML structure. The
    characters YAML breaks a line at or refuses unescaped (U+0085, U+2028, U+2029, the other C1 controls, a byte
    order mark) are escaped too, which JSON leaves as they are."""
    return YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(str(value), ensure_ascii=False))


def metric(name: str, aggregation: str) -> str:
    """One entry of `metric_list`: the metric (a value, quoted: it may come from released data) and the
    `utils.py` function that aggregates it (the project's own name, an identifier)."""
    if not aggregation.isidentifier():
        raise ValueError(f"lmms-eval aggregation {aggregation!r} is not a utils.py function name")
    return f"  - metric: {scalar(name)}\n    aggregation: !function utils.{aggregation}\n    higher_is_better: true\n"


def task_yaml(task: str, data_file: Path, source: str, body: str, metrics: str) -> str:
    """A task's YAML: every value from the build (the task's name, the build's and the data's paths) written as
    a quoted scalar, and none in a comment (a comment ends at a character YAML takes for a line break)."""
    return (
        "# Exported by `benchfoundry export lmms-eval` (metadata.source: the build). Run: lmms-eval --include_path\n"
        "# <the folder that holds this task's folder> --tasks <task>. The data file's path is absolute: export\n"
        "# again after moving this folder.\n"
        f"task: {scalar(task)}\n"
        f"metadata:\n  source: {scalar(source)}\n"
        "dataset_path: parquet\n"
        f"dataset_kwargs:\n  data_files:\n    test: {scalar(str(data_file))}\n"
        "test_split: test\n"
        "output_type: generate_until\n"
        f"{body}{GENERATION}metric_list:\n{metrics}"
    )


def export(benchmark: str, build: Path, folder: Path) -> dict[str, Any]:
    """The task folder of one benchmark: its data, utils.py and YAML(s), as its descriptor names them
    (pipeline/benchmarks.py)."""
    descriptor = get(benchmark)
    if descriptor.lmms_eval is None or descriptor.lmms_eval_utils is None:
        raise ValueError(f"{benchmark}: no lmms-eval task")
    utils = module_source(descriptor.lmms_eval_utils, f"{benchmark}: lmms-eval utils")
    folder = folder / task_name(benchmark)
    data = folder.absolute() / "data"
    splits, yamls = resolve(descriptor.lmms_eval)(rows.splits_of(benchmark, build), data, str(build))
    written = write_dataset(folder, benchmark, splits, str(build))
    write_bytes_atomic(folder / "utils.py", utils)
    for task, text in yamls.items():
        write_bytes_atomic(folder / f"{task}.yaml", text.encode())
    return {**written, "tasks": sorted(yamls)}
