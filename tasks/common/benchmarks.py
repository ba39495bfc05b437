"""The benchmark registry: one `Benchmark` descriptor per benchmark, read by the build, `--plan`, evaluation,
export and the report's links.

Each benchmark declares its descriptor as `DESCRIPTOR` in its own `tasks/<name>/benchmark.py`; the three
built-ins are listed in `BUILT_INS`, a new one is added with `register`. What is heavy (the flow, the readers)
is named by a dotted string, "package.module:attribute", imported by `resolve` when used, so that reading the
registry imports no flow, no Prefect and no stage.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

#: The built-in benchmarks' descriptor modules, in build order.
BUILT_INS = (
    "benchfoundry.tasks.syndor.benchmark",
    "benchfoundry.tasks.odi.benchmark",
    "benchfoundry.tasks.viewspatial.benchmark",
)


@dataclass(frozen=True)
class Benchmark:
    """A benchmark's identity and where each consumer finds its part (dotted "module:attribute" strings)."""

    name: str  # its folder under the output root, its `--only` name
    title: str  # as the authors name it: the Hugging Face dataset's and the report link's text
    section: str  # its config section (BuildConfig.section)
    flow: str  # the Prefect flow (config, out) -> outcome
    plan: str  # (config) -> the text `build --plan` prints, computed without building
    released: str  # the released file or folder, relative to the output root: present once built
    items: str  # the released-file reader: (build root) -> evaluation items
    export_rows: str  # (build root) -> {split: rows} of the Hugging Face and lmms-eval exports
    report_page: str  # its report page, relative to `<out>/report/`
    task_codes: tuple[str, ...] = ()  # the task of each item, as released
    submits_tasks: bool = False  # its flow submits shard tasks itself, so it runs on the build's runner
    vlmevalkit: tuple[tuple[str, str], ...] = ()  # (TSV file stem, (build root) -> rows), one per file
    lmms_eval: str | None = None  # (splits, data folder, source) -> (splits to write, {task: YAML})
    lmms_eval_utils: str | None = None  # the module copied as the lmms-eval task folder's utils.py
    plan_against: str | None = None  # (config, build root) -> `build --plan --out OUT`'s text against that build
    planned_items: str | None = None  # (config) -> the QA items its plan counts (build.json's `items` once built)


_REGISTERED: dict[str, Benchmark] = {}


def _load_built_ins() -> None:
    for module in BUILT_INS:
        descriptor = importlib.import_module(module).DESCRIPTOR
        _REGISTERED.setdefault(descriptor.name, descriptor)


def register(descriptor: Benchmark) -> None:
    """Add a benchmark after the built-ins; its name must be new."""
    _load_built_ins()
    if descriptor.name in _REGISTERED and _REGISTERED[descriptor.name] != descriptor:
        raise ValueError(f"benchmark {descriptor.name!r} is already registered")
    _REGISTERED[descriptor.name] = descriptor


def unregister(name: str) -> None:
    """Remove a benchmark added with `register` (a built-in stays)."""
    if name in (importlib.import_module(m).DESCRIPTOR.name for m in BUILT_INS):
        raise ValueError(f"{name!r} is a built-in benchmark")
    _REGISTERED.pop(name, None)


def registered() -> tuple[Benchmark, ...]:
    """Every benchmark, the built-ins first, in build order."""
    _load_built_ins()
    return tuple(_REGISTERED.values())


def names() -> tuple[str, ...]:
    return tuple(d.name for d in registered())


def get(name: str) -> Benchmark:
    _load_built_ins()
    if name not in _REGISTERED:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(names())}")
    return _REGISTERED[name]


def resolve(dotted: str) -> Any:
    """The attribute a "package.module:attribute" string names, its module imported now."""
    module, _, attribute = dotted.partition(":")
    if not attribute:
        raise ValueError(f"{dotted!r} is not 'module:attribute'")
    return getattr(importlib.import_module(module), attribute)
