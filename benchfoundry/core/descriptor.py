"""A benchmark's descriptor: its identity and the hooks each generic room calls, as "module:attribute" strings.

A benchmark's `benchmark.py` fills one (`DESCRIPTOR = Benchmark(...)`, or `laid_out(package, ...)` for a package
laid out as the house lays a benchmark's folder out) and declares it in the
`benchfoundry.benchmarks` entry point group; configs/sections.py reads that group, once, and pipeline/benchmarks.py
is the registry the generic rooms ask. The type lives in the kernel, below both, so that a descriptor's module
imports nothing that reads the group: reading it closes no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
    commands: str | None = None  # its commands of the command line: a sequence of pipeline/commands.Command
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


#: The hooks at their places in a benchmark's package laid out as the house lays one out (DEVELOPING.md, "A
#: benchmark's folder"): field → "module:attribute" (a bare module: one copied as it is), relative to the package.
LAYOUT: dict[str, str] = {
    "plan": "build_plan:plan_text",
    "planned_items": "build_plan:planned_items",
    "scale": "scale:scaled",
    "commands": "cli:COMMANDS",
    "items": "release.readers:items",
    "release_items": "release.readers:release_items",
    "export_rows": "release.readers:splits",
    "card": "release.card:CARD",
    "evaluation": "harnesses.evaluation:EVALUATION",
    "vlmevalkit_dataset": "harnesses.vlmevalkit_dataset",
    "lmms_eval": "harnesses.harness:lmms_eval_tasks",
    "lmms_eval_utils": "harnesses.lmms_eval_utils",
}
#: The fields that name a hook (besides each `vlmevalkit` file's rows).
HOOK_FIELDS = frozenset({*LAYOUT, "config", "flow", "plan_against", "prune", "site_folders"})


def laid_out(package: str, **fields: Any) -> Benchmark:
    """The descriptor of a benchmark whose package is laid out as the house lays one out: LAYOUT's hooks, and
    `fields`, whose hooks (and each `vlmevalkit` file's rows) are named relative to `package` ("flow:odi_flow")."""
    named = {k: f"{package}.{v}" if k in HOOK_FIELDS else v for k, v in {**LAYOUT, **fields}.items()}
    named["vlmevalkit"] = tuple((stem, f"{package}.{rows}") for stem, rows in fields.get("vlmevalkit", ()))
    return Benchmark(**named)
