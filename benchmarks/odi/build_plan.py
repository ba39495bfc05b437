"""What an ODI-Bench build does, counted before it runs (`benchfoundry build CONFIG --plan`): its panoramas, the
annotation batches (one shard task each, as the flow splits them) and its Prefect task runs. Nothing is
rendered; given panoramas are listed, not read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchfoundry.benchmarks.odi.identity import BENCHMARK
from benchfoundry.benchmarks.odi.stages.panoramas import batches, list_panoramas
from benchfoundry.configs.build import BuildConfig


def plan_config(config: BuildConfig) -> dict[str, Any]:
    """Panoramas, their source, the annotator and the task runs of each stage."""
    odi = config.odi
    if odi.panorama_root is None:
        panoramas = [Path(f"{name}.png") for name in odi.synthetic.names]
        source, synthetic = "synthetic, rendered first", len(panoramas)
    else:
        panoramas = list_panoramas(Path(odi.panorama_root))
        source, synthetic = f"in {odi.panorama_root}", 0
    annotate = sum(1 for _ in batches(panoramas, odi.batch_size))
    runs = {"synthetic": synthetic, "annotate": annotate, "qa": 1}
    questions = odi.qa.budget.planned(len(panoramas))
    return {
        "questions": questions,
        "items": 2 * questions,
        "panoramas": len(panoramas),
        "source": source,
        "annotator": odi.chosen_annotator,
        "batch_size": odi.batch_size,
        "task_runs": {**runs, "total": sum(runs.values())},
    }


def format_plan(plan: dict[str, Any]) -> str:
    runs = plan["task_runs"]
    return "\n".join(
        [
            f"{BENCHMARK}: {plan['panoramas']:,} panoramas ({plan['source']}), annotator {plan['annotator']}",
            f"  QA: {plan['items']:,} items ({plan['questions']:,} questions, each closed and open; fewer when a "
            "panorama's candidates run short)",
            f"  annotate shards: {runs['annotate']:,} (at most {plan['batch_size']:,} panoramas each)",
            f"  Prefect task runs: {runs['total']:,} ("
            + ", ".join(f"{name} {runs[name]:,}" for name in runs if name != "total")
            + ")",
        ]
    )


def planned_items(config: BuildConfig) -> int:
    """The items the budget asks for: every question closed and open."""
    return int(plan_config(config)["items"])


def plan_text(config: BuildConfig) -> str:
    """What `build --plan` prints for ODI-Bench (its registry descriptor's plan)."""
    return format_plan(plan_config(config))
