"""The benchmark registry: one `Benchmark` descriptor per benchmark, read by the build, `--plan`, evaluation,
export, the report's links and the command line, which never name a benchmark themselves.

A benchmark is a package of its own that declares its descriptor in the `benchfoundry.benchmarks` entry point
group of its metadata (DEVELOPING.md, "How to add a benchmark"); the three built-ins are declared so in
pyproject.toml. The registry reads the group once; `register` adds one in this process only (tests). What is
heavy (the flow, the readers) is named by a "package.module:attribute" string inside the benchmark's own
package, imported by `hook` when used (a field that names a module to copy, `lmms_eval_utils` and
`vlmevalkit_dataset`, is read as it is), so that reading the registry imports no flow, no Prefect and no stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from benchfoundry.configs import sections
from benchfoundry.core import plugins


@dataclass(frozen=True)
class Benchmark:
    """A benchmark's identity and the hooks each generic room calls (dotted "module:attribute" strings)."""

    name: str  # its folder under the build root, its config section, its `--only` and `eval` name
    title: str  # as the authors name it: the Hugging Face dataset's and the report link's text
    config: str  # its config section's model (a configs.base.Section)
    flow: str  # the Prefect flow (config, out) -> outcome
    plan: str  # (config) -> the text `build --plan` prints, computed without building
    released: str  # the released file or folder, relative to the build root: present once built
    items: str  # the released-file reader: (build root) -> evaluation items (evaluation/items.EvalItem)
    export_rows: str  # (build root) -> {split: rows} of the Hugging Face and lmms-eval exports
    report_page: str  # its report page, relative to `<out>/report/`
    order: int = 100  # its place in a build (the built-ins 10, 20, 30), then by name
    categories: tuple[str, ...] = ()  # the question category (the released `task`) of each item
    submits_tasks: bool = False  # its flow submits shard tasks itself, so it runs on the build's runner
    commands: str | None = None  # (subparsers) -> None: adds its command-line subcommands
    evaluation: str | None = None  # its evaluation.hooks.Evaluation (prompt, reply reading, scores, judge, page)
    vlmevalkit: tuple[tuple[str, str], ...] = ()  # (TSV file stem, (build root) -> rows), one per file
    vlmevalkit_dataset: str | None = None  # the module copied beside its TSV files: its VLMEvalKit dataset classes
    lmms_eval: str | None = None  # (splits, data folder, source) -> (splits to write, {task: YAML})
    lmms_eval_utils: str | None = None  # the module copied as the lmms-eval task folder's utils.py
    plan_against: str | None = None  # (config, build root) -> `build --plan --out OUT`'s text against that build
    planned_items: str | None = None  # (config) -> the QA items its plan counts (build.json's `items` once built)
    prune: str | None = None  # (build root, its outcome) -> files removed: `build --prune`
    site_folders: str | None = None  # (config) -> folders besides site-packages its packages load from
    scale: str | None = None  # (its section, 0 < f <= 1) -> the section with its counts times f, kept balanced
    front_counts: tuple[tuple[str, str], ...] = ()  # (label, "a/b" key path into its build.json outcome): front page
    release_items: str | None = None  # (path) -> evaluation items of the authors' released file or folder at path,
    # named as `released` is (its stem for another format of it), wherever it lies: `compare`
    card: str | None = None  # its export/card_facts.CardFacts: the dataset card's pretty name, summary, citation,
    # task categories, field descriptions and licensed assets (without one: its title and nothing more)


_ADDED: dict[str, Benchmark] = {}


@cache
def _declared() -> dict[str, Benchmark]:
    """The declared descriptors by name, checked once."""
    found = plugins.load_all(plugins.BENCHMARKS_GROUP)
    for entry, descriptor in found.items():
        sections.check_name(entry, f"{plugins.BENCHMARKS_GROUP}: entry {entry!r}")
        if not isinstance(descriptor, Benchmark) or descriptor.name != entry:
            raise plugins.PluginError(
                f"{plugins.BENCHMARKS_GROUP}: entry {entry!r} is not a Benchmark named {entry!r}: {descriptor!r}"
            )
    return found


def register(descriptor: Benchmark) -> None:
    """Add a benchmark in this process, with its config section; its name must be new and not reserved
    (`configs/sections.check_name`, through `register_section`)."""
    known = {**_declared(), **_ADDED}
    if known.get(descriptor.name, descriptor) != descriptor:
        raise ValueError(f"benchmark {descriptor.name!r} is already registered")
    sections.register_section(descriptor.name, plugins.resolve(descriptor.config))
    _ADDED[descriptor.name] = descriptor


def unregister(name: str) -> None:
    """Remove a benchmark added with `register` (a declared one stays)."""
    if name in _declared():
        raise ValueError(f"{name!r} is declared by an installed package")
    if _ADDED.pop(name, None) is not None:
        sections.unregister_section(name)


def registered() -> tuple[Benchmark, ...]:
    """Every benchmark, in build order."""
    return tuple(sorted({**_declared(), **_ADDED}.values(), key=lambda d: (d.order, d.name)))


def names() -> tuple[str, ...]:
    return tuple(d.name for d in registered())


def get(name: str) -> Benchmark:
    for descriptor in registered():
        if descriptor.name == name:
            return descriptor
    raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(names())}")


def hook(name: str, field: str) -> Any:
    """The object a benchmark's hook names, or None when it declares none."""
    dotted = getattr(get(name), field)
    return None if dotted is None else plugins.resolve(dotted)
